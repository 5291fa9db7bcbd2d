"""Cancellation shared by every layer: the pipeline sets it, experts and voice check it."""

from __future__ import annotations

import threading
from typing import Callable


class CancelToken:
    """Checked between steps (and inside them where a library allows) to stop a request."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            self._event.set()
            callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb()

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when cancelled (at once if already cancelled): lets waiters wake up."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; returns True early when cancelled."""
        return self._event.wait(seconds)


class Cancelled(Exception):
    """Raised inside a stage when the user cancelled the request."""
