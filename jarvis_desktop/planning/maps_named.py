"""A map of a picture asked by its own name beside other steps ("pose + depth pls", "straight line
map of this, and how many boxes are there"): the clause that names the map asks for it, though the
step model, reading a two-word clause beside a plainer step, is unsure of it.

The names are a closed class (pose, edges, lines, depth, outline, normals, segments; see
``detect.CONTROL_WORDS``); a clause that says something of the picture ("the edges are blurry")
has a subject of its own and asks for no map.
"""

from __future__ import annotations

import re

import numpy as np

from .detect import CONTROL_WORDS
from .extract import Span
from .result_refs import MAP_NOUN_RE
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
    """The kind of map ``span`` names first, as a noun, in a stretch between commas whose subject, if
    any, is the assistant and where nothing is read: not "my daughter did a ballet pose", "the edges
    are blurry", "pose a question about it", "pose: warrior two", "explain the sketch". Bare "lines"
    and "sketch" name a map too seldom to be asked by themselves."""
    text, kinds = span.text, []
    for rx, kind in CONTROL_WORDS:
        for m in rx.finditer(text):
            a = max(text.rfind(p, 0, m.start()) for p in ",;.!?") + 1
            b = min((k for p in ",;.!?" if (k := text.find(p, m.end())) >= 0), default=len(text))
            toks = seg.tokens_in(Span(text[a:b], span.start + a, span.start + b))
            at = next((n for n, t in enumerate(toks) if t.start >= span.start + m.start()), None)
            word = toks[at] if at is not None else None
            if word is None or word.lower in ("lines", "sketch") or text[m.end():].lstrip().startswith(":") or (
                    word.pos == "VERB" and at + 1 < len(toks) and toks[at + 1].pos in ("DET", "PRON", "NOUN", "PROPN", "NUM")):
                continue  # (a verb with its object: "pose a question about it")
            if not any(t.dep in ("nsubj", "nsubjpass") and t.lower not in YOU_WORDS or t.lemma in _READING
                       for t in toks if t.start < word.start or t.dep.startswith("nsubj")):
                kinds.append((m.start(), kind))
                break
    return min(kinds)[1] if kinds else None


#: Verbs that read what is there: a map word after them names what is read ("explain the sketch")
_READING = {"explain", "describe", "read", "translate", "caption", "summarize", "summarise", "transcribe", "tell"}


#: A clause that asks a question ("then tell me how many windows the room has"): what it names is
#: asked about, not drawn
_QUESTION_RE = re.compile(r"\W*(?:(?:and|then|also|so|oh|ok)\W+)*(?:(?:can|could|would) you\s+)?(?:(?:tell|show) me\s+)?"
                          r"(?:what|how|which|who|where|when|why|whether|if|(?:is|are|does|do|did)\s+(?:you|u|i|we|they|he|she|it|there|"
                          r"this|that|these|those|the|my|your|his|her)\b)", re.I)  # (not "do a segmentation map of ...")


def words_beside_the_map(found: list[tuple[int, int, str]], views: list, seg, files: list, image_words: set[str]) -> list[str]:
    """The words a guided picture could take its subject from: those of the clauses no other step
    claimed ("make a normal map from this statue photo, and what's the statue made of?": not the
    question's), less file names and the subject of the photo itself ("this statue photo")."""
    others = {i for i, _, lab in found if lab not in (CONTROL, GUIDED, "text-to-image")} - {i for i, _, lab in found if lab == GUIDED}
    toks = [t for k, v in enumerate(views) if k not in others and not _QUESTION_RE.match(v.span.text) for t in seg.tokens_in(v.span)]
    of_map = set()  # "a line map of the room": the room is the photo's, not a thing to draw
    for n, t in enumerate(toks[:-1]):
        if MAP_NOUN_RE.fullmatch(t.lower) and toks[n + 1].lower == "of":
            of_map.add(toks[n + 1].start)
            for u in toks[n + 2:]:  # the noun phrase after "of", no further
                if u.pos not in ("DET", "ADJ", "NOUN", "PROPN", "PRON", "NUM") or u.text in ("→", "->"):
                    break
                of_map.add(u.start)
    return [t.text for n, t in enumerate(toks) if not any(f.start <= t.start < f.end for f in files) and t.start not in of_map
            and not (t.dep == "compound" and n + 1 < len(toks) and toks[n + 1].lower in image_words)]
