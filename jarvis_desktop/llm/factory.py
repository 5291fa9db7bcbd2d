"""Choose the controller the settings ask for: a remote/hosted endpoint, or the embedded model."""

from __future__ import annotations

from ..config import Settings
from .base import Controller, ControllerError
from .local import LocalController


def make_controller(settings: Settings) -> Controller:
    """An OpenAI-compatible endpoint when one is configured (and allowed), else the embedded model.

    Offline mode refuses remote endpoints but keeps a local server (127.0.0.1) the user runs.
    """
    from .openai_compat import OpenAICompatController

    configured = bool(settings.azure_endpoint or settings.base_url or settings.api_key)
    if configured and not (settings.offline and settings._remote_url()):
        return OpenAICompatController(
            base_url=settings.base_url,
            api_key=settings.azure_api_key or settings.api_key if settings.azure_endpoint else settings.api_key,
            model=settings.llm_model,
            timeout=settings.llm_timeout,
            azure_endpoint=settings.azure_endpoint,
            azure_api_version=settings.azure_api_version,
            azure_deployment=settings.azure_deployment,
        )
    return LocalController(settings.local_llm_path or None)


__all__ = ["make_controller", "Controller", "ControllerError"]
