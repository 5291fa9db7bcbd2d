"""How many of a thing a making step is asked for: "two limericks about cats", "draw 3 pictures of a
lighthouse", "a couple of taglines for my shop". A generator makes one thing per run, so each is a
step of its own with the same description, said of one ("a limerick about cats"); the executor
gives each run its own seed, so the copies differ.

Grammar, not phrases: the count is a number before the thing the clause makes (the first noun
after its verb, or of a clause without one), and that noun names a kind of thing made one at a
time. A number inside the description ("a picture of three cats"), or before what the picture
shows ("draw two dogs playing in a park"), or before parts of one text ("two paragraphs", "five
reasons") asks for one thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..pipeline.plan import placeholder_ids
from .imperatives import WRITINGS
from .repeats import KIND_STEPS, MAKING_STEPS

if TYPE_CHECKING:
    from .extract import Span
    from .segment import Token

#: The most copies one request makes (a larger count is a list inside one answer, or a typo)
MAX_COPIES = 5
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5, "couple": 2, "pair": 2}
#: Units a text is measured in, and a sound or a clip; a number before one measures one thing
TEXT_MEASURES = frozenset({"line", "word", "sentence", "paragraph", "page", "verse", "stanza", "syllable", "character"})
DURATIONS = frozenset({"second", "sec", "minute", "min", "hour"})
_MEASURES = TEXT_MEASURES | DURATIONS | {"part", "panel", "frame", "step", "chapter", "inch", "pixel", "px", "k"}
#: Things made one per run: pieces of writing, pictures, clips, versions (not facts or reasons,
#: which are parts of one answer, nor translations, of which a second is into another language)
COUNTED_THINGS = (WRITINGS - {"fact", "rhyme"}) | (set(KIND_STEPS) - {"one", "translation"}) | {
    "tagline", "slogan", "tweet", "post", "name", "title", "headline", "intro", "caption", "email", "motto",
    "alternative", "option", "draft", "logo", "design", "poster", "icon", "wallpaper", "avatar"}


def copies_asked(task: str, clause: Span, tokens: list[Token], text: str | None) -> list[str] | None:
    """The descriptions of the things ``clause`` counts, one per copy ("a limerick about cats"
    twice for "two limericks about cats"), from the step's ``text``; None when it asks for one."""
    if task not in MAKING_STEPS or not text or placeholder_ids(text):
        return None
    toks = [t for t in tokens if clause.start <= t.start < clause.end]
    verb = next((k for k, t in enumerate(toks) if t.pos == "VERB" and t.tag in ("VB", "VBP")), -1)
    k = next((k for k in range(verb + 1, len(toks)) if toks[k].pos in ("NUM", "NOUN", "PROPN", "ADJ")), None)
    if k is None or toks[k].lower not in NUMBER_WORDS:
        return None
    if toks[k].lower not in ("couple", "pair") and (k > 0 and toks[k - 1].lower in ("a", "an", "the", "each", "every")
                                                    or k + 1 < len(toks) and toks[k + 1].lemma in _MEASURES):
        return None  # "a 5 second clip", "a two line poem", "three minute video": a size, not a count
    start, count = toks[k - 1 if k > 0 and toks[k - 1].lower == "a" else k].start, NUMBER_WORDS[toks[k].lower]
    k += 1
    if toks[k - 1].lower in ("couple", "pair"):
        if k >= len(toks) or toks[k].lower != "of":
            return None
        k += 1
    first = k
    while k + 1 < len(toks) and toks[k].pos in ("ADJ", "NOUN", "PROPN") and toks[k + 1].pos in ("ADJ", "NOUN", "PROPN"):
        k += 1  # "alternative intros", "logo ideas": to the head noun
    if k >= len(toks) or toks[k].pos not in ("NOUN", "PROPN", "VERB") or not any(
            t.lemma in COUNTED_THINGS for t in toks[first : k + 1] if t.pos != "ADJ"):
        return None  # (the small parser may read "3 tweets" as a verb)
    said = clause.text[start - clause.start : toks[k].start - clause.start + len(toks[k].text)]
    at = text.lower().find(said.lower())
    if at >= 0:  # "two limericks about cats" -> "a limerick about cats"
        one = " ".join([t.text for t in toks[first:k]] + [toks[k].lemma])
        text = f"{text[:at]}{'an' if one[:1].lower() in 'aeiou' else 'a'} {one}{text[at + len(said):]}"
    return [text] * min(count, MAX_COPIES)  # else the count is gone already ("draw 2 pictures of a fox": "a fox")
