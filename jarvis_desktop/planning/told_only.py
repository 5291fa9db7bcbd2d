"""Steps a request names without asking for them.

Told, not asked: done already, by the user or anyone else ("my colleague wrote a caption for
it", "I ended up summarizing it myself"), to be done by the user themself or by someone later
("I'll translate it into Polish myself afterwards", "he'll want it read out at some point"),
put off ("the summary can wait", "I might want it in French later, for now ..."), wished away
("I don't need another caption"), the condition of the user's own plan ("if this photo turns out
too blurry I'll retake it"), what a thing says ("the sign says '...'"), or an aside in brackets
("(my french is ok)"). Declined: "don't read it out", "no need to translate it or read it"
(``without_declined``).

Why: the step classifier reads a step's words wherever they stand, and people wrap what they ask
in what happened and what they will do. Who does a thing and when is grammar: a verb's subject,
its tense, its modal, a reflexive "myself", a negation, an "if". What is asked about is asked
("transcribe what my boss said"), a question to the assistant asks ("can't you just translate
it?"), and "can you do it properly" asks again for what was told done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ..english import parse
from .asked_again import names_task
from .evidence import word_weights
from .references import GIVEN_NOUNS, KIND_NOUNS
from .result_refs import RESULT_NAMES, is_language
from .step_words import ASKING_VERBS, QUESTION_TAGS, YOU_WORDS

#: How strongly words must ask for a step to count (the largest of their weights for it)
TOLD_WEIGHT = 1.0
#: Verbs of wanting: their past says what was wanted, not what was done ("I wanted it shorter"),
#: and what they want is judged with them ("he'll want it read out at some point")
_WISHES = {"want", "need", "like", "wish", "hope", "wonder", "ask", "mean"}
#: Verbs whose negation declines a step (what follows them is what is not wanted)
_DECLINING = {"need", "want", "like", "bother", "have"}
#: Verbs whose negation declines nothing: "don't forget to read it", "I don't know what bird this is"
_NOT_DECLINING = {"forget", "fail", "hesitate", "mind", "know", "understand", "see", "hear", "remember", "wonder", "tell",
                  "be", "have", "think"}
#: Modals of a later doing ("I'll translate it myself afterwards", "maybe later we can draw it")
_LATER_MODALS = {"will", "'ll", "shall", "wo", "can", "could", "might", "may", "would", "'d"}
#: Words that put a doing later, not now
_LATER = {"later", "eventually", "someday", "tomorrow", "tonight"}
#: Words between two verbs that turn from what is told to what is asked ("..., but for now just translate it")
_TURNING = {"but", "however", "instead", "now", "though", "so", "please"}
#: Verbs that give the words something holds, quoted after them ("the sign says '...'", "the label states: ...")
_WORDING = {"say", "state"}
#: What opens the words a thing holds, right after its verb ("says: ...", "says '...'")
_QUOTE_MARKS = {'"', "'", "\u201c", "\u2018", ":"}
#: Verbs that tell where a file came from, not what was done with it ("I recorded my question
#: about the photo, can you answer it", "I've come across this document", "she left this message")
_PROVENANCE = {"get", "have", "record", "take", "shoot", "film", "scan", "snap", "photograph", "capture", "save", "download",
               "attach", "send", "upload", "paste", "drop", "receive", "find", "copy", "forward", "come", "stumble", "leave", "sing"}
#: Reflexives and the subjects they go with ("I'll translate it myself", "so my mother can read it herself")
_REFLEXIVE = {"myself": {"i"}, "ourselves": {"we"}, "himself": {"he"}, "herself": {"she"}, "themselves": {"they"}}
_CONTENT = {"VERB", "NOUN", "PROPN", "ADJ"}
#: Names of the files a step works on: they ask for no step ("just tell me how many dogs are in the photo")
_FILE_NOUNS = frozenset(n for nouns in KIND_NOUNS.values() for n in nouns) - {"transcript"}
#: Dependents that are clauses of their own (judged on their own subject, tense and modal)
_CLAUSES = {"ccomp", "advcl", "relcl", "conj", "parataxis", "acl", "dep", "xcomp"}
#: Subjects that are people
_PEOPLE = {"i", "we", "he", "she", "they", "someone", "somebody", "everyone"}
_POSSESSIVES = {"my", "his", "her", "our", "their", "your"}
#: Words that point at a thing the user has ("this photo", "my recording", "the document")
_POINTING = _POSSESSIVES | {"this", "that", "these", "those", "the"}
#: What the user does by saying it ("just wanted to say thanks", "I wanted to ask you something")
_SAYING = {"say", "ask", "tell", "thank", "mention", "share", "let"}
#: Verbs that report what someone says or thinks: what follows them is told too ("my brother keeps
#: telling me you can translate stuff", "she said you can't read Hindi")
_CLAIMING = {"say", "tell", "think", "claim", "believe", "guess", "reckon", "bet", "hear", "mention"}
#: Verbs that ask again for what was told done ("my colleague translated it badly, can you do it
#: properly", "she transcribed half of it, please finish the rest") ...
_DOING_AGAIN = {"do", "redo", "try", "finish", "handle", "complete"}
#: ... said of that thing
_IT_AGAIN = {"it", "that", "this", "one", "them", "again", "properly", "better", "right", "rest", "part"}


def _subject(v: Any) -> Any:
    return next((c for c in v.children if c.dep_ in ("nsubj", "nsubjpass", "expl")), None)


def _own_tokens(v: Any) -> list[Any]:
    """The verb and its phrase, without the clauses hung on it (the parser's clause, whatever the
    tagger made of its head word: "caption this photo, I'll write the post myself") and without a
    fragment before it that a comma sets apart ("summary of this call please, I wasn't there")."""
    subj = _subject(v)
    first = min([v.i] + ([subj.left_edge.i] if subj is not None else []) + [c.i for c in v.children if c.dep_ in ("aux", "auxpass", "neg")])
    cut = max((k for k in range(v.left_edge.i, first) if v.doc[k].is_punct), default=-1)
    out = [v]
    for c in v.children:
        if c.dep_ in _CLAUSES or c.pos_ == "VERB":
            continue
        inner = [x for x in c.subtree if x is not c and (x.dep_ in _CLAUSES and x.pos_ in ("VERB", "AUX") or x.pos_ == "VERB" and x.dep_ not in (
            "amod", "compound", "aux", "auxpass"))]  # "..., but for now transcribe it" hung on a preposition
        out += [t for t in c.subtree if not any(t in x.subtree for x in inner)]
    return [t for t in out if t.i > cut]


def _person(subj: Any) -> bool:
    """A subject that is someone: a person's pronoun or name, or a noun of the user's world ("my
    colleague") that is not a thing given ("my recording")."""
    return subj.lower_ in _PEOPLE or subj.pos_ == "PROPN" and subj.text[:1].isupper() or (
        subj.lower_ not in GIVEN_NOUNS and any(c.lower_ in _POSSESSIVES for c in subj.children))


def _one_sentence(subj: Any, v: Any) -> bool:
    """The subject and its verb are not parted by a full stop or question mark (the parser may join
    words across one: "and the tax? read both answers out")."""
    return not any(t.text in (".", "?", "!") for t in subj.doc[min(subj.i, v.i):max(subj.i, v.i)])


def _someone(subj: Any, v: Any) -> bool:
    """The subject did something: a person, or a noun of the user's world that did something to a
    thing ("my colleague wrote a caption"); not a parse that made a subject of words across a
    question mark ("and the tax? read both answers out")."""
    if not _one_sentence(subj, v):
        return False
    if subj.lower_ in _PEOPLE or subj.pos_ == "PROPN" and subj.text[:1].isupper():
        return True
    return _person(subj) and any(c.dep_ in ("dobj", "dative", "npadvmod") for c in v.children)


def _not_now(words: list[str]) -> bool:
    return any(w == "not" and {"now", "yet", "today"} & set(words[k + 1 : k + 3]) for k, w in enumerate(words))


def _later_said(words: list[str]) -> bool:
    said = " ".join(words)
    return any(w in _LATER and (k == 0 or words[k - 1] not in ("by", "until", "for")) for k, w in enumerate(words)) or (
        "some point" in said or re.search(r"\bnext (?:week|month|year|time)\b", said) is not None) or _not_now(words)


_FOR_NOW_RE = re.compile(r"\b(?:for now|right now|for the moment|at the moment)\b", re.I)


def _for_now_after(v: Any) -> bool:
    """The sentence turns after ``v`` to what is wanted now ("later I might want a summary, but for
    now translate it")."""
    return _FOR_NOW_RE.search(v.doc[v.i + 1:v.sent.end].text) is not None


def _wished_later(v: Any, words: list[str], aux: set[str]) -> bool:
    """A wish put off: "not now", or later and only maybe or not for now ("I might want it
    translated later", "later I'd like it read out, but right now ..."); not "I'd like it by tomorrow"."""
    wished = words + [t.lower_ for c in v.children if c.dep_ in ("ccomp", "xcomp") for t in c.subtree]
    return _not_now(words) or _later_said(wished) and bool(aux & {"might", "may"} or _for_now_after(v))


def _asks_you(v: Any, subj: Any) -> bool:
    """A question or suggestion to the assistant: "can't you just translate it?", "why don't you read it"."""
    return subj is not None and subj.lower_ == "you" and (
        any(c.i < subj.i for c in v.children if c.dep_ == "aux") or any(t.lower_ == "why" for t in v.subtree))


def _told(v: Any, inherited: str | None, conditional: bool = False) -> str | None:
    """Why the verb's clause only tells: "past" (done), "later" (by the user or someone, not now),
    "self" (by the user themself), "others" (what someone else does), "wording" (what a thing
    says, which passes to no clause hung on it), "neg" (not wanted); None
    when it asks. ``inherited``: the reason of the verb whose subject it shares ("ended up
    summarizing"); ``conditional``: said in an "if" clause's reach ("if it is I'll translate it")."""
    subj = _subject(v)
    kids = list(v.children)
    negs = [c for c in kids if c.dep_ == "neg" and c.i < v.i]  # not "use canny edges, not hed"
    if subj is None:
        if negs and v.tag_ in ("VB", "VBG") and v.lemma_ not in _NOT_DECLINING and v.doc[negs[-1].i + 1].lower_ not in ("just", "only"):
            return "neg"  # "don't translate it", "not asking for a description"; not "don't just summarize it, ..."
        if v.tag_ == "VBD" and v.dep_ in ("ROOT", "advcl", "ccomp", "conj", "parataxis") and v.lemma_ not in _WISHES | _PROVENANCE and any(
                t.lower_ in ("already", "myself", "ourselves") for t in _own_tokens(v)):
            return "past"  # "translated it myself already": the "I" left unsaid
        return inherited
    who = subj.lower_
    if who in ("nobody", "noone") or who == "one" and any(c.lower_ == "no" for c in subj.children):
        return "neg"  # "nobody needs to hear it out loud"
    if subj.tag_ in QUESTION_TAGS or who == "that" or _asks_you(v, subj) or any(c.dep_ in ("aux", "auxpass") and c.i < subj.i for c in kids) or any(
            t.tag_ in QUESTION_TAGS for t in _own_tokens(v)):
        return None  # a question ("will this house sell?", "how much I paid for total?"), or what one is about
    if who == "you" and (v.tag_ != "VBD" or any(c.dep_ == "mark" for c in kids)) or any(
            c.dep_ == "mark" and c.lower_ in ("once", "after", "when", "before", "until", "till") for c in kids):
        return None  # the order of what is asked ("once you've made a picture of a fox, ...", "once we've got the answer")
    if negs:  # "I don't need another caption"; not "I can't read it", "I don't speak Japanese"
        return "neg" if v.lemma_ in _DECLINING and not any(c.dep_ == "aux" and c.tag_ == "MD" for c in kids) else None
    aux = {c.lower_ for c in kids if c.dep_ in ("aux", "auxpass")}
    passive = any(c.dep_ == "auxpass" and c.lower_ in ("was", "were", "been") for c in kids)
    sent_result = v.lemma_ in _PROVENANCE and any(c.dep_ == "dobj" and c.lemma_ in RESULT_NAMES for c in kids)  # "Dave already sent the summary"
    if (v.lemma_ not in _WISHES | _PROVENANCE | {"be"} or sent_result) and (passive and v.tag_ == "VBN" or (
            v.tag_ == "VBD" or v.tag_ == "VBN" and aux & {"have", "'ve", "has", "had"}) and _someone(subj, v)):
        return "past"  # not "I recorded my question" (where a file came from), nor "the text turned into speech"
    if v.tag_ in ("VBZ", "VBP") and not aux and who not in ("i", "we", "you") and v.lemma_ not in _WISHES | {"be", "have", "go"} and (
            _someone(subj, v) or _person(subj)):
        return "others"  # what someone else does ("he speaks very fast", "Tom translates them for me")
    if v.lemma_ in _WORDING and v.tag_ in ("VBZ", "VBD") and not aux and who not in ("i", "we", "you") and _one_sentence(subj, v) and any(
            t.text in _QUOTE_MARKS for t in v.doc[v.i + 1:v.i + 3]):
        return "wording"  # what a thing says ("the sign says 'no parking after 6'", "my lease says: ..."); not "... the tax? read it out"
    if who == "i" and v.tag_ == "VBP" and not aux and v.lemma_ == "say":
        return "self"  # "my dad says 7 and I say 9": the user's own claim, not a thing to speak
    own = _own_tokens(v)
    if any(t.dep_ != "pobj" and who in _REFLEXIVE.get(t.lower_, ()) for t in own):
        return "self"  # not "caption this photo of myself"
    words = [t.lower_ for t in own]
    later = aux & _LATER_MODALS or v.lemma_ == "go" and v.tag_ == "VBG" and any(c.dep_ == "xcomp" for c in kids)  # "is going to"
    if later and aux & {"will", "'ll"} and who in ("i", "we") and v.lemma_ not in _WISHES and (conditional or any(_condition(c) for c in kids)):
        return "later"  # "if it's too blurry I'll retake it": what the user will do then
    if later and (who not in ("i", "we") and _person(subj) and (aux & {"will", "'ll", "shall", "wo"} or v.lemma_ == "go") or (
            _wished_later(v, words, aux) if v.lemma_ in _WISHES else _later_said(words))):
        return "later"  # "he'll want it read out at some point", "I'll translate it later", "I might want it in French later, (but
        # for now ...)"; not "I'll need it by tomorrow"
    if v.lemma_ == "wait" and later and not _person(subj):
        return "later"  # "the summary can wait"
    return None


def _clauses_of(v: Any) -> list[Any]:
    """The verbs whose nearest verb above is ``v`` ("if it turns out too blurry I'll retake it": "retake"
    hangs on "blurry"), not its auxiliaries."""
    out, todo = [], list(v.children)
    while todo:
        c = todo.pop()
        if c.pos_ in ("VERB", "AUX"):
            if c.dep_ not in ("aux", "auxpass"):
                out.append(c)
        else:
            todo += list(c.children)
    return sorted(out, key=lambda t: t.i)


def _condition(v: Any) -> bool:
    """The verb is an "if"/"unless" condition, not the polite "if you (we) could translate it", an
    indirect question ("tell me if ..."), nor "as if"."""
    marks = [c for c in v.children if c.dep_ == "mark" and c.lower_ in ("if", "unless")]
    if not marks or v.dep_ == "ccomp" or _asked_if(v) or v.doc[marks[0].i - 1].lower_ in ("as", "even"):
        return False
    subj = _subject(v)  # "I'd appreciate it if we could enhance it": asked politely
    return not (subj is not None and subj.lower_ == "you" or any(c.dep_ == "aux" and c.tag_ == "MD" for c in v.children))


_ASKING = ASKING_VERBS | {"wonder"}


def _asked_if(v: Any) -> bool:
    """An "if"/"whether" clause asked after a verb of asking ("tell me if our answers match",
    "check whether it is positive"), however the parser hung it."""
    if v.head.lemma_ in _ASKING:
        return True
    mark = next((c for c in v.children if c.dep_ == "mark" and c.lower_ in ("if", "whether")), None)
    if mark is None or mark.i == 0:
        return False
    before = v.doc[mark.i - 1]
    if before.lower_ in ("me", "us") and mark.i >= 2:
        before = v.doc[mark.i - 2]
    return before.lemma_ in _ASKING


def _embedded(v: Any) -> bool:
    """What a clause is about, not a clause of its own: a relative clause ("the summary Lukas
    wrote"), an indirect question ("transcribe what my boss said", "tell me if it is positive")."""
    return v.dep_ in ("relcl", "acl") or any(c.tag_ in QUESTION_TAGS for c in v.children) or (
        (v.dep_ == "ccomp" or _asked_if(v)) and any(c.dep_ == "mark" and c.lower_ in ("if", "whether") for c in v.children))


def _joined(v: Any, c: Any) -> bool:
    """``c`` is joined to ``v`` by a bare "and"/"or", nothing turning away between them."""
    between = v.doc[min(v.i, c.i) + 1 : max(v.i, c.i)]
    return not any(t.is_punct or t.lower_ in _TURNING for t in between)


@dataclass(frozen=True)
class Told:
    """What a request only tells, as character offsets of its tokens: ``tokens`` ask for nothing;
    of them, ``weak`` (the nouns and adjectives of a condition: "if the summary is short enough")
    tell of no step either."""

    tokens: frozenset[int]
    weak: frozenset[int]


@lru_cache(maxsize=8)
def told_words(text: str, quoted: tuple[tuple[int, int], ...] = ()) -> Told:
    """The tokens of ``text`` that only tell (see the module's note); words in ``quoted`` spans
    are the user's material, never told ("'Maria will visit Lyon'").
    Each clause is judged on its own words: the parser often hangs what is asked on what was
    told before it ("my coworker already summarized it, I just need the names"), so only a verb
    that shares its subject passes its reason on ("ended up summarizing", "I'll sit down and
    translate it myself", "want it read out"), not one that reports an instruction ("my manager
    told me to summarize this")."""
    doc = parse(text)
    if doc is None:
        return Told(frozenset(), frozenset())
    out: set[int] = set()
    weak: set[int] = set()

    def free(t: Any) -> bool:
        return not any(a <= t.idx < b for a, b in quoted)

    def visit(v: Any, inherited: str | None, forced: bool = False, conditional: bool = False) -> None:
        if forced or not free(v) or _embedded(v):
            why = inherited if forced and free(v) else None
        else:
            why = "cond" if _condition(v) else _told(v, inherited, conditional)
        if why:
            own = [t for t in _own_tokens(v) if free(t)]
            out.update(t.idx for t in own)
            if why == "cond":
                weak.update(t.idx for t in own if t.pos_ != "VERB")
        conditional = conditional or why == "cond"
        subj = _subject(v)
        why = None if why == "wording" else why  # what a thing says tells nothing of the clauses hung on it
        for c in _clauses_of(v):
            shared, small = None, c.dep_ == "ccomp" and v.lemma_ in _WISHES and c.tag_ in ("VBN", "VBD", "VB") and c.i > v.i
            to_do = c.dep_ in ("advcl", "acl", "relcl") and _subject(c) is None and any(u.lower_ == "to" for u in c.children)  # "the audio to transcribe"
            if c.dep_ == "xcomp" or to_do or small:
                # "ended up summarizing", "an episode to transcribe", "want it read out"; not "don't forget to read
                # it", nor what someone was told to do ("my manager told me to summarize this")
                instructed = c.dep_ in ("xcomp", "advcl") and any(u.dep_ in ("dobj", "dative") and u.pos_ == "PRON" for u in v.children)
                shared = None if v.lemma_ in _NOT_DECLINING - _DECLINING or instructed else why
                if c.lemma_ in _SAYING and v.lemma_ in _WISHES and v.tag_ == "VBD" and (subj is None or subj.lower_ in ("i", "we")):
                    shared = "self"  # "just wanted to say thanks": the user says it, and that is all
                    out.update(t.idx for t in _own_tokens(v) if free(t))
                visit(c, shared, forced=small or shared == "self" or c.dep_ in ("xcomp", "acl", "relcl") and shared is not None, conditional=conditional)
                continue
            if c.dep_ == "ccomp" and v.lemma_ in _CLAIMING and why in ("past", "later", "others") and not quoted and not any(
                    u.dep_ == "auxpass" for u in v.children) and not _asks_you(c, _subject(c)) and not (_subject(c) is None and c.tag_ == "VB"):
                visit(c, why, forced=True, conditional=conditional)  # what someone said or claims ("she said you can't read Hindi";
                continue  # not "I've been told that this file depicts a scene", nor a claim about words given to check)
            if c.dep_ == "conj" and _subject(c) is None and _joined(v, c) and (
                    why in ("later", "self", "cond", "others") or why == "past" and c.tag_ in ("VBD", "VBN", "VBG")):
                shared = why  # "I summarized it and translated it"; not "..., but for now just translate it"
            visit(c, shared, conditional=conditional)
    for sent in doc.sents:
        visit(sent.root, None)
    for t in doc:  # a result told made before: "that summary you gave me earlier was perfect", "the caption Lukas wrote"
        if t.lemma_ in RESULT_NAMES and free(t) and any(c.dep_ == "relcl" and c.tag_ in ("VBD", "VBN") for c in t.children) and not (
                t.dep_ == "dobj" and t.head.tag_ == "VB"):  # not "give me a caption that you then read out"
            out.add(t.idx)
    for t in doc:  # an aside in brackets that states something: "translated it myself (my french is ok lol)"; not a
        # wish ("(i want it read out loud too)") nor a question
        if t.text == "(" and free(t) and (close := next((u for u in doc[t.i + 1:] if u.text == ")"), None)) is not None:
            inside = doc[t.i + 1:close.i]
            if not any(u.text == "?" or u.lemma_ in _WISHES for u in inside) and any(
                    u.dep_ == "nsubj" and u.lower_ != "you" and u.head.tag_ in ("VBZ", "VBP", "VBD") and t.i < u.head.i < close.i for u in inside):
                out.update(u.idx for u in inside)
    for t in doc:  # a step declined by naming it: "no summary, Lukas already wrote one", "No translation, please."
        if t.lower_ == "no" and t.dep_ == "det" and t.head.pos_ == "NOUN" and (t.i == 0 or doc[t.i - 1].is_punct or doc[t.i - 1].lower_ in (
                "please", "so", "and", "but", "just")) and free(t):
            out.update((t.idx, t.head.idx))
    return Told(frozenset(out), frozenset(weak))


def support(toks: list[Any], j: int, m: Any) -> float:
    """How strongly the words ask for step ``j``: their largest weight for it as the classifier
    reads them (a word of the task's own name counts as enough)."""
    content = [k for k, t in enumerate(toks) if t.pos in _CONTENT]
    if any(names_task(toks[k].lemma, m.labels[j]) for k in content):
        return float("inf")
    return float(word_weights(m, toks, j)[content].max()) if content else 0.0


#: Verbs that say which language someone knows
_KNOWING_LANGUAGE = {"speak", "read", "understand"}


def _language_of_someone(toks: list[Any]) -> bool:
    """Whether the words say which language someone other than the user speaks, reads or
    understands ("my boss only speaks Spanish", "she speak Spanish very fast")."""
    return any(t.lemma in _KNOWING_LANGUAGE and t.pos == "VERB" and not any(u.lower in ("i", "we") for u in toks[max(0, k - 3):k])
               and any(is_language(u.text.capitalize()) for u in toks[k + 1:k + 3]) for k, t in enumerate(toks))


def _doing(t: Any, made: set[int], given: set[int]) -> bool:
    """A word of what a told clause says was done or made: its verbs, their objects and the
    results it names ("wrote a caption", "don't need another summary", "turned it into a cartoon",
    "thanks for yesterday's summary", "too blurry"), not the file it came across ("I've come across
    this image of a document", "my brother edited this photo") nor a result a condition is about
    ("if the summary is short")."""
    return t.pos in ("VERB", "ADJ") or t.pos == "NOUN" and t.start not in given and (
        t.dep == "dobj" or t.lemma in RESULT_NAMES or t.start in made)


def _does_it_again(toks: list[Any], told: frozenset[int]) -> bool:
    """The clause asks for what was told done, by a verb standing for it ("can you do it properly",
    "please finish the rest")."""
    return any(t.tag == "VB" and t.lemma in _DOING_AGAIN and t.start not in told and any(u.lower in _IT_AGAIN for u in toks[k + 1:k + 4])
               for k, t in enumerate(toks))


def without_told_steps(found: list[tuple[int, int, str]], P: np.ndarray, views: list, m: Any, seg: Any,
                       reading: Any, bar: float, floor: float,
                       reread: Callable[[int, int], np.ndarray] | None = None) -> list[tuple[int, int, str]]:
    """Drop a step that told words ask for in its clause, or name anywhere, when no word of its
    clause that asks does; or move it to a clause that got no step, is likely to hold it (``bar``)
    and asks for it or asks at all ("my boss will want it in French, so translate it", "my friend
    already captioned it, but what's in it?"), or asks for it again ("can you do it properly"). When
    every step was told, a question gets its likeliest step, if at least ``floor`` (the caller's: a
    question of a file given, not "..., is that alright?"); one asked in the clause of a told step
    is read without the telling (``reread`` of its characters): "if this photo is too dark I'll
    brighten it myself, what's in it?" asks what a bare "what's in it?" asks."""
    quoted = tuple((q.start, q.end) for q in reading.quotes)
    said_only = told_words(reading.text, quoted)
    told = said_only.tokens
    if not told:
        return found

    def asking(i: int) -> list[Any]:  # the words of clause i that ask: neither told nor quoted, nor a file's name
        return [t for t in seg.tokens_in(views[i].span) if t.start not in told and not any(a <= t.start < b for a, b in quoted)
                and (t.pos in _CONTENT and t.lemma not in _FILE_NOUNS or t.tag in QUESTION_TAGS or t.text == "?")]

    asks = [asking(i) for i in range(len(views))]
    claimed = {i for i, _, _ in found}
    others_ask = {i for i in claimed if asks[i]}
    made = {t.start for k, t in enumerate(seg.tokens) if t.dep == "pobj" and any(u.lower in ("into", "through", "as") for u in seg.tokens[max(0, k - 3):k])}
    made |= {t.start for k, t in enumerate(seg.tokens[:-1]) if t.dep == "compound" and seg.tokens[k + 1].start in made}  # "a cartoon app"
    made -= said_only.weak
    given = {t.start for k, t in enumerate(seg.tokens) if t.lemma in _FILE_NOUNS and any(  # "edited this photo", not "make pictures"
        u.lower in _POINTING for u in seg.tokens[max(0, k - 2):k])}
    everywhere = [t for t in seg.tokens if t.start in told and t.start not in said_only.weak and _doing(t, made, given)]
    again = [k for k, v in enumerate(views) if _does_it_again(seg.tokens_in(v.span), told)]
    out = []
    for i, j, label in found:
        asked = asks[i]
        if label == "conversational":  # a chat is about what the user tells ("my sister passed her test, tell me about it")
            out.append((i, j, label))
            continue
        if support(asked, j, m) >= TOLD_WEIGHT:
            out.append((i, j, label))
            continue
        here = [t for t in seg.tokens_in(views[i].span) if t.start in told and t.start not in said_only.weak and _doing(t, made, given)]
        # told words here ask for it, or told words anywhere name it ("... in Italian, and if it is I'll
        # translate it myself"); a clause that only tells (more than a condition: "if the summary is short
        # enough, read it out") keeps a step when nothing else is asked
        said = max(support(here, j, m), float("inf") if any(t.pos in _CONTENT and names_task(t.lemma, label) for t in everywhere) or (
            label == "text-to-speech" and any(t.lemma in _WORDING and t.tag in ("VBZ", "VBD") for t in here)) else 0.0)  # "the sign says '...'"
        only_tells = not asked and any(t.start not in said_only.weak for t in seg.tokens_in(views[i].span) if t.start in told)
        if not (said >= TOLD_WEIGHT or only_tells and others_ask - {i}):
            out.append((i, j, label))
            continue
        moved = [k for k in range(len(views)) if k not in claimed and P[k, j] >= bar and (
            support(asks[k], j, m) >= TOLD_WEIGHT or any(t.tag in QUESTION_TAGS or t.tag == "VB" or t.text == "?" for t in asks[k]))]
        moved = moved or [k for k in again if k == i or k not in claimed]
        if moved:
            out.append((max(moved, key=lambda k: P[k, j]), j, label))
        elif label == "translation" and len(found) == 1 and reading.quotes and _language_of_someone(seg.tokens_in(views[i].span)) and not any(
                names_task(t.lemma, label) for t in everywhere):  # (not "my friend speaks French and already translated this")
            # words given and nothing else asked: the language someone speaks is the one they go into
            # ("my boss only speaks Spanish and I need to send her this: '...'")
            out.append((i, j, label))
    if found and not out:  # all told, yet a question is asked: its likeliest step ("... no filters. what is she holding?")
        dropped = {j for _, j, _ in found}
        for k in range(len(views)):
            if not any(t.tag in QUESTION_TAGS or t.text == "?" for t in asks[k]):
                continue
            row = P[k]
            if k in claimed:  # "I'll brighten it myself, what's in it?": the question alone, if not one to the assistant
                last_told = max((t.start for t in seg.tokens_in(views[k].span) if t.start in told), default=-1)
                start = next((t.start for t in asks[k] if t.start > last_told), asks[k][0].start)
                if reread is None or any(t.lower in YOU_WORDS for t in seg.tokens_in(views[k].span) if t.start > last_told):
                    continue
                row = reread(start, views[k].span.end)
            j = max((j for j in range(P.shape[1]) if j not in dropped), key=lambda j: row[j], default=None)
            if j is not None and row[j] >= floor:
                out.append((k, j, m.labels[j]))
    return out


#: Verbs that carry a declined step's verb ("you don't have to say it", "I don't need it read")
_CARRIERS = {"do", "have", "need", "want", "bother", "be"}
#: Words after which the rest of the clause is asked for again ("don't read it, just show me")
_TURNS = {"just", "only", "but", "instead", "rather"}


#: How strongly a declined verb must ask for a step on its own (its weight for that step, as the classifier reads it)
#: to decline it: "don't read it" declines speech; "I don't know what bird this is" declines nothing.
DECLINE_WEIGHT = 1.0


def _declined_verbs(seg: Any, quoted: tuple[tuple[int, int], ...] = ()) -> list:
    """The verbs a request declines: the first verb after "do not", "don't need/have to", "no need
    to" ("don't read it out", "no need to translate it") and those joined to it by "or", said by
    the user or to the assistant (not "so it doesn't sound copied"), not a user's inability ("I
    can't read it") nor a question about a text ("isn't it positive"), nor words quoted ("translate
    'please don't put anything in it'")."""
    toks = seg.tokens
    out = []
    for k, t in enumerate(toks):
        if any(a <= t.start < b for a, b in quoted):
            continue
        said_by = toks[k - 2] if k >= 2 else None
        neg = (t.lower in ("not", "n't") and k > 0 and toks[k - 1].lemma in ("do", "need", "have")
               and not (said_by and said_by.pos in ("PRON", "NOUN", "PROPN") and said_by.lower not in ("i", "you", "we"))) or (
            t.lower == "no" and k + 1 < len(toks) and toks[k + 1].lemma == "need")
        if not neg:
            continue
        for n in range(k + 1, min(k + 8, len(toks))):
            u = toks[n]
            if u.lower in _TURNS:
                break
            carried = n + 1 < len(toks) and (toks[n + 1].lower == "to" or toks[n + 1].pos == "PRON")
            if u.lemma in _CARRIERS and (carried or u.lemma == "bother"):
                continue  # "don't have to say it", "no need to", "don't need it read"
            if u.pos in ("VERB", "AUX"):
                out.append(u)
                # "I don't need it translated or read aloud", "no need to play it back or read it": each verb declined
                while (o := next((q for q in range(n + 1, min(n + 4, len(toks) - 1)) if toks[q].lower in ("or", "nor")
                                  or toks[q].pos == "PUNCT"), None)) and toks[o].lower in ("or", "nor") and toks[o + 1].pos == "VERB":
                    out.append(toks[o + 1])
                    n = o + 1
                break
    return out


def without_declined(found: list[tuple[int, int, str]], views: list, m: Any, seg: Any,
                     quoted: tuple[tuple[int, int], ...] = ()) -> list[tuple[int, int, str]]:
    """Drop a step the request declines ("what's in it, you don't have to say it out loud"): in
    the clause of each declined verb, the found step that verb supports most, when it supports it."""
    drop = set()
    for verb in _declined_verbs(seg, quoted):
        i = next((i for i, v in enumerate(views) if v.span.start <= verb.start < v.span.end), None)
        here = [j for i2, j, _ in found if i2 == i]
        if not here:
            continue
        weight = {j: float(word_weights(m, [verb], j)[0]) for j in here}  # the verb as the classifier reads it
        named = [j for j in here if names_task(verb.lemma, m.labels[j])]
        j = named[0] if named else max(weight, key=weight.get)
        if named or weight[j] >= DECLINE_WEIGHT:
            drop.add((i, j))
    return [f for f in found if (f[0], f[1]) not in drop]
