"""A spoken request written down as the person meant it: what a speech recogniser hands over
("hey jarvis, um, can you, can you draw a cat", "say quote good morning unquote") read as a
careful typist would have typed it ("can you draw a cat", 'say "good morning"').

Why: a voice assistant's requests come from the recogniser, with the words of address, the
stumbles and the spoken punctuation of talk in them. A planner that reads every word took "hey
jarvis, draw a blue car" for small talk (a greeting) and drew "can you, can you draw me a cat"
with the stumble in the prompt. Only the forms of talk are taken out or written as a typist
would, by the grammar of speech: an address to the assistant opens or closes an utterance, a
stumble says the same small words twice over, "quote ... unquote" are quotation marks, and a
passage said after "it says" is set off as a quotation. What the request asks is left to the
planner. Talk that calls no one ("okay so um, ...") and a hesitation inside the request stay: the
planner was trained on speech with them and reads them as the pauses they are; only the steps'
words drop them (step_words). Words in quotation marks and a text pasted after a
colon are the user's own and are never touched, and a request with no talk in it comes back as it
was.
"""

from __future__ import annotations

import re

from .extract import pasted_span, quoted_spans

#: Sounds of hesitation: a pause, never a word of the request. Lower case as the recogniser
#: writes them ("Um" opening a sentence): "ER" and "HM" are words.
HESITATION = r"(?-i:[Uu]+m+|[Uu]+h+m*|[Ee]+r+m*|[Hh]+m+|[Ee]+h+m*)(?![\w'-])"
HESITATION_RE = re.compile(rf"(?<![\w-]){HESITATION}")
#: "quote ... unquote": quotation marks said aloud; not "the quote, end quote".
_SPOKEN_QUOTE_RE = re.compile(
    r"(?<!\bthe\s)(?<!\ba\s)(?<!\bthis\s)(?<!\bthat\s)\b(?:open(?:ing)?\s+)?quote(?:\s+marks?)?\b[\s,:]*(?P<words>[^\s,].*?)[\s,]*"
    r"\b(?:unquote|(?:end|close|closing)(?:\s+of)?\s+(?:the\s+)?quotes?(?:\s+marks?)?)\b", re.I)
#: Words a person opens an utterance with before the request itself.
_GREETINGS = {"hey", "hi", "hello", "hiya", "yo", "oi", "howdy"}
_ALWAYS_GREETING = {"hey", "yo", "oi"}
_OPENERS = {"ok", "okay", "alright", "right", "so", "well", "oh", "yeah", "now"}
#: Words that only carry talk along, at its start ("basically, ...", "so like, ...").
_DISCOURSE = {"basically", "like", "actually", "anyway", "anyways", "listen", "look"}
_AT_THE_START = {"basically", "actually", "anyway", "anyways"}
_PAUSES = {",", "!", ".", "-", "\u2026"}
#: Whom the request is said to: the assistant's name, or how people call out to it.
_NAME = "jarvis"
_CALLED = {_NAME, "computer", "assistant", "there", "buddy", "mate", "pal", "friend"}
#: "hi there" calls out; "um, there's a dog in this" and "hey there are two" say what is.
_THERE_IS = {"'s", "is", "are", "was", "were", "'re"}
#: What may stand between a stumble and its restart: a comma, a hesitation.
_ONLY_A_PAUSE_RE = re.compile(rf"(?:[\s,]|{HESITATION})*")
#: Words a speaker stumbles on, saying them again as they find their feet ("the the recording",
#: "into into French", "can you, can you", "is there, um, is there"): the small words of grammar.
#: A run that starts with a word of content and is said twice is meant ("New York, New York",
#: "let it be, let it be", "tick tock tick tock").
_STUMBLED_ON = {"a", "an", "the", "to", "into", "in", "on", "of", "for", "with", "at", "from", "by", "about", "and", "or",
                "but", "i", "you", "it", "me", "my", "your", "we", "this", "these", "those", "can", "could", "would", "will",
                "should", "are", "was", "were", "be", "what", "how", "which", "where", "when", "some", "any", "if", "like"}
#: ... and the words that open a longer run only ("is there, is there", "do you, do you").
_STUMBLED_ON_BEFORE_MORE = _STUMBLED_ON | {"is", "do", "does", "did", "that", "there", "what's"}
#: "in a, in an old garden": the article said again as the next word needs it is the same word.
_ARTICLE = {"an": "a"}
#: How an utterance to the assistant is closed, after a pause: "..., thanks jarvis", "..., cheers
#: mate", "... please and thank you". Not "draw Jarvis", "a note that says, thanks" or a plain
#: "..., thanks" (which the planner was trained on).
_THANKS = r"(?:thanks|thank\s+you|cheers)(?:\s+(?:so|very)\s+much|\s+a\s+lot)?"
_CLOSING_RE = re.compile(
    rf"(?<!\bsay)(?<!\bsays)(?<!\bsaying)(?:(?:,|(?<=[.!?]))\s*(?:(?:{_THANKS}\s*,?\s*)?{_NAME}|{_THANKS}\s*,?\s*(?:mate|buddy|pal))"
    r"|,?\s+please\s+and\s+thank\s+you)\s*([.!?]*)\s*$", re.I)
#: A text named as the one whose words follow ("the sentence reads ...", "the email says ..."); not
#: the words asked about ("work out what this letter says and ...").
_TEXT_NOUNS = r"(?:sentence|text|line|passage|message|e-?mail|note|review|paragraph|tweet|post|comment|letter|headline|caption|phrase)s?"
_TEXT_NOUN_RE = re.compile(rf"\b{_TEXT_NOUNS}\b", re.I)
_PASSAGE_CUE_RE = re.compile(
    rf"\b(?<!\bwhat )(?:(?:the|this|that|my|his|her|their|our|your)\s+(?:\w+\s+)?{_TEXT_NOUNS}|(?P<it>it))\s+(?P<verb>says|reads)\s*,?\s+(?!like\b)",
    re.I)
#: Where words said inline end: a stop, a comma or "and" before the words that open a new clause,
#: "my question is", or the language the words are to be put into at the very end.
_ENDS_RE = re.compile(
    rf"[.?!](?=\s|$)|(?:,\s*|\s+and\s+)(?=(?:and\s+)?(?:{HESITATION}[\s,]+)?(?:then|now|please|is|are|was|does|do|did|can|could|would|will|what|how|which|who|"
    r"read|tell|say|translate|summari[sz]e|fix|correct|check|classify|find|just|also)\b)"
    rf"|[,\s]+(?=(?:and\s+|so\s+)?(?:{HESITATION}[\s,]+)?(?:my|the|our)\s+question\s+is\b)|\s+into\s+\w+\s*$", re.I)
_QUESTION_IS_RE = re.compile(r"\b(?:my|the|our)\s+question\s+(?P<is>is)\s*[,:]?\s+(?=(?:what|how|when|where|who|which|why|"
                             r"is|are|does|do|did|can|will|should)\b)", re.I)
_WORD_RE = re.compile(r"[\w'\u2019]+|[^\w\s]")


def as_written(request: str) -> str:
    """``request`` without the forms of talk around and inside it (itself when it has none)."""
    text = _outside(request, lambda s: _SPOKEN_QUOTE_RE.sub(lambda m: f'"{m.group("words")}"', s))
    text = _without_address(_outside(text, _without_stumbles))
    return _with_question_set_off(_with_passage_set_off(text))


def _outside(text: str, tidy) -> str:
    """``tidy`` applied to each stretch of ``text`` outside quotation marks and a pasted text."""
    out, at = [], 0
    for start, end in _kept(text):
        if start < at:
            continue
        out += [tidy(text[at:start]), text[start:end]]
        at = end
    out.append(tidy(text[at:]))
    return "".join(out)


def _kept(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds the user's own words: quotations and a text pasted after a colon."""
    return sorted(quoted_spans(text) + ([pasted] if (pasted := pasted_span(text)) else []))


def _without_stumbles(text: str) -> str:
    """Small words said twice in a row as the speaker finds their feet ("can you, can you draw",
    "the the recording", "put a, uh, a hat on it") said once, with the hesitation between."""
    words = [w for w in _WORD_RE.finditer(text) if w.group() != "," and not HESITATION_RE.fullmatch(w.group())]
    said = [_ARTICLE.get(w.group().lower(), w.group().lower()) for w in words]
    kept, at, i = [], 0, 0
    while i < len(words):
        for n in (3, 2, 1):
            run = said[i:i + n]
            if (len(said) >= i + 2 * n and run == said[i + n:i + 2 * n] and all(w[0].isalnum() for w in run)
                    and run[0] in (_STUMBLED_ON if n == 1 else _STUMBLED_ON_BEFORE_MORE) and len(set(run)) == n
                    and _ONLY_A_PAUSE_RE.fullmatch(text, words[i + n - 1].end(), words[i + n].start())):
                kept.append(text[at:words[i].start()])
                at, i = words[i + n].start(), i + n
                break
        else:
            i += 1
    return "".join(kept) + text[at:]


def _without_address(text: str) -> str:
    """The words a request is said to the assistant with, taken off: the greeting, the name and
    the talk around them ("hey jarvis, ...", "ok computer, ...", "um, hi there! ...", "..., thanks
    jarvis", "..., cheers mate", "... please and thank you"). Talk that calls no one ("okay so
    basically ...", "hey, ...") is left to the planner, which was trained on requests that open
    that way (the steps' words drop it); the assistant's name it never saw. A request that is
    nothing but an address is left as it is (small talk, answered as chat)."""
    words = list(_WORD_RE.finditer(text))
    lows = [w.group().lower().replace("\u2019", "'") for w in words]

    def paused(k: int) -> bool:  # a pause mark with a space (or the end) after it: not "ok.jpg", "well-lit"
        return k < len(words) and lows[k] in _PAUSES and (words[k].end() == len(text) or text[words[k].end()].isspace())

    def talk(k: int) -> bool:  # a word of talk comes next
        return k < len(words) and (lows[k] in _CALLED | _OPENERS | _GREETINGS | _DISCOURSE or bool(HESITATION_RE.fullmatch(lows[k]))
                                   or lows[k] == "you" and lows[k + 1:k + 2] == ["know"])

    i, opened, said_to = 0, False, False
    while i < len(words):
        w, next_word = lows[i], (lows[i + 1] if i + 1 < len(words) else "")
        leads = paused(i + 1) or talk(i + 1)
        glued = i + 1 < len(words) and words[i + 1].start() == words[i].end() and not paused(i + 1)
        if paused(i) and i:
            pass
        elif w == _NAME or opened and w in _CALLED and (w != "there" or lows[i - 1] in _GREETINGS and next_word not in _THERE_IS):
            said_to = True
        elif HESITATION_RE.fullmatch(words[i].group()):
            pass
        elif glued:
            break  # "hey-ho", "ok.jpg", "well-lit": one word with the next
        elif w in _GREETINGS:
            named = next_word[:1].isalpha() and words[i + 1].group()[0].isupper() and next_word not in _CALLED  # "Hey Jude"
            if not (leads or w in _ALWAYS_GREETING and not named):
                break
        elif w in _OPENERS or w in _DISCOURSE:
            if not (leads or w == "like" and lows[i - 1:i] == ["so"] or w in _AT_THE_START and (i == 0 or opened)):  # "so like ..."
                break
        elif w == "you" and next_word == "know" and (opened or paused(i + 2) or talk(i + 2)):  # not "you know the drill"
            i += 1
        else:
            break
        opened = opened or w[0].isalpha()
        i += 1
    if said_to and any(w[0].isalnum() for w in lows[i:]):  # (nothing but the greeting: small talk)
        text = text[words[i].start():]  # as cased as said: the planner reads "what's this" and "What's this" apart
    closed = _CLOSING_RE.search(text)
    if not closed or not text[:closed.start()].strip() or any(a <= closed.start() < b for a, b in _kept(text)):
        return text
    return text[:closed.start()] + closed.group(1)


def _with_question_set_off(text: str) -> str:
    """A question said after "my question is" written as a typist would ("my question is: what
    time does it close?"), so it is asked as said rather than with the words around it."""
    m = _QUESTION_IS_RE.search(text)
    if not m or quoted_spans(text[m.start():]):
        return text
    end = (e.start() if (e := _ENDS_RE.search(text, m.end())) else len(text))
    asked = text[m.end():end].rstrip(" ,.?")
    return f"{text[:m.end('is')]}: {asked}?{text[end:].lstrip('?')}"


def _with_passage_set_off(text: str) -> str:
    """A passage said after the words that introduce it ("... spam or not, it says congratulations
    you've won ...", "the sentence reads me and him was ...") put in the quotation marks a typist
    would have put there, so it is read as the text to work on. It runs to the end of the request,
    a stop, a new clause ("..., is it positive?", "... and my question is ...") or the language it
    is to be put into ("... into French"), and is a few words long at least; "it" only where a
    text was named before it."""
    if ":" in text or quoted_spans(text):
        return text
    m = _PASSAGE_CUE_RE.search(text)
    if not m or m.group("it") and not _TEXT_NOUN_RE.search(text, 0, m.start()):
        return text
    end = (e.start() if (e := _ENDS_RE.search(text, m.end())) else len(text))
    passage = text[m.end():end].rstrip(" ,")
    if len(passage.split()) < 5:
        return text
    return f'{text[:m.end("verb")]} "{passage}"{text[m.end() + len(passage):]}'
