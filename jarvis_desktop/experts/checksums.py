"""The Hub's file checksums: a large (LFS) file is named by its sha256, any other by git's blob
sha1. One place for telling them apart and checking a file against one, used by pull, the
resumable download and the import of a copied cache."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

_HUB_CHECKSUM = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def is_hub_checksum(name: str) -> bool:
    """Whether ``name`` looks like a Hub checksum (a blob's file name, an ETag, a commit id)."""
    return bool(_HUB_CHECKSUM.fullmatch(name or ""))


def git_blob_hasher(size: int):
    """git's blob sha1 of a file of ``size`` bytes, to be fed its content."""
    return hashlib.sha1(b"blob %d\0" % size)


def file_checksum_ok(path: Path, expected: str) -> bool:
    """Whether ``path`` matches a Hub checksum: sha256 for large (LFS) files, git's blob sha1 else."""
    h = hashlib.sha256() if len(expected) == 64 else git_blob_hasher(path.stat().st_size)
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest() == expected
