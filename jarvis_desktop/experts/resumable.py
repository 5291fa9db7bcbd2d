"""Large model files downloaded so that a stopped download continues where it stopped, even in a
later run.

huggingface_hub resumes a cut connection within one download, but deletes the partial file when
the download ends early (a cancel, a crash, a closed laptop), so a 1 GB weight file starts again
from zero. Here each large (LFS) file goes to ``blobs/<sha256>.jarvis-partial`` first, continued
with a Range request whenever it exists, checked against its sha256, then renamed to the blob name
huggingface_hub itself uses; ``snapshot_download`` then finds the blob and only links it into place.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..cancel import CancelToken
from .base import ExpertError
from .checksums import file_checksum_ok
from .local_cache import repo_folder_name

PARTIAL = ".jarvis-partial"
RETRIES = 5


@dataclass(frozen=True)
class LargeFile:
    name: str
    size: int
    sha256: str


@dataclass
class RepoFiles:
    """What the Hub says the snapshot holds: its commit, each file's size, the large files' sha256."""

    commit: str
    sizes: dict[str, int]
    large: list[LargeFile]

    @property
    def total(self) -> int:
        return sum(self.sizes.values())


def repo_files(api: Any, repo_id: str, revision: str | None, allow: list[str] | None, ignore: list[str]) -> RepoFiles:
    from huggingface_hub.utils import filter_repo_objects

    info = api.model_info(repo_id, revision=revision, files_metadata=True)
    siblings = list(info.siblings or [])
    wanted = set(filter_repo_objects([s.rfilename for s in siblings], allow_patterns=allow, ignore_patterns=ignore))
    sizes, large = {}, []
    for s in siblings:
        if s.rfilename not in wanted:
            continue
        sizes[s.rfilename] = int(s.size or 0)
        lfs = getattr(s, "lfs", None)
        sha = getattr(lfs, "sha256", None) if lfs is not None else None
        if sha:
            large.append(LargeFile(s.rfilename, int(getattr(lfs, "size", 0) or s.size or 0), str(sha)))
    return RepoFiles(str(info.sha or revision or ""), sizes, large)


def already_have(cache: Path, repo_id: str, files: RepoFiles) -> int:
    """Bytes already on disk for these files (finished small files, large blobs and partial ones)."""
    blobs = Path(cache) / repo_folder_name(repo_id) / "blobs"
    snap = Path(cache) / repo_folder_name(repo_id) / "snapshots" / files.commit
    large = {f.name for f in files.large}
    total = sum(size for name, size in files.sizes.items() if name not in large and (snap / name).is_file())
    for f in files.large:
        for p in (blobs / f.sha256, blobs / (f.sha256 + PARTIAL)):
            if p.is_file():
                total += p.stat().st_size
                break
    return total


def fetch_large_files(repo_id: str, files: RepoFiles, cache: Path, token: str | None, endpoint: str | None,
                      added: Callable[[int], None], cancel: CancelToken | None) -> None:
    """Download every large file not yet in ``blobs/``, resuming partial ones; ``added(n)`` per chunk."""
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    blobs = Path(cache) / repo_folder_name(repo_id) / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    headers = build_hf_headers(token=token)
    for f in files.large:
        blob = blobs / f.sha256
        if blob.is_file():
            continue
        part = blobs / (f.sha256 + PARTIAL)
        url = hf_hub_url(repo_id, f.name, revision=files.commit, endpoint=endpoint)
        _download(url, headers, part, f.size, added, cancel)
        if not file_checksum_ok(part, f.sha256):
            part.unlink(missing_ok=True)
            raise ExpertError(f"Downloading '{repo_id}' gave 1 file(s) whose checksum does not match the Hub's "
                              f"(e.g. {f.name}): they were deleted. Run the same pull again to fetch them afresh.")
        os.replace(part, blob)


def _download(url: str, headers: dict[str, str], part: Path, size: int, added: Callable[[int], None],
              cancel: CancelToken | None) -> None:
    from huggingface_hub import constants
    from huggingface_hub.utils import get_session, hf_raise_for_status

    from .hub_errors import is_network_error
    from .model_store import DownloadCancelled

    for attempt in range(RETRIES):
        have = part.stat().st_size if part.is_file() else 0
        if size and have >= size:
            return
        h = dict(headers)
        if have:
            h["Range"] = f"bytes={have}-"
        try:
            with get_session().stream("GET", url, headers=h, follow_redirects=True,
                                      timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT) as r:
                if r.status_code >= 400:
                    r.read()
                    hf_raise_for_status(r)
                mode = "ab" if have and r.status_code == 206 else "wb"  # 200: the server sent it all again
                if mode == "wb" and have:
                    added(-have)
                with part.open(mode) as out:
                    for chunk in r.iter_bytes(constants.DOWNLOAD_CHUNK_SIZE):
                        if cancel is not None and cancel.cancelled:
                            raise DownloadCancelled("Stopped the download; run the same pull again to resume it "
                                                    "where it stopped.")
                        out.write(chunk)
                        added(len(chunk))
            if not size or part.stat().st_size >= size:
                return
        except DownloadCancelled:
            raise
        except Exception as e:
            if attempt == RETRIES - 1 or not (is_network_error(e) or _cut(e)):
                raise
            time.sleep(min(2 ** attempt, 8) * 0.25)


def _cut(e: BaseException) -> bool:
    names = {c.__name__ for c in type(e).__mro__}
    return bool(names & {"RemoteProtocolError", "ReadError", "ReadTimeout", "ProtocolError", "ConnectionResetError"})
