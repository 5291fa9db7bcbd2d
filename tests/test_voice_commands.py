"""Requests about the assistant's own voice ("speak slower", "turn your voice down") change a
setting instead of being planned as text to speak. Real synthesis (piper's shipped voice and
espeak-ng), the real pipeline and settings file; only the sound card is a stand-in."""

from __future__ import annotations

import io
import sqlite3

import pytest

from jarvis_desktop.config import Settings, load_settings
from jarvis_desktop.pipeline import events as ev
from jarvis_desktop.pipeline.assistant import Assistant
from jarvis_desktop.voice.commands import read_voice_command
from jarvis_desktop.voice.conversation import _ask
from jarvis_desktop.voice.speaker import StreamingSpeaker
from jarvis_desktop.voice.tts import Synthesizer


@pytest.mark.parametrize("text, changes", [
    ("could you talk a little slower?", {"speech_rate": 0.8}),
    ("Whoa, slow down!", {"speech_rate": 0.8}),
    ("you're speaking too fast", {"speech_rate": 0.8}),
    ("speed up a bit please", {"speech_rate": 1.25}),
    ("ok turn your voice down", {"volume": 0.8}),
    ("that's way too loud", {"volume": 0.8}),
    ("please put the volume at 35 percent", {"volume": 0.35}),
    ("jarvis, mute yourself", {"tts": False}),
    ("don't read the answers out loud", {"tts": False}),
    ("just type your answers instead", {"tts": False}),
    ("turn your voice down a bit, it's too loud", {"volume": 0.8}),  # the command and its reason
    ("slower and quieter please", {"speech_rate": 0.8, "volume": 0.8}),
    ("could you speak a little slower when you read things out?", {"speech_rate": 0.8}),
])
def test_voice_commands_say_what_they_change(text, changes):
    command = read_voice_command(text, Settings())
    assert command is not None and command.changes == changes, text


@pytest.mark.parametrize("text", [
    "make this recording louder",        # an audio edit, not the voice
    "slow down the clip and sharpen it",
    "say 'slow down' in a calm voice",   # words to say
    "speak louder.wav",                  # a file name
    "read me the story slower and then summarise it for me please, it is a long one",
    "you're too slow",                   # about the wait, not the pace of speech
    "what can you do?",
    "turn the volume down and make a picture of a cat",
    "say the answer aloud",              # one answer to hear again: a follow-up, not the setting
    "read your last reply out loud",
])
def test_other_requests_are_not_voice_commands(text):
    assert read_voice_command(text, Settings()) is None


@pytest.mark.parametrize("text", ["stop talking", "ok, that's enough", "shh", "be quiet please"])
def test_hush_stops_the_answer_but_keeps_the_voice(text):
    """Sending the request already stopped what was being said; turning the voice off for good
    is a different command ("stop reading your answers aloud")."""
    command = read_voice_command(text, Settings())
    assert command is not None and command.changes == {} and command.answer == "Okay."


def test_limits_are_said_not_passed():
    loudest = read_voice_command("louder please", Settings(volume=1.0))
    assert loudest.changes == {} and "full volume" in loudest.answer
    slowest = read_voice_command("slower", Settings(speech_rate=0.5))
    assert slowest.changes == {} and "slowest" in slowest.answer
    off = read_voice_command("is your voice on?", Settings(tts=False, volume=0.6))
    assert off.changes == {} and "off" in off.answer and "60%" in off.answer
    back = read_voice_command("turn your voice back on", Settings(tts=False))
    assert back.changes == {"tts": True}
    every = read_voice_command("please read your answers aloud", Settings(tts=False))  # every answer: the setting
    assert every.changes == {"tts": True}


@pytest.mark.parametrize("voice", ["", "espeak-ng"])
def test_the_speech_rate_changes_how_long_a_sentence_takes(voice):
    text = "The meeting moved to Thursday afternoon in the small room."
    seconds = {}
    for rate in (0.5, 1.0, 2.0):
        s = Synthesizer(voice, rate=rate).speak(text)
        seconds[rate] = len(s.samples) / s.sample_rate
    assert seconds[0.5] > seconds[1.0] * 1.4 and seconds[2.0] < seconds[1.0] * 0.8, seconds


@pytest.fixture
def assistant(jarvis_env):
    a = Assistant(load_settings())
    yield a
    a.close()


def test_a_voice_command_is_obeyed_saved_and_logged_without_a_plan(assistant):
    seen: list[ev.Event] = []
    result = assistant.ask("can you speak a bit slower please", on_event=seen.append)
    assert result.status == "done" and result.plan.tasks == []
    assert result.settings_changes == {"speech_rate": 0.8}
    assert result.answer == "Okay, I will speak more slowly (speed 80%)."
    assert assistant.settings.speech_rate == 0.8
    assert load_settings().speech_rate == 0.8  # in the settings file: the next start speaks slower too
    kinds = [type(e).__name__ for e in seen]
    assert "SettingsChanged" in kinds and kinds.index("SettingsChanged") < kinds.index("AnswerToken")
    assert "PlanReady" not in kinds
    db = sqlite3.connect(assistant.settings.db_path)
    saved = db.execute("select text, answer from requests where id = ?", [result.request_id]).fetchone()
    assert saved == ("can you speak a bit slower please", result.answer)

    again = assistant.ask("slower")
    assert again.settings_changes == {"speech_rate": 0.64} and load_settings().speech_rate == 0.64


@pytest.mark.parametrize("text, repeat", [
    ("could you repeat that please?", True), ("sorry, what did you say?", True), ("come again?", True),
    ("I didn't catch that", True), ("pardon?", True),
    ("repeat after me: good night", False),          # words to say
    ("repeat this sentence in Spanish", False),       # a translation
    ("what did you say about the weather?", False),   # a question about it, for the chat
    ("sorry", False),                                 # an apology
])
def test_what_asks_for_the_last_answer_again(text, repeat):
    from jarvis_desktop.voice.commands import asks_to_repeat

    assert asks_to_repeat(text) is repeat


def test_the_last_answer_is_repeated_without_a_plan(assistant):
    """"sorry, what did you say?" gives the last answer again (spoken when the voice is on); before,
    it was planned as writing ("repeat that" went to a text generator) or answered as chat."""
    nothing = assistant.ask("come again?")
    assert nothing.plan.tasks == [] and "not said anything" in nothing.answer
    first = assistant.ask("could you talk a little slower", session_id=nothing.session_id)
    seen: list[ev.Event] = []
    again = assistant.ask("sorry, what did you say?", session_id=nothing.session_id, on_event=seen.append)
    assert again.status == "done" and again.plan.tasks == [] and again.answer == first.answer
    assert "PlanReady" not in [type(e).__name__ for e in seen]
    db = sqlite3.connect(assistant.settings.db_path)
    assert db.execute("select answer from requests where id = ?", [again.request_id]).fetchone() == (first.answer,)


def test_a_voice_command_with_a_file_is_a_task(assistant, tmp_path):
    """'make it louder' with a recording attached edits the recording; the voice is not touched."""
    from test_end_to_end import espeak

    wav = espeak("Quiet words", tmp_path / "quiet.wav")
    result = assistant.ask("louder", [wav])
    assert result.settings_changes == {} and assistant.settings.volume == 1.0


class RecordingPlayer:
    """Stands in for the sound card: keeps each clip it is asked to play."""

    def __init__(self):
        self.volume = 1.0
        self.clips: list[int] = []

    def play(self, samples, sample_rate, on_start=None, should_stop=None) -> bool:
        if on_start:
            on_start()
        self.clips.append(len(samples))
        return True

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_jarvis_listen_speaks_the_answer_to_a_voice_command_the_new_way(assistant):
    """In the terminal conversation the running speaker is retuned at once: the confirmation of
    "speak faster" is itself faster, and after "stop reading answers aloud" nothing is spoken."""
    synth, player = Synthesizer("espeak-ng"), RecordingPlayer()
    speaker = StreamingSpeaker(synth, player)
    out = io.StringIO()
    try:
        _ask(assistant, "speak a little faster please", speaker, out, None, None, False, True)
        assert speaker.wait(60)
        assert synth.rate == 1.25 and "faster" in out.getvalue()
        assert player.clips  # the confirmation was spoken
        spoken = len(player.clips)
        _ask(assistant, "turn your voice down", speaker, out, None, None, False, True)
        assert speaker.wait(60) and player.volume == 0.8 and len(player.clips) > spoken
        spoken = len(player.clips)
        _ask(assistant, "stop reading your answers aloud", speaker, out, None, None, False, True)
        assert speaker.wait(60)
        assert "only write" in out.getvalue() and len(player.clips) == spoken
    finally:
        speaker.close()


def test_jarvis_listen_started_without_a_voice_says_when_it_will_speak(assistant):
    """A conversation begun with the voice off has no speaker to turn on: it says so instead of
    promising spoken answers it cannot give."""
    from jarvis_desktop.config import save_setting_changes

    assistant.settings.tts = False
    save_setting_changes({"tts": False})
    out = io.StringIO()
    _ask(assistant, "turn your voice back on", None, out, None, None, False, True)
    assert "next `jarvis listen`" in out.getvalue() and load_settings().tts is True
