"""What a request says not to do, taken out before planning: "summarise it without reading it
out", "caption it instead of describing it out loud", "not a video, just a still image", "use its
depth, not the edges", "skip the summary, just translate it", "scratch the reading part", "spare me
the summary", "never mind the caption".

Why: the step finder reads the words of a step wherever they stand, so "without reading it out"
asks for speech as loudly as "read it out" does. These are grammar (a preposition of exclusion
before a verb, a contrast opened by "not", a command to skip something), not any task's words;
a skipped thing that names a step asked earlier ("read it back to me ... scratch the reading
part") withdraws that step too. "A cake without candles", "a song about not giving up", "is it
not rude?" and quoted words are left alone.
"""

from __future__ import annotations

import re
from typing import Any

from ..english import parse
from .extract import quoted_spans

#: Words that end the phrase a correction or an exclusion is made of.
BOUNDARY_WORDS = {"and", "then", "but", "so", "because", "since", "as", "while", "or"}
SUBJECTS = {"i", "we", "he", "she", "they"}
#: Words that turn to what is wanted after what is not ("skip the summary, just translate it").
_TURNS = {"just", "only", "instead", "please"}
_PUNCT = {".", "!", "?", ";", ":", ","}
#: Prepositions of exclusion, before a verb ("without reading it out", "instead of translating").
_EXCLUDING = [("instead", "of"), ("rather", "than"), ("without",)]
#: Commands to leave something out ("skip the summary", "leave out the reading part").
SKIPPING = [("leave", "out"), ("leave", "off"), ("skip",), ("forget",), ("scratch",), ("drop",), ("ditch",), ("omit",),
            ("spare", "me"), ("spare", "us"), ("never", "mind")]
#: Words before a verb that make it no command ("why they shouldn't skip practice").
_NOT_COMMANDED = {"to", "n't", "not", "never", "'ll", "will", "would", "should", "could", "can", "might", "must", "may", "'d"}
#: Letters two words share to be one family ("reading" and "read", "translation" and "translate").
STEM = 4


def phrase_end(doc: Any, k: int) -> int:
    """The token after the phrase that starts at ``k``: at punctuation, a connective, or a new
    clause with its own subject ("... just clean it up i'll listen to it myself")."""
    j = k
    while j < len(doc):
        t = doc[j]
        if j > k and (t.text in _PUNCT or t.lower_ in BOUNDARY_WORDS or t.lower_ in _TURNS):
            break
        if j > k and t.lower_ in SUBJECTS and any(u.pos_ in {"VERB", "AUX"} for u in doc[j + 1 : j + 3]):
            break
        if j > k + 1 and t.tag_ == "VB" and doc[j - 1].lower_ not in _NOT_COMMANDED and doc[j - 1].tag_ != "MD":
            break  # "skip the summary translate it": the next command
        j += 1
    return j


def _words_at(words: list[str], i: int, seqs: list[tuple[str, ...]]) -> int:
    for seq in seqs:
        if tuple(words[i : i + len(seq)]) == seq:
            return len(seq)
    return 0


def _family(a: str, b: str) -> bool:
    return len(a) >= STEM and len(b) >= STEM and a[:STEM] == b[:STEM]


def _verb_of(doc: Any, i: int, n: int) -> Any:
    """The command's verb among the ``n`` words of a skipping phrase at ``i`` ("skip", "spare me",
    "never mind"), None when none is a command: a verb in its base form, or one the tagger read as
    present tense where a command opens (", spare me the summary")."""
    opens = i == 0 or doc[i - 1].is_punct or doc[i - 1].lower_ in ("and", "but", "so", "just", "please")
    return next((doc[q] for q in range(i, i + n) if doc[q].tag_ == "VB" or opens and doc[q].tag_ == "VBP"), None)


#: Quick test for the words of an exclusion: only requests with one are parsed here.
_MAYBE = re.compile(r"\b(?:without|instead of|rather than)\s+\w+ing\b|(?:^|[,.;!?]\s*)not\b|\b(?:skip|forget|scratch|drop|ditch|omit|"
                    r"leave out|leave off|spare (?:me|us)|never mind)\b", re.I)


def without_unwanted(text: str) -> str:
    """``text`` without the phrases that say what not to do (and steps they withdraw)."""
    if not _MAYBE.search(text) or (doc := parse(text)) is None:
        return text
    quoted = quoted_spans(text)
    words = [t.lower_ for t in doc]

    def free(j: int) -> bool:
        return not any(a <= doc[j].idx < b for a, b in quoted)

    cut: list[tuple[int, int]] = []  # token ranges to take out
    for i, t in enumerate(doc):
        if not free(i):
            continue
        if n := _words_at(words, i, _EXCLUDING):
            if i + n < len(doc) and doc[i + n].tag_ == "VBG":
                cut.append((i, phrase_end(doc, i + n)))
        elif words[i] == "not" and i + 1 < len(doc) and (i == 0 or doc[i - 1].text in {",", ".", "!", "?", ";"}) and (
                doc[i + 1].pos_ in {"DET", "NOUN", "PROPN", "VERB"}) and doc[i + 1].lemma_ not in {"do", "be", "have", "even"}:
            # "Not a video, just a picture", "use its depth, not the edges"
            cut.append((i, phrase_end(doc, i + 1) + (i == 0 or doc[i - 1].text in {".", "!", "?"})))
        elif (n := _words_at(words, i, SKIPPING)) and (verb := _verb_of(doc, i, n)) is not None and (
                i == 0 or words[i - 1] not in _NOT_COMMANDED) and (
                not any(c.dep_ == "nsubj" and c.i >= i - 2 for c in verb.children)) and i + n < len(doc) and doc[i + n].pos_ in {
                "DET", "NOUN", "PROPN"}:  # not "I skip the summary" (a subject just before it; not one the parser found far off)
            end = phrase_end(doc, i + n)
            named = [words[j] for j in range(i + n, end)]
            cut.append((i, end))
            asked = [j for j in range(i) if free(j) and doc[j].pos_ == "VERB" and any(_family(doc[j].lemma_, w) for w in named)]
            if asked:  # "read it back to me, actually scratch the reading part"
                cut.append((asked[-1], phrase_end(doc, asked[-1])))
    if not cut:
        return text
    keep, last = [], 0
    for a, b in sorted(cut):
        ca = doc[a].idx
        if ca < last:
            continue
        keep.append(text[last:ca])
        last = doc[b].idx if b < len(doc) else len(text)
    keep.append(text[last:])
    return tidy("".join(keep))


_SPACES = re.compile(r"[ \t]{2,}")
_LOOSE_PUNCT = re.compile(r"\s+([,.;:!?])")
_DOUBLE_PUNCT = re.compile(r"([,;:])\s*([,.;:!?])|([.!?])\s*[,.;:]+(?!\.)")
_DANGLING = re.compile(r"(?:^|(?<=[.!?]\s))\s*,\s*|\s+(?:and|then|but)\s*(?=[.!?]|$)", re.I)


def tidy(text: str) -> str:
    """The request after words were taken out: no doubled commas, no sentence opening with one."""
    text = _SPACES.sub(" ", text)
    text = _LOOSE_PUNCT.sub(r"\1", text)
    text = _DOUBLE_PUNCT.sub(lambda m: m.group(2) or m.group(3), text)
    text = _DANGLING.sub("", text)
    return text.strip(" ,")
