"""Questions asked of the text a request gives (no file given): answered from a quoted passage,
a label chosen for it, or, with no passage at all, talked over. Kept apart from the step
classifier: these read the request's punctuation and quotes, not its words' weights."""

from __future__ import annotations

import re

from .detect import QUESTION_START_RE
from .extract import RequestReading
from .step_words import CONTENT_TASKS
from .stepmodel import StepModel

#: Steps that answer a question about a file
ANSWERING_FILES = {"visual-question-answering", "document-question-answering"}
#: Steps that read a text and answer in text: they already read the text a request gives (a question
#: about it needs no step of its own), and a clause led by speech may ask one of them too
TEXT_READERS = (CONTENT_TASKS - {"text-to-speech"}) | {"text-generation"} | ANSWERING_FILES
#: A request put as a question ("could I get a video of ...?") or a question about the assistant
#: itself ("do you keep what I say?"), not a question about the text
_TO_YOU_RE = re.compile(r"(?:can|could|would|will|may)\b|(?:do|did|are|were|have) (?:you|u)\b", re.I)


def questions_on_given_text(found: list[tuple[int, int, str]], views: list, m: StepModel,
                            reading: RequestReading, pictures: bool) -> list[tuple[int, int, str]]:
    """Steps for direct questions asked next to the text the request gives (no file given).

    'tell me out loud: when does the shop close? "The shop opens at nine..."' is answered from that
    text, even when the classifier only heard the speaking. A question that offers a choice of
    labels ("is this happy or sad", "billing, technical or account?") asks for the text's label:
    classification, also beside other steps, in a clause no step claimed. A question about a
    picture or a document, with no picture given or made (``pictures``), cannot be what such a
    question asks."""
    qa, label_task = "question-answering", "text-classification"
    material = [q for q in reading.quotes if not q.text.rstrip().endswith("?")]
    if qa not in m.labels or not (material or reading.subject):
        return found
    usable = [f for f in found if f[2] not in ANSWERING_FILES or pictures]
    claimed = {i for i, _, _ in usable}
    reads = any(label in TEXT_READERS for _, _, label in usable)
    for k, v in enumerate(views):
        words = outside_quotes(v.span.text, reading)  # a question quoted to be spoken is not asked here
        # the question: its words after the last comma ("tell me out loud, when does it close?"),
        # or the whole sentence when it starts as one ("which bucket is it, billing or account?")
        sentences = [p.strip() for p in re.findall(r"[^:;.!?]*\?", words)]
        last = [re.split(r",\s+", p)[-1].strip() for p in sentences]  # not inside "$2,000"
        direct = [q for q in sentences + last if QUESTION_START_RE.match(q) and not _TO_YOU_RE.match(q)]
        if label_task in m.labels and k not in claimed and any(_offers_labels(q) for q in direct):
            return usable + [(k, m.labels.index(label_task), label_task)]
        if not reads and any(q in direct for q in last):
            return usable + [(k, m.labels.index(qa), qa)]
    return found


#: "happy or sad", "billing, technical or account", "spam or not": a choice between labels
_CHOICE_RE = re.compile(r"\b\w+,? or (?:an? |the |just )?\w+", re.I)
#: ... unless the choice is whether two texts agree ("the same or not"): a similarity
_COMPARING_RE = re.compile(r"\b(?:same|similar|alike|match\w*|differ\w*|equal|agree\w*)\b", re.I)


def outside_quotes(text: str, reading: RequestReading) -> str:
    """A clause's own words, the quoted text blanked out."""
    for q in reading.quotes:
        text = text.replace(q.text, " ")
    return text


def _offers_labels(question: str) -> bool:
    return bool(_CHOICE_RE.search(question)) and not _COMPARING_RE.search(question)


def questions_without_passage(found: list[tuple[int, int, str]], views: list, m: StepModel,
                              reading: RequestReading) -> list[tuple[int, int, str]]:
    """A question quoted with no passage to answer it from ("play a pirate and answer this: 'where
    did you bury the gold?'") is talked over, not answered by a reader that would look for the
    answer inside the question itself, nor only read aloud ("answer this out loud: '...?'").
    Likewise a question with nothing quoted and no passage at all: the chat answers it, and its
    answer is what speech reads. Only when nothing else makes text for it to read."""
    qa, talk = "question-answering", "conversational"
    labels = {label for _, _, label in found}
    if (talk not in m.labels or labels - {qa, "text-to-speech"} or reading.subject
            or not all(q.text.rstrip().endswith("?") for q in reading.quotes)):
        return found
    if not reading.quotes:
        if not _nothing_to_read(found, views, qa):
            return found
        if "text-to-speech" not in labels:
            return [f for f in found if f[2] != qa]  # "what day comes after tuesday?": the chat answers
    if qa in labels:  # (always so here with nothing quoted: _nothing_to_read needs a question step)
        return [(i, m.labels.index(talk), talk) if label == qa else (i, j, label) for i, j, label in found]
    for k, v in enumerate(views):
        if _ANSWER_RE.search(outside_quotes(v.span.text, reading)):
            return found + [(k, m.labels.index(talk), talk)]
    return found


def _nothing_to_read(found: list[tuple[int, int, str]], views: list, qa: str) -> bool:
    """With no quote, a question asked with nothing else said ("morning! what day comes after
    tuesday? say it aloud"): each clause with no step is a question or a word of greeting, so no
    passage is pasted in ("going by this when does the pool close the pool opens at six ...")."""
    stepped = {i for i, _, _ in found}
    asked = [views[i].span.text.rstrip().endswith("?") for i, _, label in found if label == qa]
    return bool(asked) and all(asked) and all(
        v.span.text.rstrip().endswith("?") or len(v.span.text.split()) <= 3 for k, v in enumerate(views) if k not in stepped)


#: Words that ask for an answer to a question given in quotes
_ANSWER_RE = re.compile(r"\b(?:answer|reply|respond)(?:s|ed|ing)?\b(?! machine)", re.I)
