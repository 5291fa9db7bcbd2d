"""One step asked twice, of two things named apart: "caption this, turn it into a watercolour, then
describe the watercolour version too", "describe the segmentation you made, and also describe the
actual photo". The step model places a step once per request, where it scores most; a second clause
that asks the same step of another thing (the original beside a result) is a second step.
"""

from __future__ import annotations

import numpy as np

from .result_refs import source_named
from .step_words import STATIVE_VERBS

#: Steps that read what a file holds: asked of two things, two answers. Not the steps that make a
#: new version or a map, where "the segmented version" or "this edited image" names what the one
#: step makes
_READERS = {"image-to-text", "image-classification", "visual-question-answering", "document-question-answering",
            "object-detection", "automatic-speech-recognition", "audio-classification"}


def asked_of_another(found: list[tuple[int, int, str]], P: np.ndarray, views: list, seg, threshold: float) -> list[tuple[int, int, str]]:
    """Steps for the clauses with none of their own whose likeliest step is one planned at another
    clause, where the two clauses name different things to work on: one the original, the other a
    result, or one of them a result and the other nothing. A step asked twice is rarer than once:
    the model must be twice as sure as it is of a step at all (``threshold``) - "then forward the
    English version to the team" leans to the transcription before it, far less surely."""
    claimed = {i for i, _, _ in found}
    out = []
    for i, view in enumerate(views):
        j = int(P[i].argmax()) if len(P[i]) else -1
        if i in claimed or j < 0 or P[i, j] < 2 * threshold:
            continue
        first = next((f for f in found if f[1] == j), None)
        if first is None or first[2] not in _READERS:
            continue
        verbs = [t for t in seg.tokens_in(view.span) if t.pos == "VERB" and t.lemma not in STATIVE_VERBS]
        here, there = source_named(view.span.text), source_named(views[first[0]].span.text)
        if verbs and here is not None and here != there:
            out.append((i, j, first[2]))
    return out
