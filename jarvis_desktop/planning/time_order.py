"""Steps said out of the order they run in, put in it: "before you summarise it, translate it",
"summarise it after you translate it", "summarise it, but before that translate it", "translate
these notes; summarise them first", "draw this once you've put it into English" all name the
step that runs first second.

Why: the planner runs the steps of a request in the order they were asked, which is right for
"then" and "after that" and wrong for the words of time that invert it. This is grammar (a clause
opened by "before", "after" or "once" whose verb is the assistant's to do; a clause that says it
comes "first", "before that" or "before anything else"), rewritten to the plain order ("translate
it, then summarise it") before planning. The step moved first takes the object the other named,
and the other a pronoun, so each still reads what it should. "Before I send it" (the user's own
doing), "the photo I took after the storm", "the first page" and quoted words are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..english import parse
from .extract import FILE_RE, quoted_spans
from .imperatives import GIVEN_DETERMINERS
from .references import GIVEN_NOUNS

_MAYBE = re.compile(r"\b(?:before|after|once|first|start by|begin by)\b", re.I)
#: A clause that asks about something rather than for it ("do you keep ...", "is it ...").
_ASKS_ABOUT = re.compile(r"(?:do|does|did|are|is|was|were|have|has)\s", re.I)
#: Where clauses meet: punctuation, or a connective between two commands.
_BOUNDARY = re.compile(r"\s*(?:[,;:]|[.!?]+(?=\s|$))\s*(?:(?:and|but|so|oh|then)\b\s*,?\s*)*|\s+(?:and|but|then)\s+", re.I)
#: Words ending a clause that say it runs before the one said just before it.
_RUNS_FIRST = re.compile(r"\s*,?\s*\b(?:first|before (?:that|this|anything else|you do(?: that| it| so)?|you \w+ (?:it|them|that))"
                         r"|to (?:begin|start) with)\s*(?:,?\s*please)?\s*$", re.I)
#: Words opening a clause that say it runs before the one said just before it.
_OPENS_FIRST = re.compile(r"^(?:(?:but|and)\s+)?(?:before (?:that|this|you do(?: that| it| so)?|doing (?:that|so))|"
                          r"(?:start|begin) by)\s*,?\s*", re.I)
_HELPERS = {"you", "we", "'ve", "have", "'re", "are", "done", "finished", "having", "been"}
_POINTERS = {"it", "them", "this", "these", "that", "those"}



@dataclass
class _Clause:
    start: int
    end: int


def in_time_order(text: str) -> str:
    """``text`` with a step said after one that it runs before put first (once per request)."""
    if not _MAYBE.search(text) or (doc := parse(text)) is None:
        return text
    quoted = quoted_spans(text)
    clauses = _clauses(text, quoted, doc)
    for k, c in enumerate(clauses):
        said = text[c.start : c.end]
        moved = None
        if k and (m := _RUNS_FIRST.search(said)) and m.start() > 0 and not m.group(0).strip()[:1].isupper():  # "..., and paraphrase it first"
            moved = _first(text, doc, clauses, k, _Clause(c.start, c.start + m.start()), c)
        elif k and (m := _OPENS_FIRST.match(said)):  # "..., but before that, fix its grammar"
            if c.start + m.end() < c.end:
                moved = _first(text, doc, clauses, k, _Clause(c.start + m.end(), c.end), c)
            elif k + 1 < len(clauses):  # "..., but before you do that, translate it"
                moved = _first(text, doc, clauses, k, clauses[k + 1], clauses[k + 1])
        if moved is not None:
            return moved
        for t in doc.char_span(c.start, c.end, alignment_mode="expand") or []:
            if any(a <= t.idx < b for a, b in quoted):
                continue
            if t.lower_ in {"before", "after", "once"} and (moved := _opened_by(text, doc, clauses, k, t, quoted)) is not None:
                return moved
    return text


def _clauses(text: str, quoted: list[tuple[int, int]], doc: Any) -> list[_Clause]:
    """The clauses of ``text``: cut at punctuation, and at "and"/"but" before a verb ("the people
    and places" is one clause)."""
    out, at = [], 0
    for m in _BOUNDARY.finditer(text):
        if any(a <= m.start() < b for a, b in quoted) or m.start() <= at:
            continue
        if not re.search(r"[,;:.!?]", m.group(0)) and m.group(0).strip().lower() != "then":
            nxt = doc.char_span(m.end(), m.end() + 1, alignment_mode="expand")
            if not nxt or nxt[0].pos_ not in {"VERB", "AUX"}:
                continue
        out.append(_Clause(at, m.start()))
        at = m.end()
    if at < len(text):
        out.append(_Clause(at, len(text)))
    return [c for c in out if text[c.start : c.end].strip()]


def _opened_by(text: str, doc: Any, clauses: list[_Clause], k: int, word: Any, quoted: list[tuple[int, int]]) -> str | None:
    """A step opened by before/after/once: "before you X, Y" -> Y first; "Y after/once you('ve) X"
    and "Y, after X-ing" -> X first. "After you X, Y" and "Y before X-ing" are already in order."""
    j = word.i + 1
    while j < len(doc) and doc[j].lower_ in _HELPERS:
        j += 1
    if j >= len(doc) or doc[j].pos_ != "VERB" or j == word.i + 1 and doc[j].tag_ not in {"VBG"}:
        if not (j < len(doc) and doc[j].pos_ == "VERB" and doc[word.i + 1].lower_ in {"you", "we"}):
            return None  # "the photo I took after the storm", "before I post it", "once a week"
    c = clauses[k]
    at_start = not text[c.start : word.idx].strip()
    step = _Clause(doc[j].idx, c.end)
    if word.lower_ == "before":
        if not at_start or k + 1 >= len(clauses) or _sentence_of(text, c) != _sentence_of(text, clauses[k + 1]):
            return None
        rest = _Clause(clauses[k + 1].start, _sentence_end(text, clauses[k + 1].start))
        return _swap(text, doc, rest, step, _Clause(c.start, rest.end))
    last = k + 1 >= len(clauses) or _sentence_of(text, clauses[k + 1]) != _sentence_of(text, c) or _only_quoted(
        text, clauses[k + 1], quoted)  # "..., after translating it: 'El servicio ...'": the words, no step
    if at_start and (k == 0 or _sentence_of(text, c) != _sentence_of(text, clauses[k - 1]) or not last):
        return None  # "After you transcribe it, summarise it", "..., once we have it, draw it": in order already
    said = clauses[k - 1] if at_start else _Clause(c.start, word.idx)
    if not _asks(text[said.start : said.end]):
        return None  # "do you keep my recordings after you transcribe them?": a question, not a step
    return _swap(text, doc, step, _Clause(said.start, said.end), _Clause(said.start, c.end))


def _only_quoted(text: str, c: _Clause, quoted: list[tuple[int, int]]) -> bool:
    """The clause is quoted words and nothing else."""
    inside = "".join(ch for i, ch in enumerate(text[c.start : c.end], c.start) if not any(a <= i < b for a, b in quoted))
    return bool(quoted) and not re.search(r"[^\W_]", re.sub(r"[\"'\u2018\u2019\u201c\u201d]", "", inside))


def _first(text: str, doc: Any, clauses: list[_Clause], k: int, step: _Clause, whole: _Clause) -> str | None:
    """``step`` (said in clause ``k`` or after it) put before the nearest clause before it that asks
    for something ("Could you list the names in this letter? It's in Dutch, so translate it first")."""
    before = next((clauses[j] for j in range(k - 1, -1, -1) if _asks(text[clauses[j].start : clauses[j].end])), None)
    if before is None:
        return None
    said = _Clause(before.start, clauses[k].start)  # what was said from that clause on ("..., it's in Dutch, so")
    return _swap(text, doc, step, said, _Clause(before.start, whole.end))


#: What ends a clause moved after another: its punctuation and a connective left dangling.
_TRAILING = re.compile(r"(?:[\s,.;:!?]|\b(?:and|but|so|then)\b)+$", re.I)
#: Words before a clause's command that are no part of it.
_OPENERS = re.compile(r"^(?:(?:please|just|also|so|and|oh|now|hey|ok|okay|then|but)\b[\s,]*)*", re.I)
#: How a request that is not an imperative asks ("could you ...", "I'd like ...", "what ...").
_ASKING = re.compile(r"(?:can|could|would|will)\s+(?:you|u)\b|i(?:'d| would)? (?:like|want|need)\b|(?:what|which|who|how|is|are|does)\b", re.I)


def _asks(clause: str) -> bool:
    """The clause asks the assistant for something: a command, or a request put as a question."""
    words = _OPENERS.sub("", clause.strip())
    if not words or _ASKS_ABOUT.match(words) and not _ASKING.match(words):
        return False
    if _ASKING.match(words):
        return True
    doc = parse(words)  # a command or a terse one ("depth map of the cutout"), not a statement ("it's in Dutch")
    if doc is None or len(doc) < 2:
        return False
    root = next((t for t in doc if t.dep_ == "ROOT"), doc[0])
    return not any(c.dep_ in {"nsubj", "nsubjpass", "expl"} and c.lower_ != "you" for c in root.children)


def _swap(text: str, doc: Any, first: _Clause, then: _Clause, span: _Clause) -> str:
    """``span`` of ``text`` rewritten as "<first>, then <then>", the object ``then`` named moved to
    ``first`` when ``first`` points at it ("summarise this report ..., translate it first" ->
    "translate this report, then summarise it")."""
    a = text[first.start : first.end].strip().rstrip(",")
    b = _TRAILING.sub("", text[then.start : then.end])
    a, b = _as_command(a), _as_command(b)
    if not _asks(a):
        return text  # "Before we start, I just wanted to say thanks": nothing asked first
    pointer = next((t for t in doc if first.start <= t.idx < first.end and t.lower_ in _POINTERS and t.dep_ in {"dobj", "pobj", "nsubj"}), None)
    named = _object(doc, then)
    if pointer is not None and named is not None:
        obj = text[named[0] : named[1]]
        a = re.sub(rf"\b{re.escape(pointer.text)}\b", obj, a, count=1)
        b = _TRAILING.sub("", text[then.start : named[0]].strip() + " it" + text[named[1] : then.end])
    end = text[span.end :]
    return text[: span.start] + f"{a}, then {b[:1].lower() + b[1:] if b[:1].isupper() and not b.startswith('I ') else b}" + end


def _object(doc: Any, clause: _Clause) -> tuple[int, int] | None:
    """The character span of the thing a clause's command works on ("these notes", "report.txt")."""
    for t in doc:
        # a thing the user gave ("these notes", "report.txt"), which a step moved first takes from the one it now precedes
        given = t.lower_ in GIVEN_NOUNS and any(c.dep_ in {"det", "poss"} and c.lower_ in GIVEN_DETERMINERS for c in t.children)
        # ... its object, or what the command works from ("remove the background from a.jpg"; not
        # "the names in this letter", the thing's own words)
        prep = t.head
        worked_from = t.dep_ == "pobj" and prep.dep_ == "prep" and (prep.head.pos_ == "VERB" or prep.head.dep_ in {"prt", "prep", "advmod"}
                                                                    and prep.head.head.pos_ == "VERB")  # "cut the boats out of a.jpg"
        if clause.start <= t.idx < clause.end and (t.dep_ == "dobj" or worked_from) and (given or FILE_RE.fullmatch(t.text)):
            left = min(u.idx for u in t.subtree)
            right = max(u.idx + len(u.text) for u in t.subtree if u.dep_ not in {"prep", "relcl"} or u.i <= t.i)
            right = min(right, t.idx + len(t.text)) if any(u.dep_ == "prep" for u in t.children) else right
            return (left, right) if right <= clause.end else None
    return None


def _as_command(clause: str) -> str:
    """"translating it", "made it polite", "put it into English": the plain command."""
    doc = parse(clause)
    if doc is None or not len(doc) or doc[0].pos_ != "VERB" or doc[0].tag_ in {"VB", "VBP"}:
        return clause
    return doc[0].lemma_ + clause[len(doc[0].text) :]


def _sentence_of(text: str, c: _Clause) -> int:
    return len(re.findall(r"[.!?](?:\s|$)", text[: c.start]))


def _sentence_end(text: str, at: int) -> int:
    m = re.search(r"[.!?](?=\s|$)", text[at:])
    return at + m.start() if m else len(text)
