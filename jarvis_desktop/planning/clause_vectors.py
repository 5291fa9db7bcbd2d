"""Contextual clause vectors for the step classifier: the shipped MiniLM run once over the whole
request, its token vectors averaged over each clause.

Why: the mean of a clause's word vectors cannot tell "what is in this photo" (a caption) from "is
the stove on in this photo" (a question about it), or a text someone wants written from one they
want summarised; the encoder reads each word in its sentence. One pass per request, not per
clause, so a clause is also read with what the request said around it ("... then read it out").

The encoder's linear layers run in int8 (dynamic quantisation): on one core about 2.5x faster
than float32 for the same held-out figures. The classifier is trained on these same int8 vectors
(``make train-planner``), so training and planning see the same numbers. The quantised encoder
is then traced once (TorchScript, about 0.3 s at warm-up): same vectors, about 2x faster again.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: MiniLM's width; a clause with no word in it gets this many zeros.
DIMS = 384
#: Text handed to the tokenizer per window: more than its 256 tokens hold, so a window is cut by
#: tokens, not here, and a long paste is not tokenized whole for every window.
WINDOW_CHARS = 4000


@dataclass
class ClauseEncoder:
    """The sentence encoder, quantised, giving one unit vector per clause span of a request."""

    embedder: Any  # embeddings.EmbeddingModel with int8 linear layers (float ones where torch has no int8)

    @classmethod
    def load(cls) -> tuple["ClauseEncoder | None", str | None]:
        """The shared encoder, or None and why it could not be loaded (the classifier then reads
        the clause's words alone, less accurately)."""
        return _shared_encoder()

    def vectors(self, text: str, spans: list[tuple[int, int]], skip: list[tuple[int, int]] = ()) -> list[np.ndarray]:
        """A unit vector per character span of ``text`` (zeros for a span with no word in it),
        leaving the ``skip`` ranges (quotes) out of each span's mean.

        A request longer than the encoder's window (a pasted page, then "summarise the text above")
        is read in windows of whole clauses, each starting where the last one ran out, so its last
        clause is read too. Short requests, nearly all of them, are one window.
        """
        out: list[np.ndarray | None] = [None] * len(spans)
        i = 0
        while i < len(spans):
            start = spans[i][0]
            window = text[start : start + WINDOW_CHARS]
            got = self.embedder.encode_spans(window, [(a - start, b - start) for a, b in spans[i:]],
                                             [(a - start, b - start) for a, b in skip if b > start])
            read = next((k for k, v in enumerate(got) if v is None and spans[i + k][0] - start > 0), len(got))
            out[i : i + read] = got[:read]
            i += max(read, 1)
        return [np.zeros(DIMS, dtype=np.float32) if v is None else v.astype(np.float32) for v in out]


@lru_cache(maxsize=1)
def _shared_encoder() -> tuple[ClauseEncoder | None, str | None]:
    from .embeddings import EmbeddingModel

    base, why = EmbeddingModel.load()  # loads once, under its own lock
    if base is None:
        return None, why
    model = _quantised(base.model)
    return ClauseEncoder(EmbeddingModel(base.tokenizer, _traced(model, base.tokenizer), base.path)), None


def _quantised(model: Any) -> Any:
    """An int8 copy of ``model`` for planning; the float model itself when this torch cannot."""
    import copy

    import torch

    try:
        with warnings.catch_warnings():  # torch marks its int8 tensor helpers as deprecated
            warnings.simplefilter("ignore")
            return torch.ao.quantization.quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)
    except Exception as e:  # a torch without int8 kernels: same vectors to a rounding, slower
        log.warning("offline planner: int8 encoder unavailable (%s); using float weights", e)
        return model


@dataclass
class _TracedEncoder:
    """The encoder as a TorchScript graph, for one unpadded request at a time.

    Why: on a 20-token request most of the eager model's time is Python (a hundred module calls
    per pass), not arithmetic; the traced graph gives the same numbers in under half the time on
    one core. The trace records no sequence length, so every request length runs through it; a
    padded batch or segment ids (which the trace did not see) go to the eager model.
    """

    eager: Any
    graph: Any

    def __call__(self, input_ids: Any, attention_mask: Any = None, token_type_ids: Any = None) -> Any:
        padded = attention_mask is not None and not bool(attention_mask.all())
        if padded or (token_type_ids is not None and bool(token_type_ids.any())):
            return self.eager(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        out = self.graph(input_ids)
        return SimpleNamespace(last_hidden_state=out["last_hidden_state"] if isinstance(out, dict) else out[0])


def _traced(model: Any, tokenizer: Any) -> Any:
    """``model`` traced for single requests, or ``model`` itself when tracing fails."""
    import torch

    example = tokenizer("describe this photo and then read it aloud", return_tensors="pt")["input_ids"]
    chatty = logging.getLogger("transformers")  # tracing reads config fields it then warns about
    level = chatty.level
    chatty.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), torch.inference_mode():  # the tracer warns about every Python branch
            warnings.simplefilter("ignore")
            graph = torch.jit.trace(model, (example,), strict=False, check_trace=False)
    except Exception as e:  # same vectors from the eager model, slower
        log.warning("offline planner: could not trace the encoder (%s); running it eagerly", e)
        return model
    finally:
        chatty.setLevel(level)
    return _TracedEncoder(model, graph)


def clause_vectors(text: str, spans: list[tuple[int, int]], skip: list[tuple[int, int]] = ()) -> list[np.ndarray]:
    """The clause vectors of a request, or zero vectors when the encoder is not installed;
    ``skip``: ranges (quoted passages) left out of each clause's mean."""
    encoder, _ = ClauseEncoder.load()
    if encoder is None:
        return [np.zeros(DIMS, dtype=np.float32) for _ in spans]
    return encoder.vectors(text, spans, skip)
