"""The words and signals of one clause that the step classifier reads.

Quoted text and file names are replaced by what they are (a quote, an image file...), so the words
a user wants spoken or translated never look like a command, and a file's name never matters, only
its kind. Besides the clause's own words and lemmas, a few signals of the whole request: which kinds
of files came with it, whether the clause asks a question, and whether text was quoted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import re

import numpy as np

from ..media import kind_of
from .extract import RequestReading, Span
from .segment import Segmentation


@dataclass
class ClauseView:
    """A clause and the features the classifier sees for it."""

    span: Span
    head: int
    features: list[str]
    dense: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))


#: British spellings read as American ones (the training requests are mostly American).
_SPELLING = [(re.compile(r"(?<=\w\w)is(e|ed|es|ing|ation|ations|er)$"), r"iz\1"), (re.compile(r"(?<=\w\w)ys(e|ed|es|ing)$"), r"yz\1"), (re.compile(r"(?<=\w\w)our$"), "or")]
_KEEP = frozenset("raise praise promise surprise noise exercise advise advertise wise otherwise rise arise expertise precise concise paradise enterprise premise franchise devise compromise disguise chemise treatise hour your our four pour tour flour sour".split())


#: Word families by their first letters: a word the training texts never used still shares the
#: weight its relatives earned ("summarising" with "summary", "translator" with "translate")
STEM_LEN, STEM_MIN = 6, 7


#: Chat shorthand read as the word it stands for ("vid of waves", "bg gone", "count ppl"): an author
#: who writes "vid" shares what the training texts taught about "video".
SHORTHAND = {
    "pic": "picture", "pics": "picture", "pix": "picture", "img": "image", "imgs": "image", "vid": "video",
    "vids": "video", "abt": "about", "ppl": "people", "bg": "background", "pls": "please", "plz": "please",
    "n": "and", "u": "you", "ur": "your", "b4": "before", "msg": "message", "msgs": "message", "txt": "text",
    "convo": "conversation", "rec": "recording", "recs": "recording", "doc": "document", "docs": "document",
    "info": "information", "tldr": "summary", "descr": "describe", "desc": "description", "thx": "thanks",
    "seg": "segmentation", "obj": "object", "transl": "translate", "pronounc": "pronounce", "cuz": "because", "coz": "because",
}


def spelling(word: str) -> str:
    """One spelling per word: 'summarise' -> 'summarize', 'colour' -> 'color'."""
    if word in _KEEP or len(word) < 6:
        return word
    for rx, rep in _SPELLING:
        word = rx.sub(rep, word)
    return word


def _ext(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def _inside(pos: int, spans: list[Span]) -> Span | None:
    return next((s for s in spans if s.start <= pos < s.end), None)


def word_features(lower: str, lemma: str) -> list[str]:
    """One word's own features: its form, its lemma and, for a long word, its family."""
    lemma = spelling(lemma)
    feats = ["w:" + spelling(lower), "l:" + lemma]
    if len(lemma) >= STEM_MIN and lemma.isalpha():
        feats.append("s:" + lemma[:STEM_LEN])  # one family of words: summary, summarize, summarising
    return feats


def clause_views(reading: RequestReading, seg: Segmentation, attachment_kinds: list[str],
                 attachment_exts: list[str] | None = None, skip: list[tuple[int, int]] = ()) -> list[ClauseView]:
    """One view per clause of the request, in order: its features, and as its dense vector the mean
    of its word vectors followed by the encoder's vector for it in context. The words in ``skip``
    are left out (read in context by the encoder, but in no feature and no mean)."""
    from .clause_vectors import clause_vectors
    from .wordvecs import shipped_vectors

    vectors = shipped_vectors()
    in_context = clause_vectors(reading.text, [(c.start, c.end) for c in seg.clauses], list(skip)) if vectors is not None else None
    req_kinds = set(attachment_kinds) | {k for f in reading.files if (k := kind_of(f.text))}
    req_exts = set(attachment_exts or []) | {_ext(f.text) for f in reading.files}
    n_quotes = len(reading.quotes)
    out: list[ClauseView] = []
    for ci, (clause, head) in enumerate(zip(seg.clauses, seg.heads)):
        feats: list[str] = [f"R:{k}" for k in sorted(req_kinds)] + [f"RX:{e}" for e in sorted(req_exts) if e]
        if n_quotes >= 2:
            feats.append("R:quotes2")
        seq: list[str] = []
        seen_spans: set[int] = set()
        for tok in seg.tokens:
            if not (clause.start <= tok.start < clause.end) or any(a <= tok.start < b for a, b in skip):
                continue
            q = _inside(tok.start, reading.quotes) or (_inside(tok.start - 1, reading.quotes) if tok.text in ("'", '"') else None)
            if q is not None:
                if id(q) not in seen_spans:
                    seen_spans.add(id(q))
                    mark = "QUOTE?" if q.text.rstrip().endswith("?") else "QUOTE"
                    seq.append(mark)
                    feats.append(mark)
                continue
            f = _inside(tok.start, reading.files)
            if f is not None:
                if id(f) not in seen_spans:
                    seen_spans.add(id(f))
                    mark = f"FILE_{kind_of(f.text) or 'other'}"
                    seq.append(mark)
                    feats.append("F:" + (kind_of(f.text) or "other"))
                    feats.append("FX:" + _ext(f.text))
                continue
            if tok.text in ("'", '"', "\u201c", "\u201d"):
                continue
            if tok.text == "?":
                feats.append("QM")
                continue
            if not any(ch.isalnum() for ch in tok.text):
                continue
            full = SHORTHAND.get(tok.lower)
            lower, lemma = (full, full) if full else (tok.lower, tok.lemma)
            seq.append(spelling(lemma))
            feats += word_features(lower, lemma)
        feats += [f"b:{a}_{b}" for a, b in zip(seq, seq[1:])]
        if ci == 0:
            feats.append("P:first")
        if ci == len(seg.clauses) - 1:
            feats.append("P:last")
        words = [w for w in seq if not w.startswith(("QUOTE", "FILE_"))]
        dense = np.concatenate([vectors.mean(words), in_context[ci]]) if vectors is not None else np.zeros(0, dtype=np.float32)
        out.append(ClauseView(clause, head, sorted(set(feats)), dense))
    return out

