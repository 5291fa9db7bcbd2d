"""Several results listed under one verb: "give me a caption, a depth map and a list of the
objects", "count the cars, also depth map", "caption, classify, depth".

The clause cutter keeps a list of nouns together (``segment.py``: "the people and their bikes" is
one thing to find), so the step model reads one clause and finds the one or two steps it leans to.
Whether the list names several results or one thing is what the model says of each item read on
its own: when every item is a step it is sure of, no two items are the same step and all work from
one input (results of one photo, one recording, or of what an earlier item made of it), each item is
a step of its own and the clause is cut before each. Items that read as nothing certain, or as the
same step ("the people and their bikes": detection twice), keep the clause whole; so does a list
after a verb that makes or changes something ("draw a cat and a dog", "separate the music and the
voice"), whose items are what is drawn or changed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .made_together import JOINING
from .segment import OBJECT_PRONOUNS
from .step_labels import IMAGE_MAKERS, TEXT_MAKERS, media_input, media_output

#: Words that join an item to the list before it (those that join things asked together, and symbols)
_JOINERS = JOINING | {"&", "/"}
#: Steps whose list is the description of one thing made or changed ("draw a cat and a dog", "separate
#: the music and the voice"), not a list of results
_MAKERS = IMAGE_MAKERS | set(TEXT_MAKERS.values()) | {"text-generation", "audio-to-audio"}
#: At most this many items are read one by one (a longer run of commas is a sentence, not a list)
_MOST_ITEMS = 4


def _items(toks: list, end: int) -> list[tuple[int, int]] | None:
    """The items of a list in one clause's tokens, as character spans (the first holding the
    clause's verb, the last reaching the clause's end), or None when the clause holds no list:
    items after the first are nouns, with at most a bare verb opening them ("caption, classify")."""
    starts, k = [], 0
    while k < len(toks):
        if toks[k].lower in _JOINERS and k > 0:
            first = k
            while k + 1 < len(toks) and toks[k + 1].lower in _JOINERS:
                k += 1
            if k + 1 < len(toks):
                starts.append((first, k + 1))
        k += 1
    if not starts or len(starts) >= _MOST_ITEMS:
        return None
    for n, (_, opens) in enumerate(starts):
        closes = starts[n + 1][0] if n + 1 < len(starts) else len(toks)
        words = [t for t in toks[opens:closes] if t.pos != "PUNCT"]
        if not words or any(t.pos in ("VERB", "AUX") for t in words[1:]):
            return None  # a clause of its own, not an item ("and tell me what it is")
    bounds = [toks[0].start] + [toks[j].start for j, _ in starts] + [end]
    return list(zip(bounds, bounds[1:]))


def _of_one_input(steps: list[str]) -> bool:
    """Whether the steps of a list all work from the first one's input or from what an earlier item
    makes of it ("a transcript, a summary and the sentiment": text made of the recording), not
    from unrelated input ("separate the music and the voice" read as a cleaning and a voice to speak)."""
    have = {media_input(steps[0]) or "text"}
    for label in steps:
        if (media_input(label) or "text") not in have:
            return False
        have.add(media_output(label) or "text")
    return True


def listed_cuts(clauses: list, tokens_in: Callable, read: Callable[[int, int], np.ndarray], labels: list[str],
                threshold: float) -> list[int]:
    """Where to cut clauses that list several results, each a step of its own (see the module):
    ``read(start, end)`` gives the step probabilities of a span read as a clause of its own."""
    cuts: list[int] = []
    for clause in clauses:
        toks = tokens_in(clause)
        items = _items(toks, clause.end) if toks else None
        if items is None:
            continue
        steps: dict[int, int] = {}
        for n in [*range(1, len(items)), 0]:  # the bare items first: most lists that are no list fail there
            p = read(*items[n])
            j = int(p.argmax())
            if p[j] < threshold or labels[j] in _MAKERS:
                break
            steps[n] = j
        if len(steps) == len(items) and len(set(steps.values())) == len(steps) and _of_one_input([labels[steps[n]] for n in range(len(items))]):
            cuts += [a for a, _ in items[1:]]
    return cuts


def results_listed(cuts: list[int], clauses: list, tokens_in: Callable) -> set[int]:
    """Of the ``cuts`` made by ``listed_cuts``, the items that name a result of the input the list
    is about, each read from that input ("a caption, a depth map | and the objects in it"); not an
    item that works on the one before ("make a depth map | and caption it": a pronoun its object)."""
    return {c.start for c in clauses if c.start in cuts and not any(t.lower in OBJECT_PRONOUNS and t.dep == "dobj" for t in tokens_in(c))}
