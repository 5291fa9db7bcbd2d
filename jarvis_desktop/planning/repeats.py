"""Another of the same: "draw a red car, and another one in blue", "write a haiku about rain, then
one more about snow". The words after "another" ask for a second thing of the kind just made, with
what is different about it; without them the plan made one thing from both descriptions.

Grammar, not phrases: "another (one)", "one more", "a second (one)", or "another" with the kind of
thing named again ("another image", "another toast" after a toast) stand for the thing the nearest
making step before made, past the steps done to it ("write a poem and read it aloud, then another
about the stars"). What follows them is how the second differs, put into the first one's
description where its words say: a topic or a purpose in place of the first's ("about snow", "for
kids"), a phrase like its last one in place of it ("in winter" after "in autumn"), a comparison
before the thing ("one more, sadder"), anything else after it ("in blue", "with a lighthouse").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..pipeline.plan import placeholder, placeholder_ids
from .extract import FILE_RE, Span
from .references import GIVEN_NOUNS, ORDINALS
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
_ASKED_AGAIN_LABELS = _MAKING_LABELS | {"translation"}

#: "a second (one)", "a third": a count of the same thing, not a file pointed at ("the second")
_ANOTHER_ORDINALS = ("second", "third", "fourth", "fifth")
#: "another (one)", "one more", "a second (one)", "one" before what describes it ("now one about
#: thunder"; not "one of these"), after the connectives that start a step, a wish or
#: a polite question ("I'd like another ...", "could you make a second ...") and at most a making
#: verb ("..., then draw another of a dragon"); "do another" is the same step, no verb of its own.
#: A word after it is a kind of thing ("another image but in winter"), checked in _asked_again.
_AGAIN_RE = re.compile(
    r"^[\s,.;:]*(?:(?:and|also|then|now|plus|next|after\s+that|afterwards|like|oh|ok|okay|so)\b[\s,]*)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:also\s+)?|(?:i'?d|i\s+would)\s+(?:also\s+)?(?:like|love)\s+|i\s+want\s+"
    r"|how\s+about\s+|what\s+about\s+)?(?:please\s+)?"
    r"(?P<verb>(?:make|draw|paint|sketch|write|compose|create|generate|give)\s+(?:me\s+|us\s+)?)?(?:do\s+)?"
    r"(?P<again>another|one\s+more|an?\s+(?:" + "|".join(_ANOTHER_ORDINALS) + r")|one(?=\s+(?:about|for|with|in|featuring|showing"
    r"|where|of(?!\s+(?:the|these|those|them|my|your|our|his|her|their|its|it|this|that|us)\b))\b))"
    r"(?:\s+(?P<kind>[a-z]+))?(?P<rest>\b.*)$",
    re.I | re.S,
)
#: "one" alone asks for another only after a connective ("now one about thunder"; not "a cat, one
#: with stripes"), and not after a count, whose things it describes one by one ("two poems, one
#: about love and one about loss")
_COUNTED_RE = re.compile(r"\b(?:two|three|four|five|six|couple|several|few|some|both|\d+)\b", re.I)
#: Nouns a repeat may name instead of "one", and the steps that make them (None: any making step).
#: Another noun counts only when the request named it before ("a toast for ..., and another toast").
KIND_STEPS: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(("image", "picture", "pic", "drawing", "painting", "sketch", "illustration"), frozenset(IMAGE_MAKERS)),
    **dict.fromkeys(("video", "clip", "animation"), frozenset({"text-to-video"})),
    "translation": frozenset({"translation"}),
    **dict.fromkeys(("one", "version", "variant", "variation", "take"), None),
}
#: Tokens that can open the repeat inside a longer clause (where the segmenter cuts)
_OPENERS = {"another", "one", "a", "an"}
_CONNECTIVES = {"and", ",", "then", "now", "plus", "also", ";", ".", "like"}

#: Words that start what is different about the second thing
_LINKS = {"of", "about", "in", "on", "with", "but", "for", "where", "that", "which", "showing", "featuring",
          "set", "this", "like", "at", "from", "wearing", "please", "too", "as", "without", "using", "over", "under",
          "near", "by", "during", "after", "before", "inside", "outside", "across", "around", "into", "to"}
#: Words between "another one" and what is different ("..., but in winter", "..., this time for Mark")
_FILLERS_RE = re.compile(r"^[\s,;:]*(?:(?:but|this\s+time|only|just|though|now|maybe)\b[\s,]*)*", re.I)
#: "one more, sadder", "another riddle but way harder": the difference is a comparison, said after
#: a comma or "but", or with a word of degree
_COMPARED_RE = re.compile(r"^(?:,\s*)?(?:but\s+)?(?:(?:way|much|even|slightly|somewhat|a\s+(?:bit|little|lot))\s+)?"
                          r"(?:(?:more|less)\s+[a-z]+|[a-z]{2,}er)\b(?=[\s.!?,]*$|\s+(?:and|than|but|" + "|".join(_LINKS) + r")\b)", re.I)
#: The end of a clause that asks for a copy and says nothing of how it differs ("another one, please!")
_NOTHING_MORE_RE = re.compile(r"^[\s,.!?]*(?:(?:please|too|as\s+well|also|thanks|thank\s+you)\b[\s,.!?]*)*$", re.I)
#: "... and another one from the lines of the second": the same step on another file the request
#: gives (each file's step is found elsewhere), not a second description; "the first snowfall" is
#: a description
_OTHER_INPUT_RE = re.compile(r"\b(?:the|this|that|my)\s+(?:(?:" + "|".join(ORDINALS) + r")(?=\s*(?:$|[,.;!?]|one\b|(?:"
                             + "|".join(sorted(GIVEN_NOUNS)) + r")s?\b))|next|latter|former)\b", re.I)
#: "another one from it", "one more like that": made from the first thing, not described anew
_FROM_FIRST_RE = re.compile(r"\b(?:from|like|of|based on|using)\s+(?:it|that|this|them|the first(?: one)?)\b", re.I)


@dataclass
class Again:
    """A clause asking for another thing of a kind made before: its own making verb ("draw
    another ..."), the kind it names ("image", "translation"; None for "one" or nothing) and what
    is different about it ("in blue", "about snow", ", sadder")."""

    verb: str | None
    kind: str | None
    rest: str

    @property
    def bare(self) -> bool:
        """Nothing is said of how the second differs ("then another"): a copy of the thing made
        (a translation is not asked again so: its second one is into another language)."""
        return bool(_NOTHING_MORE_RE.match(self.rest))

    @property
    def steps(self) -> frozenset[str] | None:
        """The steps that make the kind named (None: whichever made the last thing)."""
        return KIND_STEPS.get(self.kind) if self.kind else None


def asks_again(text: str, before: str = "") -> bool:
    """Whether a clause asks for another thing of the kind the step before it made; ``before``:
    the request's words before the clause (where the thing named again was named first)."""
    return _asked_again(text, before) is not None


def _asked_again(text: str, before: str = "") -> Again | None:
    """The "another one" at the start of a clause, where a description follows."""
    m = _AGAIN_RE.match(text)
    if m is None or m.group("again").lower() == "one" and (re.match(r"\s*[,:;]", text) or _COUNTED_RE.search(before)):
        return None  # "draw a cat, one with stripes", "write two poems, one about love": one of those asked
    kind, rest = (m.group("kind") or "").lower(), m.group("rest")
    if kind and (kind in _LINKS or kind not in KIND_STEPS and not re.search(rf"\b{re.escape(kind)}\b", before, re.I)):
        kind, rest = "", text[m.start("kind"):]  # "another about snow": no kind named, "about" starts the rest
    if not _looks_like_a_description(rest):
        return None
    return Again(m.group("verb"), kind or None, rest)


def _looks_like_a_description(rest: str) -> bool:
    """What follows "another" describes the new thing ("in blue", "of a dragon", "about snow", ",
    shorter"), rather than naming a different thing ("another photo of my dog" is a file, "another
    language" asks something else, "one more time" is no thing), or nothing does: the clause ends
    there ("draw a fox. then another please"), a copy of the same."""
    if _COMPARED_RE.match(rest.strip()) or _NOTHING_MORE_RE.match(rest):
        return True
    words = _FILLERS_RE.sub("", rest).split()
    return bool(words) and words[0].lower().strip(",.!?") in _LINKS and not _OTHER_INPUT_RE.search(rest) and not FILE_RE.search(rest)


def opens_again(doc, i: int) -> bool:
    """Whether token ``i`` of a spaCy doc opens "another one ..." after a connective, in a sentence
    after a verb of the request ("draw a red car, and another one in blue"): the segmenter
    cuts a clause there, so each thing gets its own description."""
    t = doc[i]
    if t.lower_ not in _OPENERS or i == 0 or doc[i - 1].lower_ not in _CONNECTIVES or doc[i - 1].pos_ == "VERB":
        return False  # (not "I'd like another ...": a filler "like", not the verb)
    if t.lower_ == "one" and not (i + 1 < len(doc) and (doc[i + 1].lower_ == "more" or doc[i - 1].lower_ in ("and", "then", "now", "also", "plus")
                                                         and _AGAIN_RE.match(doc[i:].text) and not _COUNTED_RE.search(doc[:i].text))):
        return False
    if t.lower_ in ("a", "an") and not (i + 1 < len(doc) and doc[i + 1].lower_ in _ANOTHER_ORDINALS):
        return False
    if not any(tk.pos_ == "VERB" for tk in doc[:i]):
        return False
    ends = [k for k in range(i + 1, len(doc)) if doc[k].text in (",", ";", ".", "!", "?")] + [len(doc)] * 2
    before = doc[:i].text
    # its own words: not "..., then read the second one aloud"; past a comma only a comparison or
    # a difference said after "but", "this time"
    # ("and one more, sadder", "and another toast, this time for Mark")
    after = doc[ends[0]:ends[1]].text
    return asks_again(doc[i:ends[0]].text, before) or ends[0] < len(doc) and doc[ends[0]].text == "," and bool(
        _COMPARED_RE.match(after) or _FILLERS_RE.match(after).end() > 2) and asks_again(doc[i:ends[1]].text, before)


def described_again(previous: Span, again: Again, tokens: list[Token], base: str) -> str | None:
    """What the thing asked for again shows or says: the first one's description (``base``, the
    prompt the ``previous`` clause gave its step) with what ``again`` says is different put where
    the words say ("a car in blue" after "draw a red car"; "a mountain cabin in winter" after "an
    image of a mountain cabin in autumn"; "a sadder haiku about the ocean"). ``tokens``: the
    request's parse, read, not made again. None when the previous clause names no thing (no
    noun after its verb, or no parse)."""
    rest = again.rest.strip()
    if m := _COMPARED_RE.match(rest):  # "one more, sadder": the comparison goes before the thing
        compared = re.sub(r"^(?:,\s*)?(?:but\s+)?", "", m.group(0))
        named = re.search(r"\s(?:" + "|".join(_LINKS) + r")\s", base, re.I)  # the thing is named before its description
        a = re.search(r"\b(an?|the)\s+", base[: named.start() if named else len(base)], re.I)
        lead, thing = (base[: a.start()], base[a.end():]) if a else ("", base[:1].lower() + base[1:])
        article = "the" if a and a.group(1).lower() == "the" else "an" if compared[:1].lower() in "aeiou" else "a"
        return f"{lead}{article} {compared} {thing}{rest[m.end():]}"
    diff = _FILLERS_RE.sub("", rest).strip(" ,.;!?")
    prep = diff.split()[0].lower() if diff else ""
    if prep in ("about", "for", "of") and (k := base.lower().rfind(f" {prep} ")) >= 0:
        return base[: k + 1] + diff  # a topic, a purpose, a subject: "about the stars", "for kids"
    if prep == "of" and not re.match(r"of\s+(?:it|them|that|this)\b", diff, re.I):
        return diff[3:]  # "another of a dragon" after "a red car": a dragon
    if prep in _LINKS and (m := re.search(rf"\s{prep}\s+[\w'-]+[.!?]?$", base, re.I)):
        return base[: m.start()] + " " + diff  # "in winter" after "... in autumn"
    toks = [t for t in tokens if previous.start <= t.start < previous.end]
    verb = next((k for k, t in enumerate(toks) if t.pos == "VERB"), -1)  # "picture of a street market." has none
    first = next((k for k, t in enumerate(toks) if k > verb and t.pos in ("NOUN", "PROPN")), None)
    if first is None:
        return None
    last = first
    while last + 1 < len(toks) and toks[last + 1].pos in ("NOUN", "PROPN") and toks[last + 1].dep != "pobj":
        last += 1  # "an oil painting": the whole name of the thing
    if toks[last].lower in KIND_STEPS and last + 1 < len(toks) and toks[last + 1].lower == "of" and prep != "of":
        return f"{base} {diff}"  # "an image of a cabin": the cabin, with the difference
    start = first
    while start - 1 > verb and toks[start - 1].pos in ("DET", "ADJ", "NUM", "ADV"):
        start -= 1  # "a red car": what the first one was, not what the second one is
    head = toks[last].text
    article = "an" if head[:1].lower() in "aeiou" else "a"
    return f"{previous.text[: toks[start].start - previous.start]}{article} {head} {diff}".strip()


def with_steps_asked_again(found: list[tuple[int, int, str]], texts: list[str], P=None) -> list[tuple[int, int, str]]:
    """``found`` (clause, label index, label) with the step asked again in each clause that says
    "another one": the making step (or the translation, whose difference is the language:
    "translate it into Spanish, and another one in French"; not speech, whose words would be
    "another one") of the nearest clause before that made the kind named ("another image"), past
    the steps on it ("write a poem and read it aloud, then another about the stars"). Without a
    verb of its own ("..., and another in the style of van gogh") the clause is that making step
    and nothing else, whatever its words lean to; with one ("then draw another of a dragon") it
    gets the step when it has none. Where the model placed the step on the "another" clause only,
    the clause before it that scores the step highest in ``P`` (clauses x labels; without ``P``
    the clause just before) gets it too: the first thing."""
    out = list(found)
    for i, text in enumerate(texts):
        m = _asked_again(text, " ".join(texts[:i]))
        if i == 0 or m is None:
            continue
        mine = [f for f in out if f[0] == i]
        before = [f for f in out if f[0] < i]
        again: list[tuple[int, int, str]] = []
        for k in range(i - 1, -1, -1):
            here = [f for f in before if f[0] == k]
            again = [f for f in here if f[2] in _MAKING_LABELS] or [f for f in here if len(here) == 1 and f[2] == "translation" and not m.bare]
            again = [f for f in again if m.steps is None or f[2] in m.steps]
            if again:
                break
        if again and (not mine or not m.verb and again[-1][2] in _MAKING_LABELS
                      and any(f[2] != again[-1][2] for f in mine)):
            _, j, label = again[-1]
            out = [f for f in out if f[0] != i] + [(i, j, label)]
        elif (made := [f for f in mine if f[2] in _ASKED_AGAIN_LABELS]) and not any(f[2] == made[0][2] for f in before):
            # the model placed the step on the second thing: the first, in the clause before that
            # scores it highest ("translate '...' into French and read it out. Then another
            # translation into Portuguese"), gets it too
            k = i - 1 if P is None else int(P[:i, made[0][1]].argmax())
            out.append((k, made[0][1], made[0][2]))
    return out


def steps_on_it_again(found: list[tuple[int, int, str]], texts: list[str], P, bar: float) -> list[tuple[int, int, str]]:
    """Steps for a clause right after "another one ..." that asks again what was done to the first
    thing ("write a poem about the moon and read it aloud, then another about the stars and read
    that one too"): of the steps found between the first thing and the second, the one the clause
    scores highest in ``P`` (clauses x labels), when at least ``bar``. The step finder places each
    step once per request, so without this the second reading is lost."""
    out = []
    for i, text in enumerate(texts[:-1]):
        mine = [f for f in found if f[0] == i and f[2] in _ASKED_AGAIN_LABELS]
        if i == 0 or not mine or any(f[0] == i + 1 for f in found) or not _asked_again(text, " ".join(texts[:i])):
            continue
        first = max((f[0] for f in found if f[0] < i and f[2] == mine[0][2]), default=None)
        between = {(j, label) for k, j, label in found if first is not None and first < k < i and label not in _MAKING_LABELS}
        if between and P[i + 1, (best := max(between, key=lambda f: P[i + 1, f[0]]))[0]] >= bar:
            out.append((i + 1, *best))
    return out


def prompt_again(task: str, clause: Span, st: PlanState, current: str | None) -> str | None:
    """The words a step asked with "another one ..." works from: for a making step, the thing the
    same step made before, described with what this clause says is different ("a car in blue"),
    not the first thing itself nor the clause's bare words ("another one in blue"); for a
    translation, what the first one translated. None where the clause does not ask again, quotes
    its words, or works on another step's result."""
    r = st.reading
    m = _asked_again(clause.text, r.text[: clause.start])
    if m is None or any(clause.start <= q.start < clause.end for q in r.quotes):
        return None
    first = next((n for n in reversed(st.nodes) if n.task == task), None)
    if first is None:
        return None
    if task not in MAKING_STEPS:
        # "translate letter.txt to Italian. one more in Portuguese": the letter again, not the Italian
        return first.args.get("text") if current == placeholder(first.id) else None
    if _FROM_FIRST_RE.search(m.rest):
        return None
    if m.bare and (text := first.args.get("text")) and not placeholder_ids(text):
        return text  # "draw a fox. then another": a copy of the nearest one made
    # the thing first described, not another "another" ("..., another of snow, and one more over a lake")
    asked = [(n, r.clauses[r.clause_at(n.pos)]) for n in reversed(st.nodes) if n.task == task]
    described = next(((n, c) for n, c in asked if not asks_again(c.text, r.text[: c.start])), None)
    if described is None or not (base := described[0].args.get("text")) or placeholder_ids(base):
        return None
    words = described_again(described[1], m, r.tokens, base)
    if words is None:
        return None
    words = picture_prompt(words) if task in ("text-to-image", "text-to-video") else prompt_text(words)
    return words[:1].lower() + words[1:] if base[:1].islower() else words  # as the first one's was written


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
