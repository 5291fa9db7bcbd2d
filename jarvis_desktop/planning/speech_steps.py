"""Which text-to-speech steps a plan keeps: one for a clause that asks to hear the answer, none for
a question about what something says, none where no word of the request is about sound.

Steps are ``(clause, label index, label)`` triples, as the learned detector finds them."""

from __future__ import annotations

from .imperatives import MEDIUM_VERBS
from .step_labels import media_input, media_output
from .speech_asked import HEARING, QUESTION_WORDS, RECORDINGS, SOUND_WORDS, asks_for_speech, names_sound, sound_as_medium, to_be_heard

#: Things one plays rather than has read out ("play my favourite song", "play the news podcast")
PLAYED = {"song", "music", "podcast", "playlist", "album", "episode", "radio", "station", "track", "tune", "video",
          "movie", "film", "audiobook", "recording", "clip", "jazz"}

Step = tuple[int, int, str]
TTS = "text-to-speech"


def spoken_readings(found: list[Step], views: list, labels: list[str], seg) -> list[Step]:
    """A text-to-speech step for the first clause that reads something to someone, when none was found."""
    if TTS not in labels or any(label == TTS for _, _, label in found):
        return []
    tts = labels.index(TTS)
    return next(([(i, tts, TTS)] for i, view in enumerate(views) if asks_for_speech(seg.tokens_in(view.span))), [])


def without_speech_asked_about(found: list[Step], views: list, seg) -> list[Step]:
    """Drop a text-to-speech step whose only cue is "say"/"speak" in a question about words
    ("what does this sign say", "how do you say 'thank you' in Japanese"): a question about
    what is said, not a request to speak, when no clause asks for speech."""
    tts = [(i, j, label) for i, j, label in found if label == TTS]
    if not tts or any(asks_for_speech(seg.tokens_in(v.span)) for v in views):
        return found
    toks = seg.tokens_in(views[tts[0][0]].span)
    lows = [t.lower for t in toks]
    if HEARING & set(lows):
        return found
    speaking = [k for k, t in enumerate(toks) if t.lemma in ("say", "speak")]
    told = [k for k in speaking if {"it", "that", "them", "this", "me", "us", "to"} & set(lows[k + 1:k + 3])]
    asked = [k for k in speaking if k not in told and QUESTION_WORDS & set(lows[:k])]
    return [f for f in found if f[2] != TTS] if asked and not told else found


def without_unasked_speech(found: list[Step], seg, meant: set[str] = frozenset(), told: frozenset[int] = frozenset()) -> list[Step]:
    """Drop text-to-speech when no word of the request is about sound: "draft a birthday message"
    asks for text, however close its clause vector came to a spoken one. ``meant``: the words its
    mistyped words were read as ("alowd": "aloud"); ``told``: the offsets of words that only tell
    ("my lease says: '...'", "my teacher read it aloud yesterday"), which ask for no sound."""
    # sound as the form read of the whole request (its "could you" makes a clause ending in "?" a
    # request) and of each clause (a request ending in a question: "what is in this? tell me
    # through the speaker")
    heard = names_sound([t for t in seg.tokens if t.start not in told]) or any(sound_as_medium(seg.tokens_in(c)) for c in seg.clauses)
    return found if heard or meant & SOUND_WORDS else [f for f in found if f[2] != TTS]


def without_playback(found: list[Step], views: list, seg) -> list[Step]:
    """Drop a text-to-speech step whose clause asks to play a recording or media ("play the news
    podcast", "play my favourite song"): a thing to hear as it is, which no expert plays, not words
    to speak. Speech asked in the clause all the same ("... and read the title aloud") stays."""
    out = []
    for i, j, label in found:
        toks = seg.tokens_in(views[i].span)
        played = any(t.lemma == "play" and any(u.dep == "dobj" and u.lemma in PLAYED for u in toks[k + 1:k + 5])
                     for k, t in enumerate(toks))
        if label == TTS and played and not asks_for_speech(toks):
            continue
        out.append((i, j, label))
    return out


def without_pictures_to_hear(found: list[Step], views: list, seg) -> list[Step]:
    """Drop a picture or a video made in a clause that makes its result a thing to hear ("... and
    make it something I can just play for the twins": a sound, not a picture), unless a verb names
    the picture ("draw a sunset and something I can listen to about it")."""
    return [(i, j, label) for i, j, label in found
            if not (media_output(label) in ("image", "video") and to_be_heard(toks := seg.tokens_in(views[i].span))
                    and not any(t.lemma in MEDIUM_VERBS for t in toks))]


#: Texts a person keeps elsewhere (on their phone, in their mail, online), which no step here
#: holds: "read my last text message", "read me my emails", "read the news" ask to fetch them.
KEPT_ELSEWHERE = {"message", "text", "email", "mail", "inbox", "calendar", "schedule", "agenda", "notification", "news",
                  "headline", "horoscope", "weather", "forecast", "reminder", "appointment", "voicemail", "dm", "feed", "list"}
#: ... of which these are nobody's own ("the news"), and kept elsewhere whoever's they are.
_ANYONES = {"news", "headline", "horoscope", "weather", "forecast"}


def without_nothing_to_speak(found: list[Step], views: list, seg, something_to_read: bool) -> list[Step]:
    """Drop the text-to-speech step that has no words to speak, when no other step works on words
    and nothing is given to read (``something_to_read``: a file, quotation, pasted text or earlier
    answer): it reads
    what the user keeps elsewhere ("read my last text message", "read the news"), or makes a
    recording without saying what it says ("record a voice memo"). Its words would be the command
    itself said aloud. The chat says what the assistant cannot do, as for other things no expert does."""
    speech = [f for f in found if f[2] == TTS]
    if something_to_read or len(speech) != 1 or any(media_input(label) is None for _, _, label in found if label != TTS):
        return found  # (a step on a photo or recording, none given, is dropped later: it feeds nothing)
    toks = seg.tokens_in(views[speech[0][0]].span)
    return [f for f in found if f[2] != TTS] if _reads_kept_elsewhere(toks) or _records_no_words(toks) else found


def _reads_kept_elsewhere(toks: list) -> bool:
    """ "read my last text message", "read me my emails", "read the news": what is read is the
    user's own messages, mail, lists or calendar, or the news or weather."""
    for k, t in enumerate(toks):
        if t.lemma == "read" and t.pos in ("VERB", "") and t.tag != "VBZ":
            at = next((k + 1 + j for j, u in enumerate(toks[k + 1:k + 7]) if u.dep == "dobj"), None)
            if at is not None and toks[at].lemma in KEPT_ELSEWHERE and (
                    toks[at].lemma in _ANYONES or any(u.lower in ("my", "our") for u in toks[k + 1:at])):
                return True
    return False


def _records_no_words(toks: list) -> bool:
    """ "record a voice memo", "make an audio note for me": a recording asked for, and not a word of
    what it says or is about (the clause ends with it: not "... saying ...", "... that captures my
    joy", "... of the poem i wrote", nor a colon before the words)."""
    for k, t in enumerate(toks):
        if t.dep == "dobj" and t.lemma in RECORDINGS:
            spoken = any(u.lower in ("voice", "audio", "spoken") for u in toks[max(0, k - 3):k])
            ends = all(u.pos == "PUNCT" and u.text != ":" or u.lower in _NOTHING_MORE for u in toks[k + 1:])
            if ends and (spoken or any(u.lemma == "record" for u in toks[:k])):
                return True
    return False


#: Words after a thing asked for that say nothing of it ("record a voice memo for me please").
_NOTHING_MORE = {"please", "now", "for", "me", "us", "quickly", "quick", "real", "right", "away", "thanks"}
