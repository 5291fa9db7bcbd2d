"""Cut a request into clauses (one step each, usually) with spaCy's dependency parse.

Why a parser and not a list of step words: a clause starts where the parse says a new verb phrase
starts (a sentence, a verb coordinated with the previous one, "then ..."), whatever the verb is, so
requests worded in ways nobody listed still split into their steps. spaCy (the shipped
``en_core_web_sm``) is loaded lazily; without it the regex splitter of ``extract.py`` is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..english import load_english, parse
from ..media import kind_of
from .extract import STEP_ADVERBS, Span, _clauses
from .made_together import joined_cuts, things_asked
from .repeats import opens_again
from .step_words import QUESTION_OPENERS

_VERBS = {"VERB"}
#: A plus standing alone between two commands of a terse request: "caption + count the people".
#: Not arrows: "edges of sketch.png -> a castle" is one step, a control map and what it shapes
#: (cutting at arrows too broke as many dev plans as it mended, stop 33).
_STEP_SYMBOL = re.compile(r"(?<=\s)\+(?=\s)")
#: Words that only join a clause to the one before: cut off alone, they open the clause after them
_ONLY_JOINING = {"and", "and then", "and also", "then", "also", "plus", "or"}
#: The pronouns a command acts on
OBJECT_PRONOUNS = frozenset({"it", "them", "this", "that", "these", "those"})



@dataclass
class Token:
    """What the planner keeps of one token: where it is, its lower-case form and lemma, its part of speech."""

    text: str
    start: int
    lower: str
    lemma: str
    pos: str
    dep: str
    tag: str = ""  # the fine-grained tag (VBD: a verb in the past tense)


@dataclass
class Segmentation:
    """The clauses of a request and its tokens (lemmas when spaCy ran)."""

    clauses: list[Span]
    tokens: list[Token] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)  # per clause: offset of its main verb (else its start)
    parsed: bool = False
    things: list = field(default_factory=list)  # new things asked for together (made_together.things_asked), when planning
    joined: set[int] = field(default_factory=set)  # where the clause of each thing joined to one before it begins
    questions: set[int] = field(default_factory=set)  # where a question joined to one before it begins ("... and how old is he")

    def tokens_in(self, span: Span) -> list[Token]:
        """The tokens of one clause (or any span of the request)."""
        return [t for t in self.tokens if span.start <= t.start < span.end]


def load_nlp() -> tuple[Any, str | None]:
    """The shared spaCy pipeline (tagger, parser, lemmatizer; no NER), or None and why not."""
    return load_english()


def segment(text: str, protected: list[tuple[int, int]], use_spacy: bool = True, commands: bool = False,
            listed: tuple[int, ...] = ()) -> Segmentation:
    """Clauses of ``text``, never cut inside a ``protected`` span (quotes, file names).

    ``commands``: also cut a list of commands at its commas ("translate it, say it, then caption
    pic.jpg"). Planning asks for this; training keeps the parser's clauses, because re-cutting the
    training texts moved the weights more than the cuts gained (own-folds 1842 -> 1838, stop 28),
    while cutting at planning time alone raised both held-out fold figures. ``listed``: where the
    items of a list of results begin (``listed_results``), cut too."""
    nlp = load_nlp()[0] if use_spacy else None
    if nlp is None:
        clauses = _clauses(text, protected)
        return Segmentation(clauses, _regex_tokens(text), [c.start for c in clauses], parsed=False)
    doc = parse(text)
    tokens = [Token(t.text, t.idx, t.lower_, t.lemma_.lower() or t.lower_, t.pos_, t.dep_, t.tag_) for t in doc]
    cuts = {0}
    numbered: list[tuple[int, int]] = []  # "(2) translate": a list number and its command stay one clause
    questions: set[int] = set()
    for sent in doc.sents:
        cuts.add(sent.start_char)
    for t in doc:
        if t.pos_ in _VERBS and t.dep_ == "conj" and t.i > t.head.i and (
                t.head.pos_ in ("VERB", "AUX") or commands and (_command_as_noun(t.head) or opens_again(doc, t.head.i))):
            # (a verb after "..., then another about the stars" is a step of its own: "and read that one too")
            # the coordinator (and/or/then) between the two verbs opens the new clause
            between = [c for c in t.head.children if c.dep_ in ("cc", "punct") and t.head.i < c.i < t.i]
            left = min([t.left_edge.i] + [c.i for c in between if c.dep_ == "cc"])
            cuts.add(doc[left].idx)
        elif t.lower_ in STEP_ADVERBS and t.i > 0 and doc[t.i - 1].text in (",", "and") and t.i + 1 < len(doc) and doc[t.i + 1].pos_ in ("VERB", "PRON", "PUNCT"):
            cuts.add(doc[t.i - 1].idx)  # ", then tell me ...": a new step whatever the parse made of it
        elif (commands and t.lower_ in STEP_ADVERBS and 0 < t.i < len(doc) - 1
              and doc[t.i + 1].pos_ == "VERB" and doc[t.i + 1].tag_ in ("VB", "VBP")):
            cuts.add(t.idx)  # "make a picture of a castle then describe it": no comma, still a new step
        elif t.lower_ in STEP_ADVERBS and t.dep_ == "advmod" and t.head.pos_ in _VERBS and t.i < t.head.i:
            prev = doc[t.i - 1] if t.i > 0 else None
            cuts.add(prev.idx if prev is not None and prev.lower_ in ("and", ",") else t.idx)
        elif t.text == ";":
            cuts.add(t.idx + 1)
        elif commands and t.text == "?" and 0 < t.i < len(doc) - 2 and _starts_command(doc, t.i + 1):
            cuts.add(doc[t.i + 1].idx)  # "yo assistant, what's ...? say it aloud": a question ends its sentence
        elif commands and _step_before(doc, t.i):
            # "figure out its topic after transcribing it", "..., and after translate it": a step of its own
            cuts.add(doc[t.i - 1].idx if doc[t.i - 1].lower_ == "and" else t.idx)
        elif commands and _second_question(doc, t.i, cuts):
            cuts.add(t.idx)  # "what breed is it and how old is he": a question of its own
            questions.add(t.idx)
        elif commands and _joins_command(doc, t.i):
            cuts.add(t.idx)  # "..., and say it out loud": the coordinator opens the new step
        elif commands and t.text == "," and 0 < t.i < len(doc) - 2 and _starts_command(doc, t.i + 1):
            cuts.add(t.idx)
        elif commands and t.text == "," and _another_file_follows(doc, t.i):
            cuts.add(t.idx)  # "caption a.jpg, depth of b.jpg": a step on each file
        elif commands and opens_again(doc, t.i):
            # "draw a red car, and another one in blue": a second thing, with its own description
            k = t.i - 1
            while k > 0 and doc[k - 1].lower_ in ("and", "then", "also", "now", "plus"):
                k -= 1  # "..., and then another toast": the connectives open the new clause
            cuts.add(doc[k].idx if doc[k].lower_ not in (",", ";", ".") else t.idx)
        elif commands and _numbers_a_command(doc, t.i):
            start = doc[t.i - 1].idx if t.i > 0 and doc[t.i - 1].text == "(" else t.idx
            cuts.add(start)
            numbered.append((start, doc[t.i + 2].idx))
    if commands:
        cuts.update(m.end() for m in _STEP_SYMBOL.finditer(text))
    things = things_asked(tokens) if commands else []
    joined = set(joined_cuts(tokens, things))  # "I want a poem about autumn | and a painting of falling leaves"
    cuts.update(joined)
    cuts.update(listed)
    cuts = sorted(c for c in cuts if not any(a < c < b for a, b in protected) and not any(a < c <= b for a, b in numbered))
    cuts.append(len(text))
    kept = cuts[:1]
    for b in cuts[1:-1]:
        if text[kept[-1]:b].strip(" ,").lower() in _ONLY_JOINING:  # "and | how old is he": the coordinator opens the clause after it
            questions = {kept[-1] if q == b else q for q in questions}
        else:
            kept.append(b)
    cuts = kept + cuts[-1:]
    clauses = [Span(text[a:b], a, b) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip(" ,.;")]
    clauses = clauses or [Span(text, 0, len(text))]
    heads = []
    for c in clauses:
        verb = next((tk for tk in tokens if c.start <= tk.start < c.end and tk.pos == "VERB"
                     and tk.dep in ("ROOT", "conj", "xcomp", "advcl", "ccomp", "relcl")), None)
        heads.append(verb.start if verb else c.start)
    return Segmentation(clauses, tokens, heads, parsed=True, things=things, joined=joined, questions=questions & set(cuts))


def _another_file_follows(doc: Any, i: int) -> bool:
    """Whether the comma at ``i`` ends one file's step and starts another's: a file just before it,
    and after it words of their own, then another file ("caption a.jpg, depth of b.jpg";
    "transcribe call.wav, genre of song.mp3"); not a list of files ("compare a.jpg, b.jpg")."""
    if i == 0 or not kind_of(doc[i - 1].text):
        return False
    words = False
    for t in doc[i + 1:]:
        if t.text in (",", ";") or t.is_sent_start:
            return False
        if kind_of(t.text):
            return words
        words = words or t.pos_ in ("NOUN", "VERB", "ADJ", "PROPN")
    return False


def _numbers_a_command(doc: Any, i: int) -> bool:
    """Whether token ``i`` numbers an item of a list of commands: "(2) translate it", "3. Tell me
    ...", "2) summarise it" (a number, a closing bracket or a full stop, then a verb)."""
    t = doc[i]
    return ((t.tag_ == "LS" or t.like_num) and i + 2 < len(doc) and doc[i + 1].text in (")", ".")
            and doc[i + 2].pos_ == "VERB" and doc[i + 2].tag_ in ("VB", "VBP"))


def _command_as_noun(t: Any) -> bool:
    """Whether ``t``, a noun a verb is coordinated with, opens its sentence with its words: a
    command the small parser tagged as a noun ("reply as a butler and say it out loud"; "caption
    park.jpg and also count the dogs", where it took "caption" for part of the file's name)."""
    return t.pos_ in ("NOUN", "PROPN", "X") and t.left_edge.i == t.sent.start


def _step_before(doc: Any, i: int) -> bool:
    """Whether token ``i`` ("after", "once") opens a step the command waits for: "after
    transcribing it", "after you transcribe it" (a verb of its own, not "after lunch")."""
    if doc[i].lower_ not in ("after", "once") or i == 0 or i + 1 >= len(doc):
        return False
    nxt = doc[i + 1]
    verb = nxt if nxt.pos_ == "VERB" else (doc[i + 2] if nxt.lower_ in ("you", "u") and i + 2 < len(doc) else None)
    return verb is not None and verb.pos_ == "VERB" and verb.tag_ in ("VBG", "VB", "VBP")


#: Finite forms an inverted question starts with ("is this ...", "does it ...", "can you ..."), and
#: the words that can be its subject
_FINITE = {"VBZ", "VBP", "VBD", "MD"}
_SUBJECTS = {"PRON", "DET", "PROPN", "NOUN"}
#: The words a question opens with (a closed class; not "that", which the tagger gives the same tag;
#: the parser splits "what's" and "whats")
_QUESTION_WORDS = {"what", "which", "who", "whom", "whose", "where", "when", "why", "how"}


def _joins_command(doc: Any, i: int) -> bool:
    """Whether token ``i`` is a coordinator after a comma with a bare verb, a question word or an
    inverted question behind it, fillers aside: ", and say it out loud", ", and oh, what breed is
    she", "who's named here, and is this good news or bad" (a new step, whatever the parser
    attached it to)."""
    if not (0 < i < len(doc) - 1 and doc[i].dep_ == "cc" and doc[i - 1].text == ","):
        return False
    k = i + 1
    while k < len(doc) - 1 and (doc[k].pos_ in ("INTJ", "PUNCT") or doc[k].lower_ in ("also", "then", "btw")):
        k += 1
    asks = k + 1 < len(doc) and doc[k].pos_ == "AUX" and doc[k].tag_ in _FINITE and doc[k + 1].pos_ in _SUBJECTS
    return asks or doc[k].tag_ == "VB" and doc[k].pos_ == "VERB" or doc[k].tag_ in ("WP", "WRB", "WDT")


def _opens_question(doc: Any, k: int, end: int) -> bool:
    """Whether a direct or indirect question opens at token ``k``: a question word with a finite
    verb after it before ``end`` ("how old is he", "which shop it is from"), or a finite verb
    before its subject ("is it parked legally"; not "can you ...", a request)."""
    if k + 1 >= end:
        return False
    if doc[k].lower_ in _QUESTION_WORDS:
        return any(u.tag_ in _FINITE for u in doc[k + 1:end])
    return doc[k].pos_ == "AUX" and doc[k].tag_ in _FINITE and doc[k + 1].pos_ in _SUBJECTS and doc[k + 1].lower_ not in ("you", "u")


def _second_question(doc: Any, i: int, cuts: set[int]) -> bool:
    """Whether token ``i``, an "and" or a comma, joins a second question to one asked before it in
    the same sentence: "what breed is this and how old is he", "who sent it, what's the number,
    and when is it due" (two questions, two answers). Not "and" inside one question ("is there a
    cat and a dog"), nor before a question word without a verb of its own ("tell me who and when").
    The first question is looked for in the clause before (from the last of ``cuts`` before it)."""
    if not (0 < i < len(doc) - 2) or doc[i].lower_ != "and" and not (doc[i].text == "," and doc[i + 1].lower_ != "and"):
        return False
    k = i + 1
    while k < len(doc) - 1 and (doc[k].pos_ in ("INTJ", "PUNCT") or doc[k].lower_ in ("also", "then", "btw")
                                or doc[k].pos_ == "ADV" and doc[k + 1].lower_ in _QUESTION_WORDS):  # "and roughly how old ..."
        k += 1
    sent = doc[i].sent
    if not _opens_question(doc, k, sent.end) or doc[i].text == "," and doc[k].lower_ not in _QUESTION_WORDS:
        return False  # (after a comma, "is it bronze?" mostly asks the question before again, narrowed)
    since = max(c for c in cuts if c <= doc[i].idx)
    start = max(sent.start, next((t.i for t in doc[sent.start:i] if t.idx >= since), i))  # the clause before, not one cut earlier
    while start < i and (doc[start].pos_ in ("INTJ", "PUNCT") or doc[start].lower_ in QUESTION_OPENERS
                         or doc[start + 1].lower_ in _QUESTION_WORDS):  # "about how tall is it"
        start += 1
    return any(_opens_question(doc, k, i) and _asked_of_the_assistant(doc, start, k) for k in range(start, i)
               if doc[k].lower_ in _QUESTION_WORDS or k == start)


def _asked_of_the_assistant(doc: Any, start: int, k: int) -> bool:
    """Whether a question opening at ``k`` is asked outright: it opens its sentence, or follows a
    command to tell ("tell me what ...", "can you tell me which ..."). Not a question the user
    ponders ("I need to know what's close and what's far back": one thing to find out)."""
    if k == start:
        return True
    first, between = doc[start], doc[start:k]
    commanded = first.tag_ == "VB" or first.tag_ == "MD" and start + 1 < k and doc[start + 1].lower_ in ("you", "u")
    return commanded and not any(t.dep_ in ("nsubj", "nsubjpass") and t.lower_ not in ("you", "u") for t in between)


def _starts_command(doc: Any, i: int) -> bool:
    """Whether the word after a comma starts a command of its own: "translate it, say the
    translation", "speak the summary, caption whiteboard.jpg", ", then caption it" (the small
    parser makes such a verb a noun, or the object of one command the subject of the next)."""
    t = doc[i]
    nxt = doc[i + 1]
    if _only_connectives(doc, i - 1):
        return False  # "and then, separately, tell me ...": the words before belong to this command
    if t.lower_ in STEP_ADVERBS:
        return nxt.pos_ not in ("DET", "ADJ", "NUM")  # ", then a city with the same layout": a thing, not a command
    earlier = doc[t.sent.start : i]
    commanded = any(v.pos_ == "VERB" and v.tag_ == "VB" for v in earlier)
    if (t.tag_ in ("VB", "VBP") and t.dep_ in ("ROOT", "conj") and commanded
            # a question, then a command: "what is the deadline on this form, translate the answer"
            or t.tag_ == "VB" and t.dep_ == "ROOT" and any(v.pos_ in ("VERB", "AUX") for v in earlier)
            # a bare verb the parser took for an auxiliary: "classify pic.jpg, say result"
            or t.pos_ in ("VERB", "AUX") and t.tag_ != "MD" and t.lower_ == t.lemma_.lower() and commanded):
        return not _awaits_verb(earlier)
    if t.tag_ == "VBG" and t.dep_ in ("advcl", "conj") and any(v.pos_ == "VERB" and v.tag_ == "VBG" for v in earlier):
        return True  # "help me by estimating the depth, segmenting the image, ..."
    return t.pos_ in ("VERB", "NOUN", "PROPN") and (kind_of(nxt.text) is not None or nxt.lower_ in OBJECT_PRONOUNS)


def _only_connectives(doc: Any, comma: int) -> bool:
    """Whether the words between the previous comma (or the sentence start) and this one are only
    connectives and adverbs ("and then, separately,"): no command of their own to end."""
    k = comma - 1
    start = doc[comma].sent.start
    while k >= start and doc[k].text != ",":
        if doc[k].pos_ not in ("CCONJ", "ADV", "PUNCT"):
            return False
        k -= 1
    return k >= start


def _awaits_verb(tokens: Any) -> bool:
    """Whether a "whether"/"if" question is still waiting for its verb (quoted words aside):
    "tell me whether that translation and my attempt, 'I would like a coffee', say the same thing"."""
    waiting, quoted = False, False
    for tk in tokens:
        if tk.tag_ in ("``", "''"):
            quoted = not quoted
        elif not quoted and tk.lower_ in ("whether", "if") and tk.dep_ == "mark":
            waiting = True
        elif not quoted and tk.tag_ in ("VBZ", "VBP", "VBD", "MD"):
            waiting = False
    return waiting


def _regex_tokens(text: str) -> list[Token]:
    return [Token(m.group(0), m.start(), m.group(0).lower(), m.group(0).lower(), "", "") for m in re.finditer(r"[\w'.-]+|[?]", text)]
