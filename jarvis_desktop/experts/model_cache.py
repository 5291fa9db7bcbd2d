"""A memory-aware cache of loaded models.

JARVIS moves every model to the GPU and back for each request; here a loaded model stays warm
until memory is needed. Each memory pool (VRAM, RAM) has a budget; before loading, the model's
size is estimated from its weight files, and least-recently-used models that are not running
are evicted until it fits. Eviction drops the cache's reference, collects garbage and empties
CUDA's cache so the memory really returns. One lock per model: the same model is never loaded
twice at once and two tasks on one model run one after the other (pipelines are not thread-safe),
while tasks on different models run in parallel.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from .devices import free_bytes, release_memory

log = logging.getLogger(__name__)

GB = 1024**3
#: Weight file suffixes counted when estimating a model's size before loading it.
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".onnx", ".gguf", ".h5", ".msgpack", ".model")
#: Runtime overhead on top of the weights (activations, buffers, allocator slack).
OVERHEAD = 1.2


def weight_bytes(folder: Path) -> int:
    """Bytes of weights under ``folder``, counting one format per component (safetensors wins
    over a duplicate .bin) and following the cache's symlinks into its blobs."""
    folder = Path(folder)
    if not folder.exists():
        return 0
    if folder.is_file():
        return folder.stat().st_size
    by_dir: dict[Path, dict[str, int]] = {}
    for p in folder.rglob("*"):
        if p.suffix in WEIGHT_SUFFIXES and p.is_file():
            d = by_dir.setdefault(p.parent, {})
            d[p.suffix] = d.get(p.suffix, 0) + p.stat().st_size
    total = 0
    for sizes in by_dir.values():
        if ".safetensors" in sizes:
            total += sizes[".safetensors"] + sizes.get(".onnx", 0) + sizes.get(".model", 0)
        else:
            total += sum(sizes.values())
    return total


def estimate_bytes(folder: Path, factor: float = 1.0) -> int:
    """Expected resident size once loaded: weights x precision factor x overhead (at least 1 MB)."""
    return max(int(weight_bytes(folder) * factor * OVERHEAD), 1 << 20)


@dataclass
class CacheEntry:
    key: str
    value: Any
    size: int
    pool: str
    loaded_at: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.time)
    load_seconds: float = 0.0
    uses: int = 0
    pins: int = 0


@dataclass(frozen=True)
class CacheStats:
    """A snapshot for `jarvis doctor`, the GUI and the benchmark."""

    loaded: list[str]
    used_bytes: dict[str, int]
    budget_bytes: dict[str, int]
    loads: int
    hits: int
    evictions: int
    load_seconds: dict[str, float] = field(default_factory=dict)  # per loaded model, its last load time


class ModelCache:
    """Loaded models by key, within a memory budget per pool (``gpu`` and ``ram``).

    ``budget_gb`` 0 means: derive each pool's budget from the memory free when the cache is made
    (80% of free VRAM, 60% of available RAM), so the assistant leaves room for the rest of the
    machine.
    """

    def __init__(self, budget_gb: float = 0.0, budgets: dict[str, int] | None = None):
        self._budget_gb = float(budget_gb or 0.0)
        self._budgets: dict[str, int] = dict(budgets or {})
        self._entries: "OrderedDict[str, CacheEntry]" = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.RLock()
        self.loads = 0
        self.hits = 0
        self.evictions = 0

    # --- budget --------------------------------------------------------------------------
    def budget(self, pool: str) -> int:
        with self._guard:
            if pool not in self._budgets:
                if self._budget_gb > 0:
                    self._budgets[pool] = int(self._budget_gb * GB)
                else:
                    share = 0.8 if pool == "gpu" else 0.6
                    self._budgets[pool] = int(free_bytes(pool) * share) + self._used(pool)
            return self._budgets[pool]

    def _used(self, pool: str) -> int:
        return sum(e.size for e in self._entries.values() if e.pool == pool)

    # --- use -----------------------------------------------------------------------------
    def _lock_for(self, key: str) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.Lock()
            return lock

    @contextmanager
    def use(self, key: str, loader: Callable[[], Any], size: int, pool: str = "ram") -> Iterator[Any]:
        """The loaded model for ``key`` (loading it with ``loader`` if needed), held for one task.

        While a task holds it, the model cannot be evicted and other tasks on the same key wait.
        """
        with self._lock_for(key):
            entry = self._get_or_load(key, loader, size, pool)  # returned pinned
            try:
                yield entry.value
            finally:
                with self._guard:
                    entry.pins -= 1
                    entry.last_used = time.time()
                    entry.uses += 1

    def _get_or_load(self, key: str, loader: Callable[[], Any], size: int, pool: str) -> CacheEntry:
        with self._guard:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                entry.pins += 1  # pinned before the guard is released: eviction cannot race us
                return entry
            evicted = self._make_room(size, pool)
        if evicted:
            release_memory()  # outside the guard: a full collection takes a moment
        t0 = time.perf_counter()
        value = loader()  # outside the guard: other models load and run meanwhile
        entry = CacheEntry(key, value, size, pool, load_seconds=time.perf_counter() - t0, pins=1)
        with self._guard:
            self._entries[key] = entry
            self.loads += 1
        log.info("loaded %s (%.0f MB est.) in %.2fs", key, size / 2**20, entry.load_seconds)
        return entry

    def _make_room(self, size: int, pool: str) -> bool:
        """Evict unpinned models, oldest first, until ``size`` fits; True when any went."""
        budget = self.budget(pool)
        victims = []
        used = self._used(pool)
        for key, e in list(self._entries.items()):  # oldest first
            if used + size <= budget:
                break
            if e.pool != pool or e.pins > 0:
                continue
            victims.append(self._entries.pop(key))
            used -= e.size
        if victims:
            self.evictions += len(victims)
            log.info("evicted %s to fit %.0f MB", [v.key for v in victims], size / 2**20)
            for v in victims:
                v.value = None
        if used + size > budget:
            log.warning("model of %.0f MB exceeds the free %s budget (%.0f of %.0f MB used); loading anyway",
                        size / 2**20, pool, used / 2**20, budget / 2**20)
        return bool(victims)

    # --- management ----------------------------------------------------------------------
    def evict(self, key: str) -> bool:
        """Drop one model now (unless a task is using it)."""
        with self._guard:
            e = self._entries.get(key)
            if e is None or e.pins > 0:
                return False
            del self._entries[key]
            e.value = None
            self.evictions += 1
        del e
        release_memory()
        return True

    def clear(self) -> None:
        with self._guard:
            for key in [k for k, e in self._entries.items() if e.pins == 0]:
                self._entries[key].value = None
                del self._entries[key]
        release_memory()

    def peek(self, key: str) -> Any:
        """The loaded value for ``key`` without counting a use (None when not loaded)."""
        with self._guard:
            e = self._entries.get(key)
            return None if e is None else e.value

    def __contains__(self, key: str) -> bool:
        with self._guard:
            return key in self._entries

    def keys(self) -> list[str]:
        with self._guard:
            return list(self._entries)

    def stats(self) -> CacheStats:
        with self._guard:
            pools = {e.pool for e in self._entries.values()} | set(self._budgets)
            return CacheStats(
                loaded=list(self._entries),
                used_bytes={p: self._used(p) for p in pools},
                budget_bytes=dict(self._budgets),
                loads=self.loads,
                hits=self.hits,
                evictions=self.evictions,
                load_seconds={k: round(e.load_seconds, 4) for k, e in self._entries.items()},
            )
