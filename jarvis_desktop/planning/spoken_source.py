"""Which recording holds the words a step needs as its question or instruction.

People record what they want asked or changed ("the question in my voice memo", "edit the photo
the way I describe in the recording", "transcribe his question and then answer it"): the step
then reads the transcript of that recording as its question or instruction, not the request's
own words. Also which attachment a file name in the request stands for.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..media import Attachment, kind_of
from .extract import RequestReading, Span

#: Words for a recording of speech
SPOKEN_WORD_RE = re.compile(r"\b(?:audio|recording|recorded|voice|speech|spoken|memo|voicemail|clip)\b", re.I)
#: Asking for a recording's words ("transcribe his question")
TRANSCRIBE_RE = re.compile(r"\b(?:transcri\w+|write (?:out|down))\b", re.I)
#: Words saying a recording holds what a step needs ("the question in my recording").
SPOKEN_SPEC_RE = re.compile(r"\b(?:question|command|instructions?|directions?|alterations?|amendments?|changes|query|request|ideas|preferences)s?\b", re.I)
#: Saying a step is done as someone asks in a recording ("edit it the way the recording says",
#: "change the drawing how he asks in his voice note")
SPOKEN_MANNER_RE = re.compile(r"\b(?:the way|as|how|however)\b[^.?!;]*?\b(?:says?|said|asks?|asked|describes?|described|explains?|explained|tells?|told|wants?|wanted)\b", re.I)
#: Steps whose question or instruction may be spoken
_ASKED_STEPS = ("image-to-image", "visual-question-answering", "document-question-answering", "question-answering")


def attachment_named(name: str, kind: str, attachments: list[Attachment]) -> str | None:
    """The attachment a file name in the request stands for (by name, else the only one of its kind)."""
    low = Path(name).name.lower()
    for a in attachments:
        if a.path.name.lower() == low:
            return str(a.path)
    same = [a for a in attachments if a.kind == kind]
    if len(same) == 1:
        return str(same[0].path)
    return None


def spoken_source(task: str, instruction: bool, reading: RequestReading, attachments: list[Attachment],
                  clause: Span) -> str | None:
    """The audio file whose speech gives this step's instruction or question, if the request says so."""
    if task not in _ASKED_STEPS or task == "image-to-image" and not instruction:
        return None
    r = reading
    if any(clause.start <= q.start < clause.end and (task != "question-answering" or q.text.rstrip().endswith("?"))
           for q in r.quotes):
        return None  # the quoted words are the instruction or question (a passage is what a question reads)
    for f in r.files:
        if kind_of(f.text) != "audio":
            continue
        sent = r.sentence_of(f.start).text
        if _specifies(sent) or _specifies(clause.text) and SPOKEN_WORD_RE.search(clause.text):
            return attachment_named(f.text, "audio", attachments)
    audio = [a for a in attachments if a.kind == "audio"]
    if len(audio) == 1 and not any(kind_of(f.text) == "audio" for f in r.files):
        # the one recording given, called by what it is ("the voice memo has my question") or
        # transcribed for what it holds ("please transcribe his question and then answer it")
        said = [r.sentence_of(m.start()).text for m in (SPOKEN_WORD_RE.search(r.text), TRANSCRIBE_RE.search(r.text)) if m]
        if any(_specifies(s) for s in said):
            return str(audio[0].path)
    return None


def _specifies(text: str) -> bool:
    """Whether ``text`` says a recording holds what to ask or do (with the recording's words)."""
    return bool(SPOKEN_SPEC_RE.search(text) or SPOKEN_MANNER_RE.search(text))
