"""Work off the GUI thread: pipeline requests and small background jobs, results as Qt signals.

Qt widgets may only be touched on the GUI thread, and a blocking call there freezes the window.
Every slow call (a request, a model load, a transcription, a download, a thumbnail) runs on a
plain Python thread; it talks back only by emitting signals of a QObject that lives on the GUI
thread, which Qt delivers as queued calls. Every thread started here is tracked so the window can
cancel and join them all on close (tests check that none is left running).
"""

from __future__ import annotations

import logging
import threading
import traceback
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)

_threads: set[threading.Thread] = set()
_threads_lock = threading.Lock()


def live_threads() -> list[threading.Thread]:
    """Threads started through this module that are still running."""
    with _threads_lock:
        return [t for t in _threads if t.is_alive()]


def join_all(timeout: float = 10.0) -> bool:
    """Wait for every tracked thread (each up to ``timeout``); True when none is left."""
    for t in live_threads():
        t.join(timeout)
    return not live_threads()


def _start(target: Callable[[], None], name: str) -> threading.Thread:
    def run() -> None:
        try:
            target()
        finally:
            with _threads_lock:
                _threads.discard(threading.current_thread())

    t = threading.Thread(target=run, name=name, daemon=True)
    with _threads_lock:
        _threads.add(t)
    t.start()
    return t


class Job(QObject):
    """``fn()`` on a worker thread; ``done(result)`` or ``failed(message)`` on the GUI thread.

    Keep a reference to the Job (the owner does, through ``jobs``) until it has reported."""

    done = Signal(object)
    failed = Signal(str)
    progress = Signal(object)
    released = Signal()  # last signal: the GUI thread then drops its reference

    def __init__(self, fn: Callable[..., Any], name: str = "job", *, with_progress: bool = False, parent: QObject | None = None):
        super().__init__(parent)
        self._fn = fn
        self._name = name
        self._with_progress = with_progress
        self.thread: threading.Thread | None = None

    def start(self) -> "Job":
        # Dropping the last reference on the worker thread would delete the QObject before its
        # queued signals are delivered; so the GUI thread releases it, after the last signal.
        _pending.add(self)
        self.released.connect(self._release)
        self.thread = _start(self._run, f"jarvis-{self._name}")
        return self

    def _release(self) -> None:
        _pending.discard(self)

    def _run(self) -> None:
        try:
            result = self._fn(self.progress.emit) if self._with_progress else self._fn()
        except Exception as e:  # shown to the user; the traceback goes to the log only
            log.debug("%s failed:\n%s", self._name, traceback.format_exc())
            self.failed.emit(str(e) or type(e).__name__)
        else:
            self.done.emit(result)
        self.released.emit()


#: Jobs whose thread is running: keeps their QObject alive until the signals are emitted.
_pending: set[Job] = set()


def _guarded(callback: Callable[..., None], context: QObject | None) -> Callable[..., None]:
    """``callback`` unless its widget was deleted meanwhile (a dialog closed, a conversation
    cleared while a thumbnail loaded): a late result is then dropped, not a crash."""
    owner = context if context is not None else getattr(callback, "__self__", None)
    if not isinstance(owner, QObject):
        return callback

    def call(*args: Any) -> None:
        if shiboken6.isValid(owner):
            callback(*args)

    return call


def run_job(fn: Callable[..., Any], on_done: Callable[[Any], None] | None = None,
            on_failed: Callable[[str], None] | None = None, *, name: str = "job",
            on_progress: Callable[[Any], None] | None = None, parent: QObject | None = None,
            context: QObject | None = None) -> Job:
    """Start ``fn`` on a worker thread and connect the callbacks (which run on the GUI thread).
    With ``on_progress``, ``fn`` is called with a callable that reports progress. Callbacks are
    skipped once ``context`` (default: the object a bound-method callback belongs to) is deleted."""
    job = Job(fn, name, with_progress=on_progress is not None, parent=parent)
    if on_done:
        job.done.connect(_guarded(on_done, context))
    if on_failed:
        job.failed.connect(_guarded(on_failed, context))
    if on_progress:
        job.progress.connect(_guarded(on_progress, context))
    return job.start()


class RequestWorker(QObject):
    """One ``Assistant.ask`` on a worker thread; pipeline events are relayed as ``event``.

    ``finished`` carries the AskResult (or None with ``crashed`` emitted first when the pipeline
    raised, which it should not: the window still returns to idle)."""

    event = Signal(object)
    finished = Signal(object)
    crashed = Signal(str)

    def __init__(self, assistant: Any, text: str, files: list[str], session_id: str | None,
                 listeners: list[Callable[[Any], None]] | None = None, parent: QObject | None = None):
        super().__init__(parent)
        from ..cancel import CancelToken

        self.assistant = assistant
        self.text = text  # Assistant.ask cleans it (escapes, NULs, lone surrogates) before anything else
        self.files = list(files)
        self.session_id = session_id
        self.cancel_token = CancelToken()
        self._listeners = list(listeners or [])  # called on the worker thread (e.g. the speaker)
        self.thread: threading.Thread | None = None
        self.result: Any = None

    def start(self) -> "RequestWorker":
        self.thread = _start(self._run, "jarvis-request")
        return self

    def cancel(self) -> None:
        self.cancel_token.cancel()

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def _on_event(self, e: Any) -> None:
        for listener in self._listeners:
            try:
                listener(e)
            except Exception:
                log.exception("listener failed on %s", type(e).__name__)
        self.event.emit(e)

    def _run(self) -> None:
        result = None
        try:
            result = self.assistant.ask(self.text, self.files, session_id=self.session_id,
                                        on_event=self._on_event, cancel=self.cancel_token)
        except Exception as e:
            log.exception("the request crashed")
            self.crashed.emit(f"The request failed unexpectedly: {e}")
        self.result = result
        self.finished.emit(result)
