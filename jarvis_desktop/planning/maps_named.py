"""A map of a picture asked by its own name beside other steps ("pose + depth pls", "straight line
map of this, and how many boxes are there"): the clause that names the map asks for it, though the
step model, reading a two-word clause beside a plainer step, is unsure of it.

The names are a closed class (pose, edges, lines, depth, outline, normals, segments; see
``detect.CONTROL_WORDS``); a clause that says something of the picture ("the edges are blurry")
has a subject of its own and asks for no map.
"""

from __future__ import annotations

import numpy as np

from .detect import CONTROL_WORDS
from .extract import Span
from .step_labels import CONTROL, GUIDED
from .step_words import YOU_WORDS

#: Maps that a step of their own estimates: asked by name with no picture to draw from them, the
#: estimate is the map ("depth map of this + caption")
MAP_ESTIMATES = {"depth": "depth-estimation", "seg": "image-segmentation"}


def maps_named(found: list[tuple[int, int, str]], P: np.ndarray, views: list, seg, labels: list[str], given,
               threshold: float) -> list[tuple[int, int, str]]:
    """Steps for the clauses with no step of their own that name a map of the picture given, unless
    the model is sure the clause asks for another step ("then describe the sketch version too": a
    caption, planned before it).

    Not where a guided picture or a map is already planned: that step names its own map ("take the
    pose from this, then draw a knight")."""
    if "image" not in given or len(views) < 2 or CONTROL not in labels or {CONTROL, GUIDED} & {f[2] for f in found}:
        return []
    claimed, have = {i for i, _, _ in found}, {f[2] for f in found}
    maps = {labels.index(x) for x in (CONTROL, GUIDED, *MAP_ESTIMATES.values()) if x in labels}
    out = []
    for i, view in enumerate(views):
        sure = P[i].max() >= threshold and int(P[i].argmax()) not in maps
        kind = None if i in claimed or sure else _map_asked(view.span, seg)
        label = MAP_ESTIMATES.get(kind or "", CONTROL)
        if kind and label in labels and (label == CONTROL or label not in have):
            out.append((i, labels.index(label), label))
            have.add(label)
    return out


def _map_asked(span: Span, seg) -> str | None:
    """The kind of map ``span`` names first in a stretch between commas whose subject, if any, is
    the assistant: not "my daughter did a ballet pose", "the edges are blurry"."""
    text, kinds = span.text, []
    for rx, kind in CONTROL_WORDS:
        for m in rx.finditer(text):
            a = max(text.rfind(p, 0, m.start()) for p in ",;.!?") + 1
            b = min((k for p in ",;.!?" if (k := text.find(p, m.end())) >= 0), default=len(text))
            if not any(t.dep in ("nsubj", "nsubjpass") and t.lower not in YOU_WORDS
                       for t in seg.tokens_in(Span(text[a:b], span.start + a, span.start + b))):
                kinds.append((m.start(), kind))
                break
    return min(kinds)[1] if kinds else None


def words_beside_the_map(found: list[tuple[int, int, str]], views: list, seg, files: list, image_words: set[str]) -> list[str]:
    """The words a guided picture could take its subject from: those of the clauses no other step
    claimed ("make a normal map from this statue photo, and what's the statue made of?": not the
    question's), less file names and the subject of the photo itself ("this statue photo")."""
    others = {i for i, _, lab in found if lab not in (CONTROL, GUIDED, "text-to-image")} - {i for i, _, lab in found if lab == GUIDED}
    toks = [t for k, v in enumerate(views) if k not in others for t in seg.tokens_in(v.span)]
    return [t.text for n, t in enumerate(toks) if not any(f.start <= t.start < f.end for f in files)
            and not (t.dep == "compound" and n + 1 < len(toks) and toks[n + 1].lower in image_words)]
