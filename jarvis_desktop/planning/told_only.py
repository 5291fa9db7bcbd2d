"""Steps a request names without asking for them.

Told, not asked: done already, by the user or anyone else ("my colleague wrote a caption for
it", "I ended up summarizing it myself"), to be done by the user themself or by someone later
("I'll translate it into Polish myself afterwards", "he'll want it read out at some point"),
wished away ("I don't need another caption"), or the condition of the user's own plan ("if this
photo turns out too blurry I'll retake it"). Declined: "don't read it out", "no need to
translate it or read it" (``without_declined``).

Why: the step classifier reads a step's words wherever they stand, and people wrap what they ask
in what happened and what they will do. Who does a thing and when is grammar: a verb's subject,
its tense, its modal, a reflexive "myself", a negation, an "if". What is asked about is asked
("transcribe what my boss said"), a question to the assistant asks ("can't you just translate
it?"), and "can you do it properly" asks again for what was told done.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..english import parse
from .asked_again import names_task
from .evidence import word_weights
from .features import word_features
from .references import GIVEN_NOUNS
from .step_words import ASKING_VERBS

#: How strongly words must ask for a step to count (a found step's weights for them, summed)
TOLD_WEIGHT = 1.0
#: Verbs whose past or negation says what is wanted, not what happened ("I wanted it shorter" is
#: told, but "I was wondering" and "I don't know what bird this is" ask through what follows)
_WISHES = {"want", "need", "like", "wish", "hope", "wonder", "ask", "mean"}
#: Verbs whose negation declines nothing: "don't forget to read it", "I don't know what bird this is"
_NOT_DECLINING = {"forget", "fail", "hesitate", "mind", "know", "understand", "see", "hear", "remember", "wonder", "tell",
                  "be", "have", "think"}
#: Modals of a later doing ("I'll translate it myself afterwards", "maybe later we can draw it")
_LATER_MODALS = {"will", "'ll", "shall", "wo", "can", "could", "might", "may", "gon"}
#: Words that put a doing later, not now
_LATER = {"later", "eventually", "someday", "tomorrow", "tonight"}
#: Words that turn from what is told to what is asked
_CONTRAST = {"but", "however", "instead", "now", "though"}
_WH = {"WP", "WRB", "WDT", "WP$"}
#: Verbs that tell where a file came from, not what was done with it ("I recorded my question
#: about the photo, can you answer it", "I've got a photo", "my friend sent me this message")
_PROVENANCE = {"get", "have", "record", "take", "shoot", "film", "scan", "snap", "photograph", "capture", "save", "download",
               "attach", "send", "upload", "paste", "drop", "receive", "find", "copy", "forward"}
_REFLEXIVE = {"myself", "ourselves", "himself", "herself", "themselves"}
_CONTENT = {"VERB", "NOUN", "PROPN", "ADJ"}
#: Dependents that are clauses of their own (judged on their own subject, tense and modal)
_CLAUSES = {"ccomp", "advcl", "relcl", "conj", "parataxis", "acl", "dep"}
#: Subjects that are people (a past doing told of them: "she already described it")
_PEOPLE = {"i", "we", "you", "he", "she", "they"}
#: What the user does by saying it ("just wanted to say thanks", "I wanted to ask you something")
#: Verbs that ask again for what was told done ("my colleague translated it badly, can you do it properly")
_DOING_AGAIN = {"do", "redo", "try"}
#: ... said of the thing told done ("do it properly", "try again")
_IT_AGAIN = {"it", "that", "this", "one", "them", "again", "properly", "better", "right"}
_SAYING = {"say", "ask", "tell", "thank", "mention", "share", "let"}


def _subject(v: Any) -> Any:
    return next((c for c in v.children if c.dep_ in ("nsubj", "nsubjpass", "expl")), None)


def _own_tokens(v: Any) -> list[Any]:
    """The verb and its phrase, without the clauses hung on it (the parser's clause, whatever the
    tagger made of its head word: "caption this photo, I'll write the post myself")."""
    out = [v]
    for c in v.children:
        if c.dep_ in _CLAUSES or c.pos_ == "VERB" and c.dep_ != "xcomp":
            continue
        inner = [x for x in c.subtree if x is not c and (x.dep_ in _CLAUSES and x.pos_ in ("VERB", "AUX") or x.pos_ == "VERB" and x.dep_ not in (
            "xcomp", "amod", "compound", "aux", "auxpass"))]  # "..., but for now transcribe it" hung on a preposition
        out += [t for t in c.subtree if not any(t in x.subtree for x in inner)]
    return out


def _someone(subj: Any, v: Any) -> bool:
    """The subject is someone who did something: a person's pronoun or name, or a noun of the
    user's world ("my colleague", "his summary") that did something to a thing; not a parse that
    made a subject of words across a question mark ("and the tax? read both answers out")."""
    if any(t.text in (".", "?", "!") for t in subj.doc[min(subj.i, v.i):max(subj.i, v.i)]):
        return False
    if subj.lower_ in _PEOPLE or subj.pos_ == "PROPN" and subj.text[:1].isupper() or subj.lower_ in ("someone", "somebody", "everyone"):
        return True
    return subj.lower_ not in GIVEN_NOUNS and any(c.lower_ in ("my", "his", "her", "our", "their", "your") for c in subj.children) and any(
        c.dep_ in ("dobj", "dative", "npadvmod") for c in v.children)


def _not_now(words: list[str]) -> bool:
    return any(w == "not" and words[k + 1 : k + 3] and {"now", "yet", "today"} & set(words[k + 1 : k + 3]) for k, w in enumerate(words))


def _later_said(words: list[str]) -> bool:
    return any(w in _LATER and (k == 0 or words[k - 1] not in ("by", "until", "for")) for k, w in enumerate(words)) or (
        "some" in words and "point" in words) or _not_now(words)


def _asks_you(v: Any, subj: Any) -> bool:
    """A question or suggestion to the assistant: "can't you just translate it?", "why don't you read it"."""
    return subj is not None and subj.lower_ == "you" and (
        any(c.i < subj.i for c in v.children if c.dep_ == "aux") or any(t.lower_ == "why" for t in v.subtree))


def _told(v: Any, inherited: str | None, conditional: bool = False) -> str | None:
    """Why the verb's clause only tells ("past", "later", "self", "neg"), or None when it asks;
    ``inherited``: the reason of the verb whose subject it shares ("ended up summarizing");
    ``conditional``: said inside an "if" clause's reach ("if it is I'll translate it myself")."""
    subj = _subject(v)
    kids = list(v.children)
    negated = any(c.dep_ == "neg" and c.i < v.i for c in kids)  # not "use canny edges, not hed"
    if subj is None:
        if negated and v.tag_ == "VB" and v.lemma_ not in _NOT_DECLINING:
            return "neg"  # a command said not to do ("don't translate it")
        return inherited or ("self" if any(t.lower_ in _REFLEXIVE for t in _own_tokens(v)) else None)
    who = subj.lower_
    if who in ("nobody", "noone") or who == "one" and any(c.lower_ == "no" for c in subj.children):
        return "neg"  # "nobody needs to hear it out loud"
    if who in ("what", "who", "which", "that") or subj.tag_ in ("WP", "WDT") or _asks_you(v, subj) or any(
            c.dep_ in ("aux", "auxpass") and c.i < subj.i for c in kids) or any(t.tag_ in _WH for t in _own_tokens(v)):
        return None  # a question ("will this house sell?", "how much I paid for total?"), or what one is about
    if who == "you" and (v.tag_ != "VBD" or any(c.dep_ == "mark" for c in kids)):
        return None  # what the assistant is asked to do ("once you've made a picture of a fox, ...")
    if negated:
        return None if v.lemma_ in _NOT_DECLINING else "neg"
    aux = {c.lower_ for c in kids if c.dep_ in ("aux", "auxpass")}
    if (v.tag_ == "VBD" or v.tag_ == "VBN" and aux & {"have", "'ve", "has", "had"}) and v.lemma_ not in _WISHES | _PROVENANCE and (
            _someone(subj, v)):
        return "past"  # not "I recorded my question" (where a file came from), nor "the text turned into speech"
    if v.tag_ in ("VBZ", "VBP") and not aux and who not in ("i", "we", "you") and v.lemma_ not in _WISHES | {"be", "have"} and (
            who in _PEOPLE or subj.pos_ == "PROPN" and subj.text[:1].isupper()):
        return "others"  # what someone else does ("he speaks very fast", "Tom translates them for me")
    toks = _own_tokens(v)
    if any(t.lower_ in _REFLEXIVE for t in toks) and who in ("i", "we", "he", "she", "they"):
        return "self"
    words = [t.lower_ for t in v.sent]
    if aux & {"will", "'ll"} and who in ("i", "we") and v.lemma_ not in _WISHES and (conditional or any(_condition(c) for c in kids)):
        return "later"  # "if it's too blurry I'll retake it": what the user will do then
    if (aux & _LATER_MODALS or "going" in aux) and (who not in ("i", "we") and aux & {"will", "'ll", "shall", "wo"} or (
            _not_now(words) if v.lemma_ in _WISHES else _later_said(words))):
        return "later"  # "he'll want it read out at some point", "I'll translate it later"; not "I'll need it by tomorrow"
    return None


def _clauses_of(v: Any) -> list[Any]:
    """The verbs whose nearest verb above is ``v`` ("if it turns out too blurry I'll retake it": "retake"
    hangs on "blurry"), not its auxiliaries."""
    out, todo = [], [c for c in v.children]
    while todo:
        c = todo.pop(0)
        if c.pos_ in ("VERB", "AUX"):
            if c.dep_ not in ("aux", "auxpass"):
                out.append(c)
        else:
            todo += list(c.children)
    return out


def _condition(v: Any) -> bool:
    """The verb is an "if"/"unless" condition, not the polite "if you could translate it"."""
    if v.dep_ == "ccomp" or v.head.lemma_ in ASKING_VERBS | {"wonder"} or not any(c.dep_ == "mark" and c.lower_ in ("if", "unless") for c in v.children):
        return False
    subj = _subject(v)
    return not (subj is not None and subj.lower_ == "you")


def _embedded(v: Any) -> bool:
    """What a clause is about, not a clause of its own: a relative clause ("the summary Lukas
    wrote"), an indirect question ("transcribe what my boss said", "tell me if it is positive")."""
    return v.dep_ in ("relcl", "acl") or any(c.tag_ in ("WP", "WRB", "WDT", "WP$") for c in v.children) or (
        (v.dep_ == "ccomp" or v.head.lemma_ in ASKING_VERBS | {"wonder"}) and any(c.dep_ == "mark" and c.lower_ in ("if", "whether") for c in v.children))


@lru_cache(maxsize=8)
def told_tokens(text: str, quoted: tuple[tuple[int, int], ...] = ()) -> frozenset[int]:
    """The character offsets of the tokens of ``text`` that only tell (see the module's note);
    words in ``quoted`` spans are the user's material, never told ("'Maria will visit Lyon'").
    Each clause is judged on its own words: the parser often hangs what is asked on what was
    told before it ("my coworker already summarized it, I just need the names"), so only a verb
    that shares its subject passes its reason on ("ended up summarizing", "I'll sit down and
    translate it myself", "want it read out")."""
    doc = parse(text)
    if doc is None:
        return frozenset()
    out: set[int] = set()

    def free(t: Any) -> bool:
        return not any(a <= t.idx < b for a, b in quoted)

    def visit(v: Any, inherited: str | None, forced: bool = False, conditional: bool = False) -> None:
        if forced or not free(v) or _embedded(v):
            why = inherited if forced and free(v) else None
        else:
            why = "cond" if _condition(v) else _told(v, inherited, conditional)
        if why:
            out.update(t.idx for t in _own_tokens(v) if free(t))
        conditional = conditional or why == "cond"
        for c in _clauses_of(v):
            shared, small = None, c.dep_ == "ccomp" and v.lemma_ in _WISHES and c.tag_ in ("VBN", "VBD", "VB") and c.i > v.i
            if c.dep_ == "xcomp" or c.dep_ == "advcl" and _subject(c) is None and any(u.lower_ == "to" for u in c.children) or small:
                # "ended up summarizing", "an episode to transcribe", "want it read out"; not "don't forget to read it"
                shared = None if v.lemma_ in _NOT_DECLINING else why
                if c.lemma_ in _SAYING and v.lemma_ in _WISHES and v.tag_ == "VBD" and (_subject(v) is None or _subject(v).lower_ in ("i", "we")):
                    shared = "self"  # "just wanted to say thanks": the user says it
            elif c.dep_ == "conj" and _subject(c) is None and (why in ("later", "self", "cond") or why == "past" and c.tag_ in (
                    "VBD", "VBN", "VBG")) and not any(t.lower_ in _CONTRAST for t in doc[min(v.i, c.i):max(v.i, c.i)]):
                shared = why  # "I summarized it and translated it"; not "..., but for now just translate it"
            visit(c, shared, forced=small or shared == "self", conditional=conditional)
    for sent in doc.sents:
        visit(sent.root, None)
    return frozenset(out)


def support(toks: list[Any], j: int, m: Any) -> float:
    """How strongly the words ask for step ``j``: their largest weight for it as the classifier
    reads them (a word of the task's own name counts as enough)."""
    content = [k for k, t in enumerate(toks) if t.pos in _CONTENT]
    if any(names_task(toks[k].lemma, m.labels[j]) for k in content):
        return float("inf")
    return float(word_weights(m, toks, j)[content].max()) if content else 0.0


def _does_it_again(toks: list[Any], told: set[int]) -> bool:
    """The clause asks for what was told done, by a verb standing for it ("can you do it properly")."""
    return any(t.tag == "VB" and t.lemma in _DOING_AGAIN and t.start not in told and any(u.lower in _IT_AGAIN for u in toks[k + 1:k + 4])
               for k, t in enumerate(toks))


def without_told_steps(found: list[tuple[int, int, str]], P: np.ndarray, views: list, m: Any, seg: Any,
                       reading: Any, bar: float) -> list[tuple[int, int, str]]:
    """Drop a step whose words in its clause only tell, when no word there asks for it: or move it to
    another clause that asks for it (``bar``), as "my boss will want it in French, so translate it"."""
    quoted = tuple((q.start, q.end) for q in reading.quotes)
    told = told_tokens(reading.text, quoted)
    if not told:
        return found

    def asked_in(i: int) -> list[Any]:  # the words that ask: neither told nor quoted material
        return [t for t in seg.tokens_in(views[i].span) if t.start not in told and t.pos in _CONTENT
                and not any(a <= t.start < b for a, b in quoted)]

    others_ask = {i for i, _, _ in found if asked_in(i)}
    everywhere = [t for t in seg.tokens if t.start in told]
    again = [k for k, v in enumerate(views) if _does_it_again(seg.tokens_in(v.span), told)]
    out = []
    for i, j, label in found:
        asked = asked_in(i)
        if support(asked, j, m) >= TOLD_WEIGHT:
            out.append((i, j, label))
            continue
        here = [t for t in seg.tokens_in(views[i].span) if t.start in told]
        # told words here ask for it, or told words anywhere name it ("... in Italian, and if it is I'll
        # translate it myself"); a clause that only tells keeps a step when nothing else is asked
        said = max(support(here, j, m), float("inf") if any(t.pos in _CONTENT and names_task(t.lemma, label) for t in everywhere) else 0.0)
        if not (said >= TOLD_WEIGHT or not asked and others_ask - {i}):
            out.append((i, j, label))
            continue
        # moved to a clause that asks for it (by its name, when the telling named it)
        asking = [k for k in range(len(views)) if k != i and P[k, j] >= bar and support(asked_in(k), j, m) >= (said if said == float("inf") else TOLD_WEIGHT)
                  and not any(i2 == k and j2 == j for i2, j2, _ in found)]
        again_here = [k for k in again if k == i or not any(i2 == k for i2, _, _ in found)]
        if asking or again_here:  # "..., so translate it", "my colleague translated it badly, can you do it properly"
            out.append((max(asking, key=lambda k: P[k, j]) if asking else again_here[0], j, label))
    return out


#: Verbs that carry a declined step's verb ("you don't have to say it", "I don't need it read")
_CARRIERS = {"do", "have", "need", "want", "bother", "be"}
#: Words after which the rest of the clause is asked for again ("don't read it, just show me")
_TURNS = {"just", "only", "but", "instead", "rather"}


#: How strongly a declined verb must ask for a step on its own (its weights for that step, summed)
#: to decline it: "don't read it" declines speech; "I don't know what bird this is" declines nothing.
DECLINE_WEIGHT = 1.0


def _declined_verbs(seg: Any) -> list:
    """The verbs a request declines: the first verb after "do not", "don't need/have to", "no need
    to" ("don't read it out", "no need to translate it") and those joined to it by "or", said by
    the user or to the assistant (not "so it doesn't sound copied"), not a user's inability ("I
    can't read it") nor a question about a text ("isn't it positive")."""
    toks = seg.tokens
    out = []
    for k, t in enumerate(toks):
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


def without_declined(found: list[tuple[int, int, str]], views: list, m: Any, seg: Any) -> list[tuple[int, int, str]]:
    """Drop a step the request declines ("what's in it, you don't have to say it out loud"): in
    the clause of each declined verb, the found step that verb supports most, when it supports it."""
    drop = set()
    for verb in _declined_verbs(seg):
        i = next((i for i, v in enumerate(views) if v.span.start <= verb.start < v.span.end), None)
        here = [j for i2, j, _ in found if i2 == i]
        if not here:
            continue
        keys = [k for k in word_features(verb.lower, verb.lemma) if k in m.vocab]
        weight = {j: sum(float(m.W[m.vocab[k], j]) for k in keys) for j in here}
        named = [j for j in here if names_task(verb.lemma, m.labels[j])]
        j = named[0] if named else max(weight, key=weight.get) if keys else None
        if j is not None and (named or weight[j] >= DECLINE_WEIGHT):
            drop.add((i, j))
    return [f for f in found if (f[0], f[1]) not in drop]
