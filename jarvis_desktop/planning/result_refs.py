"""Words that point back at what an earlier step made, or at what the user gave.

"Translate the summary", "based on the transcription", "the German version", "the original
photo", "it": the planner links a step to the result these words name. Plain text in (and a clause's
parse where a verb's object matters: "..., and draw a koala"), answers out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .extract import Span
from .imperatives import drawn_in_clause
from .step_words import TO_GO_WITH

#: "based on the transcription", "according to the label": an instruction taken from an earlier result.
TEXT_REF_RE = re.compile(
    r"\b(?:based on|according to|depending on|reflect\w*|using|use|guided by|in line with|inspired by|following|matching)\s+(?:the |this |that |these |those |its |my |our |your )?(?:\w+ )?"
    r"(?:transcri\w*|text|summary|translation|answer|label|labels|result|results|theme|description|caption|details|output|response|category|classification|idea|information|info|findings|words|query|question|points|content|emotions?|preferences|sentiment|mood|instructions?"
    r"|discussion|conversation|dialogue|concept|suggestions?|advice|recommendations?)\b"
    r"|\bapply (?:this|that|the) (?:edit|change|instruction)"
    r"|\badd (?:the|this|that) (?:\w+ )?(?:text|answer|caption|label|translation|summary|words)\b",
    re.I,
)
#: Words that point at an earlier step's result ("translate the summary", "read it out")
RESULT_REF_RE = re.compile(r"\b(result|generated|output|answer|summary|summarized|translation|translated|transcri\w+|description|caption|label|response|it|them)\b", re.I)
#: A picture or video asked for with its own subject ("an illustration of a Roman forum at dawn")
OWN_SUBJECT_RE = re.compile(
    r"\b(?:picture|image|painting|illustration|drawing|sketch|photo|poster|artwork|render|video|clip|animation)s?\s+(?:of|showing|depicting)\s+"
    r"(?:an?\s+|the\s+|some\s+|two\s+|three\s+)?(?!what|how|which|whatever)[a-z]{3,}", re.I)
#: "the original photo", "the original one", "the same sentence": the file or words as given, before
#: any step changed them
ORIGINAL_RE = re.compile(r"\b(?:the|my)\s+original\b|\boriginal\s+(?:photo|picture|image|recording|audio|file|one|version)\b"
                         r"|\b(?:the|my)\s+(?:actual|real|unedited|untouched)\s+(?:photo|picture|image|pic|shot|recording|audio|file|one|text)\b"
                         r"|\b(?:photo|picture|image|pic|shot|recording|audio|file|one)\s+as\s+(?:I|we)\s+(?:first\s+)?(?:sent|gave|attached|uploaded|took|recorded)\b"
                         r"|\bthe\s+same\s+(?:\w+\s+)?(?:sentence|text|words|phrase|line|quote|message)\b", re.I)
#: A result's name as one word, for a step made once per file ("the captions") or asked beside a
#: chore ("... with a short summary of each")
RESULT_NAMES = frozenset({"caption", "description", "transcript", "transcription", "summary", "translation", "answer", "result"})
#: The steps whose text is "the answer"
ANSWER_MAKERS = ("question-answering", "visual-question-answering", "document-question-answering")
#: What people call an earlier step's text when they point back at it ("read the caption aloud",
#: "the names in the transcript", "the English version"), and which steps make a text so called.
_RESULT_NOUNS = {
    ("automatic-speech-recognition",): r"transcripts?|transcriptions?",
    ("image-to-text", "text-generation"): r"captions?|descriptions?|alt[- ]text",
    ("summarization",): r"summary|summaries|recap|gist|key points|short(?:er)? version",
    ("translation",): r"translations?|translated [\w-]+",
    ("text-generation",): r"poem|story|paragraph|e-?mail|essay|haiku|lyrics|slogan|reply|draft",
    ANSWER_MAKERS: r"answers?",
}


def _result_noun_re(determiners: str) -> re.Pattern[str]:
    names = "|".join(f"(?P<g{i}>{words})" for i, words in enumerate(_RESULT_NOUNS.values()))
    return re.compile(rf"\b(?:{determiners})\s+(?:[\w-]+\s+){{0,2}}?(?:{names})\b", re.I)


_RESULT_NOUN_RE = _result_noun_re("the|that|this|your|its|those|these")
#: ... as a thing made, not one given ("read this poem aloud"): not after "this"/"these"
_MADE_NOUN_RE = _result_noun_re("the|that|your|its|those")
#: "the Spanish version", "this French description", "the Japanese one": a result named by its language.
_LANGUAGE_VERSION_RE = re.compile(r"\b(?:the|that|this|your|its)\s+([A-Z][a-z]+)\s+((?i:version|description|caption|summary|transcript|text"
                                  r"|translation|one|sentence))\b")


#: "a Portuguese version of this": a new text in a language, asked for as a thing to make
_NEW_LANGUAGE_VERSION_RE = re.compile(r"\b(?:a|an)\s+([A-Z][a-z]+)\s+(?i:version|copy|translation)\b")


def version_in_language_asked(text: str) -> bool:
    """``text`` asks for its words in another language as the thing to make ("write me a Portuguese
    version of this"): what is asked is the translation, nothing beside it."""
    return _NEW_LANGUAGE_VERSION_RE.search(text) is not None


def language_named(text: str) -> str | None:
    """The language a result is named by ("read the Spanish version" -> "Spanish"), if any; before
    "one" or "sentence" only a language the planner knows ("the Japanese one", not "the Christmas one")."""
    for m in _LANGUAGE_VERSION_RE.finditer(text):
        if m.group(2).lower() not in ("one", "sentence") or is_language(m.group(1)):
            return m.group(1)
    return None


def is_language(word: str) -> bool:
    from .detect import knowledge  # (detect reads this module)

    return knowledge().language_name_re.fullmatch(word) is not None


def named_results(text: str, made: bool = False) -> list[tuple[str, ...]]:
    """The steps whose results ``text`` points back at by name (each as the task types that make
    a text so called), in the order it names them; ``made``: only names of a thing made ("the
    short version", not "this poem")."""
    return list(dict.fromkeys(tasks for tasks, _ in result_names(text, made)))


def result_names(text: str, made: bool = False, languages: bool = False) -> list[tuple[tuple[str, ...], tuple[int, int]]]:
    """Each name of an earlier result in ``text`` ("the transcript"): the task types that make a
    text so called, and where the name stands (from its determiner); ``made`` as in
    ``named_results``; ``languages``: a made text named by its language ("the English version")
    too, as a translation's."""
    makers = list(_RESULT_NOUNS)
    found = [(makers[next(int(k[1:]) for k, v in m.groupdict().items() if v)], m.span())
             for m in (_MADE_NOUN_RE if made else _RESULT_NOUN_RE).finditer(text)]
    if made and languages:
        found += [(("translation",), m.span()) for m in _LANGUAGE_VERSION_RE.finditer(text)
                  if not m.group(0).lower().startswith("this") and language_named(m.group(0))]
    return sorted(found, key=lambda f: f[1])


_SAME_RE = re.compile(r"\b(?:that|the|this)\s+same\s+(?:picture|photo|photograph|image|pic|drawing|scan|recording|audio|clip|"
                      r"sound|file)\b", re.I)


def means_same(text: str) -> bool:
    """``text`` points at the file the step before worked on ("estimate the depth in the picture you
    made, and describe that same picture"), not at what that step made of it."""
    return bool(_SAME_RE.search(text))


#: A result named as something a step made ("the watercolour version", "the segmentation you made",
#: "the edited photo", "your cut-out")
_MADE_THING_RE = re.compile(r"\b(?:you|u)\s+(?:just\s+)?(?:made|did|drew|created|generated|wrote|produced|got)\b"
                            r"|\b(?:generated|edited|new|resulting|processed|segmented|cleaned|restyled|changed|modified)\s+"
                            r"(?:photo|picture|image|pic|version|one|audio|recording|text)\b"
                            r"|\b(?:the|that|this|your|its)\s+(?:[\w-]+\s+)?(?:version|cut-?out|segmentation|mask|result|output)\b", re.I)


#: Steps whose image is a map of the picture they read (depths, segments, the objects found), and
#: steps that read what a picture shows
_MAP_MAKERS = frozenset({"depth-estimation", "image-segmentation", "object-detection"})
PICTURE_READERS = frozenset({"image-to-text", "image-classification", "visual-question-answering"})
#: ... and every step that reads what a picture holds (the objects in it, a document's answer)
IMAGE_READERS = PICTURE_READERS | {"object-detection", "document-question-answering"}
#: Words of a step that point at the map made before it ("caption it", "count the people in the
#: cut-out"; not "seg + depth map", which names the step's own map)
MAP_REF_RE = re.compile(r"\b(?:it|them|that|(?:the|this|its)\s+(?:result|output|map|mask|cut-?out))\b", re.I)
#: Nouns of a map of a picture ("the depth map", "its edges", "the pose skeleton", "each segment")
MAP_NOUNS = r"maps?|masks?|depth|edges?|pose|skeleton|outline|lines|normals?|segment\w*"
MAP_NOUN_RE = re.compile(rf"\b(?:{MAP_NOUNS})\b", re.I)
#: ... named as what is read ("the depth image", "each segment", "the result")
_MAP_NAMED_RE = re.compile(rf"\b(?:the|this|that|its|your|each|every)\s+(?:\w+\s+)?(?:{MAP_NOUNS}|result|output)\b", re.I)
#: Nouns of a picture as what it shows, after a determiner ("the photo", "this image"); not a noun
#: in a compound ("the image attributes") nor an owner ("the image's classification")
_PICTURE_NOUNS = frozenset("photo photos photograph picture pictures image images pic pics shot snapshot snap".split())
_PICTURE_DETERMINERS = frozenset("the this that my our your".split())


def is_a_map(task: str) -> bool:
    """``task`` makes a map of the picture it reads (a control map too), not a new picture."""
    return task in _MAP_MAKERS or task.endswith("-control")


def reads_the_mapped_picture(maker: str, reader: str, tokens: Sequence, clause: Span, made_at: int) -> bool:
    """A step that reads what a picture shows (``reader``), asked in a clause after the one (at
    ``made_at``) of a step that made a map of it (``maker``), reads the picture, unless its words
    point at the map ("caption it", "based on the estimated depth"): where its clause names the
    picture ("make a depth map of this photo, then describe the image"), and after a control map,
    which shows nothing to read ("pose of the goalie, and what colour is his jersey"). In the map's
    own clause it reads the map ("which object is closest, using depth estimation on my photo")."""
    if reader not in IMAGE_READERS or not is_a_map(maker) or (
            clause.start <= made_at < clause.end):
        return False
    toks = [t for t in tokens if clause.start <= t.start < clause.end]
    if _MAP_NAMED_RE.search(clause.text) or _MADE_THING_RE.search(clause.text) or any(
            t.lower in ("it", "them", "that", "this") and t.dep in ("dobj", "pobj", "") for t in toks):
        return False  # (a pointer as what is read: "caption it", "count the cars in it"; not "is it bronze?")
    return _names_the_picture(toks) or maker.endswith("-control")


def _names_the_picture(tokens: Sequence) -> bool:
    for k, t in enumerate(tokens):
        if t.lower in _PICTURE_NOUNS and t.dep not in ("compound", "poss"):
            j = k - 1
            while j >= 0 and tokens[j].lower in ("whole", "full", "entire", "actual", "original"):
                j -= 1
            if j >= 0 and tokens[j].lower in _PICTURE_DETERMINERS:
                return True
    return False


def source_named(text: str) -> str | None:
    """What ``text`` names as the thing a step works on: "original" (the file or words as given:
    "the actual photo"), "made" (an earlier step's result: "the watercolour version"), else None."""
    if means_original(text):
        return "original"
    return "made" if _MADE_THING_RE.search(text) else None


def means_original(text: str) -> bool:
    """``text`` points at a file as given ("caption the original photo"), not in "..., not the original"."""
    return any(not re.search(r"\bnot\s*$", text[: m.start()]) for m in ORIGINAL_RE.finditer(text))


#: Words that open a step by its order ("after that", "and then")
_AFTER_THAT_RE = re.compile(r"^\W*(?:(?:and|so)\s+)?(?:after\s+(?:that|this)|then|next|afterwards)\b", re.I)
#: What a picture is for, beside what it shows ("... to go with it", "... to match them")
_TO_GO_WITH_RE = re.compile(rf"\b{TO_GO_WITH}\b", re.I)


def has_own_subject(words: str, made: set[str], tokens: Sequence = (), joined: bool = False) -> bool:
    """A picture or video asked for with a subject of its own and no word pointing back at a result.

    ``made``: the tasks planned so far; a result named ("the email") points back only when such a
    step was planned ("a nice image of cherry blossoms I can attach to the email"). ``tokens``: the
    clause's, whose own verb may name the picture ("..., and draw a koala"); ``joined``: the clause
    is a thing asked for together with the one before it (``made_together.py``)."""
    # what the picture is for ("a picture of a bakery to go with it") and the step's order ("after
    # that, generate ...") are not what it shows
    words = _TO_GO_WITH_RE.sub("", _AFTER_THAT_RE.sub("", words))
    named = [tasks for tasks in named_results(words) if set(tasks) & made]
    if RESULT_REF_RE.search(words) or TEXT_REF_RE.search(words) or named:
        return False
    if joined:  # a thing asked for together with the one before ("..., and a silly drawing for the card")
        return True
    return bool(drawn_in_clause(tokens)) or bool(OWN_SUBJECT_RE.search(words)) and not re.search(
        r"\b(?:this|that|these|those|same)\b", words, re.I)  # (the clause's parse tells a pointer from a relative "that")


#: Words that ask for one more thing of the same file ("segment street.png; depth map too", "cut the
#: mug out, and also tell me what it is"): not "too dark"
_ALSO_RE = re.compile(r"\b(?:also|as well)\b|\btoo\W*$", re.I)
#: A made file named by how it was made ("the brightened one", "the new picture")
_MADE_FILE_RE = re.compile(r"\b(?:\w+ed|new|result(?:ing)?|output)\s+(?:one|image|photo|picture|pic|version|recording|audio|file|clip)s?\b", re.I)


def asks_more_of_given(text: str) -> bool:
    """``text`` asks for one more thing of the file a step before it read, not of what that step made."""
    return bool(_ALSO_RE.search(text)) and not _MADE_FILE_RE.search(text)


#: Words just before "in LANG" that make it the language the text is in, not the one asked for
#: ("it's all in Spanish", "a meeting recorded in English", "she speaks in Welsh", "she left me a
#: voicemail in French", "I got this letter in German"); not "written in French" (a digest written
#: in French is asked for) nor "into"/"to" LANG (always asked for)
_SOURCE_LANGUAGE_RE = re.compile(r"\b(?:(?:is|are|was|were|it'?s|that'?s)(?:\s+(?:all|entirely|mostly))?|spoken|said|"
                                 r"sung|recorded|speaks?|speaking|talking|talks|"
                                 r"(?:got|received|sent|left|forwarded|mailed|texted)(?:\s+(?:me|us|him|her|them))?\s+(?:a|an|this|that|the|my|"
                                 r"his|her|our|their|some)\s+(?:[\w'-]+\s+)?(?:voice\s?mail|message|letter|note|e-?mail|memo|text|recording|"
                                 r"document|card|postcard|flyer)s?)\s+$", re.I)


def says_source(text: str, m: re.Match[str]) -> bool:
    """Whether the "in LANG" matched at ``m`` names the language ``text`` says something is in."""
    return m.group(0).lower().startswith("in ") and _SOURCE_LANGUAGE_RE.search(text, 0, m.start()) is not None


#: A thing in a language, named after it ("this Spanish letter", "the French menu"): the language
#: it is in. Before a result ("a French translation", "a Spanish voice message") or a person ("our
#: French guests") the language is the one to make.
_IN_LANGUAGE_THING_RE = re.compile(
    r"[\s-]+(?:sign|menu|letter|poster|note|e-?mail|article|text|document|doc|song|lyrics|video|recording|audio|"
    r"clip|page|message|website|site|label|book|newspaper|tweet|post|review|recipe|speaker|words?|original|"
    r"paragraph|sentence|phrase|file|pdf|speech)s?\b", re.I)


def names_target(text: str, m: re.Match[str]) -> bool:
    """Whether a language's bare name at ``m`` is the one to translate into ("caption it, then
    german", "a French translation", "she only reads Korean"): not after a preposition (those
    the "in/into/to LANG" rule reads, "from LANG" is the source), not before a thing that is
    in that language, not one the user cannot read ("I don't speak French"), not the verb "polish"."""
    before = text[: m.start()]
    if re.search(r"\b(?:from|in|into|to|of)\s+(?:the\s+)?$", before, re.I) or m.group(0) == "polish":
        return False
    if re.search(r"\b(?:don'?t|do not|doesn'?t|does not|can'?t|cannot|never)\s+(?:speak|read|understand|know)\s+$", before, re.I):
        return False
    return not _IN_LANGUAGE_THING_RE.match(text, m.end())


def bare_target(spans: Sequence[Span], quotes: Sequence[Span], name_re: re.Pattern[str]) -> str | None:
    """A language named without "in/into/to" in the first of ``spans`` (a translation's clause,
    then its sentence) that names one ("caption it, then german", "a French translation", "my
    neighbour only reads Spanish"), outside the ``quotes``."""
    for span in spans:
        for m in name_re.finditer(span.text):
            at = span.start + m.start()
            if names_target(span.text, m) and not any(q.start <= at < q.end for q in quotes):
                return m.group(0).capitalize()
    return None


def target_languages(text: str, list_re: re.Pattern[str], name_re: re.Pattern[str]) -> list[str]:
    """The languages a clause asks a translation into, once each, in the order named (not the
    one it says the text is in: "it's in Spanish, tell me what she says in English")."""
    names = [n for m in list_re.finditer(text) if not says_source(text, m) for n in name_re.findall(m.group(0))]
    return list(dict.fromkeys(n.capitalize() for n in names))
