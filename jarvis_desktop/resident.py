"""A resident planner, so that ``jarvis plan`` answers in a fraction of a second.

Why: a fresh process spends seconds importing and loading spaCy for a plan that takes about 15 ms.
``jarvis plan`` therefore starts this process once (in the background, detached) and sends later
requests to it over a Unix socket in the user's private data folder. The resident process runs
the very code the command runs in-process (``plan_output``), and it answers only a caller whose
settings, environment and installed code are the ones it started with: a new API key, an edited
``settings.toml`` or an updated install makes it step down, and the caller starts a fresh one.
It leaves after ``resident_planner_minutes`` without a request (0 turns the whole thing off), and
a caller that cannot reach it plans in-process as before, so it never stands in the way.

Nothing leaves the machine: the socket is a file only its user can open, and what crosses it is
the request, the attached files' paths and a hash of the caller's settings (never the settings).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__
from .config import Settings, load_settings, resources_dir
from .media import Attachment

log = logging.getLogger(__name__)

SOCKET_NAME = "planner.sock"
LOCK_NAME = "planner.lock"
LOG_NAME = "planner.log"
#: Environment variables that can change what a plan is or how it is made (besides the settings'
#: own, which the settings carry): the resident process must have started with the same ones.
ENV_PREFIXES = ("JARVIS_", "OPENAI_", "AZURE_", "HF_", "HUGGINGFACE_", "TRANSFORMERS_", "SPACY_")
#: How long a caller waits for a planner it started: loading spaCy cold can take several seconds.
START_WAIT_S = 60.0
#: How many times a caller starts a planner before planning by itself. Under CPU load a planner
#: started to replace a killed one was seen to leave without answering (once in CI, once here; the
#: cause is not known): one more start then serves, and the log says why none did
START_TRIES = 2
#: A request that ends a planner's warm-up: loads the parser, the classifier, the word vectors and
#: the clause encoder.
WARM_UP_REQUEST = "describe this photo and read the description to me out loud"
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux, 104 on macOS


@dataclass
class PlanOutput:
    """What ``jarvis plan`` prints and returns, wherever the plan was made."""

    stdout: str
    stderr: str
    code: int

    def to_json(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "stderr": self.stderr, "code": self.code}


def plan_output(assistant: Any, request: str, attachments: list[Attachment]) -> PlanOutput:
    """Plan ``request`` and render it as the command shows it: JSON on stdout, notes on stderr."""
    check, note = assistant.make_plan(request, attachments)
    plan = check.plan
    # the planner's own notes say why a plan is empty or shorter than asked ("skipped image-to-text:
    # it needs image input and none was given"); an error already said is not said twice
    said = set(check.errors)
    notes = ([f"planner: {note}"] + [f"note: {n}" for n in (plan.notes if plan is not None else []) if n not in said]
             + [f"repaired: {r}" for r in check.repairs] + [f"error: {e}" for e in check.errors])
    stdout = json.dumps(plan.to_json() if plan else [], ensure_ascii=False, indent=2) + "\n"
    code = 0 if check.ok or (plan is not None and not check.errors) else 1
    return PlanOutput(stdout, "".join(n + "\n" for n in notes), code)


# -- what makes two processes plan alike -------------------------------------------------------
def fingerprint(settings: Settings | None = None, env: dict[str, str] | None = None) -> str:
    """A hash of everything a plan depends on besides the request: the settings (file and
    environment, secrets included, as read without the keyring: pass them when already read),
    the relevant environment, the Python running and the installed code and planner weights."""
    env = dict(os.environ if env is None else env)
    h = hashlib.sha256()
    settings = settings or load_settings(env=env)
    h.update(json.dumps(settings.__dict__, sort_keys=True, default=str).encode())
    h.update(json.dumps(sorted((k, v) for k, v in env.items() if k.startswith(ENV_PREFIXES))).encode())
    h.update(f"{sys.executable}\0{__version__}".encode())
    for path, stat in _code_files():
        h.update(f"{path}\0{stat.st_mtime_ns}\0{stat.st_size}\n".encode())
    return h.hexdigest()


def _code_files() -> list[tuple[str, os.stat_result]]:
    roots = [Path(__file__).resolve().parent, resources_dir() / "planner"]
    out: list[tuple[str, os.stat_result]] = []
    stack = [str(r) for r in roots if r.is_dir()]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for e in entries:
                if e.is_dir(follow_symlinks=False) and e.name != "__pycache__":
                    stack.append(e.path)
                elif e.is_file() and not e.name.endswith(".pyc"):
                    out.append((e.path, e.stat()))
    return sorted(out, key=lambda x: x[0])


def socket_path(settings: Settings) -> Path | None:
    """Where the resident planner listens, or None where it cannot (no Unix sockets, path too long)."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    path = settings.data_path / SOCKET_NAME
    return path if len(os.fsencode(str(path))) <= _MAX_SOCKET_PATH else None


# -- the caller's side ------------------------------------------------------------------------
def ask_resident(request: str, attachments: list[Attachment], settings: Settings) -> PlanOutput | None:
    """The plan from the resident planner (started first when none runs), or None: then plan here.

    ``settings`` are the caller's, read without the keyring (``load_settings(env=...)``)."""
    if settings.resident_planner_minutes <= 0:
        return None
    path = socket_path(settings)
    if path is None:
        return None
    try:
        message = {"fingerprint": fingerprint(settings), "request": request,
                   "files": [[str(a.path), a.kind] for a in attachments]}
        timeout = 3 * settings.llm_timeout + 30  # a planner that waits on a slow controller is not dead
        answer = _send(path, message, timeout)
        for _ in range(START_TRIES):
            if answer is not None and not answer.get("stale"):
                break
            started = time.monotonic()
            if start_resident(settings, path):
                answer = _send(path, message, timeout)
            elif time.monotonic() - started >= START_WAIT_S:  # not worth a second wait
                log.info("resident planner not used: the one started did not listen within %.0f s", START_WAIT_S)
                return None
        if answer is None or answer.get("stale") or "stdout" not in answer:
            why = "it answered nothing" if answer is None else "its settings or code differ" if answer.get("stale") else "no plan in its answer"
            log.info("resident planner not used: %s", why)
            return None
        log.info("plan from the resident planner (pid %s)", answer.get("pid"))
        return PlanOutput(str(answer["stdout"]), str(answer["stderr"]), int(answer["code"]))
    except Exception as e:  # whatever went wrong, planning here still works
        log.info("resident planner not used: %s: %s", type(e).__name__, e)
        return None


def _send(path: Path, message: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """One request and its reply, or None when nobody listens there (or it hung up)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(2.0)
        try:
            s.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError):
            return None
        s.settimeout(timeout)
        try:
            s.sendall(json.dumps(message).encode() + b"\n")
            s.shutdown(socket.SHUT_WR)
            data = _read_all(s)
        except (ConnectionResetError, BrokenPipeError):
            return None  # it went away mid-request (killed, crashed): as if nobody listened
    return json.loads(data) if data else None


def _read_all(s: socket.socket) -> bytes:
    chunks = []
    while chunk := s.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def start_resident(settings: Settings, path: Path) -> bool:
    """Start a resident planner in the background and wait until it listens; False if it did not."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOG_NAME, "ab") as err:
        proc = subprocess.Popen([sys.executable, "-m", "jarvis_desktop.resident", "--idle-minutes",
                                 str(settings.resident_planner_minutes)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True, close_fds=True)
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        if _listening(path):
            return True
        if proc.poll() is not None and not _lock_held(folder / LOCK_NAME):
            return _listening(path)  # it left (another one may have taken its place)
        time.sleep(0.05)
    return False


def _listening(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(str(path))
            return True
        except OSError:
            return False


def _lock_held(lock: Path) -> bool:
    import fcntl

    try:
        with open(lock, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
            return False
    except OSError:
        return False


# -- the resident process ---------------------------------------------------------------------
def serve(idle_minutes: float, settings: Settings | None = None) -> int:
    """Hold a warm assistant and answer plan requests until ``idle_minutes`` pass without one."""
    import fcntl

    settings = settings or load_settings()  # with the keyring, as the command itself reads them
    path = socket_path(settings)
    if path is None:
        return 2
    mine = fingerprint()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = open(path.parent / LOCK_NAME, "a")
    deadline = time.monotonic() + 10.0  # a planner stepping down still holds the lock a moment
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline or _listening(path):
                return 0  # another resident planner serves this folder
            time.sleep(0.05)
    from .pipeline.assistant import Assistant

    assistant = Assistant(settings)
    server = None
    try:
        assistant.offline_planner().plan(WARM_UP_REQUEST)
        path.unlink(missing_ok=True)  # left by one that was killed: the lock says nobody serves it
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_mask = os.umask(0o077)
        try:
            server.bind(str(path))
        finally:
            os.umask(old_mask)
        server.listen(16)
        server.settimeout(max(1.0, 60 * idle_minutes))
        log.info("resident planner %d listening on %s", os.getpid(), path)
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                return 0
            with conn:
                if not _answer(conn, assistant, mine):
                    # step down before saying so: the caller's next connection finds no stale planner
                    server.close()
                    path.unlink(missing_ok=True)
                    server = None
                    _reply(conn, {"stale": True})
                    return 0
    finally:
        if server is not None:
            server.close()
            path.unlink(missing_ok=True)
        assistant.close()
        lock.close()


def _answer(conn: socket.socket, assistant: Any, mine: str) -> bool:
    """Answer one caller; False (nothing said yet) when this planner must step down because the
    caller's settings, environment or code differ from its own."""
    conn.settimeout(10.0)
    try:
        data = _read_all(conn)
        message = json.loads(data) if data else None
    except (OSError, ValueError) as e:
        log.warning("a caller sent no readable request: %s", e)
        return True
    if not isinstance(message, dict) or "fingerprint" not in message:
        return True  # a caller checking that this planner listens, or not a caller at all
    if message["fingerprint"] != mine:
        return False
    try:
        attachments = [Attachment(Path(p), kind) for p, kind in message.get("files", [])]
        out = plan_output(assistant, str(message.get("request", "")), attachments)
        _reply(conn, {**out.to_json(), "pid": os.getpid()})
    except Exception:  # the caller plans by itself; this planner stays for the next one
        log.exception("resident planner failed on a request")
    return True


def _reply(conn: socket.socket, answer: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(answer, ensure_ascii=False).encode())
    except OSError as e:  # the caller gave up (Ctrl+C): nothing to do
        log.info("caller left before the answer: %s", e)


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m jarvis_desktop.resident", description=__doc__.splitlines()[0])
    p.add_argument("--idle-minutes", type=float, default=10.0)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill`: remove the socket on the way out
    return serve(args.idle_minutes)


if __name__ == "__main__":
    raise SystemExit(main())
