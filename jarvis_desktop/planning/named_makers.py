"""Steps added because another step needs what they make: a picture or a sound to read that no one
gave ("picture of the water cycle, then caption it"), a result the request names for speech to read
("..., then read the short version to me"), the caption of a made picture to speak. Each is taken
where the model is at least a little sure of it (``floor``: the fallback's bar), the step that
needs it being the evidence it is wanted."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..media import Attachment
from .detect import given_kinds
from .extract import RequestReading
from .given_text import ANSWERING_FILES, outside_quotes
from .imperatives import ASKING_FOR, MAKING_VERBS, WRITINGS, writing_asked
from .result_refs import ANSWER_MAKERS, RESULT_NAMES, named_results
from .step_labels import CONTROL, GUIDED, IMAGE_MAKERS, TEXT_MAKERS, media_input, media_output
from .speech_asked import names_something, speaks_only_a_result, speaks_statement
from .step_words import DIRECT_QUESTION_RE, YOU_WORDS
from .stepmodel import StepModel


def makers_of_missing_media(found: list[tuple[int, int, str]], P: np.ndarray, m: StepModel, reading: RequestReading,
                            attachments: list[Attachment], floor: float, drawn: Callable[[int], set[str]]) -> list[tuple[int, int, str]]:
    """A step that reads a picture (or a sound) when none was given or is made: the picture is the
    one an earlier clause, that no step claimed, names ("picture of the water cycle, then caption
    it"), taken there at ``floor``, the step that reads it being the evidence it is wanted, or
    whatever the model's doubt where that clause's own verb makes it (``drawn``: the kinds of thing
    the clause at an index makes; "first paint a ballerina, then use her pose from that painting")."""
    given = set(given_kinds(reading, attachments))
    claimed = {i for i, _, _ in found}
    out: list[tuple[int, int, str]] = []
    for i, j0, label in sorted(found):
        kind = media_input(label)
        maker = TEXT_MAKERS.get(kind or "")
        # made by another step up to its clause; not by itself nor, for a guided picture, by a plain
        # picture found in its own clause, the same words read twice ("... then use the knight's pose
        # from that picture to make a businessman": the picture it reads is the knight's)
        have = given | {media_output(lab) for k, j, lab in found + out if k < i or k == i and j != j0 and label != GUIDED}
        if kind in have or maker not in m.labels:
            continue
        j = m.labels.index(maker)
        earlier = [k for k in range(i) if k not in claimed]
        if earlier and P[(k := max(earlier, key=lambda k: P[k, j])), j] >= floor:
            out.append((k, j, maker))
        elif made := [k for k in earlier if kind in drawn(k)]:
            out.append((made[-1], j, maker))
    return out


#: Steps that make a text readable or audible, not an answer to anything ("transcribe the talk, and
#: answer ... from it, then say the answer out loud": the answer is still to be found)
_NOT_ANSWERS = {"text-to-speech", "automatic-speech-recognition", "translation"}


def makers_of_named_results(found: list[tuple[int, int, str]], P: np.ndarray, views: list, m: StepModel,
                            floor: float) -> list[tuple[int, int, str]]:
    """Speech that reads a result the request names ("..., and after that read the short version to
    me aloud", "then read that answer back to me") when no step makes it: the maker the model likes
    most in that clause or one before, taken at the fallback's bar, the words naming the result
    being the evidence it is wanted. "The answer" is of any step that judges or answers."""
    labels = {label for _, _, label in found}
    out: list[tuple[int, int, str]] = []
    for i, _, label in sorted(found):
        if label != "text-to-speech":
            continue
        for makers in named_results(views[i].span.text, made=True):
            if labels & set(makers) or (makers == ANSWER_MAKERS and labels - _NOT_ANSWERS):
                continue
            p, k, task = max(((float(P[k, m.labels.index(t)]), k, t) for t in makers if t in m.labels for k in range(i + 1)),
                             default=(0.0, 0, ""))
            if task and p >= floor:
                out.append((k, m.labels.index(task), task))
                labels.add(task)
    return out


def captions_to_speak(found: list[tuple[int, int, str]], P: np.ndarray, m: StepModel, reading: RequestReading,
                      attachments: list[Attachment], floor: float) -> list[tuple[int, int, str]]:
    """Speech with no words to speak but a picture before it ("make a cabin in the snow, then tell
    me out loud what you made"): what it says is the picture's caption, when the model reads one
    there at all (the fallback's bar), rather than the request's own words."""
    i2t = "image-to-text"
    speech = sorted(i for i, _, label in found if label == "text-to-speech")
    given = given_kinds(reading, attachments)
    if not speech or i2t not in m.labels or reading.quotes or "text" in given:
        return []
    i = speech[0]
    if any(k <= i and label not in IMAGE_MAKERS | {CONTROL, "text-to-speech"} for k, _, label in found):
        return []  # a step that reads something: its words are what is spoken
    pictures = "image" in given or any(k < i and media_output(label) == "image" for k, _, label in found)
    j = m.labels.index(i2t)
    return [(i, j, i2t)] if pictures and P[i, j] >= floor else []


#: Steps that answer a question on a picture (its answer, not its description)
_PICTURE_ANSWERS = (*sorted(ANSWERING_FILES), "image-classification")
#: Questions that ask what a picture shows or says: its caption answers them
_DESCRIBING_RE = re.compile(
    r"\bwhat(?:'s|s| is| are)?\s+(?:in|on|going on|happening|shown|there|this|that|it)\b(?!\s+\w+\s+(?:is|are)\b)"
    r"|\bwhat(?:'s|s| is| are)\s+(?:written|printed|typed|depicted)\b"  # "what's written on this poster"
    # "what does the label say", "what the sign says"; not "what oven temp does the card say"
    r"|\bwhat\s+(?:(?:does|do)\s+)?(?:the|this|that|it|its|my|your|his|her|their)\b[^?.,!]{0,40}?\b(?:says?|reads?|shows?|looks? like)\b"
    r"|\bwhat you see\b"
    r"|\bread (?:(?:me|us|out|aloud)\s+)*what\b|\bdescri|\bcaption", re.I)


def asks_what_it_shows(text: str) -> bool:
    """The words ask what a picture shows or says as a whole ("what's written on this poster",
    "what does the label say"), which its caption or its text answers; not a thing in it ("what's
    the answer written for question two", "what oven temperature does the card say")."""
    return _DESCRIBING_RE.search(text) is not None


#: Words that open a question somewhere in a clause ("tell me out loud what flower this is")
_ASKING_RE = re.compile(r"\b(?:what|which|who|whose|where|when|how many|how much)\b", re.I)


def questions_not_captions(found: list[tuple[int, int, str]], P: np.ndarray, labels: list[str], views: list,
                           given: list[str], reading: RequestReading) -> list[tuple[int, int, str]]:
    """A question on a picture given whose answer is to be spoken ("what's the weather like in this
    picture, tell me out loud", "whose name is on the scan? read it to me"): the model, hearing
    speech about a picture, leans to its caption; the step that answers the question (the one the
    model likes most of a picture's answers) is asked it instead. Not a question on what the
    picture shows or says ("what's going on in this photo? say it"), which its caption answers."""
    labels_found = {label for _, _, label in found}
    if ("image" not in given or "text-to-speech" not in labels_found or "image-to-text" not in labels_found
            or labels_found & {*_PICTURE_ANSWERS, "object-detection"} or given.count("image") > 1):
        return found
    own = [outside_quotes(v.span.text, reading) for v in views]  # a question quoted is words to work on, not asked
    asked = [k for k, text in enumerate(own) if _ASKING_RE.search(text) and not asks_what_it_shows(text)]
    answers = [labels.index(x) for x in _PICTURE_ANSWERS if x in labels]
    if not asked or not answers:
        return found
    k = asked[0]
    j = max(answers, key=lambda c: P[k, c])
    # a caption asked in words of its own stays ("..., and also write a caption for the yearbook")
    return [(k, j, labels[j]) if label == "image-to-text" and not asks_what_it_shows(own[i]) else (i, jj, label)
            for i, jj, label in found]


#: Words that put a yes-or-no question inside a clause ("tell me out loud if they're upset")
_JUDGING_MARKS = {"if", "whether"}


def _politeness(after: list) -> bool:
    """ "if you can", "if possible", "if you don't mind": a courtesy, not a question."""
    return bool(after) and (after[0].lower in YOU_WORDS | {"possible", "needed", "necessary"})


def judgments_asked_in_speech(found: list[tuple[int, int, str]], P: np.ndarray, m: StepModel, seg, views: list,
                              floor: float) -> list[tuple[int, int, str]]:
    """Speech that asks a yes-or-no judgment of words an earlier step wrote ("work out what they
    said and then tell me out loud if they're upset about it"): the judgment is made on those
    words and spoken, not the words themselves. The step is the one the model likes most there
    among those that judge words, when at least a little sure of one (``floor``)."""
    judges = [j for j, label in enumerate(m.labels) if label not in ("text-to-speech", "conversational")
              and media_output(label) == "text" and media_input(label) is None]
    out = []
    for i in sorted({i for i, _, label in found if label == "text-to-speech"}):
        if any(k == i and label != "text-to-speech" for k, _, label in found + out):
            continue  # the clause has a step of its own
        if not any(k < i and media_output(label) == "text" for k, _, label in found):
            continue  # no words written before to judge
        toks = seg.tokens_in(views[i].span)
        if not any(t.lower in _JUDGING_MARKS and t.dep == "mark" and not _politeness(toks[n + 1:n + 3])
                   for n, t in enumerate(toks)):
            continue
        j = max(judges, key=lambda j: P[i, j])
        if P[i, j] >= floor:
            out.append((i, j, m.labels[j]))
    return out


def _new_thing(toks: list, n: int) -> int | None:
    """Where the determiner of the noun at ``n`` is when the noun is a new thing: "a", "an",
    "another" or "some" before it, with only its describing words between ("a little spoken
    birthday message", "a short get-well message"); else None."""
    k, words = n - 1, 0
    while k >= 0 and words < 4:
        u = toks[k]
        if u.lower in _NEW:
            return k
        hyphened = _in_word_dash(toks, k) or k + 1 < n and _in_word_dash(toks, k + 1) or k > 0 and _in_word_dash(toks, k - 1)
        if not (hyphened or u.pos in ("ADJ", "ADV", "NOUN", "PROPN") or u.tag == "VBN"):
            return None
        words += u.text != "-" and not (k > 0 and toks[k - 1].text == "-")
        k -= 1
    return None


def _speech_alone(found: list[tuple[int, int, str]]) -> int | None:
    """The clause of the first speech step when no step in it or before it reads or makes words
    for it to speak, else None."""
    speech = min((i for i, _, label in found if label == "text-to-speech"), default=None)
    if speech is None or any(k <= speech and label != "text-to-speech" for k, _, label in found):
        return None
    return speech


_NEW = {"a", "an", "another", "some"}
#: Verbs that hand the user something new to hear ("give me a pep talk out loud", "make him a
#: little spoken birthday message"): what they give is made, whatever it is called, unless its
#: name is of the sound itself (``_SOUNDS``: "make an audio version")
_GIVING = ASKING_FOR | MAKING_VERBS | {"offer", "record", "prepare"}
#: ... of which these only when the thing is asked for as sound ("I need a spoken reminder", not "I
#: need a name for my goldfish, say it out loud": a wish the chat answers)
_WISHING = {"want", "need"}
_HEARD_AS = {"spoken", "audio", "voice", "recorded", "sound"}
_SOUNDS = {"version", "file", "recording", "clip", "track", "copy", "audio", "voice", "sound", "mp3", "reading", "voiceover", "readout"}
#: "something nice", "anything funny": words not given, to be made up
_SOME_THING = {"something", "anything"}
#: Things named only as messages, which say nothing of what they say
_CARRIERS = {"memo", "note", "message", "msg", "voicemail"}
#: Words that size a thing or name its sound, not what it says ("a short audio memo")
_NOT_WHAT = {"short", "quick", "little", "brief", "small", "new", "long"} | _HEARD_AS
#: Words after a thing that say what it says ("a message for my mum", "a voice note wishing Tom luck")
_ABOUT = {"for", "about", "to", "wishing", "telling", "congratulating", "thanking", "asking", "reminding", "inviting"}


def _in_word_dash(toks: list, i: int) -> bool:
    """A hyphen inside a word ("get-well"), touching the words on both sides."""
    t = toks[i]
    return t.text == "-" and 0 < i < len(toks) - 1 and toks[i - 1].start + len(toks[i - 1].text) == t.start == toks[i + 1].start - 1


def _spaced_dash(toks: list, i: int) -> bool:
    """A dash set off by spaces ("a voice note - buy milk"), not one inside a word ("get-well")."""
    t = toks[i]
    return t.text in ("-", "\u2013", "\u2014") and i > 0 and toks[i - 1].start + len(toks[i - 1].text) < t.start


def _says_what_about(toks: list, n: int, det: int) -> bool:
    """The new thing at ``n`` (its determiner at ``det``) says what it is ("a meditation", "an
    excuse"), or, named only as a message (``_CARRIERS``), comes with what it is to say: a word
    before it naming its kind or mood ("a birthday message", "a funny voice note") or words after it
    ("a voice note for my team", "... wishing Tom luck"). Not a bare "record an audio memo" (one the
    user records), nor one whose words the request says in a clause of its own ("a voice note that
    sounds as cheerful as I feel": speech says them)."""
    if toks[n].lemma not in _CARRIERS:
        return True
    return any(u.lower not in _NOT_WHAT and u.text != "-" and u.pos in ("ADJ", "NOUN", "PROPN", "VERB") for u in toks[det + 1:n]) or any(
        u.lower in _ABOUT for u in toks[n + 1:n + 3])


def writings_to_speak(found: list[tuple[int, int, str]], m: StepModel, reading: RequestReading,
                      attachments: list[Attachment], seg, views: list) -> list[tuple[int, int, str]]:
    """Speech of a piece of writing that is not there yet ("tell me a joke out loud", "a bedtime
    story about a fox, out loud please"): the writing is made first and its words are spoken, not the
    request's own. Only where nothing before the speech reads or makes words to speak, and no words
    were given."""
    writer = "text-generation"
    i = _speech_alone(found)
    if i is None or writer not in m.labels or reading.quotes or "text" in given_kinds(reading, attachments):
        return []
    for c in range(i + 1):  # the speech's clause, or one before it ("give me a pep talk and read it aloud")
        toks = seg.tokens_in(views[c].span)
        if writing_asked(toks):  # "come up with two mottos for my club and read them out"
            return [(c, m.labels.index(writer), writer)]
        for n, t in enumerate(toks):
            if t.lower in _SOME_THING and n + 1 < len(toks) and toks[n + 1].pos == "ADJ":
                return [(c, m.labels.index(writer), writer)]  # "say something nice to me": made up first
            det = _new_thing(toks, n) if t.pos == "NOUN" else None
            if det is None:
                continue
            g = next((k for k in range(n) if toks[k].pos == "VERB" and toks[k].lemma in _GIVING), None)
            given_to_hear = (g is not None and t.dep in ("dobj", "ccomp", "oprd") and t.lemma not in _SOUNDS | RESULT_NAMES
                             and not (attachments or reading.files)  # "a voice message for mom about this photo": the photo's words
                             and (toks[g].lemma not in _WISHING or any(u.lower in _HEARD_AS for u in toks))
                             and not any(u.lower in ("saying", "says") or u.text == ":" or _spaced_dash(toks, i) for i, u in enumerate(toks[n:], n)))
            # ("a voice note saying hi", "a voice memo: buy milk", "a voice note - buy milk": its words)
            if t.lemma in WRITINGS or given_to_hear and _says_what_about(toks, n, det):
                return [(c, m.labels.index(writer), writer)]
    return []


def answers_to_speak(found: list[tuple[int, int, str]], P: np.ndarray, m: StepModel, seg, views: list,
                     given: list[str], quoted: bool, floor: float) -> list[tuple[int, int, str]]:
    """Speech after a question no step answers ("what's the main point? tell me out loud" with a
    document given): what it says is the answer, so the question gets the step the model likes most
    for it among those that read words or a file of a kind ``given``, when at least a little sure of
    one (``floor``), rather than the speech reading the file or the request aloud. With no file and
    no words ``quoted``, the chat partner answers it."""
    i = _speech_alone(found)
    if i is None:
        return []
    asked = [k for k in range(i) if views[k].span.text.rstrip().endswith("?")
             and DIRECT_QUESTION_RE.search(views[k].span.text.lstrip(" ,.;:-"))]  # not "would you kindly ...?"
    if not asked and speaks_only_a_result(seg.tokens_in(views[i].span)):
        # "flip a coin and tell me the result out loud": the result is of the words before
        asked = [k for k in range(i) if names_something(seg.tokens_in(views[k].span))][-1:]
        # "dinner is at six, say it": those words are spoken (plan_state.statement_spoken), not replied to
        asked = [k for k in asked if not (k == i - 1 and speaks_statement(seg.tokens_in(views[k].span), views[i].span.text))]
    if not asked:
        return []
    k = asked[-1]
    if not given and not quoted:
        # no file or quoted words to answer from ("who won the world cup in 2018? say it out
        # loud"): the chat partner answers, and its answer is spoken, not the words; a question
        # about the assistant itself ("what is your name?") is chat unless hearing the answer is
        # plainly asked ("how old are you? say it out loud"), not a doubtful "say" further on
        chat = "conversational"
        about_you = any(t.lower in YOU_WORDS for t in seg.tokens_in(views[k].span))
        plainly = P[i, m.labels.index("text-to-speech")] >= m.threshold
        return [(k, m.labels.index(chat), chat)] if chat in m.labels and (plainly or not about_you) else []
    j = max((j for j, label in enumerate(m.labels) if label != "text-to-speech" and media_output(label) == "text"
             and media_input(label) in (None, *given)), key=lambda j: P[k, j])
    return [(k, j, m.labels[j])] if P[k, j] >= floor else []


#: What "answer ..." acts on when it asks for an answer step, not a reply ("answer this email")
_ASKED_THINGS = {"question", "questions", "query", "queries"}


def answers_commanded(found: list[tuple[int, int, str]], P: np.ndarray, m: StepModel, seg, views: list,
                      given: list[str], quoted: bool) -> list[tuple[int, int, str]]:
    """A clause that commands an answer to a question ("answer the question in my recording from
    what the page says") gets the answering step the model likes most for it among those that
    read what is given, when no step of the request answers: led by the recording, the model found
    only the speech recognition that reads the question, and the plan spoke the question back.
    Words given or read off a picture are answered from as words (question answering).
    With no file and no quoted words the chat partner answers ("answer my question: ...")."""
    if not (given or quoted) or any(label in ANSWER_MAKERS for _, _, label in found):
        return []
    for k, view in enumerate(views):
        tokens = seg.tokens_in(view.span)
        commands = [t for t in tokens if t.lemma == "answer" and t.pos == "VERB" and t.tag in ("VB", "VBP")]
        if not commands:
            continue
        after = [t.lower for t in tokens if t.start > commands[0].start][:4]
        if not _ASKED_THINGS & set(after):
            continue
        if "text" in given or quoted or any(media_input(label) == "image" and media_output(label) == "text" for _, _, label in found):
            options = ["question-answering"]  # words to answer from, given or read off a picture
        else:
            options = [label for label in ANSWER_MAKERS if media_input(label) in given]
        if options := [m.labels.index(label) for label in options if label in m.labels]:
            j = max(options, key=lambda j: P[k, j])
            return [(k, j, m.labels[j])]
    return []
