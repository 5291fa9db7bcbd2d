"""Models across the air gap: export from one model cache, import into a fresh one, run offline;
damaged copies are refused whole; plain Hugging Face caches and `hf download --local-dir` folders
import too."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from helpers.tiny_models import REV, build, image_classifier
from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import ExpertError
from jarvis_desktop.experts.model_store import list_cached
from jarvis_desktop.experts.transfer import MANIFEST, export_models, import_models

REPO = "acme/vit-tiny"


@pytest.fixture(scope="module")
def source_cache(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("src")
    build(root / "cache", {REPO: image_classifier}, work=root / "build")
    return root / "cache"


def _run_offline(cache: Path, tmp_path: Path):
    from PIL import Image

    from jarvis_desktop.experts.base import RunContext
    from jarvis_desktop.experts.defaults import build_registry

    Image.new("RGB", (20, 20), "blue").save(tmp_path / "blue.png")
    reg = build_registry(Settings(model_cache=str(cache), inference_mode="local", offline=True))
    return reg.run("image-classification", REPO, {"image": str(tmp_path / "blue.png")}, RunContext(tmp_path / "out"))


def test_export_then_import_into_a_fresh_cache_and_run_offline(source_cache, tmp_path):
    stick = tmp_path / "usb"
    seen = []
    exported = export_models(stick, Settings(model_cache=str(source_cache)), ["image-classification"], on_progress=seen.append)
    assert [m.repo_id for m in exported.models] == [REPO]
    manifest = json.loads((stick / MANIFEST).read_text())
    entry = manifest["models"][0]
    assert entry["repo_id"] == REPO and entry["revision"] == REV and "image-classification" in entry["tasks"]
    weights = next(f for f in entry["files"] if f["path"] == "model.safetensors")
    on_stick = stick / f"models--acme--vit-tiny/snapshots/{REV}/model.safetensors"
    assert weights["size"] == on_stick.stat().st_size
    assert weights["sha256"] == hashlib.sha256(on_stick.read_bytes()).hexdigest()
    assert not any(p.is_symlink() for p in stick.rglob("*"))  # FAT sticks have no symlinks
    assert seen[-1].done_bytes == seen[-1].total_bytes == exported.bytes

    fresh = tmp_path / "fresh_cache"
    result = import_models(stick, Settings(model_cache=str(fresh)))
    assert result.installed == [REPO] and result.failed == [] and result.source_kind == "manifest"
    assert result.verified_files == len(entry["files"]) and result.unverified_files == 0
    assert [m.model_id for m in list_cached(Settings(model_cache=str(fresh)))] == [REPO]
    assert not list(fresh.glob(".import-*"))
    out = _run_offline(fresh, tmp_path)
    assert out.data["labels"] and out.where == "local-cpu"
    # importing again finds it already there
    assert import_models(stick, Settings(model_cache=str(fresh))).already == [REPO]


def test_a_damaged_copy_is_refused_and_nothing_is_installed(source_cache, tmp_path):
    stick = tmp_path / "usb"
    export_models(stick, Settings(model_cache=str(source_cache)), [REPO])
    weights = stick / f"models--acme--vit-tiny/snapshots/{REV}/model.safetensors"
    data = bytearray(weights.read_bytes())
    data[100] ^= 0xFF
    weights.write_bytes(bytes(data))
    fresh = tmp_path / "fresh"
    result = import_models(stick, Settings(model_cache=str(fresh)))
    assert result.installed == [] and len(result.failed) == 1
    assert "model.safetensors does not match its checksum" in result.failed[0]
    assert list_cached(Settings(model_cache=str(fresh))) == [] and not list(fresh.glob(".import-*"))
    weights.write_bytes(b"short")
    result = import_models(stick, Settings(model_cache=str(fresh)))
    assert "the manifest says" in result.failed[0]


def test_export_names_what_it_cannot_find(source_cache, tmp_path):
    s = Settings(model_cache=str(source_cache))
    with pytest.raises(ExpertError, match="no cached model serves image-to-text; pull one first: jarvis models pull "
                                          "Salesforce/blip-image-captioning-base"):
        export_models(tmp_path / "usb", s, ["image-to-text"])
    r = export_models(tmp_path / "usb", s, [REPO, "no/such-model"])
    assert [m.repo_id for m in r.models] == [REPO] and "'no/such-model' is neither" in r.skipped[0]


def _hf_style_cache(source_cache: Path, root: Path) -> Path:
    """The layout huggingface_hub writes: blobs named by checksum, snapshot files as symlinks."""
    snap_src = source_cache / "models--acme--vit-tiny" / "snapshots" / REV
    base = root / "hub" / "models--acme--vit-tiny"
    (base / "blobs").mkdir(parents=True)
    snap = base / "snapshots" / REV
    for f in snap_src.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            name = hashlib.sha256(data).hexdigest() if f.suffix == ".safetensors" else \
                hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
            (base / "blobs" / name).write_bytes(data)
            link = snap / f.relative_to(snap_src)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(base / "blobs" / name, link.parent))
    (base / "refs").mkdir()
    (base / "refs" / "main").write_text(REV)
    return root


def test_a_plain_hugging_face_cache_folder_imports_with_its_checksums(source_cache, tmp_path):
    hf_home = _hf_style_cache(source_cache, tmp_path / "hf")
    fresh = tmp_path / "fresh"
    result = import_models(hf_home, Settings(model_cache=str(fresh)))  # the folder above hub/ works too
    assert result.source_kind == "hf-cache" and result.installed == [REPO]
    assert result.verified_files >= 3 and result.unverified_files == 0
    assert _run_offline(fresh, tmp_path).data["labels"]
    # a blob that does not match its name is refused
    blob = next(p for p in (hf_home / "hub/models--acme--vit-tiny/blobs").iterdir() if len(p.name) == 64)
    blob.write_bytes(b"\0" * blob.stat().st_size)
    again = import_models(hf_home / "hub", Settings(model_cache=str(tmp_path / "fresh2")))
    assert again.installed == [] and "does not match its checksum" in again.failed[0]


def test_an_hf_download_local_dir_folder_needs_its_name_then_imports(source_cache, tmp_path):
    local = tmp_path / "vit-download"
    shutil.copytree(source_cache / "models--acme--vit-tiny" / "snapshots" / REV, local)
    meta = local / ".cache" / "huggingface" / "download"
    meta.mkdir(parents=True)
    for f in local.iterdir():
        if f.is_file():
            (meta / (f.name + ".metadata")).write_text(f"{REV}\n{hashlib.sha256(f.read_bytes()).hexdigest()}\n1700000000.0\n")
    fresh = tmp_path / "fresh"
    with pytest.raises(ExpertError, match="say which model it is, e.g. jarvis models import .* --as org/name"):
        import_models(local, Settings(model_cache=str(fresh)))
    result = import_models(local, Settings(model_cache=str(fresh)), repo_id=REPO)
    assert result.source_kind == "local-dir" and result.installed == [REPO] and result.unverified_files == 0
    assert (fresh / "models--acme--vit-tiny" / "refs" / "main").read_text() == REV
    assert not (fresh / "models--acme--vit-tiny" / "snapshots" / REV / ".cache").exists()
    assert _run_offline(fresh, tmp_path).data["labels"]


def test_cli_export_and_import(source_cache, tmp_path, jarvis_env, monkeypatch, capsys):
    from jarvis_desktop.cli import main

    monkeypatch.setenv("JARVIS_MODEL_CACHE", str(source_cache))
    stick = tmp_path / "usb"
    assert main(["models", "export", str(stick), "image-classification"]) == 0
    out = capsys.readouterr().out
    assert f"exported {REPO}" in out and f"jarvis models import {stick}" in out
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("JARVIS_MODEL_CACHE", str(fresh))
    assert main(["models", "import", str(stick)]) == 0
    out = capsys.readouterr().out
    assert f"imported {REPO}" in out and "verified by checksum" in out and "MB/s" in out
    assert main(["models", "import", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert "is not a folder" in err and "Traceback" not in err
