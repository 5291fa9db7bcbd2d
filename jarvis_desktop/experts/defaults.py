"""The registry a user gets: every backend this machine can offer, in order of preference."""

from __future__ import annotations

from ..config import Settings
from .registry import ExpertRegistry


def build_registry(settings: Settings) -> ExpertRegistry:
    """Local backends first (shipped models, then models in the cache), hosted inference last."""
    registry = ExpertRegistry()
    return registry
