"""Plural words that point at every file of a kind, or at every result a step made once per
file: "caption the vacation pics", "what species are these", "read the captions out"; and some
of them counted out: "how many people are in the last two", "..., and for the other two ...",
"all the photos except the last one".

Why: several files dropped on the window are named together far more often by a plural than by
"each" or "both". A plural names all of them, so the step is asked once per file (or once per
result), as "each" asks. Grammar, read from the tagger: a plural noun of the file's kind, or
"these", "those" or "them" standing alone as what the step works on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..media import kind_of
from .extract import Span
from .plan_state import PlanState, values_read
from .references import KIND_NOUNS
from .spoken_source import attachment_named

#: Plural names of what a step made from each file ("the captions", "the transcripts")
_PLURAL_RESULT_NOUNS = {"captions", "descriptions", "transcripts", "transcriptions", "summaries", "translations", "answers", "results"}
#: Owners that make a plural the user's own things, not results ("are our answers the same?")
_THEIR_OWN = {"my", "our", "his", "her", "their"}
#: Words before a pronoun that make it the topic, not what the step works on ("a haiku about them")
_TOPIC = {"about", "like", "with"}
#: Plural names of the files given, of any kind ("the files", "the pics", "the recordings")
_PLURAL_FILE_NOUNS = {noun + "s" for nouns in KIND_NOUNS.values() for noun in nouns} | {"files", "texts"}
#: "the first two", "the last 3 photos": that many files from one end of those given; "the other
#: two", "the rest": those no step has read yet
_FROM_ONE_END_RE = re.compile(r"\bthe\s+(?P<end>first|last)\s+(?P<n>two|three|four|2|3|4)\b", re.I)
_THE_OTHERS_RE = re.compile(r"\bthe\s+(?:others|rest|remaining\s+(?:ones|\w+s)|other\s+(?:ones|two|three|four|2|3|4|\w+s))\b", re.I)
#: "except the last one", "but not the selfie": the files named after it are left out
_EXCEPT_RE = re.compile(r"\b(?:except(?:\s+for)?|but\s+not|apart\s+from|other\s+than|excluding|minus|besides)\b", re.I)
_COUNTS = {"two": 2, "three": 3, "four": 4, "2": 2, "3": 3, "4": 4}


def names_many(tokens: Sequence, of_files: bool = False) -> bool:
    """``tokens`` (a step's words) name several files or results by a plural: a plural noun of a
    file or a result as a word of its own ("the vacation pics", not "the pics' colours" as a
    modifier), "these"/"those"/"them" with no noun after them ("what species are these",
    "transcribe the audio files and then summarise them"); ``of_files`` (a step on files given):
    also before any plural ("the total on these invoices"), not only one of a file's kind."""
    tokens = list(tokens)
    for k, t in enumerate(tokens):
        before = tokens[k - 1].lower if k else ""
        if (t.tag in ("NNS", "NNPS") and t.lower in _PLURAL_FILE_NOUNS | _PLURAL_RESULT_NOUNS and t.dep not in ("compound", "poss")
                and not any(u.lower in _THEIR_OWN for u in tokens[max(0, k - 2):k])):
            return True
        if t.lower in ("these", "those", "them") and before not in _TOPIC and (
                t.dep != "det" or of_files and any(u.tag == "NNS" for u in tokens[k + 1:k + 3])):
            return True
    return False


def says_the_others(text: str) -> bool:
    """``text`` points at the files not yet worked on ("the other two", "the rest")."""
    return _THE_OTHERS_RE.search(text) is not None


def files_counted(span: Span, files: list[str], st: PlanState) -> list[str]:
    """The files the words of ``span`` count out of ``files``: from one end ("the last two" of
    three photos), the others, those no step has read ("..., and for the other two ..."), or all
    but those named after "except" ("all the photos except the last one"); else ``files``."""
    if (m := _FROM_ONE_END_RE.search(span.text)) is not None:  # (in the order attached, not the order named)
        order = [str(a.path) for a in st.attachments]
        files = sorted(files, key=lambda f: order.index(f) if f in order else len(order))
        n = _COUNTS[m.group("n").lower()]
        return files if n >= len(files) else files[:n] if m.group("end").lower() == "first" else files[-n:]
    others = [f for f in files if f not in values_read(st)]
    if _THE_OTHERS_RE.search(span.text) and 2 <= len(others) < len(files):
        return others
    if (m := _EXCEPT_RE.search(span.text)) is not None:
        said = [f for f in st.reading.files if span.start + m.end() <= f.start < span.end]
        named = {attachment_named(f.text, kind_of(f.text) or "", st.attachments) for f in said}
        left = [f for f in files if f not in named]
        return left if 2 <= len(left) < len(files) else files
    return files
