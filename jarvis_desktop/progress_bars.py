"""Library progress bars are for downloads only: loading a model from the cache prints nothing.

transformers ("Loading weights") and diffusers ("Loading pipeline components") draw a tqdm bar
for every load, which floods a terminal or a benchmark's output with hundreds of lines. Those
libraries are imported lazily, deep inside the experts, so :func:`quiet_loading_bars` installs an
import hook that switches their bars off the moment each is imported (or at once, if it already
is). huggingface_hub's own bars, the ones a download draws with size and speed, stay on.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from typing import Any

#: module -> how to silence its loading bars once it is imported
_TARGETS = ("transformers.utils.logging", "diffusers.utils.logging")


def _silence(module: Any) -> None:
    """Turn one library's bars off, and give huggingface_hub's download bars back (transformers'
    switch turns those off too)."""
    disable = getattr(module, "disable_progress_bar", None)
    if disable is None:
        return
    disable()
    hub = sys.modules.get("huggingface_hub.utils")
    if hub is not None and hasattr(hub, "enable_progress_bars"):
        import os

        if os.environ.get("HF_HUB_DISABLE_PROGRESS_BARS", "").lower() not in ("1", "true", "yes", "on"):
            hub.enable_progress_bars()


class _AfterImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds nothing itself: wraps the real loader of the target modules to silence them after
    they execute."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _TARGETS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Wrapped(spec.loader)
                return spec
        return None


class _Wrapped(importlib.abc.Loader):
    def __init__(self, loader: Any):
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        _silence(module)


_hook = _AfterImport()


def quiet_loading_bars() -> None:
    """Silence model-loading bars of transformers and diffusers for this process (idempotent)."""
    for name in _TARGETS:
        if name in sys.modules:
            _silence(sys.modules[name])
    if _hook not in sys.meta_path:
        sys.meta_path.insert(0, _hook)
