"""Follow-ups: whether a request's words point back at what the assistant said before ("read that
out loud", "now in Spanish") rather than holding what to work on. In a conversation, the offline
planner then works on what the last request's steps wrote, or on the last answer."""

from __future__ import annotations

import re

import numpy as np

from .extract import RequestReading
from .result_refs import named_results
from .step_labels import media_input, media_output
from .step_words import prompt_text

#: The words that point at a thing without naming it ("draw it", "paint that for me")
BARE_POINTERS = frozenset({"it", "them", "this", "that", "these", "those"})


#: Words that point back at something said before rather than naming it: "it", "them", a bare
#: "this"/"that" (not "this article"), "your answer", "what you said". The parser tells a pronoun
#: from a determiner; this pattern is the fallback without it.
_BACK_RE = re.compile(
    r"\b(?:it|them)\b|\b(?:this|that)\b(?=\s*(?:$|[.,!?;:]|(?:out|aloud|again|into|in|to|for|please|back|up|as|more|so|and|then|too|now|over)\b))"
    r"|\bmake (?:this|that) \w+er\b", re.I)
#: Names for the assistant's own last words ("your last answer", "what you just said", "the places you mentioned")
_ANSWER_NAMED_RE = re.compile(
    r"\b(?:your|the|that) (?:last |previous )?(?:answer|reply|response)\b"
    r"|\bwhat you (?:just )?(?:said|told me|wrote|described|mentioned|explained)\b|\byou (?:just )?mentioned\b", re.I)
_POINTING = BARE_POINTERS - {"it", "them"}
_ANY_POINTER_RE = re.compile(r"\b(?:%s)\b" % "|".join(sorted(BARE_POINTERS)), re.I)
#: Verbs whose object is also the subject of what follows ("make it more polite", "let that sink in")
_CAUSATIVES = {"make", "let", "have", "get"}


#: Words that say how or for whom, not what ("read me your answer out loud again please")
_HOW = {"me", "us", "please", "out", "loud", "aloud", "again", "now", "back", "to", "into", "in", "for", "once", "more", "one", "time", "just"}


def names_the_answer(text: str) -> bool:
    """The words name the assistant's own answer ("your last answer", "what you just said")."""
    return _ANSWER_NAMED_RE.search(text) is not None


def only_the_answer(text: str) -> bool:
    """The words name the assistant's answer and hold nothing else to work on: a verb and how
    ("read your answer out loud", "say your last answer again", "translate what you said to
    German"); not a sentence given beside it ("is this review good or bad, say the answer out loud,
    the food was cold")."""
    if not names_the_answer(text):
        return False
    rest = re.findall(r"[a-z']+", prompt_text(_ANSWER_NAMED_RE.sub(" ", text)).lower())
    return len([w for w in rest if w not in _HOW]) <= 2  # a verb, and a language or a manner


def refers_back(text: str, ahead: str = "") -> bool:
    """A step's words point back at something said before instead of holding what to work on
    ("read that out loud", "translate it into French", "is that positive", "make it more polite",
    "say your last answer again"): in a conversation, the assistant's last answer. Not "it" as a
    clause's own subject ("say it is raining": the words to speak), nor "that" as a determiner or
    a conjunction ("translate that sentence", "say that it's late"), nor a pointer followed by the
    words it means (``ahead``: the rest of the request, where speech runs on unpunctuated)."""
    if names_the_answer(text) or re.search(r"\bin there\b", text, re.I):
        return True
    if not _ANY_POINTER_RE.search(text):
        return False  # no pointing word: nothing to parse for
    from .segment import load_nlp

    nlp = load_nlp()[0]
    if nlp is None:
        return _BACK_RE.search(text) is not None
    doc = nlp(f"{text} {ahead}" if ahead.strip() else text)
    for t in doc:
        if t.idx >= len(text):
            break
        if t.lower_ in BARE_POINTERS and _points_ahead(doc, t):
            continue
        if t.lower_ in _POINTING and not (t.dep_ in ("det", "mark") and t.head.i > t.i):
            return True  # a determiner or a conjunction has its noun or its clause after it
        if t.lower_ in ("it", "them") and (t.dep_ in ("dobj", "pobj", "dative", "oprd")
                                          or t.dep_ == "nsubj" and t.head.head.lemma_ in _CAUSATIVES):
            return True
    return False


#: Relative pronouns: the subject of a clause that says more about a noun, not words of their own
_RELATIVES = {"who", "which", "that", "whom", "whose"}


def _points_ahead(doc, t) -> bool:
    """The pointer ``t`` is followed by the words it means, as speech runs on without punctuation: a
    clause with a subject of its own comes after it before any punctuation ("summarize this for me
    okay so the company reported a drop", "play it back as speech the meeting is moved to
    thursday"); not a relative or a purpose clause ("for my grandmother who doesn't read well", "so
    I can text it"), nor a reason given after a comma ("read that out loud, I'm driving")."""
    for u in doc[t.i + 1:]:
        if u.is_punct and u.text in ",.;:!?-\u2013\u2014":
            return False
        if (u.dep_ in ("nsubj", "nsubjpass") and u.lower_ not in _RELATIVES and u.head.i > t.i
                and u.head.pos_ in ("VERB", "AUX") and u.head.dep_ not in ("relcl", "advcl")):
            return True
    return False


#: The words around a language that ask for nothing else ("now in Spanish please", "translate to German")
_AROUND_A_LANGUAGE_RE = re.compile(
    r"\b(?:now|and|also|then|ok|okay|but|same|just|please|too|instead|as well|thanks|in|into|to|translated?|translation|say it|it)\b", re.I)


def only_a_language(text: str, language_re: re.Pattern) -> bool:
    """The words name a language and nothing to put into it ("now in Spanish please", "in
    German"): in a conversation, the last answer is what is to be translated."""
    if not language_re.search(text):
        return False
    return not re.search(r"[a-z]", _AROUND_A_LANGUAGE_RE.sub(" ", language_re.sub(" ", prompt_text(text))), re.I)


def points_back(text: str, language_re: re.Pattern | None = None, ahead: str = "") -> bool:
    """A step's words work on what was said before: they point back at it, name a result that
    nothing in the request makes ("give me the short version"), or, for a translation
    (``language_re`` given), name only the language ("now in Spanish")."""
    return refers_back(text, ahead) or bool(named_results(text)) or (
        language_re is not None and only_a_language(text, language_re))


#: A question to the assistant about itself, not a request ("do you keep my recordings?", "did you
#: save that?"); "can/could/would you ..." asks for something, so it is not one of these
_ABOUT_YOURSELF_RE = re.compile(r"^\W*(?:(?:so|and|but|ok|okay|hey|wait),?\s+)*(?:do|did|does|are|were|have|had)\s+(?:you|u)\b", re.I)


def on_the_answer(reading: RequestReading, given: list[str], language_re: re.Pattern | None = None) -> bool:
    """The request is a follow-up on the assistant's last answer: there is one, no file came or is
    named, the words point back ("what's the mood of that", "any names in what you said?"), and it
    is not a question to the assistant about itself ("do you keep a copy after you transcribe them?")."""
    return (bool(reading.previous_answer) and not given and not _ABOUT_YOURSELF_RE.search(reading.text)
            and points_back(reading.text, language_re))


def _text_steps(labels: list[str]) -> list[int]:
    """The steps that work on words (the last answer is words); the chat is not one of them."""
    return [k for k, label in enumerate(labels) if not media_input(label) and label != "conversational"]


def likeliest_on_text(needs: np.ndarray, labels: list[str], text: str, language_re: re.Pattern) -> int:
    """The likeliest step on words, by how much the request needs each; a translation only where a
    language is named (the model barely reads one in "how does that come across, friendly or cold")."""
    steps = [k for k in _text_steps(labels) if labels[k] != "translation" or language_re.search(text)]
    return max(steps, key=lambda k: needs[k])


def steps_on_the_answer(found: list[tuple[int, int, str]], P: np.ndarray, labels: list[str], bar: float) -> list[tuple[int, int, str]]:
    """``found`` (clause, label index, label) for a follow-up on the last answer: a step on a photo or
    a recording, with none there, was read from the words ("the mood of that" is said of sound,
    "what you just described" of pictures); it becomes its clause's likeliest step on words where
    the model gives that one ``bar`` or more, and is dropped otherwise (the chat answers). Not a step
    on what another step of the request makes ("draw a cat, then make it a watercolor")."""
    text = _text_steps(labels)
    made = {media_output(label) for _, _, label in found}
    out: list[tuple[int, int, str]] = []
    for i, j, label in found:
        if media_input(label) and media_input(label) not in made:
            k = max(text, key=lambda k: P[i, k])
            if P[i, k] < bar:
                continue
            j, label = k, labels[k]
        if (i, j, label) not in out:
            out.append((i, j, label))
    return out
