"""Whether a clause asks for its answer spoken: "read it to me", "out loud", "say the total",
"I want to hear what's in it"; not a question about speech ("what does the sign say") nor a
sound to hear ("I want to hear this song without the noise"). Parsed tokens in, yes or no out."""

from __future__ import annotations

import re

from ..media import kind_of
from .detect import ASK_RE
from .imperatives import GIVEN_DETERMINERS, MAKING_VERBS
from .result_refs import named_results
from .step_words import asked_of_you

#: "read me ...", "read it to us", "read that aloud": reading *to* someone is speaking.
RECIPIENTS = {"me", "us"}
#: Verbs whose command makes speech ("say it", "narrate it"), in their base form: "says"/"said"
#: report what a text or a recording holds
SPEAKING = {"say", "speak", "narrate", "recite", "shout", "announce", "pronounce", "sing"}
#: ... unless the clause asks about speech ("what does it say", "does he speak French")
QUESTION_WORDS = {"what", "how", "does", "do", "did", "whether", "if", "who", "which", "why"}


def asks_for_speech(toks: list) -> bool:
    """The clause asks for speech: "read" with a listener (a dative "me"/"us", "to me") or "back";
    "aloud" / "out loud" anywhere; a verb of speaking as a command ("say it", "just say the amount",
    "narrate it", "recite it", "speak the summary"), not in a question about speech ("what does the
    sign say"); or a spoken version / voiceover as the thing to make."""
    lows = [t.lower for t in toks]
    if "aloud" in lows or any(a == "out" and b == "loud" for a, b in zip(lows, lows[1:])):
        return True
    if any(w in ("voiceover", "narration") for w in lows) or any(
            a in ("spoken", "audio") and b == "version" for a, b in zip(lows, lows[1:])) or sound_as_medium(toks):
        return True
    for k, t in enumerate(toks):
        if t.lemma == "hear" and t.tag in ("VB", "") and _WANTS_TO_HEAR_RE.search(" ".join(lows[max(0, k - 4):k])):
            # "i want to hear the names", "let me hear what it says": the answer, spoken; not a
            # sound to hear ("I want to hear this song without the noise")
            if not any(w in _SOUNDS or kind_of(w) == "audio" for w in lows[k + 1:k + 4]):
                return True
        if t.lemma == "read" and t.pos in ("VERB", "") and t.tag != "VBZ":  # not "the sign reads me and him was ..."
            rest = lows[k + 1:k + 8]
            if rest[:1] and rest[0] in RECIPIENTS or "back" in rest[:3]:
                return True
            if any(a == "to" and b in RECIPIENTS for a, b in zip(rest, rest[1:])):
                return True
        elif t.lower in SPEAKING and (t.pos in ("VERB", "") or t.dep == "ROOT" or k == 0):
            # a command, even when the tagger took it for a noun ("shout dinner is ready",
            # "memo -> text -> speak"); with an object ("... on this label, say it") even after a
            # question, which unpunctuated speech runs into the command
            told = any(u.dep == "dobj" or u.pos == "PRON" and u.lower in ("it", "that", "them") for u in toks[k + 1:k + 4])
            asked = k >= 2 and toks[k - 1].dep == "nsubj" and toks[k - 2].pos == "AUX"  # "how do I say ..."
            if t.lower != "pronounce" and QUESTION_WORDS & set(lows[:k]) and (asked or not told) or t.lower == "say" and _says_about(toks, k):
                continue  # ("how do I pronounce quinoa" asks to hear it, unlike "how do I say it in French")
            return True
    return False


#: Sound named as the form a result comes in ("summarise this as audio", "in Italian, as speech")
_AS_SOUND = {"audio", "speech", "mp3", "voiceover", "narration"}
#: ... or as what the user will hear it on ("the gist of it through the car speakers", "in my ears")
_PLAYED_ON = {"speakers", "speaker", "headphones", "headset", "earbuds", "earphones", "airpods", "ears"}
#: ... or as a thing someone will listen to ("make it something I can play for the baby", "a short
#: version to listen to on the drive"): the thing, then who hears it, then a verb of hearing
_HEARD_THINGS = {"something", "thing", "one", "version", "copy", "file", "clip", "bit", "track"}
_HEARD_VERBS = {"listen", "hear", "play"}
#: ... which, said without what it is ("something"), must be made of a thing named before it
#: ("make it something I can play", "give me the gist of this as something ...")
_ANY_THING = {"something", "thing", "one"}
_GIVEN = GIVEN_DETERMINERS - {"my", "your", "our"}
#: Words before a device that make it the user's own ("over my headphones", "through the car speakers")
_OWN_DEVICE = {"my", "our", "the"}
#: Verbs whose thing may be about a device ("write a complaint about the announcements through the train speakers")
_WRITING_VERBS = MAKING_VERBS | {"write", "draft"}


def sound_as_medium(toks: list) -> bool:
    """The clause asks for its result in sound: "as audio", "into an mp3", "through the car
    speakers", "over my headphones". Not in a statement or a question that asks nothing of the
    assistant ("the sound on my speakers is crackling", "export it as audio, is mp3 better?"), not
    declined ("not as audio"), not a recording given ("saved it as an audio file named x.wav"), nor
    a thing the sound word describes ("as a speech therapist", "available as audio", "a complaint
    about the announcements through the train speakers")."""
    asked = asked_of_you(toks)
    if not toks or not asked and (any(t.text == "?" for t in toks) or toks[0].lower in QUESTION_WORDS):
        return False
    if to_be_heard(toks):  # (its "I can play" is no statement of the user's)
        return True
    if states_words(toks):
        return False
    for k, t in enumerate(toks):
        if t.lower not in ("as", "into", "through", "over", "via", "in", "on"):
            continue
        before = toks[max(0, k - 4):k]
        if any(u.lower in ("not", "n't", "no", "without") for u in before) or k and (toks[k - 1].pos == "ADJ" or toks[k - 1].text in ("'", '"')):
            continue  # (nor the words quoted: "the term 'as audio'")
        rest = [u for u in toks[k + 1:] if u.pos not in ("PUNCT", "INTJ") and u.lower not in ("please", "pls", "thanks")]
        if t.lower in ("as", "into"):
            if any(u.tag in ("VBD", "VBN") for u in before) or any(
                    u.lower in ("named", "called") or kind_of(u.text) == "audio" for u in toks[k + 1:k + 7]):
                continue  # "saved it as an audio file named talk.wav": what a recording is, not how to answer
            n = next((n for n, u in enumerate(rest[:3]) if u.lower in _AS_SOUND), None)
            if n is not None and not any(u.lower in _GIVEN for u in rest[:n]) and (n + 1 == len(rest) or rest[n + 1].pos != "NOUN"):
                return True
        if t.lower in ("in", "on") and k and toks[k - 1].pos in ("NOUN", "PROPN") or any(u.lemma == "listen" for u in toks):
            continue  # where a thing is ("the bass on my speakers keeps buzzing"), or what the user listens to
            # ("I want to listen to something on my earbuds"), not where to hear an answer
        if t.lower != "as" and len(rest) >= 2 and rest[0].lower in _OWN_DEVICE and any(u.lower in _PLAYED_ON for u in rest[1:3]) and not any(
                u.lemma in _WRITING_VERBS for u in toks):
            return True
    return False


def to_be_heard(toks: list) -> bool:
    """The clause makes its result a thing someone will listen to: "make it something I can play
    for the twins", "a 30-second version to listen to on the drive", "something the kids can listen
    to" (the listener its subject). Not a thing the listener plays ("a song I can play on guitar": the thing is no pronoun or
    version of a result), nor one the assistant hears ("something you can hear")."""
    for k, t in enumerate(toks):
        if t.lemma not in _HEARD_THINGS or t.pos not in ("NOUN", "PRON"):
            continue
        if t.lemma in _ANY_THING and not any(u.lower in ("it", "this", "that", "them") or u.pos == "NOUN" and n and toks[n - 1].lower in (
                "the", "this", "that") for n, u in enumerate(toks[:k])):
            continue  # "something to listen to on the drive" asks for something new, no result to hear
        after = toks[k + 1:k + 7]
        for n, u in enumerate(after):
            if u.lemma in _HEARD_VERBS and u.pos == "VERB":
                between = after[:n]
                nxt = after[n + 1] if n + 1 < len(after) else None
                if not any(w.lower in ("you", "u") or w.pos in ("VERB", "NOUN") and w.dep != "nsubj" for w in between) \
                        and not (nxt is not None and (nxt.pos in ("NOUN", "DET", "PRON", "PROPN") or nxt.lower == "with")):
                    return True  # (not a thing to "play with": a toy or a game)
                break
            if u.pos in ("PUNCT", "CCONJ") or u.lemma in _HEARD_THINGS:
                break
    return False


#: The parts of speech that say what a clause is about; a speech command has none of its own
_CONTENT = {"NOUN", "PROPN", "VERB", "ADJ", "NUM"}
#: Words that say only how to hand over an answer, not what it is of ("tell me the result out loud")
_HOW_TOLD = {"tell", "read", "let", "give", "result", "answer", "outcome", "response", "reply", "loud", "out", "back",
             "please", "now", "then", "also", "just", "too", "instead", "quick", "quickly"}


def names_something(toks: list) -> bool:
    """The clause has a word that says what it is about (a noun, verb, adjective or number), not
    only pointers and particles ("hey, ..." has one; "and then" has none)."""
    return any(t.pos in _CONTENT for t in toks)


#: Speech of what was just said ("say it", "read that out"), not talk about it ("tell me about it")
_SAY_IT_RE = re.compile(r"\b(?:say|read|speak|repeat|announce)\s+(?:it|that|this)\b", re.I)


def speaks_statement(said: list, speech: str) -> bool:
    """``speech`` ("say it out loud") asks to hear the words of the clause just before it, ``said``
    (its tokens), as they are: that clause states something ("dinner is at six"), asking nothing."""
    return bool(_SAY_IT_RE.search(speech)) and states_words(said)


def states_words(toks: list) -> bool:
    """The clause is a statement of its own, not a request ("dinner is at six", "I'll be home late":
    words to say as they are): its main verb is finite with a subject of its own, not "you", and it
    asks nothing ("flip a coin", "what's the time?", "I need a name for my cat")."""
    verb = next((t for t in toks if t.pos in ("VERB", "AUX")), None)
    if verb is None or any(t.text == "?" for t in toks) or toks[0].lower in QUESTION_WORDS or ASK_RE.search(
            " ".join(t.text for t in toks)):
        return False
    before = [t for t in toks if t.start < verb.start]
    return (verb.tag in ("VBZ", "VBD", "VBP", "MD") and bool(before)
            and any(t.dep in ("nsubj", "nsubjpass", "expl") and t.lower not in ("you", "u") for t in before))


def speaks_only_a_result(toks: list) -> bool:
    """The clause asks to hear an answer without saying what of ("tell me the result out loud",
    "say it with your voice"): a request for speech whose every content word is one of speaking,
    hearing or the result. What it speaks is asked for elsewhere."""
    return asks_for_speech(toks) and not any(
        t.pos in _CONTENT and not ({t.lower, t.lemma} & (SPEAKING | HEARING | _HOW_TOLD)) for t in toks)


#: What one hears as a sound, not as words spoken to one ("I want to hear this song without the noise")
_SOUNDS = {"song", "songs", "recording", "audio", "clip", "track", "music", "sound", "noise", "voice", "memo", "voicemail", "podcast"}
#: The words before "hear" when the user asks to hear the answer ("I'd like to hear", "let me hear")
_WANTS_TO_HEAR_RE = re.compile(r"\b(?:(?:want|wanna|like|love|need|prefer)\s+to|let\s+(?:me|us))$")


def _says_about(toks, k: int) -> bool:
    """ "say" at ``toks[k]`` reports or judges rather than asks for speech: someone else says
    ("my teacher say ...": a subject of its own, not the "you" asked), it takes a clause ("would
    you say this review is good", "say what's in it"), or it asks for a repeat or other words
    ("say that again", "say this another way")."""
    if any(u.dep in ("nsubj", "nsubjpass") and u.lower not in ("you", "i") for u in toks[max(0, k - 4):k]):
        return True  # its own subject, just before it ("both of them really say")
    after = [u.lower for u in toks[k + 1:]]
    return any(u.dep == "ccomp" for u in toks[k + 1:]) or "again" in after or "differently" in after or any(
        a == "another" and b == "way" for a, b in zip(after, after[1:]))


#: Words that ask to hear something, whatever else the clause asks (not "say"/"speak", which
#: questions use too: "what does this sign say")
HEARING = {"aloud", "loud", "voice", "hear", "listen", "audio", "spoken", "speech", "recite", "narrate"}
#: Words of speech and hearing (base forms). A request that asks for sound names it somehow ("say",
#: "aloud", "voice", "an mp3", "a verbal summary"); one without any of them asks for no speech.
SOUND_WORDS = SPEAKING | HEARING | {
    "read", "narration", "narrator", "voiceover", "pronounce", "sound", "audible", "audibly", "auditory", "verbal",
    "verbally", "audiobook", "podcast", "vocal", "talk", "ear", "play", "tts", "mp3", "wav"}


#: Things recorded: a word of sound before one of them names what was given ("the voice memo",
#: "this audio file"), not how the answer should come
RECORDINGS = {"memo", "note", "message", "recording", "file", "clip", "call", "mail", "track", "sample"}
#: Words before a recording to be made ("into a voice message", "make a voice note")
_MADE_AS = {"into", "as", "a", "an"}
_MAKING = MAKING_VERBS | {"record", "send", "give"}


def names_sound(toks: list) -> bool:
    """Whether any token is a word of speech or hearing, or an audio file, or sound is named as the
    form of a result ("through the car speakers"); not a word that only says what a recording is
    ("transcribe the voice memo for me")."""
    return any((t.lemma in SOUND_WORDS or t.lower in SOUND_WORDS or kind_of(t.text) == "audio")
               and not _names_a_given_recording(toks, k) for k, t in enumerate(toks)) or sound_as_medium(toks)


def _names_a_given_recording(toks: list, k: int) -> bool:
    """The word at ``k`` only says what kind of recording a thing is ("the voice memo"), not one
    to be made ("turn it into a voice message", "send it as an audio file", "make a voice note")."""
    if not (toks[k].dep in ("compound", "amod") and k + 1 < len(toks) and toks[k + 1].lemma in RECORDINGS):
        return False
    return not any(u.lower in _MADE_AS or u.lemma in _MAKING for u in toks[max(0, k - 3):k])


#: Words after "read" that say it is heard: a listener ("read my note to me", "read the menu to my
#: grandma", "for us"), "aloud", "out", "back", or how it should sound ("softly", "in a british accent")
_LISTENERS = {"me", "us", "her", "him", "them", "aloud", "loud", "out", "back", "to", "for"}
_HOW_SPOKEN = {"loudly", "softly", "quietly", "slowly", "clearly", "gently", "voice", "accent", "tone"}


def words_not_of_sound(toks: list, pictures_worked_on: bool) -> set[int]:
    """Offsets of words of sound that here ask for none: "sounds" that says how a text seems ("tell
    me if it sounds angry"), and, where a picture's words are given to another step to work on
    (``pictures_worked_on``), "read" of a thing in it with no one to hear it ("read my handwritten
    note and tell me if it sounds angry", "read the text on this menu, translate it"): reading the
    picture's words, not speaking them. Not "read it" (a text made, as often as not), a result
    named ("read the summary"), nor a read with a listener or a way of speaking ("read the letter
    to my mom", "read the note softly")."""
    out = set()
    for k, t in enumerate(toks):
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if t.lemma == "sound" and t.pos in ("VERB", "AUX") and nxt is not None and (nxt.pos == "ADJ" or nxt.lower in ("like", "as")):
            out.add(t.start)
        elif pictures_worked_on and t.lemma == "read" and t.pos == "VERB" and t.tag in ("VB", "VBP") and nxt is not None \
                and nxt.pos in ("DET", "PRON") and nxt.lower not in _LISTENERS | {"it", "that", "this", "what", "everything"}:
            rest = []
            for u in toks[k + 1:]:
                if u.pos in ("PUNCT", "CCONJ"):
                    break
                rest.append(u)
            if not any(u.lower in _LISTENERS | _HOW_SPOKEN for u in rest) and not named_results(" ".join(u.text for u in rest)):
                out.add(t.start)
    return out
