"""The Expert interface: a runner for one or more task types, and the values it returns.

A *backend* knows how to run a family of models (faster-whisper, piper, transformers pipelines,
diffusers, hosted inference...). The registry asks each backend whether it can run a given
(task, model id) and where; the scheduler then calls ``run``. Backends load their heavy libraries
lazily, inside ``run``, so importing this package stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..cancel import CancelToken


class ExpertError(RuntimeError):
    """A task failed for a reason the user can act on; the message is shown as is."""


class ModelMissingError(ExpertError):
    """The chosen model is not on this machine (and may not be fetched now)."""

    def __init__(self, task: str, model_id: str, detail: str = ""):
        self.task = task
        self.model_id = model_id
        msg = (
            f"{task}: the model '{model_id}' is not in the local model cache. "
            f"Fetch it with: jarvis models pull {model_id}"
        )
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


@dataclass
class TaskOutput:
    """What one task produced. ``text`` is always set: it is what a later text argument receives
    and what the answer quotes. Files are absolute paths in the session's output folder."""

    text: str = ""
    image: Path | None = None
    audio: Path | None = None
    video: Path | None = None
    data: Any = None
    model_id: str = ""
    where: str = ""  # local-cpu | local-gpu | local-mps | hosted | controller

    def file_of(self, kind: str) -> Path | None:
        return {"image": self.image, "audio": self.audio, "video": self.video}.get(kind)

    @property
    def files(self) -> list[Path]:
        return [p for p in (self.image, self.audio, self.video) if p is not None]


@dataclass
class RunContext:
    """What a backend may use while running one task."""

    output_dir: Path
    device: str = "cpu"
    cancel: CancelToken = field(default_factory=CancelToken)
    task_id: int = 0
    settings: Any = None

    def output_path(self, stem: str, suffix: str) -> Path:
        """A fresh file name in the session's output folder, never overwriting an earlier one."""
        self.output_dir.mkdir(parents=True, exist_ok=True)
        base = f"task{self.task_id}-{stem}"
        path = self.output_dir / f"{base}{suffix}"
        n = 1
        while path.exists():
            n += 1
            path = self.output_dir / f"{base}-{n}{suffix}"
        return path


@runtime_checkable
class ExpertBackend(Protocol):
    """Runs models of one family. ``where`` returns None when it cannot run (task, model_id)."""

    name: str

    def models(self, task: str) -> list[str]:
        """Model ids this backend can run locally for ``task`` right now (for the selector)."""
        ...

    def where(self, task: str, model_id: str) -> str | None:
        ...

    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        ...
