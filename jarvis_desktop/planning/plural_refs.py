"""Plural words that point at every file of a kind, or at every result a step made once per
file: "caption the vacation pics", "what species are these", "read the captions out"; and some
of them counted out: "how many people are in the last two", "..., and for the other two ...",
"all the photos except the last one".

Why: several files dropped on the window are named together far more often by a plural than by
"each" or "both". A plural names all of them, so the step is asked once per file (or once per
result), as "each" asks. Grammar, read from the tagger: a plural noun of the file's kind, or
"these", "those" or "them" standing alone as what the step works on; a count from one end, "the
others", or "except" picks some of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..media import kind_of
from .counts import NUMBER_WORDS
from .extract import RequestReading, Span
from .plan_state import PlanState, values_read
from .references import KIND_NOUNS
from .result_refs import RESULT_NAMES
from .spoken_source import attachment_named

#: Owners that make a plural the user's own things, not results ("are our answers the same?")
_THEIR_OWN = {"my", "our", "his", "her", "their"}
#: Words before a pronoun that make it the topic, not what the step works on ("a haiku about them")
_TOPIC = {"about", "like", "with"}
#: "the first two", "the last 3 photos": that many files from one end of those given
_FROM_ONE_END_RE = re.compile(rf"\bthe\s+(?P<end>first|last)\s+(?P<n>{'|'.join(NUMBER_WORDS)})\b", re.I)
#: "the other two", "the rest": those no step has read yet
_THE_OTHERS_RE = re.compile(r"\bthe\s+(?:others|rest|remaining\s+(?:ones|\w+s)|other\s+(?:ones|two|three|four|2|3|4|\w+s))\b", re.I)
#: "except the last one", "but not the selfie": the files named after it are left out
_EXCEPT_RE = re.compile(r"\b(?:except(?:\s+for)?|but\s+not|apart\s+from|other\s+than|excluding|minus|besides)\b", re.I)


def step_names_many(span: Span, reading: RequestReading, kind: str | None) -> bool:
    """The words of a step (``span``) name several files or results (``names_many``), and no file
    of their own ("describe a.jpg like you did with the other pics"; one left out after "except"
    is none of its own)."""
    end = span.start + m.start() if (m := _EXCEPT_RE.search(span.text)) else span.end
    if any(span.start <= f.start < end for f in reading.files):
        return False
    return names_many([t for t in reading.tokens if span.start <= t.start < span.end], kind)


def names_many(tokens: Sequence, kind: str | None = None) -> bool:
    """``tokens`` (a step's words) name several files or results by a plural: a plural noun of
    the files of ``kind`` the step reads (of text files or results for a step on words: ``kind``
    None) as a word of its own ("the vacation pics", not "the pics' colours"),
    "these"/"those"/"them" with no noun after them ("what species are these",
    "transcribe the audio files and then summarise them"), for a step on files also before any
    plural ("the total on these invoices"), or "the others" ("..., and describe the others").
    Not a topic ("a haiku about them") nor the user's own ("are our answers the same?")."""
    tokens = list(tokens)
    nouns = (KIND_NOUNS[kind] if kind in KIND_NOUNS else KIND_NOUNS["text"] | RESULT_NAMES) | {"file"}
    for k, t in enumerate(tokens):
        before = tokens[k - 1].lower if k else ""
        if (t.tag in ("NNS", "NNPS") and t.lemma in nouns and t.dep not in ("compound", "poss")
                and not any(u.lower in _THEIR_OWN for u in tokens[max(0, k - 2):k])):
            return True
        if t.lower in ("these", "those", "them") and before not in _TOPIC and (
                t.dep != "det" or kind is not None and any(u.tag == "NNS" for u in tokens[k + 1:k + 3])):
            return True
    return says_the_others(" ".join(t.text for t in tokens))


def says_the_others(text: str) -> bool:
    """``text`` points at the files not yet worked on ("the other two", "the rest")."""
    return _THE_OTHERS_RE.search(text) is not None


def from_one_end(text: str, files: list[str]) -> list[str] | None:
    """The files "the first two" / "the last two" in ``text`` count out of ``files`` (given in
    the order attached); None when it counts none."""
    if (m := _FROM_ONE_END_RE.search(text)) is None:
        return None
    n = NUMBER_WORDS[m.group("n").lower()]
    return files if n >= len(files) else files[:n] if m.group("end").lower() == "first" else files[-n:]


def files_counted(span: Span, files: list[str], st: PlanState) -> list[str]:
    """The files the words of ``span`` count out of ``files``: all but those named after "except"
    ("all the photos except the last one", "... but not the first two"), those from one end ("the
    last two" of three photos, in the order attached), or the others, those no step has read
    ("..., and for the other two ..."); else ``files``."""
    order = [str(a.path) for a in st.attachments]
    files = sorted(files, key=lambda f: order.index(f) if f in order else len(order))
    def named(start: int) -> set[str | None]:
        return {attachment_named(f.text, kind_of(f.text) or "", st.attachments) for f in st.reading.files if start <= f.start < span.end}
    if (m := _EXCEPT_RE.search(span.text)) is not None:
        out = set(from_one_end(span.text[m.end():], files) or []) | named(span.start + m.end())
        left = [f for f in files if f not in out]
        return left if left and len(left) < len(files) else files
    if (counted := from_one_end(span.text, files)) is not None:  # (with a file named beside them: "..., and caption the last one")
        return [f for f in files if f in counted or f in named(span.start)]
    if says_the_others(span.text):
        read = values_read(st)
        others = [f for f in files if f not in read]
        return others if others and len(others) < len(files) else files
    return files
