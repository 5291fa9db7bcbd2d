"""Another of the same: "draw a red car, and another one in blue", "write a haiku about rain, then
one more about snow". The words after "another" ask for a second thing of the kind just made, with
what is different about it; without them the plan made one thing from both descriptions.

Grammar, not phrases: "another (one)", "one more", "a second (one)" stand for the noun the last
making step made ("a red car" -> "car", "a picture of a castle" -> "picture"), and what follows them
("in blue", "of a dragon", "about snow") takes the place of that thing's description.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..pipeline.plan import placeholder, placeholder_ids
from .extract import FILE_RE, Span
from .references import ORDINALS
from .step_labels import IMAGE_MAKERS
from .step_words import picture_prompt, prompt_text

if TYPE_CHECKING:
    from .plan_state import PlanState
    from .segment import Token

#: Steps that make a new thing from a description: what "another one" can ask for again.
MAKING_STEPS = frozenset({"text-to-image", "text-to-video", "text-generation"})
#: ... and the steps whose second one reads what the first read (its difference is an argument)
ASKED_AGAIN_STEPS = MAKING_STEPS | {"translation"}
#: ... and the step finder's labels for them: a picture described with no photo given is found as
#: an edit or a guided generation first, and becomes a text-to-image step later
_MAKING_LABELS = MAKING_STEPS | IMAGE_MAKERS

#: "a second (one)", "a third": a count of the same thing, not a file pointed at ("the second")
_ANOTHER_ORDINALS = ("second", "third", "fourth", "fifth")
#: "another (one)", "one more", "a second (one)", after the connectives that start a step and at
#: most a making verb ("..., then draw another of a dragon")
_AGAIN_RE = re.compile(
    r"^[\s,.;:]*(?:(?:and|also|then|now|plus|next|after that)\b[\s,]*)*"
    r"(?P<verb>(?:please\s+)?(?:make|draw|paint|write|create|generate|do|give)\s+(?:me\s+|us\s+)?)?"
    r"(?P<again>another(?:\s+one)?|one\s+more|an?\s+(?:" + "|".join(_ANOTHER_ORDINALS) + r")(?:\s+one)?)(?P<rest>\b.*)$",
    re.I | re.S,
)
#: Tokens that can open the repeat inside a longer clause (where the segmenter cuts)
_OPENERS = {"another", "one", "a", "an"}
_CONNECTIVES = {"and", ",", "then", "now", "plus", "also", ";", "."}

#: Words that start what is different about the second thing
_LINKS = {"of", "about", "in", "on", "with", "but", "for", "where", "that", "which", "showing", "featuring",
          "set", "this", "like", "at", "from", "wearing", "please", "too", "as", "without", "using", "over", "under",
          "near", "by", "during", "after", "before", "inside", "outside", "across", "around", "into", "to"}
#: "... and another one from the lines of the second": the same step on another file the request
#: gives (each file's step is found elsewhere), not a second description
_OTHER_INPUT_RE = re.compile(r"\b(?:the|this|that|my)\s+(?:" + "|".join(ORDINALS) + r"|next|latter|former)\b", re.I)
#: "another one from it", "one more like that": made from the first thing, not described anew
_FROM_FIRST_RE = re.compile(r"\b(?:from|like|of|based on|using)\s+(?:it|that|this|them|the first(?: one)?)\b", re.I)


def asks_again(text: str) -> bool:
    """Whether a clause asks for another thing of the kind the step before it made."""
    return _asked_again(text) is not None


def _asked_again(text: str) -> re.Match | None:
    """The "another one" at the start of a clause (groups ``verb``, ``rest``), where a description follows."""
    m = _AGAIN_RE.match(text)
    return m if m is not None and _looks_like_a_description(m.group("rest")) else None


def _looks_like_a_description(rest: str) -> bool:
    """What follows "another" describes the new thing ("in blue", "of a dragon", "about snow"),
    rather than naming a different thing ("another photo of my dog" is a file, "another language"
    asks something else). Not nothing at all: "draw another one" would be the same step on the
    same words, which the plan makes once (and a generator with the same seed draws the same)."""
    words = rest.split()
    return bool(words) and words[0].lower().strip(",.!?") in _LINKS and not _OTHER_INPUT_RE.search(rest) and not FILE_RE.search(rest)


def opens_again(doc, i: int) -> bool:
    """Whether token ``i`` of a spaCy doc opens "another one ..." after a connective, in a sentence
    after a verb of the request ("draw a red car, and another one in blue"): the segmenter
    cuts a clause there, so each thing gets its own description."""
    t = doc[i]
    if t.lower_ not in _OPENERS or i == 0 or doc[i - 1].lower_ not in _CONNECTIVES:
        return False
    if t.lower_ == "one" and not (i + 1 < len(doc) and doc[i + 1].lower_ == "more"):
        return False
    if t.lower_ in ("a", "an") and not (i + 1 < len(doc) and doc[i + 1].lower_ in _ANOTHER_ORDINALS):
        return False
    if not any(tk.pos_ == "VERB" for tk in doc[:i]):
        return False
    end = next((k for k in range(i + 1, len(doc)) if doc[k].text in (",", ";", ".", "!", "?")), len(doc))
    return asks_again(doc[i:end].text)  # its own words: not "..., then read the second one aloud"


def described_again(previous: Span, rest: str, tokens: list[Token]) -> str | None:
    """The words after "another one" (``rest``: "in blue") put after the thing the ``previous``
    clause made ("draw a red car," -> "draw a car in blue"), for the step's prompt to be cut from
    as from any clause. ``tokens``: the request's parse, read, not made again. None when the
    previous clause names no thing (no noun after its verb, or no parse)."""
    toks = [t for t in tokens if previous.start <= t.start < previous.end]
    verb = next((k for k, t in enumerate(toks) if t.pos == "VERB"), -1)  # "picture of a street market." has none
    first = next((k for k, t in enumerate(toks) if k > verb and t.pos in ("NOUN", "PROPN")), None)
    if first is None:
        return None
    last = first
    while last + 1 < len(toks) and toks[last + 1].pos in ("NOUN", "PROPN") and toks[last + 1].dep != "pobj":
        last += 1  # "an oil painting": the whole name of the thing
    start = first
    while start - 1 > verb and toks[start - 1].pos in ("DET", "ADJ", "NUM", "ADV"):
        start -= 1  # "a red car": what the first one was, not what the second one is
    head = toks[last].text
    article = "an" if head[:1].lower() in "aeiou" else "a"
    return f"{previous.text[: toks[start].start - previous.start]}{article} {head} {rest.strip(' ,.;')}".strip()


def with_steps_asked_again(found: list[tuple[int, int, str]], texts: list[str]) -> list[tuple[int, int, str]]:
    """``found`` (clause, label index, label) with the step of the clause before asked again in
    each clause that says "another one" (its making step, or its translation, whose difference is
    the language: "translate it into Spanish, and another one in French"; not speech, whose words
    would be "another one"). Without a verb of its own ("..., and another in the style
    of van gogh") the clause is that making step and nothing else, whatever its words lean to; with
    one ("then draw another of a dragon") it gets the step when it has none. Where the model placed
    the step on the "another" clause, the clause just before it (the first thing) gets it too."""
    out = list(found)
    for i, text in enumerate(texts):
        m = _asked_again(text)
        if i == 0 or m is None:
            continue
        mine = [f for f in out if f[0] == i]
        before = [f for f in out if f[0] < i]
        last = [f for f in before if f[0] == max(f[0] for f in before)] if before else []
        again = [f for f in last if f[2] in _MAKING_LABELS] or [f for f in last if len(last) == 1 and f[2] == "translation"]
        if again and (not mine or not m.group("verb") and again[-1][2] in _MAKING_LABELS
                      and any(f[2] not in _MAKING_LABELS for f in mine)):
            _, j, label = again[-1]
            out = [f for f in out if f[0] != i] + [(i, j, label)]
        elif not before and mine:
            out.append((i - 1, mine[0][1], mine[0][2]))
    return out


def prompt_again(task: str, clause: Span, st: PlanState, current: str | None) -> str | None:
    """The words a step asked with "another one ..." works from: for a making step, the thing the
    same step made before, described with what this clause says is different ("a car in blue"),
    not the first thing itself nor the clause's bare words ("another one in blue"); for a
    translation, what the first one translated. None where the clause does not ask again, quotes
    its words, or works on another step's result."""
    m = _asked_again(clause.text)
    if m is None or any(clause.start <= q.start < clause.end for q in st.reading.quotes):
        return None
    first = next((n for n in reversed(st.nodes) if n.task == task), None)
    if first is None or current is not None and placeholder_ids(current) and current != placeholder(first.id):
        return None
    if task not in MAKING_STEPS:
        # "translate letter.txt to Italian. one more in Portuguese": the letter again, not the Italian
        return first.args.get("text") if current == placeholder(first.id) else None
    if _FROM_FIRST_RE.search(m.group("rest")):
        return None
    r = st.reading
    # the thing first described, not another "another" ("..., another of snow, and one more over a lake")
    asked = [r.clauses[r.clause_at(n.pos)] for n in reversed(st.nodes) if n.task == task]
    described = next((c for c in asked if not asks_again(c.text)), None)
    if described is None:
        return None
    words = described_again(described, m.group("rest"), r.tokens)
    if words is None:
        return None
    return picture_prompt(words) if task in ("text-to-image", "text-to-video") else prompt_text(words)


#: A description that only points at something ("of it too", "about that", "the same thing").
_POINTER_RE = re.compile(r"\b(?P<prep>of|about|on|for|showing)\s+(?:it|that|this|the same(?:\s+thing|\s+one)?)"
                         r"(?:\s+(?:too|as\s+well|also))?(?=[\s.!?,]*$)", re.I)
_BARE_RE = re.compile(r"^(?:it|that|this|the same(?:\s+thing|\s+one)?)(?:\s+(?:too|as\s+well|also))?[\s.!?]*$", re.I)


def described_before(prompt: str, st: "PlanState") -> str | None:
    """'generate an image of a cat and make a video of it too', 'draw a castle, then write a poem
    about it': a description that only points back is the description an earlier making step
    was given ("a cat", "a castle"), None when there is none or the prompt describes its own thing."""
    made = [n.args["text"] for n in st.nodes if n.task in MAKING_STEPS - {"text-generation"}
            and n.args.get("text") and not placeholder_ids(n.args["text"])]
    if not made:
        return None
    if _BARE_RE.match(prompt.strip()):
        return made[-1]
    m = _POINTER_RE.search(prompt)
    if m is None or "," in prompt[: m.start()] or len(prompt[: m.start()].split()) > 5:
        return None  # the prompt has a description of its own before the pointer
    return prompt[: m.start()] + f"{m.group('prep')} {made[-1]}"
