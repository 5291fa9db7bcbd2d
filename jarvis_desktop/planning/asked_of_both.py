"""One step asked twice, of two things named apart: "caption this, turn it into a watercolour, then
describe the watercolour version too", "describe the segmentation you made, and also describe the
actual photo", "draw a cat and then draw a dog". The step model places a step once per request,
where it scores most; a second clause that asks the same step of another thing (the original beside
a result, a picture of its own) is a second step, and one that changes the picture made is an edit.
"""

from __future__ import annotations

import numpy as np

from .imperatives import drawn_in_clause
from .result_refs import IMAGE_READERS, MAP_NOUN_RE, source_named
from .segment import OBJECT_PRONOUNS
from .step_labels import EDIT, TEXT_MAKERS
from .step_words import STATIVE_VERBS

#: Steps that read what a file holds: asked of two things, two answers. Not the steps that make a
#: new version or a map, where "the segmented version" or "this edited image" names what the one
#: step makes
_READERS = IMAGE_READERS | {"automatic-speech-recognition", "audio-classification"}


def asked_of_another(found: list[tuple[int, int, str]], P: np.ndarray, views: list, seg, threshold: float) -> list[tuple[int, int, str]]:
    """``found`` with a step for each clause with none of its own whose likeliest step is one planned
    at another clause: a reading step where the two clauses name different things to work on (one
    the original, the other a result, or one of them a result and the other nothing), a picture
    where the clause's own verb draws a thing of its own ("draw a cat and then draw a dog") - moved
    there, not added, when the clause it was planned at asks for a map ("draw a house, then make a
    depth map of it"). A reading asked twice is rarer than once: the model must be twice as sure as
    it is of a step at all (``threshold``) - "then forward the English version to the team" leans
    to the transcription before it, far less surely; a thing drawn is its own evidence."""
    claimed = {i for i, _, _ in found}
    out, moved = [], []
    for i, view in enumerate(views):
        j = int(P[i].argmax()) if len(P[i]) else -1
        first = next((f for f in found if f[1] == j), None) if i not in claimed and j >= 0 else None
        if first is None:
            continue
        toks = seg.tokens_in(view.span)
        if first[2] in _READERS and P[i, j] >= 2 * threshold:
            verbs = [t for t in toks if t.pos == "VERB" and t.lemma not in STATIVE_VERBS]
            here, there = source_named(view.span.text), source_named(views[first[0]].span.text)
            if verbs and here is not None and here != there:
                out.append((i, j, first[2]))
        elif first[2] not in _READERS and TEXT_MAKERS.get(drawn_in_clause(toks) or "") == first[2]:
            there = views[first[0]].span
            if not (MAP_NOUN_RE.search(there.text) or _points_back(seg.tokens_in(there))):
                out.append((i, j, first[2]))
            else:  # the model put the picture where a map of it is asked ("draw a house, then make a depth map of
                moved.append((first, (i, j, first[2])))  # it") or it is changed ("paint a sunset, then paint it at night")
    return [f for f in found if f not in {a for a, _ in moved}] + [b for _, b in moved] + out


def changes_of_made_pictures(found: list[tuple[int, int, str]], P: np.ndarray, views: list, seg, labels: list[str],
                             threshold: float) -> list[tuple[int, int, str]]:
    """An edit for each clause with no step of its own whose likeliest step is the picture an earlier
    clause makes, and whose command works on it ("generate a cabin in the woods and then turn that
    into a snowy winter scene", "draw a cat, and draw a hat on it"): the picture made is changed,
    not made again."""
    if "text-to-image" not in labels or EDIT not in labels:
        return []
    t2i, claimed = labels.index("text-to-image"), {i for i, _, _ in found}
    made = [k for k, j, _ in found if j == t2i]
    out = []
    for i, view in enumerate(views):
        if i in claimed or not made or min(made) >= i or int(P[i].argmax()) != t2i or P[i, t2i] < threshold:
            continue
        toks = seg.tokens_in(view.span)
        if any(t.pos == "VERB" and t.lemma not in STATIVE_VERBS for t in toks) and _points_back(toks) and not MAP_NOUN_RE.search(view.span.text):
            out.append((i, labels.index(EDIT), EDIT))  # (not "then make an edge map of it": a map of it)
    return out


def _points_back(toks: list) -> bool:
    """A pronoun is what the clause works on or in ("turn that into ...", "draw a hat on it")."""
    return any(t.lower in OBJECT_PRONOUNS and t.dep in ("dobj", "pobj") for t in toks)
