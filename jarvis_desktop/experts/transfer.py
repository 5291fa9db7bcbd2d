"""Models across the air gap: export cached models to a folder (a USB stick), import them elsewhere.

An export is the Hugging Face cache layout with real files (no symlinks, so FAT/exFAT sticks work)
plus ``jarvis-models.json``: each model's repo id, revision, task types, and every file's size and
sha256. Import verifies each file while copying it (one read) into a scratch folder inside the
model cache and moves the model into place only when all of it checks out, so a bad stick never
leaves half a model behind. Import also takes folders made without JARVIS: a plain Hugging Face
cache (``~/.cache/huggingface/hub``; files are checked against the checksums their blobs are named
by) and an ``hf download --local-dir`` folder (checked against its ``.cache/huggingface`` metadata).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from ..cancel import CancelToken
from ..config import Settings
from ..task_types import TASK_TYPES
from .base import ExpertError
from .checksums import git_blob_hasher, is_hub_checksum
from .local_cache import model_id_of, repo_folder_name, snapshot_dir
from .model_store import DownloadProgress, default_models, list_cached

MANIFEST = "jarvis-models.json"
FORMAT = "jarvis-models/1"
CHUNK = 4 << 20

Progress = Callable[[DownloadProgress], None]


@dataclass(frozen=True)
class ManifestFile:
    path: str
    size: int
    sha256: str


@dataclass
class ManifestModel:
    repo_id: str
    revision: str
    tasks: list[str] = field(default_factory=list)
    files: list[ManifestFile] = field(default_factory=list)

    @property
    def size_bytes(self) -> int:
        return sum(f.size for f in self.files)


@dataclass
class ExportResult:
    folder: Path
    models: list[ManifestModel]
    bytes: int
    seconds: float
    skipped: list[str] = field(default_factory=list)  # names that matched nothing, with what to do


@dataclass
class ImportResult:
    source_kind: str  # manifest | hf-cache | local-dir
    installed: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)  # the same revision was there, complete
    failed: list[str] = field(default_factory=list)  # one line per model that was refused
    bytes: int = 0
    seconds: float = 0.0
    verified_files: int = 0
    unverified_files: int = 0  # files with no checksum to compare with (size only)


# --- hashing copies ----------------------------------------------------------------------------
class _Meter:
    """Bytes moved so far across one export or import, reported to ``on_progress``."""

    def __init__(self, label: str, total: int, on_progress: Progress | None, cancel: CancelToken | None):
        self.label, self.total, self.on_progress, self.cancel = label, total, on_progress, cancel
        self.done = 0
        self.start = time.perf_counter()

    def add(self, n: int) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            raise ExpertError("Stopped by the user; nothing half-copied was kept.")
        self.done += n
        if self.on_progress is not None:
            self.on_progress(DownloadProgress(self.label, self.done, self.total, time.perf_counter() - self.start))


def _copy_hashing(src: Path, dst: Path, meter: _Meter, git_sha1: bool = False) -> tuple[str, str]:
    """Copy ``src`` to ``dst`` in one pass; returns (sha256, git blob sha1 or "")."""
    sha = hashlib.sha256()
    git = git_blob_hasher(src.stat().st_size) if git_sha1 else None
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("rb") as fi, dst.open("wb") as fo:
        while chunk := fi.read(CHUNK):
            sha.update(chunk)
            if git is not None:
                git.update(chunk)
            fo.write(chunk)
            meter.add(len(chunk))
    return sha.hexdigest(), git.hexdigest() if git is not None else ""


def _disk_check(folder: Path, needed: int, what: str) -> None:
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if needed > free:
        raise ExpertError(f"{what} needs {needed / 1e6:.0f} MB but {probe} has only {free / 1e6:.0f} MB free. "
                          "Free some space, or choose fewer models.")


# --- export ------------------------------------------------------------------------------------
def choose_for_export(settings: Settings, names: list[str] | None) -> tuple[list, list[str]]:
    """The cached models that ``names`` (model ids or task types; none: all) stand for, and a
    line for each name that matched nothing."""
    cached = list_cached(settings)
    by_id = {m.model_id: m for m in cached}
    if not names:
        return cached, []
    chosen: dict[str, object] = {}
    problems = []
    for name in names:
        if name in by_id:
            chosen[name] = by_id[name]
        elif name in TASK_TYPES:
            serving = [m for m in cached if name in m.tasks]
            default = next((d.model_id for d in default_models([name]) if d.model_id), None)
            preferred = [m for m in serving if m.model_id == default] or serving
            if not preferred:
                hint = f": jarvis models pull {default}" if default else ""
                problems.append(f"no cached model serves {name}; pull one first{hint}")
            for m in preferred:
                chosen[m.model_id] = m
        else:
            problems.append(f"'{name}' is neither a cached model nor a task type (see: jarvis models list)")
    return list(chosen.values()), problems


def _read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    if not path.is_file():
        return {"format": FORMAT, "models": []}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ExpertError(f"{path} is not a readable model manifest ({e}).") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise ExpertError(f"{path} is not a JARVIS model manifest.")
    return data


def _manifest_models(data: dict, where: Path) -> list[ManifestModel]:
    out = []
    try:
        for m in data["models"]:
            files = [ManifestFile(str(f["path"]), int(f["size"]), str(f["sha256"]).lower()) for f in m["files"]]
            out.append(ManifestModel(str(m["repo_id"]), str(m["revision"]), list(m.get("tasks") or []), files))
    except (KeyError, TypeError, ValueError) as e:
        raise ExpertError(f"{where / MANIFEST} is damaged (missing {e}); export the models again.") from None
    return out


def export_models(dest: str | Path, settings: Settings, names: list[str] | None = None,
                  on_progress: Progress | None = None, cancel: CancelToken | None = None) -> ExportResult:
    """Copy the chosen cached models to ``dest`` with a manifest of their files' sizes and sha256."""
    t0 = time.perf_counter()
    dest = Path(dest).expanduser()
    models, problems = choose_for_export(settings, names)
    if not models:
        why = "; ".join(problems) if problems else f"the model cache ({settings.model_cache_path}) is empty"
        raise ExpertError(f"Nothing to export: {why}.")
    if dest.exists() and not dest.is_dir():
        raise ExpertError(f"{dest} is a file, not a folder.")
    plan = []
    for m in models:
        files = sorted(p for p in m.path.rglob("*") if p.is_file())
        plan.append((m, files))
    total = sum(p.stat().st_size for _, files in plan for p in files)
    _disk_check(dest, total, f"Exporting {len(models)} model(s)")
    dest.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(dest)
    meter = _Meter("export", total, on_progress, cancel)
    written = []
    for m, files in plan:
        snap = dest / repo_folder_name(m.model_id) / "snapshots" / m.revision
        entry = ManifestModel(m.model_id, m.revision, list(m.tasks))
        for src in files:
            rel = src.relative_to(m.path).as_posix()
            target = snap / rel
            part = target.with_name(target.name + ".part")
            sha, _ = _copy_hashing(src.resolve(), part, meter)
            os.replace(part, target)
            entry.files.append(ManifestFile(rel, target.stat().st_size, sha))
        refs = dest / repo_folder_name(m.model_id) / "refs"
        refs.mkdir(parents=True, exist_ok=True)
        (refs / "main").write_text(m.revision, encoding="ascii")
        written.append(entry)
        manifest["models"] = [x for x in manifest["models"] if x.get("repo_id") != m.model_id] + [asdict(entry)]
        manifest["format"] = FORMAT
        tmp = dest / (MANIFEST + ".part")
        tmp.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.replace(tmp, dest / MANIFEST)  # after each model: a full stick still leaves a true manifest
    return ExportResult(dest, written, meter.done, round(time.perf_counter() - t0, 2), problems)


# --- import ------------------------------------------------------------------------------------
def source_kind(src: Path) -> str | None:
    """manifest | hf-cache | local-dir | None, judged from the folder's contents."""
    if (src / MANIFEST).is_file():
        return "manifest"
    if _hf_cache_root(src) is not None:
        return "hf-cache"
    if (src / ".cache" / "huggingface").is_dir() or (src / "config.json").is_file() or (src / "model_index.json").is_file():
        return "local-dir"
    return None


def _hf_cache_root(src: Path) -> Path | None:
    for root in (src, src / "hub"):
        if root.is_dir() and any(p.name.startswith("models--") and p.is_dir() for p in root.iterdir()):
            return root
    return None


@dataclass
class _Incoming:
    """One model to install: where each file comes from and what it must hash to."""

    repo_id: str
    revision: str
    files: list[tuple[str, Path, int | None, str]]  # (relative path, source, expected size, checksum or "")


def _from_manifest(src: Path) -> list[_Incoming]:
    out = []
    for m in _manifest_models(_read_manifest(src), src):
        snap = src / repo_folder_name(m.repo_id) / "snapshots" / m.revision
        out.append(_Incoming(m.repo_id, m.revision, [(f.path, snap / f.path, f.size, f.sha256) for f in m.files]))
    return out


def _from_hf_cache(src: Path) -> list[_Incoming]:
    root = _hf_cache_root(src)
    out = []
    for repo in sorted(root.iterdir()) if root else []:
        mid = model_id_of(repo.name)
        snap = snapshot_dir(root, mid) if mid else None
        if not mid or snap is None:
            continue
        files = []
        for p in sorted(snap.rglob("*")):
            if not p.is_file():
                continue
            blob = p.resolve()
            check = blob.name if p.is_symlink() and is_hub_checksum(blob.name) else ""
            files.append((p.relative_to(snap).as_posix(), blob, None, check))
        out.append(_Incoming(mid, snap.name, files))
    return out


def _from_local_dir(src: Path, repo_id: str | None) -> list[_Incoming]:
    if not repo_id:
        raise ExpertError(f"{src} is a plain model folder (as `hf download --local-dir` makes): say which model it is, "
                          f"e.g. jarvis models import {src} --as org/name")
    meta_root = src / ".cache" / "huggingface" / "download"
    files, commits = [], set()
    for p in sorted(src.rglob("*")):
        rel = p.relative_to(src).as_posix()
        if not p.is_file() or rel.startswith(".cache/") or p.name.endswith((".lock", ".incomplete")):
            continue
        check = ""
        meta = meta_root / (rel + ".metadata")
        if meta.is_file():
            lines = meta.read_text(encoding="utf-8", errors="replace").splitlines()
            if len(lines) >= 2:
                commits.add(lines[0].strip())
                etag = lines[1].strip().strip('"')
                check = etag if is_hub_checksum(etag) else ""
        files.append((rel, p, None, check))
    if not files:
        raise ExpertError(f"{src} holds no model files.")
    revision = next(iter(commits)) if len(commits) == 1 and is_hub_checksum(next(iter(commits)).lower()) else ""
    if not revision:  # no recorded commit: a stable name made from the files themselves
        h = hashlib.sha1()
        for rel, p, _, check in files:
            h.update(f"{rel}:{p.stat().st_size}:{check}".encode())
        revision = h.hexdigest()
    return [_Incoming(repo_id, revision, files)]


def import_models(src: str | Path, settings: Settings, repo_id: str | None = None,
                  on_progress: Progress | None = None, cancel: CancelToken | None = None) -> ImportResult:
    """Verify and install the models in ``src`` into the model cache; works with no network.

    A model whose files do not match their checksums (or are missing) is refused whole and named in
    ``failed``; the others are installed.
    """
    t0 = time.perf_counter()
    src = Path(src).expanduser()
    if not src.is_dir():
        raise ExpertError(f"{src} is not a folder. Give the folder that `jarvis models export` wrote.")
    kind = source_kind(src)
    if kind is None:
        raise ExpertError(f"{src} holds no models: expected {MANIFEST} (from `jarvis models export`), a Hugging Face "
                          "cache (models--org--name folders) or a model folder (config.json).")
    if kind == "manifest":
        incoming = _from_manifest(src)
    elif kind == "hf-cache":
        incoming = _from_hf_cache(src)
    else:
        incoming = _from_local_dir(src, repo_id)
    if repo_id and kind != "local-dir":
        incoming = [m for m in incoming if m.repo_id == repo_id]
        if not incoming:
            raise ExpertError(f"{src} does not hold '{repo_id}'.")
    result = ImportResult(kind)
    cache = settings.model_cache_path
    cache.mkdir(parents=True, exist_ok=True)
    todo = []
    for m in incoming:
        if _installed(cache, m):
            result.already.append(m.repo_id)
        else:
            todo.append(m)
    total = sum((size if size is not None else (p.stat().st_size if p.is_file() else 0))
                for m in todo for _, p, size, _ in m.files)
    _disk_check(cache, total, f"Importing {len(todo)} model(s)")
    meter = _Meter("import", total, on_progress, cancel)
    for m in todo:
        try:
            verified, unverified = _install(cache, m, meter)
        except _Refused as e:
            result.failed.append(str(e))
            continue
        result.installed.append(m.repo_id)
        result.verified_files += verified
        result.unverified_files += unverified
    result.bytes = meter.done
    result.seconds = round(time.perf_counter() - t0, 3)
    return result


class _Refused(Exception):
    pass


def _installed(cache: Path, m: _Incoming) -> bool:
    snap = cache / repo_folder_name(m.repo_id) / "snapshots" / m.revision
    if not snap.is_dir():
        return False
    for rel, p, size, _ in m.files:
        have = snap / rel
        want = size if size is not None else (p.stat().st_size if p.is_file() else -1)
        if not have.is_file() or have.stat().st_size != want:
            return False
    return True


def _install(cache: Path, m: _Incoming, meter: _Meter) -> tuple[int, int]:
    """Copy and verify into a scratch folder in the cache, then move the snapshot into place."""
    scratch = cache / f".import-{uuid.uuid4().hex[:8]}"
    verified = unverified = 0
    try:
        for rel, p, size, check in m.files:
            if not p.is_file():
                raise _Refused(f"{m.repo_id}: {rel} is missing from the source; nothing of this model was installed.")
            if size is not None and p.stat().st_size != size:
                raise _Refused(f"{m.repo_id}: {rel} is {p.stat().st_size} bytes, the manifest says {size}; "
                               "nothing of this model was installed (export it again).")
            sha, git = _copy_hashing(p, scratch / rel, meter, git_sha1=len(check) == 40)
            if check:
                if check.lower() not in (sha, git):
                    raise _Refused(f"{m.repo_id}: {rel} does not match its checksum (damaged copy); nothing of "
                                   "this model was installed (export it again).")
                verified += 1
            else:
                unverified += 1
        base = cache / repo_folder_name(m.repo_id)
        snap = base / "snapshots" / m.revision
        snap.parent.mkdir(parents=True, exist_ok=True)
        if snap.exists():
            shutil.rmtree(snap)
        os.replace(scratch, snap)
        (base / "refs").mkdir(parents=True, exist_ok=True)
        (base / "refs" / "main").write_text(m.revision, encoding="ascii")
        os.utime(base)  # the cache index notices the new model
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return verified, unverified
