"""A step read for one medium, asked of the other one given: the same operation on the file there.

The step classifier learns an operation mostly from the medium it usually comes with: "clean up"
and "improve the quality" are said of recordings far more than of photos, "transcribe" of speech
more than of a scanned page. When the request gives a picture and no sound at all, "clean up this
picture, it's noisy" is not a recording to denoise that is missing: it is the picture's cleaning.
Likewise a change of a picture when there is no picture at all ("paint a sailboat on a calm lake,
watercolor style") is the picture's making, and a style asked with a picture to make is its own.
"""

from __future__ import annotations

import re

import numpy as np

from ..media import Attachment, kind_of
from .extract import RequestReading
from .missing import asks_for_file
from .references import KIND_NOUNS, file_references
from .step_labels import EDIT, media_input, media_output
from .step_words import DIRECT_QUESTION_RE

#: Each step on a sound and the step that does the same to a picture, both ways: cleaning or
#: enhancing, writing down the words it holds, saying what kind of thing it is.
SAME_ON_OTHER_MEDIUM = {
    "audio-to-audio": "image-to-image",
    "automatic-speech-recognition": "image-to-text",
    "audio-classification": "image-classification",
}
SAME_ON_OTHER_MEDIUM |= {b: a for a, b in SAME_ON_OTHER_MEDIUM.items()}
#: ... and, one way, a question on a document's picture, asked of a document given as text
_ON_OTHER_MEDIUM = SAME_ON_OTHER_MEDIUM | {"document-question-answering": "question-answering"}
#: A question asking what something is about: its summary
_ABOUT_RE = re.compile(r"\babout\W*$", re.I)
#: Steps that change a picture: with none anywhere, the picture asked for is a new one
_PICTURE_CHANGES = {EDIT, "image-to-image"}


def on_medium_given(found: list[tuple[int, int, str]], P: np.ndarray, labels: list[str], bar: float, clauses: list,
                    reading: RequestReading, attachments: list[Attachment], given: list[str],
                    media_words: dict[str, set[str]], floor: float = 0.0) -> list[tuple[int, int, str]]:
    """``found`` (clause, label index, label) with each step whose medium is nowhere in the request
    (not given, named or made by another step) turned into the same step on the medium that is
    given, or into the clause's likeliest other step where the model gives that one ``bar`` or more
    ("get rid of the background in headshot.jpg" is the cut-out, not a cleaning); a picture's
    change, with no picture there at all, into its making where the model reads a picture to make
    there at all (``floor``: "turn the heating up" is no picture); a question on a document's picture, with
    the document given as text, into a question on the text (its summary when it asks what the
    document is about). Not where the clause points at a file of the missing kind ("transcribe the
    recording" with a photo given asks for the recording)."""
    out = []
    for n, (i, j, label) in enumerate(found):
        other = _ON_OTHER_MEDIUM.get(label)
        kind = media_input(label)
        if other in labels and kind not in given and (media_input(other) or "text") in given and not any(
                media_output(f[2]) == kind for k, f in enumerate(found) if k != n) and not asks_for_file(
                kind, reading, attachments, clauses[i], media_words):
            j = labels.index(other)
            fits = [k for k in np.argsort(-P[i]) if media_input(labels[k]) in given or media_input(labels[k]) is None]
            if fits and P[i, fits[0]] >= bar:
                j = int(fits[0])  # "which dates are mentioned in the pdf": the names found, not a question
            elif other == "question-answering" and _ABOUT_RE.search(clauses[i].text) and "summarization" in labels:
                j = labels.index("summarization")  # "what is this document about" with notes.txt: its summary
            label = labels[j]
        elif label in _PICTURE_CHANGES and "text-to-image" in labels and "image" not in given and P[
                i, labels.index("text-to-image")] >= floor and not any(
                media_output(f[2]) == "image" for k, f in enumerate(found) if k != n) and not asks_for_file(
                "image", reading, attachments, clauses[i], media_words):
            # "paint a sailboat on a calm lake, watercolor style" with no picture given, made or
            # pointed at: the picture is to be made, in that style
            j, label = labels.index("text-to-image"), "text-to-image"
        if (i, j, label) not in out:
            out.append((i, j, label))
    return out


def without_style_edits(found: list[tuple[int, int, str]], seg, views: list, given: list[str]) -> list[tuple[int, int, str]]:
    """``found`` without an edit asked in the clause of a picture to make, with no picture given and
    one verb in the clause: "paint a fox in the snow, watercolor style" asks for the style of the
    new picture, not an edit of it ("..., then turn it into a pencil sketch", with a verb of its
    own, is one)."""
    if "image" in given:
        return found
    made_in = {i for i, _, label in found if label == "text-to-image"
               and sum(t.pos == "VERB" for t in seg.tokens_in(views[i].span)) < 2}
    return [f for f in found if not (f[2] in _PICTURE_CHANGES and f[0] in made_in)]


def without_unasked_files(found: list[tuple[int, int, str]], labels: list[str], clauses: list, reading: RequestReading,
                          attachments: list[Attachment], given: list[str], media_words: dict[str, set[str]]) -> list[tuple[int, int, str]]:
    """``found`` without the steps on a kind of file that is nowhere (not given, named or made by
    another step) and that their clause does not point at: "what is the capital of peru? answer
    out loud" read as a picture question is a question for the chat, whose answer is spoken, not a
    picture to ask for. The linker would drop such a step too, but only after the rules that plan
    around it (what speech reads) had taken it for the question's answer. Only in a question: a
    command ("caption this") with no file is left to the linker, which says to attach one. A
    table's step is kept: its table may come as a spreadsheet, not a picture. Only a step at or
    before the question makes its file: the speech asked after it is not the sound asked about
    ("whats the speed of sound? tell me out loud")."""
    return [(i, j, label) for n, (i, j, label) in enumerate(found)
            if (kind := media_input(label)) is None or kind in given or label == "tabular-classification"
            or not _asks(clauses[i].text) or any(media_output(f[2]) == kind and f[0] <= i for k, f in enumerate(found) if k != n)
            or asks_for_file(kind, reading, attachments, clauses[i], media_words)]


def _asks(clause: str) -> bool:
    """The clause is a question (a question mark, or a question's first words when spoken)."""
    return clause.rstrip().endswith("?") or bool(DIRECT_QUESTION_RE.search(clause.lstrip(" ,.;:-")))


def without_files_not_named(found: list[tuple[int, int, str]], clauses: list, reading: RequestReading,
                            attachments: list[Attachment]) -> list[tuple[int, int, str]]:
    """``found`` without a step on one kind of file in a clause that names files of other kinds
    only, one of which another step of the clause reads: "read the poem out loud" with poem.txt and
    a photo given speaks the poem; nothing there asks for the photo's words."""
    spans = reading.files + file_references(reading, attachments)
    named = [{kind_of(f.text) for f in spans if c.start <= f.start < c.end} for c in clauses]
    for k, c in enumerate(clauses):  # a kind named by its noun counts ("a question about the photo")
        lemmas = {t.lemma for t in reading.tokens if c.start <= t.start < c.end} if named[k] else set()
        named[k] |= {kind for kind, nouns in KIND_NOUNS.items() if lemmas & nouns}
    return [(i, j, label) for n, (i, j, label) in enumerate(found)
            if (kind := media_input(label)) is None or not named[i] or kind in named[i]
            or not any(i2 == i and (media_input(l2) or "text") in named[i] for k, (i2, _, l2) in enumerate(found) if k != n)]
