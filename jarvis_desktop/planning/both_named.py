"""Two things named together as what one step works on: "read both the original and the
translation aloud", "caption both the original photo and the new one". The step is asked once
for each, the original being what the user gave and the other an earlier step's result."""

from __future__ import annotations

import re

from ..pipeline.plan import placeholder
from ..task_types import ARG_KINDS, TASK_TYPES
from .detect import Detection
from .extract import Span
from .named_sources import step_words, translation_into
from .plan_state import PlanState, nearest_file, original_words
from .result_refs import language_named, means_original, named_results

#: "both the original and the Japanese version", "the original photo and the new one": two noun
#: phrases joined by "and", each opening with a determiner
_TWO_NAMED_RE = re.compile(r"\b(?P<both>both\s+)?(?P<a>(?:the|my|your)\s+(?:[\w-]+\s+){0,2}?[\w-]+)\s+and\s+"
                           r"(?P<b>(?:the|my|your|its)\s+(?:[\w-]+\s+){0,2}[\w-]+)\b", re.I)  # (each read by search)
#: Steps that read two texts already: "how close the original and the translation are" is one comparison
_TWO_TEXTS = {"sentence-similarity", "question-answering"}
#: A result named as the new thing a step made ("the new picture", "the edited one", "the result")
_NEW_RE = re.compile(r"\b(?:new|edited|changed|restyled|cleaned|result(?:ing)?)\b", re.I)


def both_named(d: Detection, st: PlanState, clause: Span) -> tuple[str, list[str]] | None:
    """The argument and its two values when the step's words join the original and an earlier
    result as what it works on, else None. Without "both", one of the two must be "the original"
    ("read the original and the translation"): two results joined otherwise are left to the
    step's usual reading."""
    inputs = [n for n in TASK_TYPES[d.task].inputs if ARG_KINDS[n] in ("text", "image", "audio")]
    if len(inputs) != 1 or d.task in _TWO_TEXTS:
        return None
    name = inputs[0]
    kind = ARG_KINDS[name]
    for m in _TWO_NAMED_RE.finditer(step_words(d, st, clause)):
        first, second = m.group("a"), m.group("b")
        if not (m.group("both") or means_original(first) or means_original(second)):
            continue
        sources = [_source(part, kind, d, st) for part in (first, second)]
        if None not in sources and len(set(sources)) == 2:
            return name, [s for s in sources if s is not None]
    return None


def _source(words: str, kind: str, d: Detection, st: PlanState) -> str | None:
    """What ``words`` name, for a step reading ``kind``: the original (the words or file the user
    gave) or an earlier step's result (by its name, its language, or as the new one)."""
    if means_original(words):
        return original_words(st, rewritten=True) if kind == "text" else nearest_file(kind, d.start, st)
    language = language_named(words)
    if language:
        return placeholder(node.id) if (node := translation_into(language, st)) and kind in node.outputs else None
    node = next((n for n in reversed(st.nodes) if kind in n.outputs and (
        any(n.task in makers for makers in named_results(words)) or _NEW_RE.search(words))), None)
    return placeholder(node.id) if node else None
