"""Typed events every stage emits. The CLI, the session log, the GUI and the server all listen to
the same stream, so what a person sees and what is stored can never disagree.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from ..cancel import Cancelled, CancelToken  # noqa: F401  (re-exported for listeners)

log = logging.getLogger(__name__)


@dataclass
class Event:
    request_id: str
    at: float = field(default_factory=time.time, kw_only=True)

    @property
    def kind(self) -> str:
        return type(self).__name__

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["event"] = self.kind
        return d


@dataclass
class RequestStarted(Event):
    text: str
    files: list[str]


@dataclass
class StageStarted(Event):
    stage: str  # plan | select | execute | respond


@dataclass
class PlanReady(Event):
    plan: list[dict[str, Any]]
    source: str  # llm | offline | hybrid | fallback
    seconds: float
    repairs: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class ModelChosen(Event):
    task_id: int
    task: str
    model_id: str
    reason: str
    candidates: list[str] = field(default_factory=list)
    where: str = ""  # local-cpu | local-gpu | hosted | controller


@dataclass
class TaskStarted(Event):
    task_id: int
    task: str
    model_id: str
    where: str


@dataclass
class TaskFinished(Event):
    task_id: int
    task: str
    model_id: str
    where: str
    seconds: float
    text: str = ""
    files: list[str] = field(default_factory=list)
    data: Any = None


@dataclass
class TaskFailed(Event):
    task_id: int
    task: str
    model_id: str
    error: str
    seconds: float


@dataclass
class TaskSkipped(Event):
    task_id: int
    task: str
    reason: str


@dataclass
class SettingsChanged(Event):
    """The request changed a setting ("speak slower"): the new values, already in effect."""

    changes: dict[str, Any] = field(default_factory=dict)


@dataclass
class AnswerToken(Event):
    text: str


@dataclass
class AnswerDone(Event):
    text: str
    seconds: float
    composer: str = "controller"  # controller | composer (deterministic) | voice-command | repeat (the last answer again)


@dataclass
class RequestFailed(Event):
    message: str


@dataclass
class RequestCancelled(Event):
    stage: str


Listener = Callable[[Event], None]


class EventBus:
    """Fan-out of events to listeners; a failing listener is logged, never breaks the pipeline."""

    def __init__(self, listeners: list[Listener] | None = None):
        self._listeners: list[Listener] = list(listeners or [])
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: Event) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a listener's bug must not break a user's request
                log.exception("event listener failed on %s", event.kind)
