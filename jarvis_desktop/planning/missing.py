"""Files a request needs that were not attached: whether the words ask for one, and how to name them.

A step whose photo or recording is missing is dropped by the linker; the rest of the plan would
then work on the wrong thing ("describe photo.jpg and read it aloud" read "Read it aloud" aloud).
When the request itself says such a file should be there, the plan is marked with what is missing,
and the assistant runs nothing and asks for it.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..media import Attachment, kind_of
from .extract import RequestReading, Span

#: How the answer names a kind of file the request needs when the request gives it no name
KIND_WORDS = {"image": "a photo or picture", "audio": "a recording", "video": "a video"}


def _unattached(reading: RequestReading, attachments: list[Attachment]) -> list[Span]:
    """The files the request names that are not among the attachments."""
    attached = {a.path.name.lower() for a in attachments}
    return [f for f in reading.files if Path(f.text).name.lower() not in attached]


def skipped_note(task: str, kind: str) -> str:
    """The note for a step left out because no file of ``kind`` was given (one wording, whichever
    stage leaves it out)."""
    return f"skipped {task}: it needs {kind} input and none was given"


#: The note of a request no expert step was found in
NO_TASK_NOTE = "no task an expert can do was found in the request; it will be answered as chat"
#: The note of a request whose steps would work on the assistant's earlier answer when there is none
NO_EARLIER_ANSWER_NOTE = ("the request asks for something done to an earlier answer ('read your answer out loud'), and this "
                          "conversation has none yet; it will be answered as chat")
#: Words that point at a thing the user has in mind ("caption this one", "transcribe it")
_POINTER_RE = re.compile(r"\b(?:this|that|these|those|it|them|here|attached)\b", re.I)


def nothing_planned_note(text: str) -> str:
    """Why an empty plan is empty when every step found needs a file that is not there and the
    request names none: "caption this one" points at a file that was forgotten, so the user is told
    to attach it; "turn the fan off" points at nothing, and its steps were misreadings of a request
    no expert can do, which the chat answers."""
    if _POINTER_RE.search(text):
        return "the tasks asked for need files that were not given; attach them and ask again"
    return NO_TASK_NOTE


#: Words for a picture that name a text file as well: with one given, "this document" is that file
_ALSO_TEXT = {"document", "page", "scan"}


def asks_for_file(kind: str, reading: RequestReading, attachments: list[Attachment], clause: Span,
                  media_words: dict[str, set[str]]) -> bool:
    """Whether the request itself says a file of ``kind`` should be there: it names one
    ("photo.jpg") that was not attached, or ``clause`` points at one ("this photo", "my
    recording") and none of that kind came. A step found where the words speak of no such file
    (a photo question read into "is the person in this audio male or female") is only dropped."""
    if any(kind_of(f.text) == kind for f in _unattached(reading, attachments)):
        return True
    if any(a.kind == kind for a in attachments):
        return False
    shared = _ALSO_TEXT if any(a.kind == "text" for a in attachments) else set()
    words = "|".join(sorted(set(media_words.get(kind, ())) - shared))
    return bool(words) and re.search(rf"\b(?:this|that|the|my|these|those|attached|our|his|her)\s+(?:\w+\s+)?(?:{words})\b",
                                     clause.text, re.I) is not None


def missing_files(kinds: list[str], reading: RequestReading, attachments: list[Attachment],
                  pointed: set[tuple[int, int]]) -> list[str]:
    """What to ask for, given the ``kinds`` of file steps lacked: the files the request names
    (``talk.mp3``; not those only ``pointed`` at, "the second photo"), else the kind (a recording)."""
    kinds = list(dict.fromkeys(kinds))
    named = list(dict.fromkeys(f.text for f in _unattached(reading, attachments)
                               if kind_of(f.text) in kinds and (f.start, f.end) not in pointed))
    named_kinds = {kind_of(n) for n in named}
    return named + [KIND_WORDS.get(k, f"a {k} file") for k in kinds if k not in named_kinds]
