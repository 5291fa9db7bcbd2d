"""Corrections made while speaking ("draw a cat, no wait, a dog"; "translate it into German er no
into Dutch"; "Describe a.jpg. Sorry, I mean b.jpg"; "read it out, scratch that") planned as meant.

Why: a voice request reaches the planner as it was said, corrections included, and a planner that
reads every word plans both the withdrawn thing and its replacement. A correction is read the way
studies of speech disfluency describe it: what is withdrawn (the reparandum), the words that say
so (the interregnum: "no wait", "sorry, I mean", "actually, make that", "correction:"), and what
replaces it (the alteration). The alteration's first word says what kind of phrase it replaces -
a command, a phrase opened by a preposition, a noun phrase, a file, a quotation - and the
reparandum is the last phrase of that kind before the interregnum, or the one a contrast names
("a picture, not a video"). Words the alteration repeats ("a fox sitting on the sill" after "a
cat sitting on the sill") are not withdrawn. Nothing here knows any task: it is grammar of
speech, so what is planned from the corrected words is the planner's own reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..english import parse
from .as_written import HESITATION, HESITATION_RE
from .detect import knowledge
from .extract import FILE_RE, quoted_spans
from .references import KIND_NOUNS, ORDINALS
from .repeats import KIND_STEPS
from .time_order import in_time_order
from .unwanted import SKIPPING, phrase_end, tidy, without_unwanted
from .unwanted import SUBJECTS as _SUBJECTS

#: Quick test for words that can make an interregnum: only requests with one are parsed here.
_MAYBE = re.compile(r"\b(?:no+\s*,?\s*wait|wait\s*,?\s*no|hang on|hold on|sorry|i mean|i meant|or rather|correction|rephrase|"
                    r"my (?:bad|mistake)|o+ps|whoops|no+\s*,?\s*no|(?:scratch|strike|forget|cancel|ignore) (?:that|it)|never mind|"
                    r"no(?:pe)?\s+(?:the|a|an|my|this|that|into|in|to|on|for|with)\b)\b"
                    rf"|(?:[,.;:!?\u2026\u2014-]|\b{HESITATION})\s*(?:actually|no|nope|wait|rather|make that|change (?:that|it) to)\b", re.I)

#: Word sequences of an interregnum. Strong ones mark a correction wherever they stand; weak ones
#: ("actually", "no", "make that") only after a pause (punctuation or a filler), since "can you
#: actually tell me" and "a street with no cars" correct nothing.
_STRONG = [("no", "wait"), ("wait", "no"), ("hang", "on"), ("hold", "on"), ("sorry",), ("i", "meant", "to", "say"), ("i", "meant"),
           ("i", "mean"), ("or", "rather"), ("let", "me", "rephrase", "that"), ("let", "me", "rephrase"),
           ("my", "bad"), ("my", "mistake"), ("oops",), ("whoops",), ("no", "no")]
_CANCEL = [("scratch", "that"), ("strike", "that"), ("forget", "that"), ("cancel", "that"), ("never", "mind", "that"),
           ("never", "mind"), ("ignore", "that"), ("scratch", "it"), ("forget", "it")]
_WEAK = [("actually",), ("no",), ("nope",), ("wait",), ("rather",), ("correction",), ("make", "that"), ("change", "that", "to"), ("change", "it", "to")]
#: Words an interregnum may go on with, never open ("make it" opens many plain requests).
_ONLY_AFTER = [("make", "it"), ("it", "'s"), ("it", "is")]
#: Words said inside an interregnum that are no part of one alone.
_SOFT = {"oh", "ah", "well", "ok", "okay", "like", "so"}
_QUOTE_MARKS = {'"', "\u201c", "'", "\u2018"}
_PAUSES = {",", ".", "...", "…", "-", "--", "—", "!", "?", ";", ":"}
#: Words that open a clause of their own ("..., and then read it out").
_CLAUSE_WORDS = {"and", "then", "but", "also"}
#: Words before the alteration that are not part of it ("no wait, just ...", "sorry, I want ...").
_LEAD_INS = [("i", "want"), ("i", "'d", "like"), ("i", "would", "like"), ("i", "need"), ("give", "me"), ("let", "'s"),
             ("just",), ("only",), ("please",), ("it", "should", "be"), ("instead",)]
#: Nouns that name a file the user gave rather than a thing to make, as a correction points at one
#: ("the first photo, no, the other one"). Not references.GIVEN_NOUNS: that wider list (texts
#: to work on too) moved one plan of blind set H from right to wrong when tried in review.
_FILE_NOUNS = {"one", "file", "document", "doc", "memo", "note", "notes", "letter", "page", "version"} | {
    noun for nouns in KIND_NOUNS.values() for noun in nouns if noun not in {"drawing", "sketch", "song", "take"}}
_NOMINAL = {"DET", "ADJ", "NOUN", "PROPN", "NUM"}
#: Words of a question about a noun phrase, not of the phrase ("how many dogs").
_QUANTITIES = {"many", "much", "few", "several", "more", "most", "less", "fewer"}
_VERB_TAGS = {"VB", "VBP"}
_ENDS = {".", "!", "?", ";", ":"}


@dataclass
class Correction:
    """One correction: the words withdrawn and the words meant instead."""

    withdrawn: str
    meant: str


@dataclass
class MeantRequest:
    """The request with its corrections applied, what it says not to do taken out and its steps in
    the order they run."""

    text: str
    corrections: list[Correction] = field(default_factory=list)

    def note(self) -> str | None:
        """What the user sees beside the plan, so a correction misheard is caught."""
        if not self.corrections:
            return None
        def q(words: str) -> str:
            return '"' + words.strip("\"\u201c\u201d") + '"'

        said = "; ".join(f"{q(c.withdrawn)} -> {q(c.meant)}" if c.meant else f"{q(c.withdrawn)} dropped" for c in self.corrections)
        return f"read your correction{'s' if len(self.corrections) > 1 else ''} ({said})"


def says_a_correction(text: str) -> bool:
    """``text`` holds the words a correction is made with ("no wait", "sorry", "I mean", ", actually")."""
    return bool(_MAYBE.search(text))


def as_meant(request: str, max_corrections: int = 4) -> MeantRequest:
    """``request`` as the user meant it: corrections applied, declined steps taken out, steps said
    out of order put in the order they run. The request itself when nothing of the kind is in it or
    the parser is not installed."""
    text, done = request, []
    for _ in range(max_corrections):
        if not says_a_correction(text) or (doc := parse(text)) is None:  # without spaCy: read as said
            break
        found = _correction(doc)
        if found is None:
            break
        text, correction = found
        done.append(correction)
    text = in_time_order(without_unwanted(text))
    if not re.search(r"[^\W_]", text):  # "skip this song": a command in itself, not a correction of one
        return MeantRequest(request)
    return MeantRequest(text, done)


# ---------------------------------------------------------------------------------------------
# finding the interregnum


def _match(words: list[str], i: int, seqs: list[tuple[str, ...]]) -> int:
    """How many tokens from ``i`` one of ``seqs`` covers (0 when none)."""
    for seq in seqs:
        if tuple(words[i : i + len(seq)]) == seq:
            return len(seq)
    return 0


@dataclass
class _Interregnum:
    start: int  # first token (its leading punctuation included)
    end: int  # first token after it
    cancel: bool


def _interregnum(doc: Any, words: list[str], i: int, quoted: list[tuple[int, int]]) -> _Interregnum | None:
    """The interregnum starting at token ``i``, if one does."""
    paused = i > 0 and doc[i - 1].text in _PAUSES
    if any(a <= doc[i].idx < b for a, b in quoted) or words[i] in _SOFT and not paused:
        return None
    k, units, strong, weak, cancel = i, 0, False, False, False
    while k < len(doc):
        if doc[k].text in _QUOTE_MARKS:
            break  # 'make that "eleven"': the alteration is a quotation
        if HESITATION_RE.fullmatch(words[k]) or doc[k].is_punct and k > i:
            paused = True
            k += 1
            continue
        if words[k] in _SOFT and (units or paused):  # "..., oh never mind that"
            k += 1
            continue
        if n := _match(words, k, _CANCEL):
            if not (paused or units):
                return None  # "could you just ignore that?": a request, not a correction
            if words[k:k + n] == ["never", "mind"] and k + n < len(doc) and doc[k + n].pos_ in ("DET", "NOUN", "PROPN") and (
                    words[k + n] not in ("that", "this", "it")):
                return None  # "summarize it, never mind the translation": a step declined by name (unwanted.py), not a take-back
            cancel = True
        elif n := _match(words, k, _STRONG):
            if words[k] == "i" and k + n < len(doc) and words[k + n] in {"it", "that"} and (k + n + 1 == len(doc) or doc[k + n + 1].is_punct):
                return None  # "I mean it", said for emphasis
            if words[k] == "sorry" and k > 0 and words[k - 1] in {"'m", "am", "so", "very", "feel", "say"}:
                return None  # "I'm sorry ...": an apology, not a correction
            strong = True
        elif n := _match(words, k, _WEAK):
            if words[k] in {"no", "nope"} and k + 1 < len(doc) and (words[k + 1] in {"need", "more", "longer", "one"} or doc[k + 1].pos_ in {"NOUN", "ADJ"}):
                break  # "no need to", "with no cars": a determiner
            if words[k] == "rather" and (k + 1 < len(doc) and words[k + 1] == "than" or k > 0 and words[k - 1] in {"'d", "would"}):
                break
            weak = weak or paused or words[k] in {"no", "nope"} and k + n < len(doc) and _opens_alteration(doc[k + n])
        elif (n := _match(words, k, _ONLY_AFTER)) and units:
            pass  # "no wait, make it a dog"
        else:
            break
        units += 1
        k += n
    if not units or k >= len(doc) or not (strong or cancel or weak):
        return None
    start = i - 1 if i > 0 and doc[i - 1].is_punct and doc[i - 1].text not in {'"', "'"} else i
    return _Interregnum(start, k, cancel)


def _opens_alteration(t: Any) -> bool:
    """After a bare "no": a phrase that can only be a correction ("no the second one", "no into
    Dutch"), not a determiner's noun ("no cars")."""
    return t.pos_ in {"DET", "ADP"} and t.lower_ not in {"all", "any", "some", "this"}


# ---------------------------------------------------------------------------------------------
# the alteration and the reparandum


@dataclass
class _Phrase:
    start: int  # token index
    end: int  # token index after its last token
    kind: str  # "verb", "adp", "nominal", "file", "quote", "negated", "cancel"
    reach: int = 0  # for a noun phrase: the end of what follows it in the same phrase ("a fox | sitting on the sill")


def _correction(doc: Any) -> tuple[str, Correction] | None:
    text = doc.text
    quoted = quoted_spans(text)
    words = [t.lower_ for t in doc]
    i = 1
    while i < len(doc):
        intr = _interregnum(doc, words, i, quoted)
        if intr is None:
            i += 1
            continue
        found = _apply(doc, words, intr, quoted)
        if found is not None:
            return found
        i = intr.end  # its own words are not another interregnum
    return None


def _alteration(doc: Any, words: list[str], k: int) -> _Phrase | None:
    led = k
    while k < len(doc) and (n := _match(words, k, _LEAD_INS)):
        k += n
    if k >= len(doc):
        return None
    t = doc[k]
    if k > led and words[led] in {"just", "only", "please"} and t.pos_ not in _NOMINAL - {"PROPN", "NOUN"} and (
            k + 1 < len(doc) and doc[k + 1].pos_ in {"ADP", "DET", "PRON"}):
        return _Phrase(k, _sentence_end(doc, k), "verb")  # "just jot down what they say": a command, whatever the tagger said
    end = phrase_end(doc, k)
    if _match(words, k, SKIPPING):
        return None  # "actually, scratch the reading part": what not to do (unwanted.py)
    if t.text in _QUOTE_MARKS:
        closing = next((b for a, b in quoted_spans(doc.text) if a == t.idx), None)
        return None if closing is None else _Phrase(k, next((j for j in range(k + 1, len(doc)) if doc[j].idx >= closing), len(doc)), "quote")
    if words[k] in {"not", "never"} or words[k : k + 2] in (["no", "need"], ["do", "not"], ["do", "n't"], ["don't"]):
        return _Phrase(k, end, "negated")
    if any(FILE_RE.fullmatch(doc[j].text) for j in range(k, end)):
        return _Phrase(k, end, "file")
    if t.tag_ in _VERB_TAGS and t.pos_ == "VERB" and not any(c.dep_ == "nsubj" and c.i >= k for c in t.children):
        return _Phrase(k, _sentence_end(doc, k), "verb")  # a command: the rest of what it says ("pick out the names and places in it")
    if t.tag_ in {"WP", "WRB", "WDT"}:  # "what's the total? Correction: what's the tax on it?": a question for a question
        return _Phrase(k, _sentence_end(doc, k), "verb")
    if t.pos_ == "ADP":
        return _Phrase(k, min(end, _nominal_end(doc, k + 1)), "adp")
    if t.pos_ in _NOMINAL or t.tag_ == "VBZ":  # "make that bicycles": a plural the tagger took for a verb
        run = max(_nominal_end(doc, k), k + 1)
        if run + 1 < len(doc) and doc[run].text == "," and FILE_RE.fullmatch(doc[run + 1].text):
            return _Phrase(k, run + 2, "file")  # "the other one, photo_0413.jpg"
        heads = {words[j] for j in range(k, run)}
        # "the second one", "sorry I mean the second": another file (not "the last light of dusk")
        ordinal = run > k + 1 and words[k + 1] in ORDINALS and (run == k + 2 or words[k + 2] in _FILE_NOUNS)
        return _Phrase(k, run, "file" if (heads & _FILE_NOUNS or ordinal) and words[k] in {"the", "this", "that", "my"} else "nominal", end)
    return None


def _sentence_end(doc: Any, k: int) -> int:
    """Where what a command at ``k`` says ends: its sentence's end, or a clause with a subject of
    its own ("just clean it up | i'll listen to it myself")."""
    for j in range(k + 1, len(doc)):
        if doc[j].text in _ENDS or doc[j].lower_ in _SUBJECTS and any(u.pos_ in {"VERB", "AUX"} for u in doc[j + 1 : j + 3]):
            return j
    return len(doc)


def _commands(t: Any) -> bool:
    """The token can open a command: a verb in its plain form, or in the past form the tagger
    gives "read" when it has no subject."""
    return t.pos_ in {"VERB", "AUX"} and (t.tag_ in _VERB_TAGS or t.tag_ == "VBD" and not any(c.dep_ == "nsubj" for c in t.children))


def _nominal_end(doc: Any, k: int) -> int:
    while k < len(doc) and (doc[k].pos_ in _NOMINAL or doc[k].tag_ == "POS" or doc[k].dep_ == "poss" or FILE_RE.fullmatch(doc[k].text)):
        k += 1
    return k


def _nominal_start(doc: Any, k: int, floor: int) -> int:
    """The first token of the noun phrase whose last token is ``k`` (after "how many"; its
    determiner at most: "caption the first picture" with "caption" taken for a noun)."""
    while (k > floor and doc[k].pos_ != "DET" and (doc[k - 1].pos_ in _NOMINAL or doc[k - 1].tag_ == "POS")
           and doc[k - 1].lower_ not in _QUANTITIES):
        k -= 1
    return k


def _contrast(doc: Any, words: list[str], alt: _Phrase) -> tuple[int, int | None]:
    """A contrast after or at the end of the alteration (", not a video"): the token after the
    alteration and the head word the contrast names (None when there is none)."""
    end = alt.end
    k = end + (end < len(doc) and doc[end].text == ",")
    inside = [j for j in range(alt.start + 1, alt.end) if words[j] == "not" and doc[j - 1].text == ","]
    if inside:  # "translate it into French, not summarise it": the contrast stays for unwanted.py
        k, end = inside[0], alt.end
    if k < len(doc) and words[k] == "not":
        stop = phrase_end(doc, k + 1)
        heads = [j for j in range(k + 1, stop) if doc[j].pos_ in {"NOUN", "PROPN", "VERB"}]
        if heads:
            return (end if inside else stop), (heads[0] if doc[heads[0]].pos_ == "VERB" else heads[-1])
    return end, None


def _region_start(doc: Any, start: int, free: Any) -> int:
    """Where the reparandum may begin: the start of the sentence of the last word said before the
    interregnum outside quotations (the sentence before, when the interregnum opens one)."""
    k = start - 1
    while k > 0 and (doc[k].is_punct or not free(k)):
        k -= 1
    while k > 0 and not (doc[k - 1].text in _ENDS and free(k - 1)):
        k -= 1
    return max(k, 0)


def _clause_end(doc: Any, k: int, limit: int) -> int:
    """Where the verb phrase opened at ``k`` ends, not past ``limit``."""
    return min(phrase_end(doc, k + 1), limit)


def _reparandum(doc: Any, words: list[str], alt: _Phrase, hint: int | None, floor: int, limit: int,
                quoted: list[tuple[int, int]]) -> _Phrase | None:
    free = [j for j in range(floor, limit) if not any(a <= doc[j].idx < b for a, b in quoted)]
    if hint is not None:
        same = [j for j in free if doc[j].lemma_ == doc[hint].lemma_]
        if same:
            j = same[-1]
            if doc[j].pos_ == "VERB":
                return _Phrase(j, _clause_end(doc, j, limit), "verb")
            return _Phrase(_nominal_start(doc, j, floor), j + 1, "nominal")
    kind = alt.kind
    if kind == "quote":
        spans = [(a, b) for a, b in quoted if doc[floor].idx <= a and b <= doc[limit - 1].idx + len(doc[limit - 1])]
        if not spans:
            return None
        a, b = spans[-1]
        toks = [j for j in range(floor, limit) if a - 1 <= doc[j].idx < b + 1]
        return _Phrase(toks[0], toks[-1] + 1, "quote") if toks else None
    if kind == "file":
        files = [j for j in free if FILE_RE.fullmatch(doc[j].text) or (words[j] in _FILE_NOUNS and doc[j].pos_ == "NOUN")]
        if not files:
            return None
        j = files[-1]
        return _Phrase(j if FILE_RE.fullmatch(doc[j].text) else _nominal_start(doc, j, floor), j + 1, "file")
    if kind == "cancel":  # "is it dangerous... actually never mind": the clause just said
        cut = [j for j in free if doc[j].text in _PAUSES or words[j] in _CLAUSE_WORDS]
        start = next((j + 1 for j in reversed(cut) if j + 1 < limit), floor)
        return _Phrase(start, limit, "verb") if start < limit else None
    if kind in {"verb", "negated"}:
        verb = None
        alt_verb = next((j for j in range(alt.start, alt.end) if doc[j].pos_ == "VERB"), None)
        if alt_verb is not None:
            verb = next((j for j in reversed(free) if doc[j].lemma_ == doc[alt_verb].lemma_), None)
        if verb is None:
            verbs = [j for j in free if _commands(doc[j]) or j in (floor, *[x + 1 for x in free if doc[x].text in _ENDS])]
            verb = verbs[-1] if verbs else None
        if verb is None:
            return None
        return _Phrase(verb, _clause_end(doc, verb, limit), "verb")
    if kind == "adp":
        adps = [j for j in free if doc[j].pos_ == "ADP"]
        same = [j for j in adps if words[j] == words[alt.start]]
        j = (same or adps or [None])[-1]
        if j is None:
            return None
        end = min(_nominal_end(doc, j + 1), limit)
        if _language_words(words[j:end]) and not _language_words(words[alt.start : alt.end]):
            return None  # "into German? sorry, it's for my neighbour": who it is for, no other language
        return _Phrase(j, end, "adp")
    # a noun phrase: one with the alteration's head noun ("a red fox ... no, an arctic fox"), else
    # the last one before the interregnum that names no file the user gave
    head = max(alt.start, alt.end - 1)
    same = [j for j in free if doc[j].pos_ in {"NOUN", "PROPN"} and doc[j].lemma_ == doc[head].lemma_]
    if same:
        return _Phrase(_nominal_start(doc, same[-1], floor), same[-1] + 1, "nominal")
    # like for like: a language is corrected by a language ("into German, sorry, Dutch"), so "into
    # German? sorry, it's a photo of the form" tells what the file is and withdraws nothing
    runs = [j for j in free if doc[j].pos_ in {"NOUN", "PROPN", "NUM", "ADJ"}
            and not (words[j] in _FILE_NOUNS or FILE_RE.fullmatch(doc[j].text))
            and (j + 1 >= limit or doc[j + 1].pos_ not in {"NOUN", "PROPN"})]
    if not _language_words(words[alt.start : alt.end]):  # ("write a story in Spanish, sorry, a poem": the story)
        runs = [j for j in runs if not _language_words([words[j]])]
    if not runs:
        return None
    j = runs[-1]
    return _Phrase(_nominal_start(doc, j, floor), j + 1, "nominal")


def _repeated_tail(doc: Any, words: list[str], rep_end: int, alt: _Phrase) -> int:
    """How many tokens at the end of the withdrawn words the alteration says again right after
    its own first words ("a cat sitting on the sill, no, a fox sitting on the sill")."""
    best = 0
    for n in range(1, rep_end):
        tail = words[rep_end - n : rep_end]
        if any(words[s : s + n] == tail for s in range(alt.start + 1, max(alt.end, alt.reach) - n + 1)):
            best = n
        else:
            break
    return best


def _apply(doc: Any, words: list[str], intr: _Interregnum, quoted: list[tuple[int, int]]) -> tuple[str, Correction] | None:
    text = doc.text
    floor = _region_start(doc, intr.start, lambda j: not any(a <= doc[j].idx < b for a, b in quoted))
    made_it = words[intr.end - 2 : intr.end] == ["make", "it"]
    adjectives = intr.end
    while made_it and adjectives < len(doc) and (doc[adjectives].pos_ == "ADJ" or adjectives > intr.end and words[adjectives] in {"and", ","}):
        adjectives += 1  # "no wait make it red": a property of the thing asked for, not a thing
    if adjectives > intr.end and (adjectives == len(doc) or doc[adjectives].text in _ENDS) and not _language_words(
            words[intr.end : adjectives]):  # "... to French, no wait, make it Spanish": the language
        if (changed := _property_changed(doc, intr, adjectives, floor, quoted)) is not None:
            return changed
    start = intr.end
    if made_it and (det := next((j for j in range(intr.end + 1, min(intr.end + 4, len(doc))) if doc[j].pos_ == "DET"), None)) and all(
            words[j] in words[det:] for j in range(intr.end, det)):
        start = det  # "make it red a red car by the sea": the thing said again is what is meant
    if intr.cancel:
        alt = _Phrase(intr.end, intr.end, "cancel")
    else:
        alt = _alteration(doc, words, start)
    if alt is None:
        return None
    after, hint = _contrast(doc, words, alt) if alt.kind not in {"negated", "cancel"} else (alt.end, None)
    limit = intr.start
    while limit > floor and doc[limit - 1].is_punct and doc[limit - 1].text not in _QUOTE_MARKS | {"\u201d", "\u2019"}:
        limit -= 1  # not past a closing quotation mark: the quotation may be what is withdrawn
    if limit <= floor:
        return None
    # words said again ("... sitting on the sill") are where the withdrawn phrase ends
    rep_limit = limit - _repeated_tail(doc, words, limit, alt) if alt.kind == "nominal" else limit
    rep = _reparandum(doc, words, alt, hint, floor, rep_limit, quoted)
    if rep is None or rep.start >= rep_limit and alt.kind != "cancel":
        return None
    asked = alt.kind == "verb" and rep.end < len(doc) and doc[rep.end].text == "?"
    mark = "."
    if asked:  # "Is this review positive? ... Hang on, rather pick out the names": a command replaces the question
        rep = _Phrase(rep.start, rep.end + 1, rep.kind)
        if after < len(doc) and doc[after].text == "?":  # a question for a question keeps its mark
            mark, after = "?", after + 1
    a, b = doc[rep.start].idx, _char_end(doc, rep.end - 1)
    between = text[b : doc[intr.start].idx] if intr.start > 0 else ""
    immediate = rep.end >= rep_limit or not between.strip(" ,.;:!?-—…")
    rest = text[_char_start(doc, after) :]
    said = text[a:b]
    if alt.kind in {"negated", "cancel"}:
        new = _join(text[:a], "" if immediate else between, text[_char_start(doc, alt.start) :])
        return tidy(new), Correction(said, "")
    if alt.kind == "verb" and rep.kind == "verb" and _restates(doc, words, rep, alt):
        # "clean it up and then transcribe it, hmm, actually just clean it up": only the first
        return tidy(_join(text[:b], rest)), Correction(text[b : doc[intr.start].idx].strip(" ,"), "")
    if rep.kind == "nominal" and alt.kind == "verb":  # "use the edges ... correction: use its depth": its object
        first = next((j for j in range(alt.start, alt.end) if doc[j].pos_ in _NOMINAL or doc[j].dep_ == "poss"), None)
        if first is None:
            return None
        alt = _Phrase(first, max(_nominal_end(doc, first), first + 1), "nominal")
    meant = text[_char_start(doc, alt.start) : _char_end(doc, alt.end - 1)]
    if asked:
        meant += mark
    if alt.kind == "file":
        meant = next((doc[j].text for j in range(alt.start, alt.end) if FILE_RE.fullmatch(doc[j].text)), meant)
    rest = _TRAILING.sub("", rest)  # "..., no, an arctic fox actually"
    if immediate:
        new = _join(text[:a], text[_char_start(doc, alt.start) :]) if not hint else _join(text[:a], meant, rest)
    else:
        new = _join(text[:a], meant, text[b : doc[intr.start].idx], rest)
    return tidy(new), Correction(said, meant)


#: Nouns of the medium a thing is made in ("a picture of a blue car"): the thing is the noun after them
_MEDIUM_NOUNS = {noun for noun, steps in KIND_STEPS.items() if steps and "translation" not in steps} | {"photo"}


def _language_words(words: list[str]) -> bool:
    """Some of ``words`` name a language the planner knows ("make it Spanish")."""
    return any(knowledge().language_name_re.fullmatch(w) for w in words)


def _property_changed(doc: Any, intr: _Interregnum, end: int, floor: int,
                      quoted: list[tuple[int, int]]) -> tuple[str, Correction] | None:
    """ "draw a green apple on a table, no wait, make it red": the thing asked for (the first
    object after the command that is no medium) takes the new adjectives in place of the one
    nearest it (or gains them); the correction's own words go."""
    text = doc.text
    nouns = [t for t in doc[floor : intr.start] if t.pos_ in {"NOUN", "PROPN"} and t.lower_ not in _MEDIUM_NOUNS
             and not any(a <= t.idx < b for a, b in quoted)]
    # (else the first noun: "draw my dog Max", whose name the tagger took for a subject)
    thing = next((t for t in nouns if t.dep_ in {"dobj", "pobj", "attr", "ROOT"}), nouns[0] if nouns else None)
    if thing is None:
        return None
    meant = text[doc[intr.end].idx : _char_end(doc, end - 1)]
    # the adjectives go before the nouns said together ("my horse Rocket": "my white horse Rocket")
    first = next((c for c in thing.lefts if c.dep_ == "compound" and c.pos_ in {"NOUN", "PROPN"}), thing)
    old = sorted((c for c in [*first.lefts, *thing.lefts] if c.dep_ == "amod" and c.pos_ == "ADJ"), key=lambda c: c.i)
    at, upto = (old[-1].idx, _char_end(doc, old[-1].i)) if old else (first.idx, first.idx)
    before = re.sub(r"\b(an?)(\s+)$", lambda m: ("an" if meant[:1].lower() in "aeiou" else "a") + m.group(2), text[:at], flags=re.I)
    new = _join(before, meant + ("" if old else " ") + text[upto : doc[intr.start].idx].rstrip(), text[_char_start(doc, end):])
    return tidy(new), Correction(old[-1].text if old else thing.text, meant)


#: An interregnum word said after the alteration instead of before it.
_TRAILING = re.compile(r"^\s*,?\s*(?:actually|sorry|i mean)\s*(?=[,.;!?]|$)", re.I)


def _join(*parts: str) -> str:
    """The parts of a request put back together, a space between words that would touch."""
    out = ""
    for p in parts:
        if out and p and not out[-1].isspace() and not p[0].isspace() and p[0] not in ",.;:!?":
            out += " "
        out += p
    return out


def _restates(doc: Any, words: list[str], rep: _Phrase, alt: _Phrase) -> bool:
    """The alteration only names a step already asked ("actually just clean it up" after "clean
    up the noise and then transcribe it"): the same verb, and no word the first asking lacked."""
    if doc[rep.start].lemma_ != doc[alt.start].lemma_:
        return False
    said = {w for w in words[rep.start : rep.end]} | {"it", "them", "this", "that", "up", "just", "only"}
    return all(w in said or doc[j].is_punct for j, w in zip(range(alt.start, alt.end), words[alt.start : alt.end]))


def _char_start(doc: Any, k: int) -> int:
    return doc[k].idx if k < len(doc) else len(doc.text)


def _char_end(doc: Any, k: int) -> int:
    return doc[k].idx + len(doc[k].text)
