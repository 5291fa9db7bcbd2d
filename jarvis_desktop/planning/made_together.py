"""Several new things asked for in one breath: "I want a poem about autumn and a painting of
falling leaves", "need a picture for the front and a silly little rhyme for inside", "could you make
us a mascot picture, and also a short animated teaser of it".

The clause cutter keeps "X and Y" after one verb together (``segment.py``: "the people and places"
is one thing), so the step model reads one clause and finds the one step it leans to. Grammar
says more: a verb that asks for something new ("want", "need", "give", "make", "I'd love") with
things to make of different kinds joined by "and" or a comma asks for each of them, and each kind
has its maker (a writing is written, a picture drawn, a video made).
"""

from __future__ import annotations

from .imperatives import ASKING_FOR, NEW_MEDIA, NEW_WRITINGS, GIVEN_DETERMINERS, MAKING_VERBS, WRITINGS
from .step_labels import IMAGE_MAKERS, media_output

#: The kind of each thing to make, by its noun
_KIND_OF: dict[str, str] = {
    **{w: "text" for w in WRITINGS | NEW_WRITINGS},
    **{w: "image" for w in NEW_MEDIA["image"] | {"art", "logo"}},
    **{w: "video" for w in NEW_MEDIA["video"]},
}
#: Verbs that ask for a thing to be made and handed over ("give me", "I need", "could you draw")
_ASKING = (ASKING_FOR | MAKING_VERBS) - {"like", "love", "use", "get", "think", "come", "suggest"}
#: ... and those that ask only after a modal ("I'd love a poster", "could use a logo", "can I get a pic")
_ASKING_AFTER_MODAL = {"like", "love", "use", "get"}
_MODALS = {"'d", "would", "could", "can"}
#: Words a thing's own phrase may hold before its noun ("a few lines of blurb", "a short, friendly blurb")
_IN_PHRASE = {"DET", "ADJ", "NUM", "ADV", "NOUN", "PROPN", "PUNCT"}
#: Words that say a thing is new or counted ("a poem", "two slogans", "a couple of taglines")
_NEW = {"a", "an", "some", "one", "two", "three", "few", "couple", "another"}
#: The step that makes each kind of thing from words, and the steps that count as making it
_MAKERS = {"text": "text-generation", "image": "text-to-image", "video": "text-to-video"}
_MADE_BY = {"text": {"text-generation"}, "image": IMAGE_MAKERS, "video": {"text-to-video"}}
#: Verbs of enjoying a work that exists ("a movie to watch", "a poem to read at the funeral")
_ENJOYED = {"watch", "read", "listen", "see", "hear", "play"}
#: Words that join a second thing to the first
JOINING = {"and", "plus", ",", "also"}
#: Prepositions whose object is what a thing shows or is about ("a picture of a typewriter and a letter")
_ABOUT = {"of", "with", "about", "on", "showing"}


def _phrase_start(tokens: list, n: int) -> int:
    """Where the noun phrase of ``tokens[n]`` begins (its determiners, possessives, counts, adjectives, "X of")."""
    k = n
    while k > 0:
        u = tokens[k - 1]
        between_adjectives = u.lower == "," and k >= 2 and tokens[k - 2].pos == "ADJ" and tokens[k].pos == "ADJ"
        if u.lower == "of" or u.dep == "amod" or u.tag == "PRP$" or between_adjectives or u.pos in _IN_PHRASE and u.lower not in JOINING:
            k -= 1
        else:
            break
    return k


def _asking_verb(tokens: list, start: int):
    """The verb that asks for the thing whose phrase begins at ``start``: the nearest verb before it,
    when it asks in the present ("give", "I need", "could you make", "I'd love"), not negated,
    said by the user or to the assistant (not "I made a logo", "she loves poems", "I don't want a
    poem"); None otherwise."""
    k = next((k for k in range(start - 1, -1, -1) if tokens[k].pos in ("VERB", "AUX") and tokens[k].dep != "amod"), None)
    if k is None:
        return None
    verb, before = tokens[k], tokens[max(0, k - 3):k]
    if verb.tag not in ("VB", "VBP") or any(u.dep == "neg" or u.lower in ("not", "n't", "never") for u in before):
        return None
    if k and tokens[k - 1].lower == "to" and not any(u.lower in ("you", "u") for u in tokens[max(0, k - 4):k]):
        return None  # what the user means to do ("I want to make a video and a poster", "how to make ..."), not "I'd like you to"
    if any(u.lower in ("should", "shall") for u in before) and any(u.lower in ("i", "we") for u in before):
        return None  # "should I make a video and a poster?": advice asked
    subject = next((u.lower for u in reversed(before) if u.dep in ("nsubj", "nsubjpass")), None)
    if verb.lemma in _ASKING_AFTER_MODAL:
        modal = any(u.lower in _MODALS for u in before)
        return verb if modal and (subject in ("i", "we") or verb.lemma == "use" and subject in ("i", "we", "you")) else None
    return verb if verb.lemma in _ASKING and subject in (None, "i", "we", "you", "u") else None


def _thing_kind(tokens: list, n: int) -> str | None:
    """The kind of new thing ``tokens[n]`` names, as a thing of its own (not "a video game", "a poem
    book"), made new (not "my poem", "a painting from this photo", bare plurals: "I love poems")."""
    t = tokens[n]
    kind = "video" if n and tokens[n - 1].lemma == "animate" else _KIND_OF.get(t.lemma)
    if t.pos != "NOUN" or kind is None or t.dep == "compound":
        return None
    if n + 2 < len(tokens) and tokens[n + 1].lower == "from" and tokens[n + 2].lower in GIVEN_DETERMINERS:
        return None  # "a painting from this photo": made from a thing there already
    if n + 2 < len(tokens) and tokens[n + 1].lower == "to" and tokens[n + 2].lemma in _ENJOYED:
        return None  # "a song and a movie to watch tonight": works there already, recommended
    return kind


def _depicted(tokens: list, last: tuple[int, int, str, int], start: int) -> bool:
    """Whether the thing whose phrase begins at ``start`` is more of what the picture or video
    before it shows ("a picture of a typewriter and a letter", "a drawing of a clapperboard and a
    film reel"): joined by a bare "and" after an "of"/"with" phrase of that picture. A comma or
    "also" sets a thing apart ("a picture of a fox in a scarf, and also a short clip of him")."""
    n, _, kind, _ = last
    return (kind in ("image", "video") and tokens[start - 1].lower == "and" and tokens[start - 2].lower != ","
            and any(u.lower in _ABOUT for u in tokens[n + 1:start]))


def things_asked(tokens: list) -> list[list[tuple[int, int, str]]]:
    """The new things an asking verb asks for together, joined by "and" or commas: per verb, its
    things as (token index, where the thing's phrase begins, kind), when they are of more than one
    kind. A thing with "the", "this" or "my" is there already ("write the poem and a story")."""
    runs: list[list[tuple[int, int, str, int]]] = []
    for n, t in enumerate(tokens):
        kind = _thing_kind(tokens, n)
        if kind is None:
            continue
        start = _phrase_start(tokens, n)
        phrase = tokens[start:n]
        new = any(u.lower in _NEW or u.pos == "NUM" for u in phrase)  # a bare plural is talked about: "I love poems"
        if start == 0 or any(u.lower in GIVEN_DETERMINERS for u in phrase) or t.tag == "NNS" and not new:
            continue
        verb = _asking_verb(tokens, start)
        if verb is None:
            continue
        before = tokens[start - 1]
        if runs and before.lower in JOINING and new and verb.start == runs[-1][0][3] and not _depicted(tokens, runs[-1][-1], start):
            runs[-1].append((n, start, kind, verb.start))  # "..., and a short blurb": joined to the thing before
        elif before is verb or before.pos in ("PRON", "ADV", "PART") and before.lower not in JOINING:
            runs.append([(n, start, kind, verb.start)])  # the verb's object: "give me a logo", "I want a poem"
    return [[(n, start, kind) for n, start, kind, _ in run] for run in runs if len({kind for _, _, kind, _ in run}) > 1]


def joined_cuts(tokens: list, runs: list[list[tuple[int, int, str]]]) -> list[int]:
    """Where to cut a clause so each thing asked for together (``runs``, from ``things_asked``) has
    words of its own: before the joining words of each thing after the first ("I want a poem about
    autumn | and a painting of falling leaves")."""
    cuts = []
    for run in runs:
        for _, start, _ in run[1:]:
            k = start
            while k > 0 and tokens[k - 1].lower in JOINING:
                k -= 1
            cuts.append(tokens[k].start)
    return cuts


def with_things_asked(found: list[tuple[int, int, str]], labels: list[str], views: list, seg) -> list[tuple[int, int, str]]:
    """``found`` with a step that makes each thing asked for together, in the clause that names
    it, when no step makes its kind: the kind's maker, in place of the steps there that make that
    kind in other ways, the model's other readings of the thing ("a poster image, and a short blurb
    to go under it": written, not chatted nor a caption of the poster)."""
    out = list(found)
    for run in seg.things:
        asked: dict[str, int] = {}
        for n, _, kind in run:
            asked[kind] = asked.get(kind, 0) + 1  # "a logo, a slogan and a poster": two pictures
            at = seg.tokens[n].start
            i = next((i for i, v in enumerate(views) if v.span.start <= at < v.span.end), None)
            maker = _MAKERS[kind]
            if i is None or maker not in labels or sum(label in _MADE_BY[kind] for _, _, label in out) >= asked[kind]:
                continue
            out = [f for f in out if not (f[0] == i and media_output(f[2]) == kind)]
            out.append((i, labels.index(maker), maker))
    return out
