"""The expert registry: which backend runs a (task, model id), and where.

Backends are tried in order; the first that can run a model locally wins, then hosted fallback
when the settings allow it. The registry is what the selector asks "is this model runnable here?"
and what the scheduler asks to run a task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import ExpertBackend, ExpertError, ModelMissingError, RunContext, TaskOutput


@dataclass(frozen=True)
class Runnable:
    backend: ExpertBackend
    where: str


class ExpertRegistry:
    def __init__(self, backends: list[ExpertBackend] | None = None):
        self.backends: list[ExpertBackend] = list(backends or [])

    def add(self, backend: ExpertBackend) -> None:
        self.backends.append(backend)

    def local_models(self, task: str) -> list[str]:
        """Models that run on this machine for ``task`` (shipped or in the model cache), best first."""
        out: list[str] = []
        for b in self.backends:
            if getattr(b, "hosted", False):
                continue
            for m in b.models(task):
                if m not in out:
                    out.append(m)
        return out

    def find(self, task: str, model_id: str) -> Runnable | None:
        for b in self.backends:
            where = b.where(task, model_id)
            if where:
                return Runnable(b, where)
        return None

    def runnables(self, task: str, model_id: str) -> list[Runnable]:
        """Every backend that claims (task, model id), in order of preference."""
        out = []
        for b in self.backends:
            where = b.where(task, model_id)
            if where:
                out.append(Runnable(b, where))
        return out

    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        candidates = self.runnables(task, model_id)
        if not candidates:
            offline = getattr(getattr(ctx, "settings", None), "offline", False)
            raise ModelMissingError(task, model_id, "this computer is offline: copy it over with jarvis models export "
                                    "on a connected one, then jarvis models import here" if offline else "")
        for i, r in enumerate(candidates):
            try:
                out = r.backend.run(task, model_id, args, ctx)
                break
            except ModelMissingError:
                # the local copy turned out incomplete: fall back to the next backend (hosted...)
                if i == len(candidates) - 1:
                    raise
        if not isinstance(out, TaskOutput):
            raise ExpertError(f"{task}: the {r.backend.name} backend returned no result")
        out.model_id = out.model_id or model_id
        out.where = out.where or r.where
        return out
