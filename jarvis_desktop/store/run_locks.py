"""Which "running" requests still have a live process behind them.

A request is written as ``running`` when it starts and gets its end when it finishes; a process
killed in between (``kill -9``, a power cut) never writes the end. Each running request therefore
holds an OS file lock (``flock``; ``msvcrt.locking`` on Windows) on ``<db>.running/<id>.lock``. The
OS drops the lock when the process dies however it dies, so the next start can tell a request
that is still running in another process (window, server, CLI) from one that was interrupted.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


def _try_lock(fd: int) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        return True
    except OSError:
        return False


@contextmanager
def exclusive_file(path: Path) -> Iterator[None]:
    """Hold an OS lock on ``path`` for the block, waiting for other processes that hold it: two
    processes opening a new session log at once (a window and a CLI) must not both create its
    tables or both mark the same request interrupted."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # a read-only folder: nothing to coordinate with
        yield
        return
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        yield
    finally:
        os.close(fd)  # closing the descriptor drops the lock


class RunLocks:
    """One lock file per running request, held by the process that runs it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def _path(self, request_id: str) -> Path:
        safe = "".join(c for c in request_id if c.isalnum() or c in "-_")[:80] or "request"
        return self.folder / f"{safe}.lock"

    def acquire(self, request_id: str) -> None:
        """Mark ``request_id`` as running in this process (best effort: a read-only folder only
        means a later start may call it interrupted while it runs)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._path(request_id), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return
        if _try_lock(fd):
            with self._lock:
                self._held[request_id] = fd
        else:
            os.close(fd)

    def release(self, request_id: str) -> None:
        with self._lock:
            fd = self._held.pop(request_id, None)
        if fd is None:
            return
        try:
            self._path(request_id).unlink(missing_ok=True)
        except OSError:
            pass
        os.close(fd)

    def is_alive(self, request_id: str) -> bool:
        """Whether some live process (this one included) still runs ``request_id``."""
        with self._lock:
            if request_id in self._held:
                return True
        path = self._path(request_id)
        if not path.exists():
            return False
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            return False
        try:
            if not _try_lock(fd):
                return True
            try:
                path.unlink(missing_ok=True)  # its process is gone: the lock file goes too
            except OSError:
                pass
            return False
        finally:
            os.close(fd)

    def release_all(self) -> None:
        for rid in list(self._held):
            self.release(rid)
