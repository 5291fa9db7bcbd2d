"""Which made result a step's words name as what it reads ("the transcript", "the Spanish
version"), and whether a step asked later makes it: the request's own words link a step to the
one whose output it reads, where the last text made is not it."""

from __future__ import annotations

import re

from .detect import Detection
from .extract import Span
from .plan_state import PlanNode, PlanState
from .result_refs import language_named, named_results

#: The step that turns a recording or a picture into its words, by the kind of file
READER_OF = {"audio": "automatic-speech-recognition", "image": "image-to-text"}
FILE_READERS = set(READER_OF.values())


def named_producer(d: Detection, st: PlanState, clause: Span, prod: PlanNode | None) -> PlanNode | None:
    """The earlier step whose text the clause names ("the transcript", "the caption") when that is
    not the last text made (``prod``); never the step's own kind of result."""
    words = step_words(d, st, clause)
    language = language_named(words)
    if language and d.task != "translation":  # "read the Spanish version": the translation into Spanish
        node = translation_into(language, st)
        if node is not None:
            return None if node is prod else node
    for makers in named_results(words):
        if d.task in makers:
            continue
        if prod is not None and prod.task in makers:
            return None  # the last text is one so called ("write a description..., translate the description")
        node = next((n for n in reversed(st.nodes) if n.task in makers and "text" in n.outputs), None)
        if node is not None:
            return node
    return None


def translation_into(language: str, st: PlanState) -> PlanNode | None:
    """The latest step that translates into ``language`` ("the Spanish version"), if any."""
    return next((n for n in reversed(st.nodes) if n.task == "translation"
                 and n.args.get("target_language", "").lower() == language.lower()), None)


def result_made_later(d: Detection, st: PlanState, clause: Span) -> set[str]:
    """The tasks of the later steps that make a result the clause names ("the Spanish version",
    "the summary") when no step has made it yet: this step reads it, so it waits for them. The words
    are the step's own, or its sentence's up to them when no other step was found there ("read
    me the Spanish version | of what this sign says")."""
    sentence = st.reading.sentence_of(d.start)
    alone = not any(sentence.start <= n.pos < sentence.end and n.task not in FILE_READERS for n in st.nodes) and not any(
        p.start < d.start and sentence.start <= p.start for p in st.pending)
    words = st.reading.text[sentence.start : clause.end] if alone else step_words(d, st, clause)
    makers = ({"translation"} if language_named(words) and d.task != "translation" else set()) | {
        t for tasks in named_results(words, made=True) if d.task not in tasks for t in tasks}
    if any(n.task in makers for n in st.nodes):
        return set()
    return makers & {p.task for p in st.pending}


def step_words(d: Detection, st: PlanState, clause: Span) -> str:
    """The words of the clause that are about step ``d``: from ``d`` on, where the clause holds an
    earlier step too ("translate that description into German and read it out"), since the words
    before it name what the earlier one reads."""
    if any(clause.start <= n.pos < d.start for n in st.nodes):
        return clause.text[max(0, d.start - clause.start):]
    return clause.text


#: A sentence that opens by saying what its steps work from ("From the transcript I need ...",
#: "Using the caption, ...")
_SOURCE_RE = re.compile(r"\W*(?:(?:and|so|then|now)\s+)?(?:from|using|based on|out of)\s+(?:the|that|your)\s+(?:\w+\s+)?\w+", re.I)
#: Words of a step that point at the result just before it ("and translate it")
_POINTING_RE = re.compile(r"\b(?:it|its|this|that|these|those|them)\b", re.I)


def source_named_before(d: Detection, st: PlanState, clause: Span) -> PlanNode | None:
    """The made result the step's sentence opens by naming as what it works from ("From the transcript I need two things: a short summary, and a French translation"): every
    step listed there reads it, not the step listed before it; not a step whose own words point
    at something else ("..., and also translate it")."""
    if _POINTING_RE.search(step_words(d, st, clause)):
        return None
    sentence = st.reading.sentence_of(d.start)
    m = _SOURCE_RE.match(st.reading.text, sentence.start, d.start)
    for makers in named_results(m.group(0), made=True) if m else []:
        node = next((n for n in reversed(st.nodes) if n.task in makers and d.task not in makers and n.pos < sentence.start), None)
        if node is not None:
            return node
    return None
