"""Warm worker threads shared by the requests of one assistant.

Starting a thread costs far more than handing it a job; a plan that fans out to many tasks would
pay that cost on its critical path with a fresh pool per request. This pool keeps finished workers
waiting for the next job (they leave after a minute idle) and grows whenever none is free, so a
task that hangs past its timeout never starves the tasks after it. How many tasks run at once is
the scheduler's decision, not the pool's.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)


class WorkerPool:
    def __init__(self, idle_seconds: float = 60.0, name: str = "jarvis-worker"):
        self.idle_seconds = idle_seconds
        self.name = name
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # workers waiting for a job and not yet promised one
        self._count = 0
        self._closed = False
        self._threads: list[threading.Thread] = []

    @property
    def threads(self) -> int:
        with self._lock:
            return self._count

    def submit(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on a warm worker, or on a new one when all are busy."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool was shut down")
            if self._idle > 0:
                self._idle -= 1  # promised to one waiting worker
                spawn = False
            else:
                self._count += 1
                spawn = True
        self._jobs.put(fn)
        if spawn:
            t = threading.Thread(target=self._work, name=f"{self.name}-{self._count}", daemon=True)
            with self._lock:
                self._threads = [x for x in self._threads if x.is_alive()] + [t]
            t.start()

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=self.idle_seconds)
                if job is None:  # shutdown: leave now
                    with self._lock:
                        self._count -= 1
                    return
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # nobody promised this worker a job: leave
                        self._idle -= 1
                        self._count -= 1
                        return
                continue  # a job was promised; it is on its way
            try:
                job()
            except Exception:  # jobs report their own errors; this only keeps the worker alive
                log.exception("a worker job raised")
            with self._lock:
                if self._closed:
                    self._count -= 1
                    return
                self._idle += 1

    def shutdown(self, timeout: float = 0.0) -> None:
        """Let idle workers go now; busy ones leave when their job ends. No new jobs after this.
        ``timeout``: wait up to that many seconds in all for the workers to be gone."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, 0
            threads = list(self._threads)
        for _ in range(idle):
            self._jobs.put(None)
        deadline = time.monotonic() + timeout
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
