"""Words given, asked to be turned into a new piece of writing: "convert notes.txt into a tweet",
"turn my voice memo into a to-do list"; or cut to a length: "trim it to a sentence", "squeeze the
description into one tweet-length line", "cut it down to like two lines".

The classifier learns writing steps from the names of writings it saw (poem, story, email); a
form it never saw ("a to-do list", "a podcast intro") leaves it with the file alone, so the
request planned nothing, or only the memo's transcription. The grammar says enough: a verb of
changing, "into a ...", and no picture, sound or video named as what it becomes; the words come
from a text or a recording, so the new form is a piece of writing made from them.
"""

from __future__ import annotations

from .counts import DURATIONS, TEXT_MEASURES
from .step_labels import media_input, media_output
from .step_words import KEEPING
from .stepmodel import StepModel

#: Verbs that change a thing into another form
_CHANGING = {"turn", "convert", "make", "rewrite", "change", "transform", "rework"}
#: Forms that are no writing: what a text becomes when it is pictured, filmed or spoken
_NOT_WRITING = {"video", "clip", "animation", "movie", "film", "gif", "sketch", "cartoon", "comic", "image", "picture",
                "photo", "drawing", "painting", "illustration", "poster", "audio", "speech", "voice", "recording",
                "sound", "song", "podcast", "audiobook", "voicemail", "memo", "file", "language", "format", "version",
                "representation", "visual", "visualization", "graphic", "chart"}
#: What another step makes of words or sound: "into a text transcript" is the transcription itself
_RESULTS = {"text", "transcript", "transcription", "translation", "summary", "caption", "description", "label", "answer"}
#: Steps that already write something from words
_WRITERS = {"text-generation", "text2text-generation", "summarization", "conversational", "translation"}


def writings_from_words(found: list[tuple[int, int, str]], m: StepModel, seg, views: list, given: list[str],
                        media_words: dict[str, set[str]]) -> list[tuple[int, int, str]]:
    """A text-generation step for each clause that changes words given (a text or a recording, no
    picture or video given) into a new form of writing, where no writing step was found there."""
    writer = "text-generation"
    if writer not in m.labels or not ({"text", "audio"} & set(given)) or {"image", "video"} & set(given):
        return []
    pictured = set().union(*(media_words.get(k, set()) for k in ("image", "audio"))) | _NOT_WRITING
    writing = {i for i, _, label in found if label in _WRITERS or media_input(label) is None and label != "text-to-speech"}
    out = []
    for i, view in enumerate(views):
        if i in writing:
            continue
        toks = seg.tokens_in(view.span)
        verb = next((n for n, t in enumerate(toks) if t.pos == "VERB" and t.lemma in _CHANGING), None)
        if verb is None:
            continue
        into = next((n for n in range(verb + 1, len(toks) - 2) if toks[n].lower == "into" and toks[n + 1].lower in ("a", "an")), None)
        if into is None:
            continue
        phrase, rest = [], toks[into + 2:]
        for n, t in enumerate(rest):
            hyphened = t.text == "-" or n + 1 < len(rest) and rest[n + 1].text == "-" or n and rest[n - 1].text == "-"
            if t.pos not in ("ADJ", "NOUN", "PROPN", "ADV") and not hyphened:
                break  # the words that name the new form ("a short to-do list"), up to "for my boss"
            phrase.append(t)
        words = {t.lemma for t in phrase} | {t.lower for t in phrase}
        if any(t.pos in ("NOUN", "PROPN") for t in phrase) and not words & (pictured | _RESULTS):
            out.append((i, m.labels.index(writer), writer))
    return out


#: What a text is measured in when someone wants it shorter (``counts.TEXT_MEASURES`` and the forms
#: of short texts); the kept parts of it ("to the essentials")
_LENGTHS = TEXT_MEASURES | {"bullet", "point", "para", "tweet"}
_KEPT_PARTS = {"essential", "essentials", "bone", "bones", "basics"}
#: Words that count a length out ("two lines", "a single sentence", "like 3 bullets")
_COUNTING = {"a", "an", "one", "single", "few", "couple", "of", "like", "just", "only", "max", "under", "about", "around", "the"}
#: Verbs that make a thing smaller; any other verb only with "down" ("bring it down to", "get it
#: down to"). Not a limit set on the step asked ("keep it to one line", "answer in one word") nor
#: a text laid out anew ("split it into two lines")
_REDUCING = {"cut", "trim", "shrink", "shorten", "condense", "compress", "reduce", "squeeze", "squash", "boil", "pare",
             "whittle", "distil", "distill", "strip", "slim", "chop", "crunch", "narrow", "abridge", "truncate", "summarise",
             "summarize"}


def shortened_to(found: list[tuple[int, int, str]], m: StepModel, seg, views: list, given: list[str], quoted: bool) -> list[tuple[int, int, str]]:
    """A summarization step for each clause where no step was found that cuts a text to a length:
    a verb of making smaller (or any verb with "down"), then "to" or "into", a counted unit of text
    ("a sentence", "two lines", "one tweet-length line") or its core ("to the essentials"). There
    must be a text to shorten: one given or quoted, or one a step before it made (a length in
    minutes only of that). A step found in the clause on a medium nobody gave or made does not
    count ("cut it down to a sentence" read as a cut-out of a picture)."""
    label = "summarization"
    if label not in m.labels or any(lb == label for _, _, lb in found):
        return []
    steps = {i for i, _, lb in found if (medium := media_input(lb)) is None or medium in given
             or any(k < i and media_output(other) == medium for k, _, other in found)}
    out = []
    for i, view in enumerate(views):
        made = any(k < i and media_output(lb) == "text" for k, _, lb in found)
        if i in steps or not (quoted or made or "text" in given or "audio" in given):
            continue
        toks = seg.tokens_in(view.span)
        verb = next((n for n, t in enumerate(toks) if t.pos == "VERB"), None)
        if verb is None or any(t.text == "?" for t in toks) or not (
                toks[verb].lemma in _REDUCING or any(t.lower == "down" for t in toks[verb + 1:verb + 4])):
            continue
        if toks[verb].lemma in KEEPING:
            continue
        units = _LENGTHS | (DURATIONS if made else set())  # "trim it to a minute" of a recording cuts the sound
        for n in range(verb + 1, len(toks) - 1):
            if toks[n].lower not in ("to", "into"):
                continue
            rest, counted = toks[n + 1:n + 6], False
            for k, t in enumerate(rest):
                if t.pos == "NUM" or t.lower in _COUNTING or t.text == "-" or t.lower.endswith(("length", "long")):
                    counted = counted or t.pos == "NUM" or t.lower in ("a", "an", "one", "single", "few", "couple")
                    continue
                nxt = rest[k + 1] if k + 1 < len(rest) else None
                if (t.lemma in units and counted or t.lower in _KEPT_PARTS) and (nxt is None or nxt.pos != "NOUN"):
                    out.append((i, m.labels.index(label), label))
                break
            if out and out[-1][0] == i:
                break
    return out
