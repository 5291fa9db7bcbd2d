"""K-fold cross-validation splits: every figure we report comes from a fold the model never saw.

Folds are fixed by a hash of each sample's id (and a seed), not by file order, so adding samples
does not reshuffle the others and the same data always gives the same folds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator


def kfold(keys: list[str], k: int, seed: int = 0) -> list[list[int]]:
    """``k`` disjoint folds of indices into ``keys`` covering all of them, sizes within one."""
    if k < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    if k > len(keys):
        raise ValueError(f"{k} folds but only {len(keys)} samples")
    order = sorted(range(len(keys)), key=lambda i: (hashlib.sha1(f"{seed}:{keys[i]}".encode()).hexdigest(), i))
    folds: list[list[int]] = [[] for _ in range(k)]
    for rank, i in enumerate(order):
        folds[rank % k].append(i)
    return [sorted(f) for f in folds]


def splits(keys: list[str], k: int, seed: int = 0) -> Iterator[tuple[list[int], list[int]]]:
    """(fit on, held out) index lists, one pair per fold."""
    folds = kfold(keys, k, seed)
    for j, held in enumerate(folds):
        fit = sorted(i for f, fold in enumerate(folds) if f != j for i in fold)
        yield fit, held
