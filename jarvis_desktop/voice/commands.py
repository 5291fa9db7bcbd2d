"""Requests about the assistant's own voice: "speak slower", "turn your voice down", "stop reading
your answers aloud", "is your voice on?", "stop talking". They are obeyed by changing a setting, not planned: a
planner reads them as text to speak, and the user heard "speak slower" said back at the old pace.

Only a request that is nothing but such a command is one: "make this recording louder" or
"say 'slow down' in a cheerful voice" are tasks for the planner.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from .tts import MAX_RATE, MIN_RATE

#: one "turn it down" moves the volume this much (the settings slider is 0-100%)
VOLUME_STEP = 0.2
MIN_VOLUME = 0.1
#: one "speak slower" divides the pace by this
RATE_STEP = 1.25


@dataclass
class VoiceCommand:
    """What the request changes (Settings fields and their new values; empty for a question)
    and the sentence that answers it."""

    changes: dict[str, Any] = field(default_factory=dict)
    answer: str = ""


# Words that make a command polite or casual without changing what it asks.
_FILLERS = re.compile(
    r"^so\b|\b(?:hey|hi|ok(?:ay)?|whoa|wow|oh|um+|uh+|hmm+|ugh|jarvis|please|pls|plz|thanks|thank you|(?:can|could|would|will) (?:you|u)|"
    r"a (?:little )?bit|a little|a notch|bit|much|way|just|now|for me|kindly|maybe|again|back|then|a lot)\b")

_YOU = r"(?:you(?:'re| are)?|youre|your voice(?: is)?|that(?:'s| is| was)?|thats|it(?:'s| is| was)?|its|this is)"
_VOICE = r"(?:your voice|your volume|the volume|volume|the sound|yourself|it|you)"
_SAY = r"(?:(?:speak|talk|say it|read(?: it)?|answer|reply|be|go) )?(?:more )?"
_ALOUD = r"(?: out loud| aloud)?"

_COMMANDS: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(rx)) for name, rx in [
    ("quieter", rf"(?:turn|put|bring) {_VOICE} down|(?:turn|bring) down {_VOICE}|(?:lower|decrease|reduce) {_VOICE}"
                rf"|volume down|{_SAY}(?:quieter|quietly|softer|softly|lower)|(?:{_YOU} )?too loud|(?:not so|less) loud"),
    ("louder", rf"(?:turn|put|bring) {_VOICE} up|(?:turn|bring) up {_VOICE}|(?:raise|increase) {_VOICE}"
               rf"|volume up|speak up|{_SAY}louder|(?:{_YOU} )?too (?:quiet|soft)|i can(?:'t|not|t) hear you(?: well)?"),
    ("slower", rf"{_SAY}(?:slower|slowly)|slow down|(?:{_YOU} )?(?:talking |speaking )?too fast|not so fast"),
    ("faster", rf"{_SAY}(?:faster|quicker|quickly)|speed up|hurry up"
               r"|(?:you(?:'re| are)? )?(?:talking|speaking) too slow(?:ly)?|you (?:talk|speak) too slow(?:ly)?"),
    ("normal_speed", r"(?:speak|talk|go) (?:at )?(?:normal|usual|regular) (?:speed|pace)|(?:normal|usual|regular) (?:speed|pace)"
                     r"|(?:reset|set) (?:the |your )?(?:speed|pace|rate)(?: to normal)?"),
    ("mute", rf"(?:turn|switch) off your voice|(?:turn|switch) your voice off|mute(?: yourself| your voice)?"
             rf"|(?:stop|don't|dont|do not|no more) (?:speaking|reading|saying|read|speak|say)(?: your| the)? answers?{_ALOUD}"
             rf"|(?:stop|don't|dont|do not) (?:read|speak|talk|say)(?:ing)?(?: things| anything)? (?:out loud|aloud)"
             rf"|(?:type|write) (?:your |the )?answers?(?: only| instead)?|no (?:more )?voice"),
    ("unmute", rf"(?:turn|switch) on your voice|(?:turn|switch) your voice on|unmute(?: yourself| your voice)?"
               rf"|(?:read|speak|say) (?:your |the |my )?answers (?:out loud|aloud)|(?:talk|speak) (?:out loud|aloud)(?: to me)?"
               rf"|(?:start|resume) (?:speaking|talking|reading)(?: your answers)?{_ALOUD}"),
    ("hush", r"(?:stop|quit) (?:talking|speaking|reading)|be quiet|shut up|quiet|hush|sh+|(?:that's|thats|that is) enough|stop(?: it)?"),
    ("ask", r"(?:is|was) your voice (?:turned )?(?:on|off)|are you muted|is (?:the )?(?:voice|speech|sound) (?:turned )?(?:on|off)"
            r"|how (?:loud|fast) (?:are you|is your voice|do you (?:speak|talk))"
            r"|what(?:'s| is) your (?:volume|speed|speaking speed|pace)"),
]]
#: "... when you read things out": when the voice is heard, which changes nothing
_WHEN_READING = re.compile(r"\s*\bwhen (?:you )?(?:read|speak|talk|say|answer)\w*(?: things| stuff| it| them)?(?: out loud| aloud| out)?$")
_JOINERS = {"and", "because", "cause", "cuz", "as", "since"}
_VOLUME_TO = re.compile(r"(?:(?:set|turn|put) )?(?:the |your )?volume (?:to |at )?(\d{1,3}) ?(?:%|percent|per cent)?")


def _normal(text: str) -> str:
    t = text.lower().replace("\u2019", "'")
    t = re.sub(r"[^\w'% ]+", " ", t)
    t = _FILLERS.sub(" ", t)
    return re.sub(r"\s+", " ", t).strip()


def _short_and_plain(text: str) -> bool:
    """Short enough for a spoken command, quoting nothing to say and naming no file (else a task)."""
    return bool(text) and len(text) <= 80 and not re.search(r"[\"“”]|(?:^|\s)'\w[^']*'|\.\w{2,4}\b", text)


def _commands(text: str) -> list[tuple[str, int]]:
    """The commands ``text`` gives (with the volume asked for, in percent), in order; empty when
    it is anything else."""
    if not _short_and_plain(text):
        return []
    return _split(_WHEN_READING.sub("", _normal(text)).split())


def _split(words: list[str]) -> list[tuple[str, int]]:
    """Commands covering all of ``words``, longest first: "turn your voice down a bit, it's too
    loud" is one command and its reason, "speak slower and louder" two."""
    while words and words[0] in _JOINERS:
        words = words[1:]
    if not words:
        return []
    for cut in range(len(words), 0, -1):
        first = _one_command(" ".join(words[:cut]))
        if first is None:
            continue
        if cut == len(words):
            return [first]
        rest = _split(words[cut:])
        if rest:
            return [first] + rest
    return []


#: Asking to hear the last answer again ("repeat that", "what did you say?", "sorry, I didn't catch that")
#: (after the fillers are gone: "again", "just", "please", "could you")
_REPEAT_RE = re.compile(
    r"(?:sorry |pardon |huh )*(?:repeat(?: that| it| yourself| the last (?:part|answer|thing))?(?: one more time)?"
    r"|what (?:did you say|was that)|pardon(?: me)?|huh"
    r"|i (?:didn't|didnt|did not|couldn't|couldnt|could not) (?:catch|hear|get) (?:that|it|you|what you said))")

_COME_AGAIN_RE = re.compile(r"\W*(?:sorry\W+)?come again\W*", re.I)


def asks_to_repeat(text: str) -> bool:
    """``text`` only asks to hear the last answer again: the assistant repeats it (shown, and
    spoken when the voice is on); nothing is planned. "say that again" is left to the planner,
    which speaks it whatever the voice setting."""
    return _short_and_plain(text) and (_REPEAT_RE.fullmatch(_normal(text)) is not None
                                       or _COME_AGAIN_RE.fullmatch(text) is not None)  # its "again" is a filler


def is_voice_command(text: str) -> bool:
    """``text`` is only about the assistant's voice (the planner plans nothing for it)."""
    return bool(_commands(text))


def asks_to_stop(text: str) -> bool:
    """``text`` only says to stop ("stop talking", "that's enough"): said while a request runs, it
    is the Stop button."""
    found = _commands(text)
    return bool(found) and all(name == "hush" for name, _ in found)


def read_voice_command(text: str, settings: Any) -> VoiceCommand | None:
    """The command ``text`` gives about the voice, with its effect on ``settings`` (which is not
    changed here); None when the text is anything else."""
    found = _commands(text)
    if not found:
        return None
    now = copy.copy(settings)
    changes: dict[str, Any] = {}
    answers: list[str] = []
    for name, percent in dict.fromkeys(found):  # "too loud, turn it down" is one change
        step = _volume(now, percent / 100.0) if name == "volume" else _obey(name, now)
        for key, value in step.changes.items():
            setattr(now, key, value)
        changes.update(step.changes)
        answers.append(step.answer)
    return VoiceCommand(changes, " ".join(answers))


def _one_command(t: str) -> tuple[str, int] | None:
    m = _VOLUME_TO.fullmatch(t)
    if m:
        return "volume", int(m.group(1))
    return next(((name, 0) for name, rx in _COMMANDS if rx.fullmatch(t)), None)


def _percent(x: float) -> str:
    return f"{round(x * 100)}%"


def _volume(settings: Any, value: float) -> VoiceCommand:
    value = round(min(1.0, max(MIN_VOLUME, value)), 2)
    note = "" if settings.tts else " My voice is off: say \"turn your voice on\" to hear me."
    if value == round(settings.volume, 2):
        return VoiceCommand({}, f"My volume is already {_percent(value)}.{note}")
    return VoiceCommand({"volume": value}, f"Okay, my volume is now {_percent(value)}.{note}")


def _rate(settings: Any, value: float, how: str) -> VoiceCommand:
    value = round(min(MAX_RATE, max(MIN_RATE, value)), 2)
    if value == round(settings.speech_rate, 2):
        edge = {"slower": "the slowest I can speak", "faster": "the fastest I can speak"}.get(how, "my normal speed")
        return VoiceCommand({}, f"That is already {edge} ({_percent(value)}).")
    words = {"slower": "more slowly", "faster": "faster"}.get(how, "at my normal speed")
    return VoiceCommand({"speech_rate": value}, f"Okay, I will speak {words} (speed {_percent(value)}).")


def _obey(name: str, settings: Any) -> VoiceCommand:
    volume, rate = float(settings.volume), float(settings.speech_rate)
    if name == "quieter":
        if volume <= MIN_VOLUME:
            return VoiceCommand({}, f"I am already as quiet as I go ({_percent(volume)}). "
                                    "Turn down your computer's volume, or say \"turn your voice off\".")
        return _volume(settings, volume - VOLUME_STEP)
    if name == "louder":
        if volume >= 1.0:
            return VoiceCommand({}, "I am already at full volume. Turn up your computer's volume for more.")
        return _volume(settings, volume + VOLUME_STEP)
    if name == "slower":
        return _rate(settings, rate / RATE_STEP, "slower")
    if name == "faster":
        return _rate(settings, rate * RATE_STEP, "faster")
    if name == "normal_speed":
        return _rate(settings, 1.0, "normal")
    if name == "mute":
        if not settings.tts:
            return VoiceCommand({}, "My voice is already off: I only write my answers.")
        return VoiceCommand({"tts": False}, "Okay, I will only write my answers. Say \"turn your voice on\" to hear them again.")
    if name == "unmute":
        if settings.tts:
            return VoiceCommand({}, "My voice is on: I read my answers aloud.")
        return VoiceCommand({"tts": True}, "Okay, I will read my answers aloud again.")
    if name == "hush":  # what was being said stopped when the request came; the voice stays on
        return VoiceCommand({}, "Okay.")
    state = "on: I read my answers aloud" if settings.tts else "off: I only write my answers"
    return VoiceCommand({}, f"My voice is {state}, at volume {_percent(volume)} and speed {_percent(rate)}.")
