"""The step classifier: which task types a clause asks for. Logistic regression in plain numpy.

Training data says which tasks a whole request needs, not which clause asks for which, so the
model is trained as multiple-instance learning: a request needs a task when at least one of its
clauses does (noisy-OR over the clauses' probabilities). At planning time each clause is scored on
its own, which also tells where in the request each step was asked for. Training is full-batch Adam
from zero weights: the same data gives the same weights, bit for bit, on the same numpy.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .clause_vectors import DIMS

FORMAT_VERSION = 1


#: A clause as the model reads it: its sparse binary features and its dense word-vector mean.
Clause = tuple[list[str], np.ndarray]


@dataclass
class Bag:
    """One training text: its clauses' features and the labels (task types) the text needs."""

    clauses: list[Clause]
    labels: set[str]
    weight: float = 1.0
    source: str = ""
    control_map: str | None = None  # the one control map its plan makes ("openpose"), if any


@dataclass
class StepModel:
    """Weights for one logistic unit per label over sparse binary features and a dense vector."""

    labels: list[str]
    vocab: dict[str, int]
    W: np.ndarray  # (features, labels)
    b: np.ndarray  # (labels,)
    threshold: float = 0.5
    meta: dict = field(default_factory=dict)
    Wd: np.ndarray | None = None  # (dense dims, labels); None when trained without word vectors
    maps: list[str] = field(default_factory=list)  # control map kinds, in the order of map_centroids
    map_centroids: np.ndarray | None = None  # (maps, context dims): unit mean request vector per map

    def nearest_map(self, vec: np.ndarray) -> str | None:
        """The control map whose training requests read most like ``vec`` (a request's mean
        in-context vector), or None when the model knows no maps or the vector is not theirs."""
        C = self.map_centroids
        if C is None or not len(self.maps) or vec.shape[-1] != C.shape[1] or not np.any(vec):
            return None
        return self.maps[int(np.argmax(C @ vec))]

    def proba(self, clauses: list[Clause]) -> np.ndarray:
        """Per clause, the probability that it asks for each label (clauses x labels)."""
        out = np.empty((len(clauses), len(self.labels)), dtype=np.float64)
        scale = float(self.meta.get("dense_scale", 1.0))
        for i, (feats, dense) in enumerate(clauses):
            idx = [self.vocab[f] for f in feats if f in self.vocab]
            z = self.b.astype(np.float64).copy()
            if idx:
                z += self.W[idx].sum(0) / (np.sqrt(len(idx)) if self.meta.get("norm", True) else 1.0)
            if self.Wd is not None and len(dense) == self.Wd.shape[0]:
                z += scale * (dense @ self.Wd)
            out[i] = 1.0 / (1.0 + np.exp(-z))
        return out

    def save(self, path: Path) -> None:
        words = sorted(self.vocab, key=self.vocab.__getitem__)
        header = {"version": FORMAT_VERSION, "labels": self.labels, "threshold": self.threshold, "meta": self.meta, "maps": self.maps}
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            dense = {} if self.Wd is None else {"Wd": self.Wd.astype(np.float32)}
            if self.map_centroids is not None:
                dense["map_centroids"] = self.map_centroids.astype(np.float32)
            np.savez_compressed(f, W=self.W.astype(np.float16), b=self.b.astype(np.float32), **dense,
                                vocab=np.array("\n".join(words)), header=np.array(json.dumps(header, sort_keys=True)))

    @classmethod
    def load(cls, path: Path) -> StepModel:
        with np.load(path, allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            if header.get("version") != FORMAT_VERSION:
                raise ValueError(f"{path}: step model format {header.get('version')} (this planner reads {FORMAT_VERSION})")
            words = str(z["vocab"]).split("\n")
            W = z["W"].astype(np.float32)
            b = z["b"].astype(np.float32)
            Wd = z["Wd"].astype(np.float32) if "Wd" in z.files else None
            C = z["map_centroids"].astype(np.float32) if "map_centroids" in z.files else None
        return cls(header["labels"], {w: i for i, w in enumerate(words)}, W, b, float(header["threshold"]), header.get("meta", {}), Wd,
                   header.get("maps", []) if C is not None else [], C)


def train(bags: list[Bag], labels: list[str], *, min_count: int = 2, l2: float = 1e-4, steps: int = 400,
          lr: float = 0.05, threshold: float = 0.5, norm: bool = True, dense_scale: float = 1.0, log_every: int = 0,
          context_dims: int = DIMS) -> StepModel:
    """Fit the model on ``bags`` (deterministic: zero start, full batch, fixed step count).

    Features are sparse (a few dozen per clause out of thousands): scipy's sparse matrices make a
    step take milliseconds. Planning itself needs numpy alone.
    """
    counts = Counter(f for bag in bags for c, _ in bag.clauses for f in set(c))
    words = sorted(f for f, n in counts.items() if n >= min_count)
    vocab = {w: i for i, w in enumerate(words)}
    lab = {l: i for i, l in enumerate(labels)}
    rows = [c for bag in bags for c, _ in bag.clauses]
    dims = {len(d) for bag in bags for _, d in bag.clauses}
    D = dims.pop() if len(dims) == 1 else 0
    idx_rows = [sorted({vocab[f] for f in c if f in vocab}) for c in rows]
    lens = np.array([max(len(ix), 1) for ix in idx_rows])
    cols = np.array([i for ix in idx_rows for i in ix], dtype=np.int64)
    row_of = np.repeat(np.arange(len(rows)), [len(ix) for ix in idx_rows])
    vals = ((1.0 / np.sqrt(lens[row_of])) if norm else np.ones(len(row_of))).astype(np.float32)
    from scipy.sparse import csr_matrix  # training only (scipy comes with the test extras); planning needs numpy alone

    from scipy.sparse import hstack

    X = csr_matrix((vals, (row_of, cols)), shape=(len(rows), len(words)), dtype=np.float32)
    if D:
        dense = np.stack([d for bag in bags for _, d in bag.clauses]).astype(np.float32) * dense_scale
        X = hstack([X, csr_matrix(dense)], format="csr")
    XT = X.T.tocsr()
    starts = np.cumsum([0] + [len(bag.clauses) for bag in bags[:-1]])
    Y = np.zeros((len(bags), len(labels)), dtype=np.float32)
    for j, bag in enumerate(bags):
        for l in bag.labels:
            if l in lab:
                Y[j, lab[l]] = 1.0
    wts = np.array([bag.weight for bag in bags], dtype=np.float32)[:, None] / sum(bag.weight for bag in bags)
    bag_of = np.repeat(np.arange(len(bags)), [len(bag.clauses) for bag in bags])
    W = np.zeros((X.shape[1], len(labels)), dtype=np.float32)
    b = np.full(len(labels), -3.0, dtype=np.float32)
    mW, vW = np.zeros_like(W), np.zeros_like(W)
    mb, vb = np.zeros_like(b), np.zeros_like(b)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        Z = X @ W + b
        P = 1.0 / (1.0 + np.exp(-Z))
        S = np.add.reduceat(np.logaddexp(0.0, Z), starts, axis=0)  # -log(1 - P(bag))
        S = np.maximum(S, 1e-6)
        # d loss / d S: positives -1/(e^S - 1) (from -log(1 - e^-S)), negatives 1
        dS = np.where(Y > 0, -1.0 / np.expm1(S), 1.0) * wts
        G = P * dS[bag_of]
        gW = XT @ G + l2 * W
        gb = G.sum(0)
        if log_every and t % log_every == 0:
            loss = float((np.where(Y > 0, -np.log(-np.expm1(-S)), S) * wts).sum())
            print(f"step {t}: loss {loss:.4f}")
        for p, g, m, v in ((W, gW, mW, vW), (b, gb, mb, vb)):
            m *= beta1
            m += (1 - beta1) * g
            v *= beta2
            v += (1 - beta2) * g * g
            p -= lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
    meta = {"bags": len(bags), "clauses": len(rows), "features": len(words), "dense": D, "dense_scale": dense_scale,
            "steps": steps, "l2": l2, "lr": lr, "min_count": min_count, "norm": norm}
    maps, centroids = map_centroids(bags, context_dims)
    return StepModel(list(labels), vocab, W[: len(words)].copy(), b, threshold, meta, W[len(words):].copy() if D else None,
                     maps, centroids)


def map_centroids(bags: list[Bag], dims: int) -> tuple[list[str], np.ndarray | None]:
    """Per control map, the unit mean of its training requests' vectors (``request_vector``):
    what tells "keep how she is standing" (a pose) from "keep how near or far things are" (depth)."""
    by_map: dict[str, list[np.ndarray]] = {}
    for bag in bags:
        if bag.control_map and (v := request_vector(bag.clauses, dims)) is not None:
            by_map.setdefault(bag.control_map, []).append(v)
    if not by_map:
        return [], None
    maps = sorted(by_map)
    C = np.stack([np.mean(by_map[k], axis=0) for k in maps])
    return maps, (C / np.linalg.norm(C, axis=1, keepdims=True)).astype(np.float32)


def request_vector(clauses: list[Clause], dims: int) -> np.ndarray | None:
    """The unit mean of a request's clauses' in-context vectors (the last ``dims`` of each dense
    vector), or None when they have none."""
    vecs = [d[-dims:] for _, d in clauses if dims and len(d) >= dims]
    if not vecs:
        return None
    v = np.mean(vecs, axis=0)
    n = float(np.linalg.norm(v))
    return v / n if n else None
