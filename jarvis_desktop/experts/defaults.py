"""The registry a user gets: every backend this machine can offer, in order of preference."""

from __future__ import annotations

import logging
from typing import Any, Callable

from ..config import Settings
from .model_cache import ModelCache
from .registry import ExpertRegistry

log = logging.getLogger(__name__)


def build_registry(settings: Settings, controller: Callable[..., Any] | None = None,
                   cache: ModelCache | None = None) -> ExpertRegistry:
    """Local backends first (shipped models, speech, then models in the cache), hosted inference last.

    One :class:`ModelCache` is shared by every local backend so the memory budget is global.
    ``controller`` (a callable taking a prompt and returning text) lets text-only tasks fall back to
    the controller LLM when no local model runs them.
    """
    from .shipped import ShippedBackend

    cache = cache or ModelCache(settings.model_budget_gb)
    registry = ExpertRegistry()
    registry.model_cache = cache  # type: ignore[attr-defined]  # for doctor, the GUI and the bench
    if settings.local_allowed:
        registry.add(ShippedBackend(settings, cache))
        try:
            from .speech import SpeechBackend  # written alongside the voice package
        except ImportError as e:
            log.info("speech experts unavailable: %s", e)
        else:
            registry.add(SpeechBackend(settings))
        from .transformers_backend import TransformersBackend

        from .control import ControlMapBackend

        registry.add(TransformersBackend(settings, cache))
        registry.add(ControlMapBackend(settings, cache))
        from .diffusers_backend import DiffusersBackend

        registry.add(DiffusersBackend(settings, cache))
    return registry
