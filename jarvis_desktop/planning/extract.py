"""What a request gives the planner to work with: files, quoted text, URLs, clauses, its language.

Kept apart from task detection because the same reading of a request serves any planner that
needs to know which resources the user named (the offline planner, the benchmark adapter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..media import AUDIO_EXTS, IMAGE_EXTS, TEXT_EXTS, VIDEO_EXTS, kind_of

#: Adverbs that open a new step ("..., then read it aloud").
STEP_ADVERBS = {"then", "afterwards", "afterward", "finally", "lastly", "next", "subsequently", "later"}

_EXTS = sorted({e.lstrip(".") for e in IMAGE_EXTS | AUDIO_EXTS | VIDEO_EXTS | TEXT_EXTS}, key=len, reverse=True)
FILE_RE = re.compile(r"(?<![\w/\\.-])((?:[\w~.-]+[/\\])*[\w~-][\w~.-]*\.(?:" + "|".join(_EXTS) + r"))(?![\w])", re.IGNORECASE)
URL_RE = re.compile(r"\bhttps?://[^\s'\"<>)\]]+", re.IGNORECASE)
#: Quotes: '...' whose marks are not apostrophes (no letter before the opening one or after the
#: closing one), "...", and typographic quotes.
QUOTE_RES = [
    re.compile(r"(?<![\w])'(?=\S)(.+?)(?<=\S)'(?![\w])"),
    re.compile(r'"(?=\S)([^"]+?)(?<=\S)"'),
    re.compile(r"\u201c([^\u201d]+)\u201d"),
    re.compile(r"\u2018([^\u2019]+)\u2019(?![\w])"),
]
def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` quotes words (the marks included): words said there are what is worked on,
    not what is asked."""
    return [(m.start(), m.end()) for rx in QUOTE_RES for m in rx.finditer(text)]


#: Where one step of a request ends and the next begins.
CLAUSE_SPLIT_RE = re.compile(
    r"(?<=[.?!;])\s+(?=[\"'A-Z0-9(])|;\s*|\s*[.?!]\s*$|,?\s+(?:and\s+)?(?:then|afterwards|after that|subsequently|next|finally|lastly)\b,?\s*|,\s*(?:and\s+)?(?=(?:also|additionally|could|can|please|convert|create|generate|make|translate|summari[sz]e|identify|detect|segment|transcribe|describe|answer|classify|extract|estimate|edit|change|modify|turn|provide|give|produce|enhance|improve|read|tell|use|find|help)\b)|\s+and\s+(?=(?:also\s+)?(?:convert|create|generate|make|translate|summari[sz]e|identify|detect|segment|transcribe|describe|answer|classify|extract|estimate|edit|change|modify|turn|provide|give|produce|enhance|improve|read|tell|find|then|finally|lastly)\b)",
    re.IGNORECASE,
)

#: Short words that make up much of any English sentence; a request with almost none of them
#: is very likely in another language.
_ENGLISH_WORDS = frozenset(
    "the a an to of and in is it this that for with my me you can could would please i what how on from into be are "
    "do does help want need like some its as at by or if so your our we us they them there here about which who why "
    "will should make get give tell have has was were not all any one two "
    "summarize summarise translate describe generate create transcribe write detect identify classify convert "
    "answer explain show find read say".split()
)


@dataclass(frozen=True)
class Span:
    """A piece of the request: its text and where it sits (character offsets)."""

    text: str
    start: int
    end: int


@dataclass
class RequestReading:
    """The request as the planner sees it: text to analyse, resources, clauses, language."""

    text: str
    files: list[Span] = field(default_factory=list)
    quotes: list[Span] = field(default_factory=list)
    urls: list[Span] = field(default_factory=list)
    clauses: list[Span] = field(default_factory=list)
    subject: str | None = None
    english: bool = True
    notes: list[str] = field(default_factory=list)
    held: bool = False  # the request puts everything aside for later (set by the step finder)
    previous_answer: str | None = None  # the assistant's last answer in the conversation, which the request may point back at
    tokens: list = field(default_factory=list)  # segment.Token of the whole request, set with the clauses by the parse
    joined: set[int] = field(default_factory=set)  # clause starts of things asked for together with the one before (made_together)
    questions: set[int] = field(default_factory=set)  # clause starts of a question joined to one before it (segment)
    listed: set[int] = field(default_factory=set)  # clause starts of the items of a list of results after the first (listed_results)
    map_kind: str | None = None  # the control map a guided picture keeps when no map is named (maps_kept)

    def clause_at(self, pos: int) -> int:
        for i, c in enumerate(self.clauses):
            if c.start <= pos < c.end:
                return i
        return max(0, len(self.clauses) - 1)

    def sentence_of(self, pos: int) -> Span:
        """The sentence holding ``pos`` (a wider context than a clause)."""
        start = max(self.text.rfind(". ", 0, pos), self.text.rfind("? ", 0, pos), self.text.rfind("! ", 0, pos))
        start = 0 if start < 0 else start + 2
        ends = [i for i in (self.text.find(". ", pos), self.text.find("? ", pos), self.text.find("! ", pos)) if i >= 0]
        end = min(ends) + 1 if ends else len(self.text)
        return Span(self.text[start:end], start, end)


def looks_english(text: str) -> bool:
    """True when the words outside quotes, file names and links read as English: common English
    words among them, or, for terse commands that have none ("denoise podcast.wav", "hed outline
    then watercolour fox"), most of them in the shipped English word list."""
    outside = text
    for rx in (URL_RE, FILE_RE, *QUOTE_RES):
        outside = rx.sub(" ", outside)
    words = re.findall(r"[^\W\d_]+", outside.lower())
    if not words:
        return outside != text  # only a file, a link or quoted words: nothing says it is not English
    latin = sum(1 for w in words if w.isascii())
    if latin / len(words) < 0.6:
        return False
    if len(words) < 4:
        return any(w in _ENGLISH_WORDS for w in words) or latin == len(words)
    if sum(1 for w in words if w in _ENGLISH_WORDS) / len(words) >= 0.12:
        return True
    # a paste in any style with an English instruction before or after it
    for sentence in re.split(r"[.?!:;\n]+", outside):
        ws = re.findall(r"[^\W\d_]+", sentence.lower())
        if len(ws) >= 1 and sum(1 for w in ws if w in _ENGLISH_WORDS) / len(ws) >= 0.25:
            return True
    return _known_share(words) >= KNOWN_SHARE


#: Share of a request's words that must be English words when none is a common one (a French or
#: German request shares some short words with English: "la", "die", "en", but few others).
KNOWN_SHARE = 0.6


def _known_share(words: list[str]) -> float:
    """Share of the words (two letters or more) that are English as people type it: in the shipped
    word list, or chat shorthand ("pls", "ppl", "pic").

    Why: a hurried command ("caption + count ppl pls") is English to its writer; its shorthand must
    not make the planner turn it away as another language. Typos are not counted: one letter off
    an English word is also how many other languages spell it ("describa", "imagen")."""
    from .features import SHORTHAND
    from .wordvecs import STOPWORDS, shipped_vectors

    table = shipped_vectors()
    if table is None:
        return 0.0
    long = [w for w in words if len(w) >= 2]
    known = sum(1 for w in long if w in table.index or w in STOPWORDS or w in _ENGLISH_WORDS
                or w in SHORTHAND)
    return known / len(long) if long else 0.0


def read_request(request: str, max_chars: int = 4000) -> RequestReading:
    """Find the files, quotes, URLs and clauses of a request.

    Very long requests (a pasted document) are read at their start and end, where people put
    the instruction; the whole paste is kept as the subject text the tasks work on.
    """
    text = request.replace("\r\n", "\n")
    notes: list[str] = []
    subject: str | None = None
    if len(text) > max_chars:
        head, tail = text[: max_chars * 2 // 3], text[-max_chars // 3 :]
        notes.append(f"the request is {len(text):,} characters long; its first and last parts were read for instructions")
        subject = text
        text = head + "\n...\n" + tail
    reading = RequestReading(text, notes=notes)
    reading.english = looks_english(text)
    for m in URL_RE.finditer(text):
        reading.urls.append(Span(m.group(0), m.start(), m.end()))
    url_spans = [(u.start, u.end) for u in reading.urls]
    for m in FILE_RE.finditer(text):
        if any(a <= m.start() < b for a, b in url_spans) or kind_of(m.group(1)) is None:
            continue
        reading.files.append(Span(m.group(1), m.start(1), m.end(1)))
    taken: list[tuple[int, int]] = []
    for rx in QUOTE_RES:
        for m in rx.finditer(text):
            a, b = m.start(1), m.end(1)
            inner = m.group(1).strip().strip(",.;")
            if any(not (b <= x or a >= y) for x, y in taken):
                continue
            if FILE_RE.fullmatch(inner) or URL_RE.fullmatch(inner) or len(inner) < 2:
                continue
            taken.append((a, b))
            reading.quotes.append(Span(m.group(1).strip(), a, b))
    reading.quotes.sort(key=lambda s: s.start)
    reading.clauses = _clauses(text, [(q.start, q.end) for q in reading.quotes])
    reading.subject = subject or _subject_text(text, reading)
    return reading


def _clauses(text: str, protected: list[tuple[int, int]]) -> list[Span]:
    """Split into steps at sentence ends and step words, never inside a quotation."""
    cuts = [0]
    for m in CLAUSE_SPLIT_RE.finditer(text):
        if any(a <= m.start() < b for a, b in protected):
            continue
        if m.start() > cuts[-1]:
            cuts.append(m.start())
    cuts.append(len(text))
    spans = []
    for a, b in zip(cuts, cuts[1:]):
        if text[a:b].strip(" ,.;"):
            spans.append(Span(text[a:b], a, b))
    return spans or [Span(text, 0, len(text))]


_COLON_RE = re.compile(r":\s*(.{20,})$", re.DOTALL)


def _subject_text(text: str, reading: RequestReading) -> str | None:
    """The text a task should work on when the user pasted it after a colon."""
    span = pasted_span(text)
    return text[span[0]:span[1]].strip() if span else None


def pasted_span(text: str) -> tuple[int, int] | None:
    """Where the text pasted after a colon is (a few words at least, not a quotation), if any."""
    m = _COLON_RE.search(text)
    if m and not m.group(1).strip().startswith(("'", '"', "\u201c")) and len(m.group(1).split()) >= 5:
        return m.start(1), m.end(1)
    return None


def asked_after_colon(reading: RequestReading, starts: list[int]) -> bool:
    """Whether the words after a colon (``reading.subject``) are the request itself, given where
    its steps were found (``starts``): a step found in their first clause, and either more steps
    after it ("one more job, please: write a quote, create an image ...") or no verb before the
    colon in its sentence ("oh, one more thing: caption this photo"), so nothing there asks for a
    text to be worked on, as "imagine this: the sun sets ... can you paint it" does."""
    at = reading.text.rfind(reading.subject) if reading.subject else -1
    if at <= 0 or not any(at <= s < reading.clauses[reading.clause_at(at)].end for s in starts):
        return False
    lead = reading.sentence_of(at - 1)
    return sum(s >= at for s in starts) >= 2 or bool(reading.tokens) and not any(
        lead.start <= t.start < at and t.pos in ("VERB", "AUX") for t in reading.tokens)
