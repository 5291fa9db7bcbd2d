"""A spoken request written down as the person meant it: what a speech recogniser hands over
("hey jarvis, um, can you, can you draw a cat", "say quote good morning unquote") read as a
careful typist would have typed it ("can you draw a cat", 'say "good morning"').

Why: a voice assistant's requests come from the recogniser, with the words of address, the
hesitation sounds, the stumbles and the spoken quotation marks of talk in them. A planner that
reads every word took "hey jarvis, draw a blue car" for small talk (a greeting) and drew
"um so can you, can you draw me a cat" with the stumble in the prompt. Only the forms of talk are
taken out here, by the grammar of speech (an address opens or closes an utterance, a stumble says
the same words twice over); what the request asks is left to the planner. A hesitation inside
the request stays: it is a pause, which the planner reads as one (it was trained on speech with
them), and only the steps' words drop it. Words inside quotation marks are the user's own and
are never touched.
"""

from __future__ import annotations

import re

from .extract import quoted_spans

#: Sounds of hesitation: a pause, never a word of the request.
HESITATION = r"(?:u+m+|u+h+m*|e+r+m*|h+m+|e+h+m*)"
#: "quote ... unquote": quotation marks said aloud.
_SPOKEN_QUOTE_RE = re.compile(
    r"\b(?:open(?:ing)?\s+)?quote(?:\s+marks?)?\b[\s,:]*(?P<words>\S.*?)[\s,]*"
    r"\b(?:unquote|(?:end|close|closing)(?:\s+of)?\s+(?:the\s+)?quotes?(?:\s+marks?)?)\b", re.I)
#: Words a person opens an utterance with before the request itself.
_GREETINGS = {"hey", "hi", "hello", "hiya", "yo", "oi", "howdy"}
_OPENERS = {"ok", "okay", "alright", "right", "so", "well", "oh", "yeah", "now"}
#: Words that only carry talk along, at its start ("basically, ...", "so like, ...").
_DISCOURSE = {"basically", "like", "actually", "anyway", "anyways", "listen", "look"}
_AT_THE_START = {"basically", "actually", "anyway", "anyways"}
_ONLY_BEFORE_A_PAUSE = {"listen", "look", "now"}
_PAUSES = {",", "!", ".", "-", "\u2026"}
#: Whom the request is said to: the assistant's name, or how people call out to it.
_NAME = {"jarvis"}
_CALLED = {"jarvis", "computer", "assistant", "there", "buddy", "mate", "pal", "friend"}
#: "hi there" calls out; "um, there's a dog in this" and "hey there are two" say what is.
_THERE_IS = {"'s", "is", "are", "was", "were", "'re"}
_HESITATION_RE = re.compile(HESITATION, re.I)
#: What may stand between a stumble and its restart: a comma, a hesitation.
_ONLY_A_PAUSE_RE = re.compile(rf"(?:[\s,]|\b{HESITATION}\b)*", re.I)
#: Words a speaker says twice alone while finding their feet ("the the recording", "into into
#: French"): the small words of grammar. A word of content said twice may be a name ("Bora Bora")
#: or meant ("very very big"), and is only a stumble as part of a longer run ("what does what does").
_STUMBLED_ALONE = {"a", "an", "the", "to", "into", "in", "on", "of", "for", "with", "at", "from", "by", "about", "and", "or",
                   "but", "i", "you", "it", "me", "my", "your", "we", "this", "these", "those", "can", "could", "would", "will",
                   "should", "are", "was", "were", "be", "what", "how", "which", "where", "when", "some", "any", "if", "like"}
#: How an utterance is closed: "..., thanks jarvis", "... please and thank you", "..., cheers mate".
_THANKS = r"(?:thanks|thank\s+you|cheers)(?:\s+(?:so|very)\s+much|\s+a\s+lot)?"
_CLOSING_RE = re.compile(
    rf"(?:(?:,\s*|\s+)(?:{_THANKS}\s*,?\s*)?jarvis|,\s*{_THANKS}(?:\s*,?\s*(?:mate|buddy|pal))?|,?\s+please\s+and\s+thank\s+you)"
    r"\s*([.!?]*)\s*$", re.I)
#: "in a, in an old garden": the article said again as the next word needs it is the same word.
_ARTICLE = {"an": "a"}
_TEXT_NOUNS = r"(?:sentence|text|line|passage|message|e-?mail|note|review|paragraph|tweet|post|comment|letter|headline|caption|phrase)s?"
_TEXT_NOUN_RE = re.compile(rf"\b{_TEXT_NOUNS}\b", re.I)
_PASSAGE_CUE_RE = re.compile(
    rf"\b(?:(?:the|this|that|my|his|her|their|our|your)\s+(?:\w+\s+)?{_TEXT_NOUNS}|(?P<it>it))\s+(?P<verb>says|reads|goes)"
    r"(?:\s+like)?\s*,?\s+", re.I)
#: Where a passage said inline ends: a comma and the words that open a new clause.
_NEXT_CLAUSE_RE = re.compile(r",\s*(?=(?:and\s+)?(?:then|now|please|is|are|was|does|do|did|can|could|would|will|what|how|which|who|"
                             r"read|tell|say|translate|summari[sz]e|fix|correct|check|classify|find|just|also)\b)"
                             r"|[,\s]+(?=(?:and\s+|so\s+)?(?:my|the|our)\s+question\s+is\b)", re.I)
_QUESTION_IS_RE = re.compile(r"\b(?:my|the|our)\s+question\s+(?P<is>is)\s*[,:]?\s+(?=(?:what|how|when|where|who|which|why|"
                             r"is|are|does|do|did|can|will|should)\b)", re.I)
_WORD_RE = re.compile(r"[\w']+|[^\w\s]")


def as_written(request: str) -> str:
    """``request`` without the forms of talk around and inside it (unchanged when it has none)."""
    text = _SPOKEN_QUOTE_RE.sub(lambda m: '"' + m.group("words").strip(" ,") + '"', request)
    text = _outside(_without_address(_outside(text, _without_stumbles)), _spaced).strip(" ,")
    return _with_question_set_off(_with_passage_set_off(text)) or request


def _with_question_set_off(text: str) -> str:
    """A question said after "my question is" written as a typist would ("my question is: what
    time does it close?"), so it is asked as said rather than with the words around it."""
    m = _QUESTION_IS_RE.search(text)
    if not m or quoted_spans(text[m.start():]):
        return text
    end = next((c.start() for c in _NEXT_CLAUSE_RE.finditer(text, m.end())), len(text))
    asked = text[m.end():end].rstrip(" ,.?")
    return f"{text[:m.start('is') + 2]}: {asked}?{text[end:]}"


def _with_passage_set_off(text: str) -> str:
    """A passage said after the words that introduce it ("... spam or not, it says congratulations
    you've won ...", "the sentence reads me and him was ...") put in the quotation marks a typist
    would have put there, so it is read as the text to work on. It runs to the end of the request
    or to a clause after a comma ("..., is it positive?"), and is a few words long at least; "it"
    only where a text was named before it."""
    if ":" in text or quoted_spans(text):
        return text
    m = _PASSAGE_CUE_RE.search(text)
    if not m or m.group("it") and not _TEXT_NOUN_RE.search(text, 0, m.start()):
        return text
    end = next((c.start() for c in _NEXT_CLAUSE_RE.finditer(text, m.end())), len(text))
    passage = text[m.end():end].strip(" ,.")
    if len(passage.split()) < 5:
        return text
    return f'{text[:m.end("verb")]} "{passage}"{text[m.end() + len(text[m.end():end].rstrip(" ,.")):]}'


def _outside(text: str, tidy) -> str:
    """``tidy`` applied to each stretch of ``text`` outside quotation marks."""
    out, at = [], 0
    for start, end in sorted(quoted_spans(text)):
        if start < at:
            continue
        out += [tidy(text[at:start]), text[start:end]]
        at = end
    out.append(tidy(text[at:]))
    return "".join(out)


def _spaced(text: str) -> str:
    """One space between words, none before a comma or a stop (where a word was taken out)."""
    return re.sub(r"\s+([,.!?])", r"\1", re.sub(r"\s{2,}", " ", text))


def _without_stumbles(text: str) -> str:
    """Words said twice in a row as the speaker finds their feet ("can you, can you draw",
    "the the recording", "put a, uh, a hat on it") said once, with the hesitation between."""
    words = [w for w in _WORD_RE.finditer(text) if w.group() != "," and not _HESITATION_RE.fullmatch(w.group())]
    drop: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        for n in (3, 2, 1):
            first = [_ARTICLE.get(w.group().lower(), w.group().lower()) for w in words[i:i + n]]
            second = [_ARTICLE.get(w.group().lower(), w.group().lower()) for w in words[i + n:i + 2 * n]]
            between = text[words[i + n - 1].end():words[i + n].start()] if len(second) == n else ""
            if (len(first) == n and first == second and all(w[0].isalnum() for w in first)
                    and (n > 1 or first[0] in _STUMBLED_ALONE) and _ONLY_A_PAUSE_RE.fullmatch(between)):
                drop.append((words[i].start(), words[i + n].start()))
                i += n
                break
        else:
            i += 1
    for start, end in reversed(drop):
        text = text[:start] + text[end:]
    return text


def _without_address(text: str) -> str:
    """The greeting, name and discourse words the request is said with ("hey jarvis, ...", "ok
    computer ...", "okay so basically ...", "..., thanks jarvis") taken off; a request that is
    nothing else is left as it is (small talk, answered as chat)."""
    words = list(_WORD_RE.finditer(text))
    lows = [w.group().lower() for w in words]
    i, opened = 0, False
    while i < len(words):
        w, after = lows[i], (lows[i + 1] if i + 1 < len(words) else "")
        paused = after in _PAUSES
        called = w in _CALLED and (w != "there" or i and lows[i - 1] in _GREETINGS and after not in _THERE_IS)
        if (w in {",", "!", ".", "-", "\u2026"} and i) or w in _NAME or opened and called or _HESITATION_RE.fullmatch(w):
            pass
        elif w in _GREETINGS:
            if not (w in {"hey", "yo", "oi"} or paused or after in _CALLED | _OPENERS):
                break
        elif w in _OPENERS or w in _DISCOURSE:
            leads = (paused or after in _CALLED | _OPENERS | _GREETINGS | _DISCOURSE or _HESITATION_RE.fullmatch(after)
                     or after == "you" and lows[i + 2:i + 3] == ["know"])
            if not (leads or opened and w not in _ONLY_BEFORE_A_PAUSE or w in _AT_THE_START and i == 0):
                break
        elif w == "you" and after == "know" and (opened or i == 0):
            i += 1
        else:
            break
        opened = opened or w.isalpha()
        i += 1
    if i and not any(w[0].isalnum() for w in lows[i:]):
        return text  # nothing but the greeting: small talk
    if i:
        text = text[words[i].start():]  # as cased as said: the planner reads "what's this" and "What's this" apart
    return _CLOSING_RE.sub(r"\1", text)
