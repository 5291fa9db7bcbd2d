"""Words given, asked to be turned into a new piece of writing: "convert notes.txt into a tweet",
"turn my voice memo into a to-do list".

The classifier learns writing steps from the names of writings it saw (poem, story, email); a
form it never saw ("a to-do list", "a podcast intro") leaves it with the file alone, so the
request planned nothing, or only the memo's transcription. The grammar says enough: a verb of
changing, "into a ...", and no picture, sound or video named as what it becomes; the words come
from a text or a recording, so the new form is a piece of writing made from them.
"""

from __future__ import annotations

from .step_labels import media_input
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
