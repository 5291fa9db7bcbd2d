"""Questions about what a recording says, answered from its transcript, and questions about a
document asked after it was translated, answered from the translation.

No step answers a question straight from sound, so one asked about the words of a recording the
plan transcribes ("transcribe the voicemail and tell me when the meeting starts", "they talk so
quick. what time is my appointment?") is question answering over the transcript. The classifier
reads such a clause as the transcription again (the recording is what it is about), which leaves
the question without a step of its own; these read the clause's grammar instead: a question put
directly (with its mark, or dictated without it), or indirectly as the object of a verb of telling
or knowing, that names something besides the recording itself.
"""

from __future__ import annotations

from .asked_again import paired_questions
from .detect import QUESTION_START_RE
from .given_text import ANSWERING_FILES
from .step_labels import media_output
from .step_words import QUESTION_OPENERS, QUESTION_TAGS, asks_a_choice
from .stepmodel import StepModel

TRANSCRIBE, ANSWER = "automatic-speech-recognition", "question-answering"
#: Steps that answer a question of their own kind about the words or the sound ("is the caller mad?
#: transcribe + check the sentiment", "tell me whether what they said matches"): with one planned,
#: the question is that step's
_JUDGES = frozenset({"text-classification", "token-classification", "sentence-similarity", "audio-classification"})

#: Verbs (and adjectives) that take a question as their object: "tell me when it starts",
#: "I wonder whether", "find out who called", "not sure if" (not "ask": "ask her when she's
#: coming" is a question to put to someone, not one the recording answers)
_ASKING_INDIRECTLY = frozenset("tell know wonder find figure work make check see explain guess determine understand learn remember curious sure".split())
#: Words between such a verb and its question: "tell me when", "find out who", "make out which"
_BETWEEN = frozenset("me us him her them out".split())
#: The words of a phrase saying where the answer is to be found: "from this call", "in the letter"
_WHERE_FROM = frozenset({"prep", "pobj", "det", "amod", "compound", "poss", "prt", "case"})
#: "What" asked of saying asks for the words themselves, the transcript ("tell me what they
#: said"), not for an answer found in them ("what time did she say?", "which train does he say to
#: take" are answered from the words)
_SAYING = frozenset("say tell mention talk speak discuss ask mean".split())
#: What a question names when it asks what the recording itself is or holds, or how long the work
#: takes ("what's in this recording?", "who is this?", "what are the lyrics?", "what's the main
#: point?", "how long will this take?"): nothing to answer from the words, or a step of its own
_THE_RECORDING = frozenset(("recording record audio clip message voicemail memo note call file track podcast episode song be do "
                            "lyric lyrics word words content contents transcript transcription text quality topic point main key gist "
                            "summary full exact go take long up s possible "
                            # ... or what the file or track is: its format, size, length, who made it
                            "app bitrate bpm format rate size device duration length tempo artist album band genre release "
                            "producer produce movie program play open big good best transcribe ready done cost "
                            "conversation story discussion lecture chat").split())
#: Words of the time now ("what time is it", "what day is it today"): asked of the assistant
_NOW = frozenset("time day date year today now week month".split())
#: Words that only point at the recording or say where in it ("what's in this?", "what's it about?")
_POINTERS = frozenset("this that it these those about in on of inside there".split())
#: A question about how a voice comes across ("does he sound mad?", "what's her tone") asks for a
#: judgement of the sound, not for something said (nor one of how someone looks, of a picture)
_HEARD = frozenset("sound seem feel look tone mood voice accent language speaker singer sing music background clear noise loud quiet "
                   "narrator".split())
#: Words that ask for the wording itself ("what words does she use", "what places does he mention"): the transcript, or the names in it
_WORDING = frozenset("word words quote phrase wording".split())
#: Marks that end a question's own words ("which day they moved me to, can you figure it out")
_ENDS = frozenset({",", ";", "?", "!", ".", ":", "-", "\u2013", "\u2014"})
#: A request put as a question ("can you ...?", "could I get ...?"), not one about the recording
_REQUEST_MODALS = frozenset("can could would will may".split())


def _is_question_word(t) -> bool:
    return t.tag in QUESTION_TAGS and not (t.tag == "WDT" and t.lower == "that") or t.lower == "whether"


def indirect_question(toks: list) -> int | None:
    """Where the question put indirectly in a clause begins ("tell me | when the shop opens", "work
    out from this call | who has the dog"), or None.

    The question word follows a verb of telling or knowing, directly or after its objects; after
    a noun it opens a relative clause ("the call where he mentions it") unless the parser made its
    verb the asking verb's complement. Not a yes-no question the user says they cannot answer ("I
    can't tell if he wants me to come": the reason for asking, which the words themselves answer),
    nor advice asked for ("need to know who to call": what to do, not what was said)."""
    for k, t in enumerate(toks):
        if k == 0 or not (_is_question_word(t) or t.lower == "if"):
            continue
        j = k - 1
        while j > 0 and toks[j].lower in _BETWEEN:
            j -= 1
        if toks[j].lemma == "tell" and any(u.lower in ("him", "her", "them") for u in toks[j + 1:k]):
            continue  # "tell her when I'm coming": a message to pass on
        if toks[j].lemma not in _ASKING_INDIRECTLY or toks[j].lemma == "make" and toks[j + 1].lower != "out":
            # "work out from this call | which of us has the dog": only the verb's particle and a
            # phrase saying where from come between, so the question is what the verb asks
            j = next((i for i in range(k - 2, max(-1, k - 8), -1) if toks[i].lemma in _ASKING_INDIRECTLY), None)
            if j is None or toks[j].pos != "VERB" or not all(u.lower in _BETWEEN or u.dep in _WHERE_FROM for u in toks[j + 1:k]):
                continue
        if t.lower == "if" and toks[j].lemma in ("find", "figure", "work", "determine", "make"):
            continue
        negated = any(u.dep == "neg" or u.lower in ("not", "n't", "never") for u in toks[max(0, j - 3):j])
        if not (negated and t.lower in ("if", "whether")) and not (k + 1 < len(toks) and toks[k + 1].lower == "to"):
            return k
    return None


def direct_question(toks: list) -> int | None:
    """Where a question asked directly begins in a clause: at its start, or after a lead-in set off
    by a comma or dash ("ugh she talks so fast, where's the bbq?"); marked with "?", or dictated
    without it (``_asks_unmarked``)."""
    marked = any(t.text == "?" for t in toks)
    starts = [0] + [k + 1 for k, t in enumerate(toks[:-1]) if t.text in (",", "-", "\u2013", "\u2014", ":", "...")]
    for k in starts:
        lead = k
        while lead < len(toks) and toks[lead].lower in QUESTION_OPENERS:
            lead += 1
        if lead < len(toks) and QUESTION_START_RE.match(toks[lead].text) and (marked or k == 0 and _asks_unmarked(toks, lead)):
            return lead  # (unmarked only at the start: after a comma, "the recording, which runs to ...")
    return None


def _asks_unmarked(toks: list, k: int) -> bool:
    """A question dictated without its mark ("when is the exam", "which gate does she say"): a
    question word first, then a verb, or a noun and then a verb; not a clause the word opens as a
    thing ("what I need is ...")."""
    if not _is_question_word(toks[k]):
        return False
    rest = [t for t in toks[k + 1:k + 4] if t.pos != "ADJ"]
    return bool(rest) and (rest[0].pos in ("AUX", "VERB") or rest[0].pos == "NOUN" and len(rest) > 1 and rest[1].pos in ("AUX", "VERB"))


def content_question(toks: list) -> bool:
    """Whether the clause asks something about the content of what it is about, directly ("what
    time is my appointment?") or indirectly ("tell me when the meeting starts"), and not what was
    said ("tell me what they said": the words themselves) nor what the thing is ("what's this
    about?"): the question names something besides the recording."""
    start = indirect_question(toks)
    if start is None:
        start = direct_question(toks)
        if start is None or toks[start].lower in _REQUEST_MODALS:
            return False
    end = next((k for k in range(start + 1, len(toks)) if toks[k].text in _ENDS), len(toks))
    asked = [t for t in toks[start:end] if any(ch.isalnum() for ch in t.text)]  # the question's own words
    what_said = asked[0].lower == "what" and len(asked) > 1 and asked[1].pos != "NOUN" and any(
        t.lemma in _SAYING or t.lower in ("saying", "said", "says") for t in asked)  # ("the guy's saying", read as a noun)
    about = [t for t in asked[1:] if t.lemma not in _THE_RECORDING | _NOW and t.lower not in _POINTERS and t.pos in ("NOUN", "PROPN", "VERB", "ADJ", "NUM", "PRON")]
    to_you = any(t.lower in ("you", "your", "u", "ya", "yourself") for t in asked)  # "what do you think?", "how was your weekend?"
    advice = len(asked) > 3 and asked[1].lemma in ("do", "can", "should") and asked[2].lower in ("i", "we") and (
        asked[0].lower == "how" or asked[0].lower == "who" or asked[0].lower == "what" and asked[3].lemma == "do")  # "what should I do?"
    sender = asked[0].lower == "who" and asked[-1].lower == "from"  # "who is the message from?"
    speaker = asked[0].lower == "who" and not sender and asked[-1].pos != "ADP" and (
        any(t.lemma in ("speak", "talk", "sing", "narrate") for t in asked)
        or len(asked) > 2 and asked[1].lemma == "be" and asked[2].lower in ("this", "that"))
    # ("who is the man speaking", "who's this guy": the voice; not "who she is talking about")
    wording = any(t.lower in _WORDING for t in asked) or asked[0].lower in ("what", "which") and any(t.lemma == "mention" for t in asked)
    return ((bool(about) or sender) and not what_said and not to_you and not advice and not speaker and not wording
            and not any(t.lemma in _HEARD for t in asked) and not asks_a_choice(asked))


def questions_on_transcripts(found: list[tuple[int, int, str]], P, views: list, m: StepModel, seg,
                             attached: list[str], bar: float) -> list[tuple[int, int, str]]:
    """``found`` with a question-answering step (over a transcript) for the first content question
    asked of a recording: the one recording ``attached`` (the kinds of the files given), with no
    picture given or made to ask about and no step planned that judges the words or the sound
    (``_JUDGES``), nor one the model half reads as such a step's (at ``bar``: "was the
    discussion positive overall?", "which people are named in it?", whose step the linker adds).

    Questions asked together in one sentence (``paired_questions``) are read as one. The
    question's clause may hold no step, the transcription itself ("which of the clients on this
    call agreed to the new price?"), or a step that answers from a picture, which a recording
    cannot feed; the model must read the clause as about the recording or as a question (its
    likeliest step transcribes or answers). The transcription is added where none was planned."""
    if ANSWER not in m.labels or TRANSCRIBE not in m.labels or any(label == ANSWER or label in _JUDGES for _, _, label in found):
        return found
    t, a = m.labels.index(TRANSCRIBE), m.labels.index(ANSWER)
    transcribed = any(j == t for _, j, _ in found)
    if attached.count("audio") != 1 or "image" in attached or any(media_output(label) == "image" for _, _, label in found):
        return found  # with a picture given or made, a question may be asked of the picture; with two recordings, of both
    readers = {t, a} | {m.labels.index(x) for x in ANSWERING_FILES if x in m.labels}
    judges = [m.labels.index(x) for x in _JUDGES if x in m.labels]
    for k, v in enumerate(views):
        here = {j for i, j, _ in found if i == k}
        asked = sorted(paired_questions(views, seg, k))  # "what's it about | and who are the guests?": read together
        if (here <= readers and any(int(P[q].argmax()) in readers for q in asked) and not any(P[k, j] >= bar for j in judges)
                and any(content_question(seg.tokens_in(views[q].span)) for q in asked)):
            kept = [f for f in found if f[0] != k or f[1] == t]  # a picture's answerer has no picture
            kept = [(k, t, TRANSCRIBE) if f[1] == t and f[0] in asked else f for f in kept]  # (the others' clauses left to their questions)
            return kept + ([] if transcribed else [(k, t, TRANSCRIBE)]) + [(k, a, ANSWER)]
    return found


def _commands(toks: list) -> bool:
    """The clause asks for something: a verb in its base form with no subject of its own but "you"
    ("translate this letter", "would you please put it into English"), not "they must understand it"."""
    return any(t.pos == "VERB" and t.tag == "VB" and not any(u.dep == "nsubj" and u.lower not in ("you", "u") for u in toks[max(0, k - 3):k])
               for k, t in enumerate(toks))


def questions_on_translations(found: list[tuple[int, int, str]], P, views: list, m: StepModel, seg,
                              attached: list[str]) -> list[tuple[int, int, str]]:
    """A question asked of a document's words after they were translated ("translate this letter
    into English and then tell me by which date I have to reply") is answered from the
    translation, the text the user can read, not from the document in its own language: the
    question's clause holds no step or one that answers from the document, and the model reads it
    as a question of words rather than of the scene (a question about what a photo shows still
    asks the photo)."""
    if ANSWER not in m.labels or not ("image" in attached or any(label == "image-to-text" for _, _, label in found)):
        return found
    first = min((i for i, _, label in found if label == "translation"), default=None)
    if first is None or not _commands(seg.tokens_in(views[first].span)):
        return found  # a translation only inferred ("it's in Japanese, what does it want from me?"): the question is why
    a = m.labels.index(ANSWER)
    asking = [m.labels.index(x) for x in (ANSWER, "document-question-answering", "visual-question-answering") if x in m.labels]
    for k in range(first + 1, len(views)):
        here = {label for i, _, label in found if i == k}
        of_words = m.labels[max(asking, key=lambda j: P[k, j])] != "visual-question-answering"
        if here <= {"document-question-answering"} and of_words and content_question(seg.tokens_in(views[k].span)):
            return [f for f in found if f[0] != k] + [(k, a, ANSWER)]
    return found
