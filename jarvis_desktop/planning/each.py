"""Words that ask for a step once per file or per result ("transcribe both", "caption each photo",
"summarise the two files separately"), and the "separately" that only sets a step apart ("..., and
separately draw a castle")."""

from __future__ import annotations

import re

from .extract import RequestReading, Span

#: Words that ask for a step once per thing given, not "all the names" in one ("summarise both",
#: "each of these", "separately")
EACH_FILE_RE = re.compile(r"\b(?:both|each|separately|respectively|all (?:\d+|of (?:them|these|those)|these|those))\b", re.I)
#: Words that ask for a step once per file or per result ("transcribe both", "caption each photo",
#: "which of these has a cat")
EACH_RE = re.compile(r"\b(?:both|each|every|separately|respectively|two|three|four|all (?:the|of|these|those|my|\d+)"
                     r"|which (?:one )?of (?:these|those|the|my))\b", re.I)  # "which of these recordings ...": each is judged
#: Words that point at all of a group just made, copies of one thing included ("read them aloud", "describe each")
ALL_OF_THEM_RE = re.compile(r"\b(?:them|those|these|each|both|all)\b", re.I)
#: "separately" opening a command ("..., and separately draw ...", "separately, translate it"): a
#: step apart from the others, not one per file as in "summarise both files separately"
_APART_RE = re.compile(r"(?:^|\band\b|,)\s*separately\b(?=\s*,?\s*[a-z])", re.I)


def asks_each(rx: re.Pattern, text: str) -> bool:
    """Whether ``text`` asks for a step once per file or result, by the words of ``rx``
    (``EACH_RE`` or ``EACH_FILE_RE``)."""
    return rx.search(_APART_RE.sub(" ", text)) is not None


def each_scope(reading: RequestReading, ci: int, stepless: set[int]) -> list[Span]:
    """Where the words asking for a step once each may stand: the step's clause ``ci`` up to a
    remark after a comma, and the next clause when it asks no step and has no verb ("emotion?
    both clips"); not words that say something of the files ("..., the other two are just there
    for context", "fix draft.txt, the other two files are just for reference")."""
    nxt = [reading.clauses[k] for k in (ci + 1,) if k in stepless]
    return [_before_remark(reading, reading.clauses[ci])] + [
        c for c in nxt if not any(t.pos in ("VERB", "AUX") for t in reading.tokens if c.start <= t.start < c.end)]


#: Words that name files apart from the ones a step works on ("the other two", "the rest")
_SET_APART = {"other", "others", "rest", "remaining"}


def _before_remark(reading: RequestReading, clause: Span) -> Span:
    """``clause`` without a part after a comma that says something of the other files: it opens with
    a subject that names them apart ("the other two", "the rest"), whose verb follows, and holds no
    command ("..., the other two files are just for reference"; not "..., all three are from today",
    nor "Third, say both results out loud", which the parser may read as "both" that "results")."""
    toks = [t for t in reading.tokens if clause.start <= t.start < clause.end]
    for k, t in enumerate(toks):
        if t.text != "," or k == 0:
            continue
        part = toks[k + 1:next((n for n in range(k + 1, len(toks)) if toks[n].text in (",", ";")), len(toks))]
        subj = next((n for n, u in enumerate(part) if u.dep in ("nsubj", "nsubjpass")), None)
        if subj is not None and any(u.lower in _SET_APART for u in part[:subj + 1]) and all(u.pos in ("DET", "ADJ", "NUM", "NOUN", "PROPN", "PRON", "ADV") for u in part[:subj]) and any(
                u.tag in ("VBZ", "VBP", "VBD") for u in part[subj + 1:]) and not any(u.tag == "VB" for u in part):
            return Span(reading.text[clause.start:t.start], clause.start, t.start)
    return clause
