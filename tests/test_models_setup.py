"""First-run setup: packs by need with sizes and free disk space, downloads from a fake Hub on
127.0.0.1 with one progress report per model, a corrupted file refused; offline, the export/import
route instead of a network error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.fake_hub import FakeHub
from helpers.tiny_models import build, image_classifier
from jarvis_desktop.cancel import CancelToken
from jarvis_desktop.config import Settings
from jarvis_desktop.experts.model_store import DefaultModel, cached_ids, list_cached
from jarvis_desktop.experts.packs import (Pack, disk_free, download, load_packs, pack_plan, setup_reachability)

ROOT = Path(__file__).resolve().parents[1]


def test_packs_cover_the_four_needs_with_sizes(tmp_path):
    packs = {p.id: p for p in load_packs()}
    assert [p.title for p in packs.values()] == ["Describe and read images", "Listen and transcribe", "Make images",
                                                 "Translate and summarise"]
    s = Settings(model_cache=str(tmp_path / "cache"))
    images = pack_plan(packs["images"], s)
    assert "Salesforce/blip-image-captioning-base" in [m.model_id for m in images.models] and images.total_mb > 900
    listen = pack_plan(packs["listen"], s)
    assert "Systran/faster-whisper-base.en" in [m.model_id for m in listen.models]
    assert disk_free(s) > 0


def test_planning_a_download_lists_the_cache_as_list_cached_does(tmp_path):
    s = Settings(model_cache=str(tmp_path / "cache"))
    assert cached_ids(s) == set()  # no cache folder yet
    build(s.model_cache_path, {"tiny/vit": image_classifier}, work=tmp_path / "build")
    (s.model_cache_path / "models--acme--half-downloaded" / "blobs").mkdir(parents=True)  # no snapshot: not there
    assert cached_ids(s) == {m.model_id for m in list_cached(s)} == {"tiny/vit"}
    pack = Pack("test", "Test pack", "one tiny model", ("image-classification",),
                (DefaultModel("image-classification", "tiny/vit", "mit", 0.1),
                 DefaultModel("image-classification", "acme/half-downloaded", "mit", 0.1)))
    assert [m.model_id for m in pack_plan(pack, s).models if m.model_id in ("tiny/vit", "acme/half-downloaded")] == [
        "acme/half-downloaded"]


@pytest.fixture
def hub(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    src = build(tmp_path / "src_cache", {"tiny/vit": image_classifier}, work=tmp_path / "build")["tiny/vit"]
    h = FakeHub("acme/vit-tiny", src)
    yield h
    h.close()


def _pack() -> Pack:
    return Pack("test", "Test pack", "one tiny model", ("image-classification",),
                (DefaultModel("image-classification", "acme/vit-tiny", "mit", 0.1),))


def test_a_pack_downloads_with_progress_then_is_ready(hub, tmp_path):
    s = Settings(model_cache=str(tmp_path / "cache"))
    pack = _pack()
    plan = pack_plan(pack, s)
    wanted = [m for m in plan.models if m.model_id == "acme/vit-tiny"]
    seen = []
    results = download(wanted, s, on_progress=seen.append, endpoint=hub.url)
    assert [(r.model_id, r.error) for r in results] == [("acme/vit-tiny", "")]
    assert {p.model_id for p in seen} == {"acme/vit-tiny"} and seen[-1].done_bytes == seen[-1].total_bytes > 0
    assert "acme/vit-tiny" not in [m.model_id for m in pack_plan(pack, s).models]
    assert [m.model_id for m in list_cached(s)] == ["acme/vit-tiny"]


def test_a_corrupted_pack_download_is_refused_and_a_cancel_stops_the_rest(hub, tmp_path):
    s = Settings(model_cache=str(tmp_path / "cache"))
    hub.corrupt.add("model.safetensors")
    models = [DefaultModel("image-classification", "acme/vit-tiny", "mit", 0.1)]
    (r,) = download(models, s, endpoint=hub.url)
    assert "checksum does not match" in r.error and not r.cancelled
    cancel = CancelToken()
    cancel.cancel()
    (r,) = download(models, s, endpoint=hub.url, cancel=cancel)
    assert r.cancelled


def test_offline_setup_explains_the_export_import_route(tmp_path):
    s = Settings(offline=True, model_cache=str(tmp_path / "cache"))
    text = setup_reachability(s)
    assert "jarvis models export DIR image-to-text" in text and "jarvis models import DIR" in text
    unreachable = setup_reachability(Settings(model_cache=str(tmp_path / "cache")), endpoint="http://127.0.0.1:9")
    assert "could not be reached" in unreachable and "jarvis models import DIR" in unreachable


def test_cli_setup_offline_lists_packs_and_the_route_without_traceback(tmp_path):
    env = dict(os.environ, JARVIS_OFFLINE="1", JARVIS_MODEL_CACHE=str(tmp_path / "cache"),
               JARVIS_CONFIG_DIR=str(tmp_path / "cfg"), JARVIS_DATA_DIR=str(tmp_path / "data"))
    p = subprocess.run([sys.executable, "-m", "jarvis_desktop", "models", "setup", "images"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "Describe and read images" in p.stdout and "GB to download" in p.stdout and "Free disk space" in p.stdout
    assert "jarvis models import DIR" in p.stdout
