"""Steps a request asks for by the task's own name: "NER on both", "depth + seg", "obj detect".

A name the classifier saw too seldom to learn still says which step is meant. Terse requests name
a task by the last word of its name alone ("segmentation", "detection"), which is enough where
only one task on a kind of file given is called so.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..task_types import TASK_TYPES
from .extract import RequestReading
from .features import SHORTHAND
from .given_text import outside_quotes
from .step_labels import media_input

#: The other names a task goes by in the field: its acronym or its usual long name ("NER on both")
TASK_ALIASES = {
    "token-classification": ["named entity recognition", "ner"],
    "automatic-speech-recognition": ["speech to text", "speech recognition", "asr", "stt"],
    "text-to-speech": ["tts"],
    "image-to-text": ["image captioning", "optical character recognition", "ocr"],
    "text-classification": ["sentiment analysis"],
    "visual-question-answering": ["vqa"],
}


@lru_cache(maxsize=4)
def task_names(labels: tuple[str, ...]) -> re.Pattern:
    """One pattern for the tasks with a name of two words or more ("depth estimation",
    "text-to-speech") or a name they go by (``TASK_ALIASES``), each a group named by its label's
    index; the longest names come first, so "visual question answering" is not read as "question
    answering"."""
    named = [(label.split("-"), j) for j, label in enumerate(labels) if "-" in label and label in TASK_TYPES]
    named += [(alias.split(), j) for j, label in enumerate(labels) for alias in TASK_ALIASES.get(label, ())]
    groups: dict[int, list[str]] = {}
    for words, j in sorted(named, key=lambda x: -len(x[0])):
        groups.setdefault(j, []).append(r"[\s-]+".join(words))
    order = sorted(groups, key=lambda j: -max(len(p) for p in groups[j]))
    return re.compile(r"\b(?:" + "|".join(f"(?P<t{j}>" + "|".join(groups[j]) + ")" for j in order) + r")\b", re.I)


@lru_cache(maxsize=4)
def _last_words(labels: tuple[str, ...]) -> dict[str, list[int]]:
    """The tasks by the last word of their name ("segmentation": image segmentation); not the
    medium a conversion ends in ("image-to-text" is not named by "text")."""
    out: dict[str, list[int]] = {}
    for j, label in enumerate(labels):
        if label in TASK_TYPES and "-" in label and "-to-" not in label:
            out.setdefault(label.rsplit("-", 1)[1], []).append(j)
    return out


def _named_by_last_word(word: str, labels: list[str], given: list[str]) -> list[int]:
    """The tasks on a kind of file ``given`` whose name ends in ``word`` ("seg" is short for
    "segmentation"); the word itself, not its verb ("detect the pose" is no object detection)."""
    word = SHORTHAND.get(word, word).removesuffix("s")
    return [j for j in _last_words(tuple(labels)).get(word, ()) if media_input(labels[j]) in given]


def named_by_task_name(found: list[tuple[int, int, str]], views: list, labels: list[str], reading: RequestReading,
                       seg, given: list[str]) -> list[tuple[int, int, str]]:
    """The steps asked for by name ("..., and through visual question answering, find the main
    object", "NER on both") that are not in ``found``, however unsure of them the model is; in a
    clause where no step was found, also a task named by its name's last word when only one task
    on the files given is ("depth + seg" with a photo). Not a name inside quoted words."""
    have = {j for _, j, _ in found}
    claimed = {i for i, _, _ in found}
    out = []
    names = task_names(tuple(labels))
    for i, view in enumerate(views):
        for hit in names.finditer(outside_quotes(view.span.text, reading)):
            j = int(hit.lastgroup[1:])
            if j not in have:
                out.append((i, j, labels[j]))
                have.add(j)
        if i in claimed or any(k == i for k, _, _ in out):
            continue
        for tok in seg.tokens_in(view.span):
            named = _named_by_last_word(tok.lower, labels, given)
            if len(named) == 1 and named[0] not in have:
                out.append((i, named[0], labels[named[0]]))
                have.add(named[0])
                break
    return out
