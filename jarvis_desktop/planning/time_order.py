"""Steps said out of the order they run in, put in it: "before you summarise it, translate it",
"summarise it after you translate it", "summarise it, but before that translate it" all mean
translate, then summarise.

Why: the planner runs the steps of a request in the order they were asked, which is right for
"then" and "after that", and wrong for the connectives that invert it. This is grammar of time
(a clause opened by "before" or "after" whose verb is the assistant's to do), rewritten to the
plain order ("translate it, then summarise it") before planning; "before I send it" (the user's
own doing), "the photo I took after the party" and quoted words are left as they are.
"""

from __future__ import annotations

import re

from ..english import parse
from .extract import QUOTE_RES

_MAYBE = re.compile(r"\b(?:before|after)\b", re.I)
#: A clause that asks about something rather than for it ("do you keep ...", "is it ...").
_ASKS_ABOUT = r"(?:do|does|did|are|is|was|were|have|has)\s"
#: Where a clause ends: a comma, "and", "then", a sentence's end.
_CLAUSE_END = re.compile(r",|;|\s+(?:and|then)\s+|[.!?](?=\s|$)|$")


def in_time_order(text: str) -> str:
    """``text`` with a step said before one that runs earlier moved after it."""
    if not _MAYBE.search(text) or (doc := parse(text)) is None:
        return text
    quoted = [(m.start(), m.end()) for rx in QUOTE_RES for m in rx.finditer(text)]
    for t in doc:
        if t.lower_ not in {"before", "after"} or any(a <= t.idx < b for a, b in quoted):
            continue
        k = t.i + 1
        if k < len(doc) and doc[k].lower_ in {"that", "this"} and (t.lower_ == "before"):
            moved = _before_that(text, doc, t.i)
        else:
            if k < len(doc) and doc[k].lower_ in {"you", "we"}:
                k += 1
            if k >= len(doc) or not (doc[k].tag_ == "VBG" or doc[k].tag_ in {"VB", "VBP"} and k > t.i + 1):
                continue  # "the photo I took after the party", "before I send it"
            moved = _opened_by(text, doc, t.i, doc[k].idx)
        if moved is not None:
            return moved
    return text


def _clause_after(text: str, start: int) -> int:
    """Where the clause that starts at ``start`` ends."""
    return start + _CLAUSE_END.search(text, start).start() - start


def _clause_start(text: str, end: int) -> int:
    """Where the clause that ends at ``end`` starts: after the last comma, "and", "then" or
    sentence end before it."""
    starts = [m.end() for m in re.finditer(r"[,;]\s*(?:(?:and|then|but)\s+)?|\s+(?:and|then|but)\s+|[.!?]\s+|^\W*", text[:end], re.I)]
    return max(starts) if starts else 0


def _opened_by(text: str, doc, at: int, verb: int) -> str | None:
    """A step opened by "before"/"after": "before you X, Y" -> "Y, then X"; "Y after you X" ->
    "X, then Y"; "after you X, Y" and "Y before X-ing" are already in order."""
    word = doc[at]
    asked_end = _clause_after(text, verb)
    asked = text[verb:asked_end].strip()
    sentence_start = _clause_start(text, word.idx) == word.idx or text[: word.idx].strip() == ""
    if word.lower_ == "before" and sentence_start and text[asked_end : asked_end + 1] == ",":
        rest_start = asked_end + 1
        rest_end = rest_start + re.search(r"[.!?](?=\s|$)|$", text[rest_start:]).start()  # the rest of the sentence
        rest = text[rest_start:rest_end].strip()
        if not rest or len(asked.split()) < 2:
            return None
        return text[: word.idx] + f"{rest}, then {asked}" + text[rest_end:]
    if word.lower_ == "after" and not sentence_start:
        first = _clause_start(text, word.idx)
        said = text[first : word.idx].strip().rstrip(",")
        if not said or re.match(_ASKS_ABOUT, said, re.I):
            return None  # "do you keep my recordings after you transcribe them?": a question, not a step
        return text[:first] + f"{asked}, then {said}" + text[asked_end:]
    return None


def _before_that(text: str, doc, at: int) -> str | None:
    """"Y, but before that X" -> "X, then Y"."""
    word = doc[at]
    lead = re.search(r"(?:[,.!?;]\s*)?(?:(?:and|but)\s+)?$", text[: word.idx], re.I)  # "caption it. But before that, ..."
    said_end = lead.start() if lead else word.idx
    said_start = _clause_start(text, said_end)
    said = text[said_start:said_end].strip()
    after_that = doc[at + 1].idx + len(doc[at + 1].text)
    m = re.match(r"\s*,?\s*", text[after_that:])
    asked_start = after_that + (m.end() if m else 0)
    asked_end = _clause_after(text, asked_start + 1)
    asked = text[asked_start:asked_end].strip()
    if not said or not asked:
        return None
    return text[:said_start] + f"{asked}, then {said}" + text[asked_end:]
