"""Which attached file, or which quoted text, a phrase of the request means, when it does not
give the file's name or repeat the quote.

People who drop several files on the window point at them in words: by order ("the second
photo", "the first one", "the other clip") or by what the file is called ("the boarding pass"
for boarding_pass.png, "my lecture recording" for lecture3.m4a). The planner treats such a
phrase as if the file's name stood there, so each step reads the file the user meant. Quoted
texts are pointed at the same ways: "read the second one aloud", "this tweet: '...' ... read
the tweet aloud".
"""

from __future__ import annotations

import re
from pathlib import Path

from ..media import Attachment
from .extract import RequestReading, Span
from .result_refs import RESULT_REF_RE, named_results

#: Nouns that say which kind of file an ordinal points at ("the second pic").
KIND_NOUNS = {
    "image": {"pic", "pics", "picture", "photo", "image", "shot", "snap", "scan", "screenshot", "drawing", "sketch", "photograph"},
    "audio": {"recording", "clip", "audio", "memo", "track", "voicemail", "song", "take"},
    "text": {"doc", "document", "txt", "transcript", "sheet", "spreadsheet", "csv"},
}
_NOUN_KIND = {n: k for k, nouns in KIND_NOUNS.items() for n in nouns}
#: Nouns of things a user gives to work on, of any kind ("this photo", "my notes", "the letter")
GIVEN_NOUNS = frozenset(_NOUN_KIND) | {
    "image", "file", "note", "notes", "letter", "page", "report", "essay", "article", "text", "email", "message", "review",
    "call", "interview", "lecture", "story", "paragraph", "poem", "speech", "description", "caption", "sentence"}
#: Files a user has rather than one a step makes ("this photo", "my recording"; a drawing or a
#: picture may be either)
_TAKEN_NOUNS = {"image": "photo|photograph|snap|shot|snapshot|screenshot|scan|selfie", "audio": "recording|voicemail|memo|voice note"}
#: A file the user has, pointed at ("this photo", "my recordings", "the picture I sent you"), not
#: one called made ("this new photo")
_GIVEN_RE = {kind: re.compile(rf"\b(?:this|these|my)\s+(?!(?:new|generated|made|edited|resulting)\b)(?:\w+\s+)?(?:{_TAKEN_NOUNS[kind]})s?\b|"
                              rf"\b(?:{'|'.join(nouns)})s?\s+(?:I|we)\s+(?:just\s+)?(?:sent|attached|gave|uploaded|dropped|shared)\b", re.I)
             for kind, nouns in KIND_NOUNS.items() if kind in _TAKEN_NOUNS}


def points_at_given(kind: str, text: str) -> bool:
    """``text`` points at a file of ``kind`` the user gave, not at one a step made."""
    return kind in _GIVEN_RE and bool(_GIVEN_RE[kind].search(text))


#: Ordinal words that point at one of several files or quotes, and which one (0-based; -1 the last)
ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "last": -1, "other": 1}
#: Words that may follow a bare ordinal that still points at a file ("... in the second, and ...").
_AFTER_BARE = {"one", "and", "in", "on", "of", "to", "please", "too", "as", "is", "was", "with", "for", "from", "into", "says", "say"}
#: "the second photo", "my first pic"; terse speech drops the article ("second photo, cut out the
#: people"), then a noun of a file's kind must follow.
_ORDINAL_RE = re.compile(r"\b(?:(the|my)\s+)?(" + "|".join(ORDINALS) + r")\b(?:\s+([a-z]+))?", re.I)
#: Parts of file names that say nothing about which file it is (IMG_2041, scan_final_v2).
_GENERIC = {"img", "dsc", "pxl", "photo", "image", "pic", "file", "scan", "final", "copy", "new", "old", "audio", "rec",
            "recording", "voice", "note", "memo", "clip", "track", "doc", "document", "text", "version", "edit", "untitled"}


def file_references(reading: RequestReading, attachments: list[Attachment]) -> list[Span]:
    """Spans of the request that point at one attached file, each with that file's name as its text.

    Only with two or more attachments (one file needs no pointing at); never inside a file name,
    a quote, or a phrase that could mean two files."""
    if len(attachments) < 2:
        return []
    taken = [(s.start, s.end) for s in reading.files + reading.quotes]
    out = [s for s in _ordinal_refs(reading.text, attachments) + _name_refs(reading.text, attachments)
           if not any(a < s.end and s.start < b for a, b in taken)]
    out.sort(key=lambda s: s.start)
    kept: list[Span] = []
    for s in out:  # "the second photo" found twice (as an ordinal and by a name word): keep the first
        if not kept or s.start >= kept[-1].end:
            kept.append(s)
    return kept


def _ordinal_refs(text: str, attachments: list[Attachment]) -> list[Span]:
    out = []
    for m in _ORDINAL_RE.finditer(text):
        word, after = m.group(2).lower(), (m.group(3) or "").lower()
        kind = _NOUN_KIND.get(after)
        if m.group(1) is None and (kind is None or word == "other"):
            continue  # "first, rewrite it", "other pictures": no file pointed at
        if kind is None and after and after not in _AFTER_BARE:
            continue  # "the first step", "the second question": not a file
        # without a noun, an ordinal points at photos and recordings ("what the first one got" is a result)
        pool = [a for a in attachments if a.kind == kind or kind is None and a.kind in ("image", "audio")]
        if word == "other" and len(pool) != 2:
            continue  # "the other one" is clear only between two
        n = ORDINALS[word]
        if pool and -len(pool) <= n < len(pool):
            end = m.end() if kind or after == "one" else m.end(2)
            out.append(Span(pool[n].path.name, m.start(), end))
    return out


def _name_refs(text: str, attachments: list[Attachment]) -> list[Span]:
    """ "the boarding pass" for boarding_pass.png: the words of a file's name, in order, when they
    name only that file; or one word of its name that no other file's name has, before a noun of
    its kind ("the after photo" for after_haircut.jpg beside before_haircut.jpg)."""
    found: dict[tuple[int, int], list[str]] = {}
    stems = {a.path.name: [w for w in re.split(r"[^a-z]+", Path(a.path.name).stem.lower()) if len(w) >= 3] for a in attachments}
    for a in attachments:
        words = stems[a.path.name]
        if not words or all(w in _GENERIC for w in words):
            continue
        pattern = r"\b" + r"[\s_-]+".join(re.escape(w) for w in words) + r"s?\b"
        own = [w for w in words if w not in _GENERIC and not any(w in v for n, v in stems.items() if n != a.path.name)]
        nouns = "|".join(sorted(KIND_NOUNS.get(a.kind, set()) | {"one", "file"}))
        by_word = [rf"\b(?:the|this|that|my)\s+({re.escape(w)})\s+(?:{nouns})s?\b" for w in own]
        for m in [hit for rx in [pattern, *by_word] for hit in re.finditer(rx, text, re.I)]:
            found.setdefault((m.start(m.lastindex or 0), m.end()), []).append(a.path.name)
    return [Span(names[0], s, e) for (s, e), names in found.items() if len(set(names)) == 1]


#: An ordinal pointing at one of several quoted texts ("read the second one aloud")
_QUOTE_ORDINAL_RE = re.compile(r"\bthe\s+(first|1st|second|2nd|third|3rd|last|other)\s+(?:one|sentence|quote|text|line|phrase|message|version)\b", re.I)
#: What the request calls the quoted text that follows ("this tweet: '", "is this headline upbeat: '")
_QUOTE_NAME_RE = re.compile(r"\b(?:this|that|the|my|a|an|his|her|their|our)\s+(?:[a-z]+\s+)??([a-z]{3,})(?:\s+([a-z]{3,}))?"
                            r"(?:\s+(?:is|reads|says))?\s*[:,]?\s*$", re.I)
#: Words after "the"/"this" that do not name a text ("the same as", "the following")
_NOT_NAMES = {"same", "one", "ones", "way", "following", "next", "other", "whole", "entire", "rest", "first", "second", "last",
              "which", "that", "who", "what", "where", "when"}


def quote_reference(reading: RequestReading, clause: Span) -> int | None:
    """The quoted text (its index in ``reading.quotes``) that a clause with no quote of its own
    points at: by order among two or more ("the second one"), or by the name the request gave it
    where it quoted it ("this tweet: '...'", then "read the tweet aloud"). None when it points at
    none, or when it names a step's result ("the summary", "the translated text")."""
    quotes = reading.quotes
    if not quotes or any(clause.start <= q.start < clause.end for q in quotes) or named_results(clause.text) or RESULT_REF_RE.search(clause.text):
        return None
    words = clause.text
    if len(quotes) >= 2:
        for m in _QUOTE_ORDINAL_RE.finditer(words):
            at = clause.start + m.start()
            if any(f.start <= at < f.end for f in reading.files):
                continue  # an ordinal already read as a file ("the second photo")
            n = ORDINALS[m.group(1).lower()]
            if -len(quotes) <= n < len(quotes):
                return n % len(quotes)
    for i, q in enumerate(quotes):
        start = max(0, q.start - 40, quotes[i - 1].end if i else 0)
        before = re.split(r"[.!?]\s", reading.text[start : q.start])[-1].rstrip("'\"\u201c\u2018")
        m = _QUOTE_NAME_RE.search(before)  # the words that introduce the quote, right before it
        names = {w.lower() for w in (m.groups() if m else ()) if w and w.lower() not in _NOT_NAMES and not named_results(w)}
        if any(re.search(rf"\b(?:the|that|this)\s+(?:[a-z]+\s+)?{re.escape(n)}\b", words, re.I) for n in names):
            return i
    return None
