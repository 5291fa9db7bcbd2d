"""The plan the offline planner is building (its steps so far, what they read) and the files a step
can be given: named in the request or attached, tables apart, the one nearest a step."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..media import Attachment, kind_of
from ..pipeline.plan import TABLE_EXTS, placeholder_ids
from .detect import Detection
from .extract import RequestReading, Span
from .result_refs import RESULT_REF_RE
from .speech_asked import speaks_statement
from .step_words import instruction
from .spoken_source import attachment_named


@dataclass
class PlanNode:
    """A step of the plan being built: what it reads, what kinds it makes, where it was asked for."""

    id: int
    task: str
    args: dict[str, str]
    outputs: tuple[str, ...]
    pos: int


@dataclass
class PlanState:
    """The plan being built: nodes so far and which resources they used."""

    reading: RequestReading
    attachments: list[Attachment]
    nodes: list[PlanNode] = field(default_factory=list)
    used_quotes: set[int] = field(default_factory=set)
    bridges: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pending: list[Detection] = field(default_factory=list)
    waited: set[int] = field(default_factory=set)  # ids of the detections already put after a later step
    fanned: list[int] = field(default_factory=list)  # the nodes of the last step made once per input
    stepless: set[int] = field(default_factory=set)  # clauses where no step was found
    pointed: set[tuple[int, int]] = field(default_factory=set)  # where files are pointed at, not named
    missing: list[str] = field(default_factory=list)  # kinds of file a step needed and none was given
    asked_at: list[int] = field(default_factory=list)  # where each step is asked, in order
    no_answer_named: bool = False  # a step's words named an earlier answer the conversation does not have

    @property
    def previous_answer(self) -> str | None:
        """The assistant's last answer in the conversation, if any."""
        return self.reading.previous_answer

    def producer(self, kind: str, before: int | None = None, exclude: set[int] | None = None) -> PlanNode | None:
        for n in reversed(self.nodes):
            if kind in n.outputs and (exclude is None or n.id not in exclude):
                return n
        return None


def values_read(st: PlanState) -> set[str]:
    """Every argument the steps so far read (files, texts, earlier results)."""
    return {v for n in st.nodes for v in n.args.values()}


def given_words(st: PlanState) -> str | None:
    """The text the request came with: its first quote, else its first text file (not a table)."""
    if st.reading.quotes:
        return st.reading.quotes[0].text
    return next(iter(text_files(st)), None)


#: Steps whose text is the words they read, changed: what they read is "the original"
_REWRITES = frozenset({"translation", "summarization", "text2text-generation"})


def original_words(st: PlanState, rewritten: bool = True) -> str | None:
    """The words before a step changed them, for "the original": the text the request came with,
    else, where ``rewritten`` allows, the text the first of the latest rewriting steps read ("get
    the sign's text, translate it to English, summarise it, and read me the original": the text
    read off the photo)."""
    given = given_words(st)
    if given is not None or not rewritten:
        return given
    node, src = st.producer("text"), None
    while node is not None and node.task in _REWRITES:
        refs = placeholder_ids(str(node.args.get("text", "")))
        if not refs:
            break
        src = node.args["text"]
        node = next((n for n in st.nodes if n.id == refs[0]), None)
    return src


def text_files(st: PlanState) -> list[str]:
    """The text files given that are not tables."""
    return [f for f in given_files("text", st) if not f.lower().endswith(TABLE_EXTS)]


def files_with_words(st: PlanState) -> list[tuple[str, str]]:
    """The given files whose words a text step can read, with their kinds: text files (not
    tables), then recordings, then pictures."""
    return [(f, "text") for f in text_files(st)] + [(f, k) for k in ("audio", "image") for f in given_files(k, st)]


def files_named_in(spans: list[Span], kind: str, st: PlanState, tables: bool = False) -> list[str]:
    """The given files of ``kind`` (``tables``: only table files) that these spans name, once each
    (by name: "the other pic" and "the price list" may belong to two steps of one clause)."""
    named = [attachment_named(f.text, kind, st.attachments) for f in st.reading.files
             if kind_of(f.text) == kind and any(c.start <= f.start < c.end for c in spans) and (f.start, f.end) not in st.pointed
             and (not tables or f.text.lower().endswith(TABLE_EXTS))]
    return list(dict.fromkeys(v for v in named if v))


def given_files(kind: str, st: PlanState) -> list[str]:
    """The files of ``kind`` given with the request, once each: those it names (in its order),
    then attached ones it does not name."""
    named = [attachment_named(f.text, kind, st.attachments) for f in st.reading.files if kind_of(f.text) == kind]
    return list(dict.fromkeys([v for v in named if v] + [str(a.path) for a in st.attachments if a.kind == kind]))


def table_file(st: PlanState) -> str | None:
    """A table file (CSV/TSV) named in the request or attached, for tabular-classification."""
    return next(iter(table_files(st)), None)


def table_files(st: PlanState) -> list[str]:
    """The table files (CSV/TSV, workbooks) named in the request or attached, once each."""
    named = [attachment_named(f.text, "text", st.attachments) for f in st.reading.files if f.text.lower().endswith(TABLE_EXTS)]
    attached = [str(a.path) for a in st.attachments if a.path.suffix.lower() in TABLE_EXTS]
    return list(dict.fromkeys([v for v in named if v] + attached))


def nearest_file(kind: str, pos: int, st: PlanState, before_only: bool = False) -> str | None:
    """The file of ``kind`` named closest before ``pos`` (else after), else the first attached
    that the request does not name (``before_only``: never one named after ``pos``)."""
    named = [f for f in st.reading.files if kind_of(f.text) == kind]
    before = [f for f in named if f.start <= pos]
    pick = before[-1] if before else (named[0] if named and not before_only else None)
    if before_only and named and not before:
        return None
    if pick is not None:
        v = attachment_named(pick.text, kind, st.attachments)
        if v:
            return v
    for a in st.attachments:
        if a.kind == kind:
            return str(a.path)
    return None


def topic_files_before(kind: str, clause: Span, st: PlanState) -> list[Span]:
    """Files of ``kind`` named in the clause just before ``clause`` when that clause asks for no step
    of its own: a topic said first, then the command ("second photo, cut out the people")."""
    k = st.reading.clause_at(clause.start)
    if k == 0 or k - 1 not in st.stepless:
        return []
    prev = st.reading.clauses[k - 1]
    return [f for f in st.reading.files if prev.start <= f.start < prev.end and kind_of(f.text) == kind]


def statement_spoken(clause: Span, st: PlanState) -> str | None:
    """The words of a statement said just before ``clause`` when they ask for no step and ``clause``
    points back at them ("dinner is at six, say it out loud": those words, not a reply to them)."""
    k = st.reading.clause_at(clause.start)
    if k == 0 or k - 1 not in st.stepless:
        return None
    prev = st.reading.clauses[k - 1]
    said = [t for t in st.reading.tokens if prev.start <= t.start < prev.end]
    return prev.text.strip(" ,;") if speaks_statement(said, clause.text) else None


def step_part(pos: int, clause: Span, st: PlanState) -> Span:
    """The words of the step asked at ``pos`` in a clause that asks for other steps too: from its
    own words (from the clause's start for the first) to the next step's, so the files it names are
    its own ("caption a.jpg, depth of b.jpg": a.jpg is the caption's, b.jpg the depth's)."""
    after = [a for a in st.asked_at if pos < a < clause.end]
    start = pos if any(clause.start <= a < pos for a in st.asked_at) else clause.start
    end = after[0] if after else clause.end
    return Span(st.reading.text[start:end], start, end)


#: Nouns that name a file as a file: a step makes a text, never a file ("summarise the notes file")
_AS_A_FILE = {"file", "files", "txt", "attachment"}
#: Words that point back at what a step made ("it", "the transcript"): then no file is meant
_MADE_RE = re.compile(r"\b(?:its|that)\b", re.I)  # (and result_refs.RESULT_REF_RE: "it", "them", "the summary")


def text_file_pointed(st: PlanState, span: Span) -> str | None:
    """An attached text file no step has read yet that the words of ``span`` point at: by a word of
    its name that no other file given has ("the notes file" for churn_notes.md, not "the meeting"
    with meeting.wav beside meeting_notes.txt), or, when it is the only one, as a file ("summarise
    the attached file"). Not when the words point back at what a step made ("it", "the transcript")."""
    read = values_read(st)
    unread = [a for a in st.attachments if a.kind == "text" and str(a.path) not in read]
    if not unread or _MADE_RE.search(span.text) or RESULT_REF_RE.search(span.text):
        return None
    nouns = {t.lower for t in st.reading.tokens if span.start <= t.start < span.end and t.pos in ("NOUN", "PROPN")}

    def words(a: Attachment) -> set[str]:
        return {w for w in re.split(r"[^a-z]+", a.path.stem.lower()) if len(w) >= 3}
    by_name = [a for a in unread if (own := nouns & words(a)) and not any(own & words(b) for b in st.attachments if b is not a)]
    if len(by_name) == 1:
        return str(by_name[0].path)
    return str(unread[0].path) if len(unread) == 1 and nouns & _AS_A_FILE else None


def own_instruction(d: Detection, st: PlanState, image: str, ci: int, picture_words: frozenset[str]) -> dict[str, str]:
    """An edit made once per photo, each named in a clause of its own with its own words ("make
    a.jpg brighter and b.jpg black and white"): that clause is its instruction."""
    if d.task != "image-to-image" or not d.instruction:
        return {}
    r = st.reading
    where = [r.clause_at(f.start) for f in r.files if attachment_named(f.text, "image", st.attachments) == image]
    if not where or where[0] == ci:
        return {}
    own = r.clauses[where[0]]
    return {"text": instruction(r.text, own.start, own, picture_words)}
