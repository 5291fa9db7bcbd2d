"""The registry a user gets: every backend this machine can offer, in order of preference."""

from __future__ import annotations

import logging
from typing import Any, Callable

from ..config import Settings
from .model_cache import ModelCache
from .registry import ExpertRegistry

log = logging.getLogger(__name__)


def build_registry(settings: Settings, controller: Callable[[str], str] | Any | None = None,
                   cache: ModelCache | None = None) -> ExpertRegistry:
    """Backends in order of preference; the first that can run a (task, model) wins:

    1. shipped models (OCR, spaCy NER, MiniLM) - real weights from installed packages
    2. speech (faster-whisper, piper/espeak-ng), when the voice package is present
    3. transformers models in the model cache (text, vision, audio, pose)
    4. control maps (built-in canny/soft-edge/lines; depth, normal, seg from cached models)
    5. diffusers models in the model cache (text-to-image, image-to-image, video, ControlNet)
    6. built-in audio-to-audio (spectral-gate noise reduction)
    7. hosted inference, when the settings allow it
    8. the controller LLM, for text-only tasks, when one is given (``controller`` or
       ``settings.controller``): a callable ``prompt -> text`` or an object with ``chat(messages)``

    One :class:`ModelCache` is shared by every local backend so the memory budget is global; it is
    reachable as ``registry.model_cache``.
    """
    from .audio_dsp import AudioDSPBackend
    from .control import ControlMapBackend
    from .diffusers_backend import DiffusersBackend
    from .hosted import HostedBackend
    from .shipped import ShippedBackend
    from .transformers_backend import TransformersBackend

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
        registry.add(TransformersBackend(settings, cache))
        registry.add(ControlMapBackend(settings, cache))
        registry.add(DiffusersBackend(settings, cache))
        registry.add(AudioDSPBackend(settings))
    registry.add(HostedBackend(settings))  # answers only when settings.hosted_allowed
    controller = controller if controller is not None else getattr(settings, "controller", None)
    if controller is not None:
        from .controller_backend import ControllerBackend

        registry.add(ControllerBackend(controller))
    return registry


def backend(registry: ExpertRegistry, name: str):
    """The registered backend called ``name`` (tests and the bench tune them), or None."""
    return next((b for b in registry.backends if b.name == name), None)
