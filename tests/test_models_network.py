"""Downloads against a fake Hub on 127.0.0.1 and against no network at all: progress with size and
speed, cancelling and resuming, corrupted files refused, and one clear line (never a traceback)
for connection refused, DNS failure, gated models and rate limits."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.fake_hub import FakeHub
from helpers.tiny_models import build, image_classifier
from jarvis_desktop.cancel import CancelToken
from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import ExpertError
from jarvis_desktop.experts.hub_errors import explain
from jarvis_desktop.experts.model_store import DownloadCancelled, list_cached, pull
from helpers.ports import free_port as _free_port

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vit_folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tiny")
    return build(root / "cache", {"tiny/vit-classify": image_classifier}, work=root / "build")["tiny/vit-classify"]


@pytest.fixture
def hub(vit_folder, tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    src = tmp_path / "repo"
    shutil.copytree(vit_folder, src)
    h = FakeHub("acme/vit-tiny", src)
    yield h
    h.close()


def _settings(tmp_path: Path) -> Settings:
    return Settings(model_cache=str(tmp_path / "cache"))


def test_progress_reports_size_and_speed_of_one_download(hub, tmp_path):
    seen = []
    pull("acme/vit-tiny", _settings(tmp_path), endpoint=hub.url, on_progress=seen.append)
    total = sum(len(b) for b in hub.files.values())
    assert seen and seen[-1].done_bytes == total and seen[-1].total_bytes == total
    assert all(p.model_id == "acme/vit-tiny" for p in seen)
    assert seen[-1].bytes_per_second > 0


def test_a_corrupted_download_is_refused_and_deleted(hub, tmp_path):
    hub.corrupt.add("model.safetensors")
    s = _settings(tmp_path)
    with pytest.raises(ExpertError, match=r"checksum does not match.*model.safetensors.*Run the same pull again"):
        pull("acme/vit-tiny", s, endpoint=hub.url, progress=False)
    snap = s.model_cache_path / "models--acme--vit-tiny" / "snapshots" / FakeHub.SHA
    assert not (snap / "model.safetensors").exists()
    blobs = s.model_cache_path / "models--acme--vit-tiny" / "blobs"
    assert hub.etag("model.safetensors") not in {p.name for p in blobs.iterdir()}
    # the next pull fetches the file afresh and it checks out
    hub.corrupt.clear()
    result = pull("acme/vit-tiny", s, endpoint=hub.url, progress=False)
    assert (result.path / "model.safetensors").read_bytes() == hub.files["model.safetensors"]


def test_cancel_stops_the_download_and_the_next_pull_resumes_where_it_stopped(hub, tmp_path, monkeypatch):
    """huggingface_hub drops a partial file when a download ends early; large files here keep
    theirs, so a later pull continues with a Range request instead of starting again."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 1024)
    s = _settings(tmp_path)
    cancel = CancelToken()
    weights = len(hub.files["model.safetensors"])
    seen = []

    def stop_half_way(p):
        seen.append(p)
        if p.done_bytes > weights // 2:
            cancel.cancel()

    with pytest.raises(DownloadCancelled, match="run the same pull again to resume"):
        pull("acme/vit-tiny", s, endpoint=hub.url, on_progress=stop_half_way, cancel=cancel)
    total = sum(len(b) for b in hub.files.values())
    assert seen[-1].total_bytes == total  # one bar for the whole model
    partial = list((s.model_cache_path / "models--acme--vit-tiny" / "blobs").glob("*.jarvis-partial"))
    assert len(partial) == 1 and 0 < partial[0].stat().st_size < weights
    kept = partial[0].stat().st_size
    hub.requests.clear()
    after = []
    result = pull("acme/vit-tiny", s, endpoint=hub.url, on_progress=after.append)
    ranges = [r for m, p, r in hub.requests if m == "GET" and p.endswith("model.safetensors")]
    assert ranges == [f"bytes={kept}-"]
    assert after[0].done_bytes > kept and after[-1].done_bytes == total  # the bar starts where it stopped
    assert (result.path / "model.safetensors").read_bytes() == hub.files["model.safetensors"]
    assert [m.model_id for m in list_cached(s)] == ["acme/vit-tiny"]


@pytest.mark.parametrize("status,words", [(403, "gated. Accept its licence at https://huggingface.co/acme/vit-tiny"),
                                          (429, "limiting requests (HTTP 429)"), (404, "not found on the Hugging Face Hub")])
def test_http_refusals_are_one_line_with_what_to_do(hub, tmp_path, status, words):
    hub.status = status
    with pytest.raises(ExpertError) as e:
        pull("acme/vit-tiny", _settings(tmp_path), endpoint=hub.url, progress=False)
    assert words in str(e.value) and "\n" not in str(e.value)


def _cli(args: list[str], tmp_path: Path, endpoint: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_ENDPOINT=endpoint, HF_HUB_OFFLINE="0", JARVIS_OFFLINE="0",
               JARVIS_MODEL_CACHE=str(tmp_path / "cache"), JARVIS_CONFIG_DIR=str(tmp_path / "cfg"),
               JARVIS_DATA_DIR=str(tmp_path / "data"), HF_HUB_ETAG_TIMEOUT="5", HF_HUB_DOWNLOAD_TIMEOUT="5")
    return subprocess.run([sys.executable, "-m", "jarvis_desktop", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("endpoint,words", [
    ("http://127.0.0.1:{port}", "could not be reached"),
    ("http://hub.example.invalid", "could not be resolved"),
])
def test_pull_without_network_prints_one_line_and_no_traceback(tmp_path, endpoint, words):
    p = _cli(["models", "pull", "Salesforce/blip-image-captioning-base"], tmp_path, endpoint.format(port=_free_port()))
    assert p.returncode == 1
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert words in lines[0] and "Salesforce/blip-image-captioning-base" in lines[0]
    assert "jarvis models import" in lines[0]  # the offline route


def test_catalog_refresh_without_network_is_one_line(tmp_path):
    p = _cli(["models", "refresh"], tmp_path, f"http://127.0.0.1:{_free_port()}")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert len([line for line in p.stderr.splitlines() if line.strip()]) == 1 and "could not be reached" in p.stderr


def test_explain_picks_the_cause_from_the_chain():
    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except OSError as inner:
            raise RuntimeError("request failed") from inner
    except RuntimeError as e:
        assert "could not be resolved" in explain(e, "org/m")
    assert "did not answer in time" in explain(TimeoutError("timed out"), "org/m")
