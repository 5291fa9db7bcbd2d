"""Cross-validation splits and the step classifier's training, on toy data whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_desktop.planning.cv import kfold, splits
from jarvis_desktop.planning.stepmodel import Bag, StepModel, train


def test_folds_are_disjoint_cover_everything_and_balanced():
    keys = [f"s{i}" for i in range(23)]
    folds = kfold(keys, 5)
    flat = sorted(i for f in folds for i in f)
    assert flat == list(range(23))
    assert sorted(len(f) for f in folds) == [4, 4, 5, 5, 5]


def test_folds_are_fixed_by_ids_not_by_file_order():
    keys = [f"s{i}" for i in range(20)]
    a = kfold(keys, 4)
    rev = list(reversed(keys))
    b = kfold(rev, 4)
    as_ids = lambda folds, ks: sorted(sorted(ks[i] for i in f) for f in folds)  # noqa: E731
    assert as_ids(a, keys) == as_ids(b, rev)
    assert kfold(keys, 4, seed=1) != a  # another seed, another split


def test_each_split_fits_on_the_other_folds_only():
    keys = [str(i) for i in range(10)]
    seen_held: list[int] = []
    for fit, held in splits(keys, 5):
        assert not set(fit) & set(held)
        assert sorted(fit + held) == list(range(10))
        assert len(held) == 2
        seen_held += held
    assert sorted(seen_held) == list(range(10))  # every sample is held out exactly once


@pytest.mark.parametrize("k,n", [(1, 5), (6, 5)])
def test_impossible_fold_counts_are_refused(k, n):
    with pytest.raises(ValueError):
        kfold([str(i) for i in range(n)], k)


def _clause(*words: str) -> tuple[list[str], np.ndarray]:
    return ([f"w:{w}" for w in words], np.zeros(0, dtype=np.float32))


TOY = [
    Bag([_clause("hello", "you"), _clause("paint", "cat")], {"draw"}),
    Bag([_clause("paint", "dog")], {"draw"}),
    Bag([_clause("paint", "house")], {"draw"}),
    Bag([_clause("say", "hi"), _clause("paint", "tree")], {"speak", "draw"}),
    Bag([_clause("say", "bye")], {"speak"}),
    Bag([_clause("say", "yes")], {"speak"}),
    Bag([_clause("hello", "friend")], set()),
    Bag([_clause("hello", "you")], set()),
]


def test_training_is_deterministic_and_learns_which_clause_asks():
    a = train(TOY, ["draw", "speak"], min_count=1, l2=1e-4, steps=300, lr=0.1, norm=False)
    b = train(TOY, ["draw", "speak"], min_count=1, l2=1e-4, steps=300, lr=0.1, norm=False)
    assert np.array_equal(a.W, b.W) and np.array_equal(a.b, b.b)
    p = a.proba([_clause("hello", "friend"), _clause("paint", "boat"), _clause("say", "something")])
    draw, speak = 0, 1
    assert p[1, draw] > 0.5 > p[0, draw]  # the clause that says "paint", not the greeting
    assert p[2, speak] > 0.5 > p[2, draw]


def test_saved_model_loads_back_the_same(tmp_path):
    m = train(TOY, ["draw", "speak"], min_count=1, steps=50, lr=0.1)
    m.save(tmp_path / "m.npz")
    back = StepModel.load(tmp_path / "m.npz")
    assert back.labels == m.labels and back.vocab == m.vocab
    clauses = [_clause("paint", "cat"), _clause("say", "hi")]
    assert np.allclose(back.proba(clauses), m.proba(clauses), atol=1e-3)  # float16 weights on disk


def test_a_model_file_of_another_format_is_refused_clearly(tmp_path):
    path = tmp_path / "old.npz"
    np.savez(path, W=np.zeros((1, 1)), b=np.zeros(1), vocab=np.array("x"), header=np.array('{"version": 99, "labels": ["a"], "threshold": 0.5}'))
    with pytest.raises(ValueError, match="format 99"):
        StepModel.load(path)
