"""Shared plumbing for backends that run models from the local model cache.

They differ in the library (transformers, diffusers) but agree on: which cached models they can
offer for a task, where a model runs, how a load failure becomes a message naming the model and
the pull command, and that loaded models live in the shared :class:`ModelCache`.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from ..media import MediaError
from ..textclean import one_line
from .base import ExpertError, ModelMissingError, RunContext, TaskOutput
from .devices import dtype_factor, memory_pool, pick_device, where_label
from .local_cache import CacheIndex, ModelInfo, missing_weights
from .model_cache import ModelCache, estimate_bytes

log = logging.getLogger(__name__)

_indexes: dict[Path, CacheIndex] = {}


def cache_index(cache_path: Path) -> CacheIndex:
    """One index per cache folder, shared by every backend (each re-reads only on change)."""
    key = Path(cache_path).resolve()
    if key not in _indexes:
        _indexes[key] = CacheIndex(key)
    return _indexes[key]


class CachedModelsBackend:
    """Base for backends over ``settings.model_cache_path``; subclasses set ``name``, ``families``,
    ``TASKS`` and implement ``_run``."""

    name = "cached"
    families: tuple[str, ...] = ()
    TASKS: frozenset[str] = frozenset()
    #: tasks that may run in half precision on a GPU
    HALF_OK: frozenset[str] = frozenset()

    def __init__(self, settings: Any, cache: ModelCache | None = None):
        self.settings = settings
        self.cache = cache or ModelCache(getattr(settings, "model_budget_gb", 0.0) or 0.0)
        self.index = cache_index(settings.model_cache_path)

    # --- what can run --------------------------------------------------------------------
    @property
    def device(self) -> str:
        return pick_device(self.settings)

    def serves(self, info: ModelInfo, task: str) -> bool:
        return task in info.tasks

    def models(self, task: str) -> list[str]:
        if task not in self.TASKS or not self.settings.local_allowed:
            return []
        return [mid for mid, info in sorted(self.index.infos().items())
                if info.family in self.families and self.serves(info, task)]

    def where(self, task: str, model_id: str) -> str | None:
        if task not in self.TASKS or not self.settings.local_allowed:
            return None
        info = self.index.get(model_id)
        if info is None or info.family not in self.families:
            return None
        if info.tasks and not self.serves(info, task):
            return None  # another backend (or hosted inference) may run it
        return where_label(self.device)

    # --- running -------------------------------------------------------------------------
    def info(self, task: str, model_id: str) -> ModelInfo:
        info = self.index.get(model_id)
        if info is None:
            raise ModelMissingError(task, model_id)
        return info

    @contextmanager
    def loaded(self, task: str, info: ModelInfo, kind: str, loader: Callable[[], Any],
               device: str, folder: Path | None = None, extra_bytes: int = 0) -> Iterator[Any]:
        """The model loaded by ``loader`` from the shared cache, held for one task; load errors
        become a message that names the model."""
        key = f"{getattr(self, 'cache_prefix', self.name)}:{info.model_id}:{kind}:{device}"
        size = estimate_bytes(folder or info.path, dtype_factor(device, task in self.HALF_OK)) + extra_bytes

        def load():
            why = missing_weights(folder or info.path)
            if why:
                raise ModelMissingError(task, info.model_id, why)
            try:
                return loader()
            except (OSError, EnvironmentError) as e:
                if "does not appear to have" in str(e) or "local_files_only" in str(e) or isinstance(e, FileNotFoundError):
                    raise ModelMissingError(task, info.model_id, f"incomplete download: {one_line(e, 240)}") from None
                raise ExpertError(f"{task}: cannot load '{info.model_id}': {one_line(e, 240)}") from None
            except ExpertError:
                raise
            except Exception as e:
                raise ExpertError(f"{task}: cannot load '{info.model_id}' ({type(e).__name__}: {one_line(e, 240)})") from None

        with self.cache.use(key, load, size, memory_pool(device)) as model:
            yield model

    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        if ctx.cancel.cancelled:
            raise ExpertError(f"{task}: cancelled")
        info = self.info(task, model_id)
        try:
            out = self._run(task, info, args, ctx)
        except MediaError as e:
            raise ExpertError(f"{task}: {e}") from None
        except (ExpertError, KeyboardInterrupt):
            raise
        except Exception as e:  # a model library failing on odd input: say which model and why
            log.exception("%s failed on %s", task, model_id)
            raise ExpertError(f"{task}: '{model_id}' failed ({type(e).__name__}: {one_line(e, 240)})") from None
        out.model_id = out.model_id or model_id
        out.where = out.where or where_label(self.device)
        return out

    def _run(self, task: str, info: ModelInfo, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        raise NotImplementedError


def need(args: dict[str, Any], name: str, task: str) -> str:
    """An argument the task cannot do without, or a clear error."""
    v = args.get(name)
    if v is None or str(v).strip() == "":
        raise ExpertError(f"{task}: missing `{name}` argument")
    return str(v)
