"""Getting models into the local cache and out again: pull, list, remove, and the curated defaults.

Plain functions with dataclass results; the CLI (`jarvis models pull|list|rm|defaults`) and the
GUI present them. Downloads go through ``huggingface_hub.snapshot_download`` into the Hugging Face
cache layout under ``model_cache/``: its tqdm bars show progress, a dropped connection resumes the
file with a Range request, and a pull run again after a failure fetches only the files still missing.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from ..cancel import CancelToken
from ..config import Settings, resources_dir
from .base import ExpertError
from .hub_errors import OFFLINE_ROUTE, explain, probe
from .checksums import file_checksum_ok, is_hub_checksum
from .local_cache import describe, model_id_of, repo_folder_name, snapshot_dir
from .resumable import already_have, fetch_large_files, repo_files

#: Never fetched: other frameworks' copies of the same weights and single-file checkpoints.
IGNORE_PATTERNS = ["*.ckpt", "*.msgpack", "*.h5", "*.ot", "tf_model*", "flax_model*", "rust_model*",
                   "coreml/*", "*.tflite", "*.mlmodel", "onnx/*", "openvino/*", "*.gguf"]


@dataclass(frozen=True)
class CachedModel:
    model_id: str
    path: Path
    size_bytes: int
    tasks: list[str]
    family: str
    revision: str

    @property
    def size_mb(self) -> float:
        return round(self.size_bytes / 1e6, 1)


@dataclass(frozen=True)
class PullResult:
    model_id: str
    path: Path
    size_bytes: int
    tasks: list[str]
    seconds: float


@dataclass(frozen=True)
class DefaultModel:
    """One entry of resources/experts/defaults.json."""

    task: str
    model_id: str | None
    license: str = ""
    size_mb: float = 0.0
    shipped: str = ""
    builtin: str = ""
    variant: str = ""
    needs: str = ""
    note: str = ""


@dataclass
class PullPlan:
    """What pulling the defaults for some task types would fetch (each model once)."""

    models: list[DefaultModel] = field(default_factory=list)
    nothing_to_fetch: list[str] = field(default_factory=list)  # tasks covered by shipped/builtin models
    no_default: list[str] = field(default_factory=list)

    @property
    def total_mb(self) -> float:
        return round(sum(m.size_mb for m in self.models), 1)


def _cache(settings: Settings) -> Path:
    return settings.model_cache_path


def _dir_bytes(repo: Path) -> int:
    blobs = repo / "blobs"
    root = blobs if blobs.is_dir() else repo
    seen, total = set(), 0
    for p in root.rglob("*"):
        if p.is_file():
            rp = p.resolve()
            if rp not in seen:
                seen.add(rp)
                total += rp.stat().st_size
    return total


def _tasks_from_catalog(settings: Settings, model_id: str) -> list[str]:
    try:
        from .catalog import load_catalog

        return list(load_catalog(settings).tasks_of(model_id))
    except Exception:  # no catalog shipped yet, or unreadable: the files still tell us
        return []


def _snapshots(settings: Settings):
    """(repo folder, model id, snapshot) for each model in the cache that has a snapshot."""
    cache = _cache(settings)
    if not cache.is_dir():
        return
    for repo in sorted(cache.iterdir()):
        mid = model_id_of(repo.name)
        snap = snapshot_dir(cache, mid) if mid else None
        if mid and snap is not None:
            yield repo, mid, snap


def cached_ids(settings: Settings) -> set[str]:
    """The ids of the models in the cache. What planning a download needs: a folder listing, not
    ``list_cached``'s walk over every file for sizes and configs (the setup dialog planned its
    packs on the GUI thread with that walk, twice per pack)."""
    return {mid for _repo, mid, _snap in _snapshots(settings)}


def list_cached(settings: Settings) -> list[CachedModel]:
    """Every model in the cache with its size on disk and the task types it covers."""
    out = []
    for repo, mid, snap in _snapshots(settings):
        info = describe(mid, snap)
        tasks = list(dict.fromkeys(_tasks_from_catalog(settings, mid) + list(info.tasks)))
        out.append(CachedModel(mid, snap, _dir_bytes(repo), tasks, info.family, snap.name))
    return out


def remove(model_id: str, settings: Settings) -> int:
    """Delete a model from the cache; returns the bytes freed. Unknown ids are a clear error."""
    repo = _cache(settings) / repo_folder_name(model_id)
    if not repo.is_dir():
        raise ExpertError(f"'{model_id}' is not in the model cache ({_cache(settings)}). See: jarvis models list")
    size = _dir_bytes(repo)
    shutil.rmtree(repo)
    return size


def _has_variant_files(files: list[str], variant: str) -> bool:
    return any(f".{variant}." in f for f in files)


def _patterns(files: list[str], variant: str = "") -> tuple[list[str] | None, list[str]]:
    """Which files to fetch: one weight format (safetensors over .bin), one precision variant."""
    ignore = list(IGNORE_PATTERNS)
    if any(f.endswith(".safetensors") for f in files):
        ignore += ["*.bin", "*.pt", "*.pth"]
    if variant and _has_variant_files(files, variant):
        # keep only the variant's weights: drop every other weight file that has a variant twin
        weights = [f for f in files if f.endswith((".safetensors", ".bin"))]
        ignore += [f for f in weights if f".{variant}." not in f and any(
            w.replace(f".{variant}.", ".") == f for w in weights if f".{variant}." in w)]
    else:
        ignore += ["*.fp16.*", "*.non_ema.*", "*.ema.*"]
    return None, ignore


class DownloadCancelled(ExpertError):
    """The user stopped a download; what arrived stays on disk and the next pull resumes it."""


@dataclass(frozen=True)
class DownloadProgress:
    """One download's progress, for a progress bar with size and speed."""

    model_id: str
    done_bytes: int
    total_bytes: int
    seconds: float

    @property
    def bytes_per_second(self) -> float:
        return self.done_bytes / self.seconds if self.seconds > 0 else 0.0

    @property
    def text(self) -> str:
        """What a progress bar says: "120 MB of 450 MB at 8.2 MB/s"."""
        return f"{size_text(self.done_bytes)} of {size_text(self.total_bytes)} at {size_text(self.bytes_per_second)}/s"


def size_text(n: float) -> str:
    """A byte count as people read it (kB, MB, GB)."""
    if n >= 1e9:
        return f"{n / 1e9:.1f} GB"
    if n >= 1e7:
        return f"{n / 1e6:.0f} MB"
    if n >= 1e6:
        return f"{n / 1e6:.1f} MB"
    return f"{n / 1e3:.0f} kB"


def pull(model_id: str, settings: Settings, variant: str = "", revision: str | None = None,
         progress: Any = True, endpoint: str | None = None,
         on_progress: Callable[[DownloadProgress], None] | None = None, cancel: CancelToken | None = None) -> PullResult:
    """Download (or finish downloading) a model into the cache, then verify every file's checksum.

    ``endpoint`` points at a Hub mirror or a private Hub (default: ``HF_ENDPOINT`` or huggingface.co).
    ``on_progress`` receives byte counts (one bar per model) and ``cancel`` stops the download
    between chunks; either replaces the tqdm bars. Any failure is one :class:`ExpertError` line.
    """
    if settings.offline:
        raise ExpertError(f"Offline mode is on: cannot download '{model_id}'. Turn it off (JARVIS_OFFLINE=0) to pull models. "
                          + OFFLINE_ROUTE)
    from huggingface_hub import HfApi, snapshot_download

    token = settings.hf_token or None
    t0 = time.time()
    counter = {"done": 0, "total": 0}  # bytes across the whole model, for one progress bar
    bars = _progress_class(model_id, on_progress, cancel, counter) if (on_progress or cancel) else _tqdm_class(progress)
    unreachable = probe(endpoint)
    if unreachable is not None:
        raise ExpertError(explain(unreachable, model_id)) from None
    cache = _cache(settings)
    try:
        api = HfApi(token=token, endpoint=endpoint)
        files = api.list_repo_files(model_id, revision=revision)
        allow, ignore = _patterns(files, variant)
        meta = repo_files(api, model_id, revision, allow, ignore)
        if meta.large:
            # small files first (a failing large file leaves them done), then the large ones, resumably
            counter["total"], counter["done"] = meta.total, already_have(cache, model_id, meta)
            snapshot_download(model_id, revision=revision, cache_dir=str(cache), token=token, allow_patterns=allow,
                              ignore_patterns=ignore + [f.name for f in meta.large], endpoint=endpoint, tqdm_class=bars)
            fetch_large_files(model_id, meta, cache, token, endpoint,
                              _byte_reporter(model_id, counter, on_progress, progress, meta), cancel)
        path = snapshot_download(model_id, revision=revision, cache_dir=str(cache), token=token,
                                 allow_patterns=allow, ignore_patterns=ignore, endpoint=endpoint,
                                 tqdm_class=bars)
    except (DownloadCancelled, ExpertError):
        raise
    except Exception as e:  # httpx, socket, HTTP status, OS errors: one line, never a traceback
        if cancel is not None and cancel.cancelled:
            raise DownloadCancelled(f"Stopped downloading '{model_id}'; run the same pull again to resume.") from None
        action = f"download '{model_id}'" + (f" at revision '{revision}'" if revision else "")
        raise ExpertError(explain(e, model_id, action)) from None
    snap = Path(path)
    bad = verify_snapshot(snap, {f.sha256 for f in meta.large})
    if bad:
        raise ExpertError(f"Downloading '{model_id}' gave {len(bad)} file(s) whose checksum does not match the Hub's "
                          f"(e.g. {bad[0]}): they were deleted. Run the same pull again to fetch them afresh.")
    info = describe(model_id, snap)
    tasks = list(dict.fromkeys(_tasks_from_catalog(settings, model_id) + list(info.tasks)))
    return PullResult(model_id, snap, _dir_bytes(_cache(settings) / repo_folder_name(model_id)), tasks, round(time.time() - t0, 1))


def verify_snapshot(snap: Path, verified: set[str] = frozenset()) -> list[str]:
    """Check each file of a downloaded snapshot against the checksum its blob is named by; a file
    that does not match is deleted (blob and link) and its name returned. Blobs in ``verified``
    (large files checked as they were downloaded) are not read again."""
    bad = []
    for link in sorted(snap.rglob("*")):
        if not link.is_symlink():
            continue  # a copied file (no symlinks on this disk): no checksum to compare with
        blob = link.resolve()
        if not blob.is_file() or not is_hub_checksum(blob.name) or blob.name in verified:
            continue
        if not file_checksum_ok(blob, blob.name):
            blob.unlink(missing_ok=True)
            link.unlink(missing_ok=True)
            bad.append(str(link.relative_to(snap)))
    return bad


def _byte_reporter(model_id: str, counter: dict[str, int], on_progress, progress: Any, meta) -> Callable[[int], None]:
    """Counts the large files' bytes into the model's one bar (ours, or a tqdm bar on the terminal)."""
    start = time.time()
    if on_progress is None and progress is True:
        from tqdm.auto import tqdm

        bar = tqdm(total=sum(f.size for f in meta.large), initial=0, unit="B", unit_scale=True, desc=model_id)

        def tick(n: int) -> None:
            bar.update(n)
            if bar.n >= (bar.total or 0):
                bar.close()
        return tick

    def add(n: int) -> None:
        counter["done"] += n
        if on_progress is not None:
            on_progress(DownloadProgress(model_id, counter["done"], counter["total"], time.time() - start))
    return add


def _progress_class(model_id: str, on_progress: Callable[[DownloadProgress], None] | None, cancel: CancelToken | None,
                    counter: dict[str, int] | None = None):
    """A silent tqdm that reports the bytes written (huggingface_hub sums every file into one
    "Reconstructing" bar) and raises :class:`DownloadCancelled` when ``cancel`` is set. With a
    ``counter`` holding a total, bytes add up across the model's files (see ``resumable``)."""
    from tqdm.auto import tqdm

    start = time.time()
    counter = counter if counter is not None else {"done": 0, "total": 0}

    class ReportingTqdm(tqdm):
        def __init__(self, *a, **kw):
            self._bytes = kw.get("unit") == "B" and str(kw.get("desc", "")).startswith("Reconstruct")
            self._done = int(kw.get("initial") or 0)
            kw["disable"] = True
            super().__init__(*a, **kw)

        def update(self, n=1):
            if cancel is not None and cancel.cancelled:
                raise DownloadCancelled(f"Stopped downloading '{model_id}'; run the same pull again to resume.")
            if self._bytes:
                self._done += int(n or 0)
                if counter["total"]:
                    counter["done"] += int(n or 0)
                    done, total = counter["done"], counter["total"]
                else:
                    done, total = self._done, int(self.total or 0)
                if on_progress is not None:
                    on_progress(DownloadProgress(model_id, done, total, time.time() - start))
            return super().update(n)

    return ReportingTqdm


def _tqdm_class(progress: Any):
    """tqdm's own bars (True), none (False), or the caller's tqdm subclass (a GUI progress bar)."""
    if isinstance(progress, type):
        return progress
    if progress:
        return None  # huggingface_hub's default bars
    from tqdm.auto import tqdm

    class SilentTqdm(tqdm):
        def __init__(self, *a, **kw):
            kw["disable"] = True
            super().__init__(*a, **kw)

    return SilentTqdm


@lru_cache(maxsize=1)
def curated_defaults() -> dict[str, Any]:
    return json.loads((resources_dir() / "experts" / "defaults.json").read_text(encoding="utf-8"))


def default_models(tasks: list[str] | None = None) -> list[DefaultModel]:
    """The curated default for each task type (all task types when ``tasks`` is None)."""
    table = curated_defaults()["tasks"]
    unknown = [t for t in (tasks or []) if t not in table]
    if unknown:
        raise ExpertError(f"unknown task type(s): {', '.join(unknown)}")
    out = []
    for task in tasks or list(table):
        e = table[task]
        out.append(DefaultModel(task, e.get("model"), e.get("license", ""), float(e.get("size_mb", 0)), e.get("shipped", ""),
                                e.get("builtin", ""), e.get("variant", ""), e.get("needs", ""), e.get("note", "")))
    return out


def plan_defaults(tasks: list[str] | None, settings: Settings, include_shipped: bool = False,
                  cached: set[str] | None = None) -> PullPlan:
    """Which downloads the defaults for ``tasks`` need, skipping what is cached (``cached``: the
    cache's model ids, when the caller has listed them already), shipped or built in."""
    plan = PullPlan()
    cached = cached_ids(settings) if cached is None else cached
    chosen: dict[str, DefaultModel] = {}
    for d in default_models(tasks):
        if (d.shipped or d.builtin) and not include_shipped:
            plan.nothing_to_fetch.append(d.task)
            continue
        if not d.model_id:
            plan.no_default.append(d.task)
            continue
        for mid, size, variant in ((d.model_id, d.size_mb, d.variant), (d.needs, 0.0, "fp16")):
            if mid and mid not in cached and mid not in chosen:
                if mid == d.needs:
                    base = next((x for x in default_models() if x.model_id == mid), None)
                    size, variant = (base.size_mb, base.variant) if base else (size, variant)
                chosen[mid] = DefaultModel(d.task, mid, d.license, size, variant=variant)
    plan.models = list(chosen.values())
    return plan


def pull_defaults(tasks: list[str] | None, settings: Settings, progress: bool = True,
                  endpoint: str | None = None) -> list[PullResult]:
    """Pull the curated defaults for the chosen task types (each model once, cached ones skipped)."""
    if settings.offline:
        raise ExpertError("Offline mode is on: cannot download the default models. Turn it off (JARVIS_OFFLINE=0) to pull them. "
                          + OFFLINE_ROUTE)
    return [pull(m.model_id, settings, variant=m.variant, progress=progress, endpoint=endpoint)
            for m in plan_defaults(tasks, settings).models]
