"""Shared fixtures. Environment set here, before any test imports Qt or Hugging Face libraries:
Qt renders offscreen, the Hub is never contacted, and each test gets its own data folders."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# `jarvis plan` run by a test plans in its own process; tests of the resident planner turn it on.
os.environ["JARVIS_RESIDENT_PLANNER_MINUTES"] = "0"
for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "HF_TOKEN"):
    os.environ.pop(var, None)

import pytest  # noqa: E402


@pytest.fixture
def jarvis_env(tmp_path, monkeypatch):
    """A private config, data and model-cache folder for one test, offline."""
    cfg, data, cache = tmp_path / "config", tmp_path / "data", tmp_path / "model_cache"
    for d in (cfg, data, cache):
        d.mkdir()
    monkeypatch.setenv("JARVIS_CONFIG_DIR", str(cfg))
    monkeypatch.setenv("JARVIS_DATA_DIR", str(data))
    monkeypatch.setenv("JARVIS_MODEL_CACHE", str(cache))
    monkeypatch.setenv("JARVIS_OFFLINE", "1")
    return tmp_path
