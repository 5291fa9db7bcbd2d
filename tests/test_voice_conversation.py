"""``listen_loop`` end to end: real VAD, Whisper, piper and the streaming speaker; sound cards
that play and record in real time are fakes (this machine has none), driven by what the speaker
does, so the scenario follows the order of events rather than the clock."""

from __future__ import annotations

import io
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from jarvis_desktop.config import Settings
from jarvis_desktop.pipeline.events import AnswerDone, AnswerToken
from jarvis_desktop.store.sessions import SessionStore
from jarvis_desktop.voice.capture import Microphone
from jarvis_desktop.voice.conversation import INTERRUPTED_NOTE, listen_loop
from jarvis_desktop.voice.playback import Player
from jarvis_desktop.voice.testing import FakeRealtimeMicrophone, FakeRealtimeSpeaker, LiveAudio, silence, spoken

pytestmark = pytest.mark.slow

ANSWERS = [
    # sentence 1 is long, so the user's interruption lands inside it even on a loaded machine
    "It is twelve o'clock. The sun is high in the sky, the birds are singing in the old oak trees, and half of "
    "the town is out walking along the river in the warm midday light. Enjoy your lunch and have a lovely afternoon.",
    "Why did the cat sit on the computer? To keep an eye on the mouse.",
]


@dataclass
class ScriptedResult:
    answer: str
    session_id: str = ""
    request_id: str = ""


class ScriptedAssistant:
    """Stands in for the pipeline: streams a fixed answer per request as AnswerToken events,
    and logs each request in a real session store (as the assistant does)."""

    def __init__(self, answers, store=None):
        self.answers = list(answers)
        self.requests: list[str] = []
        self.store = store

    def ask(self, text, files=(), *, on_event=None, session_id=None, **kw):
        self.requests.append(text)
        answer = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        for tok in re.findall(r"\s*\S+", answer):
            on_event(AnswerToken("r", text=tok))
            time.sleep(0.01)
        on_event(AnswerDone("r", text=answer, seconds=0.1))
        sid, rid = session_id or "", f"r{len(self.requests)}"
        if self.store is not None:
            sid = self.store.ensure_session(session_id, text)
            self.store.start_request(rid, sid, text, [])
        return ScriptedResult(answer, sid, rid)


def test_a_conversation_with_barge_in_and_self_echo(tmp_path):
    settings = Settings(data_dir=str(tmp_path / "data"), model_cache=str(tmp_path / "cache"), offline=True)
    room = LiveAudio()
    store = SessionStore(tmp_path / "sessions.db")
    assistant = ScriptedAssistant(ANSWERS, store)
    script: list[str] = []

    def speaker_event(e):
        # the scenario: the user talks over answer 1, then the mic picks up answer 2 (echo), then goodbye
        if e.kind == "playing" and e.index == 1 and len(assistant.requests) == 1 and "barge" not in script:
            script.append("barge")
            room.say(spoken("Tell me a joke"))
        if e.kind == "idle" and len(assistant.requests) == 2 and "echo" not in script:
            script.append("echo")
            room.say(silence(0.3))
            room.say(spoken("To keep an eye on the mouse."))
            room.say(silence(1.5))
            room.say(spoken("Goodbye"))

    events = []

    def on_speaker_event(e):
        events.append(e)
        speaker_event(e)

    mic = Microphone(stream_factory=lambda **kw: FakeRealtimeMicrophone(room, **kw))
    player = Player(stream_factory=lambda **kw: FakeRealtimeSpeaker(**kw))
    out, err = io.StringIO(), io.StringIO()
    room.say(silence(0.3))
    room.say(spoken("What time is it"))
    stop = threading.Event()
    status = []
    t = threading.Thread(target=lambda: status.append(listen_loop(
        assistant, settings, mic=mic, player=player, out=out, err=err, stop=stop, on_speaker_event=on_speaker_event)))
    t.start()
    t.join(180)
    stop.set()
    t.join(10)
    assert status == [0], err.getvalue()
    assert assistant.requests[0].lower().startswith("what time is it")
    # the second request notes the interruption of the first answer
    assert assistant.requests[1].startswith(INTERRUPTED_NOTE) and "joke" in assistant.requests[1].lower()
    assert len(assistant.requests) == 2  # the echo and "goodbye" were not sent as requests
    first = [(e.kind, e.index) for e in events if e.answer == 1]
    assert ("played", 0) in first and ("stopped", 1) in first and ("dropped", 2) in first
    assert not any(k == "playing" and i == 2 for k, i in first)
    assert "(interrupted)" in err.getvalue()
    assert "ignored my own voice" in err.getvalue()
    transcript = out.getvalue()
    assert "You: What time is it" in transcript and "Jarvis: " + ANSWERS[1] in transcript
    assert list((tmp_path / "data" / "recordings").glob("utterance-*.wav"))  # the audio is kept
    # ... and linked to the one session the conversation became, beside its requests
    sessions = store.list_sessions()
    assert len(sessions) == 1
    recordings = store.get_session(sessions[0].id).recordings
    assert [r["request_id"] for r in recordings] == ["r1", "r2"]
    assert all(Path(r["path"]).is_file() and r["seconds"] > 0 for r in recordings)
    assert "what time is it" in recordings[0]["text"].lower()


class CancellableAssistant(ScriptedAssistant):
    """As ScriptedAssistant, and it stops streaming when its request is cancelled (as the pipeline
    does between stages); ``cancelled`` lists the requests that were."""

    def __init__(self, answers, store=None, on_ask=None):
        super().__init__(answers, store)
        self.cancelled: list[str] = []
        self.on_ask = on_ask

    def ask(self, text, files=(), *, on_event=None, session_id=None, cancel=None, **kw):
        self.requests.append(text)
        if self.on_ask is not None:
            self.on_ask(text)
        sid, rid = session_id or "", f"r{len(self.requests)}"
        if self.store is not None:
            sid = self.store.ensure_session(session_id, text)
            self.store.start_request(rid, sid, text, [])
        answer = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        for tok in re.findall(r"\s*\S+", answer):
            if cancel is not None and cancel.cancelled:
                self.cancelled.append(text)
                return ScriptedResult("", sid, rid)
            on_event(AnswerToken("r", text=tok))
            time.sleep(0.05)
        on_event(AnswerDone("r", text=answer, seconds=0.1))
        return ScriptedResult(answer, sid, rid)


def test_going_on_after_a_pause_joins_the_request_the_turn_detector_ended(tmp_path):
    """The first part is a whole question, so the turn ends by meaning and the answer starts; the
    user then goes on ("... in New York today"): that answer stops, and one request of both
    parts is answered. The rest is said when the first request reaches the assistant, so the
    order of events is the same on a slow or a fast machine."""
    settings = Settings(data_dir=str(tmp_path / "data"), model_cache=str(tmp_path / "cache"), offline=True)
    room = LiveAudio()
    store = SessionStore(tmp_path / "sessions.db")

    def on_ask(text):
        if len(assistant.requests) == 1:  # after the 0.3 s of silence still queued: a pause of about 0.5 s
            room.say(spoken("in New York today"))
            room.say(silence(2.0))

    assistant = CancellableAssistant(ANSWERS, store, on_ask)
    mic = Microphone(stream_factory=lambda **kw: FakeRealtimeMicrophone(room, **kw))
    player = Player(stream_factory=lambda **kw: FakeRealtimeSpeaker(**kw))
    out, err = io.StringIO(), io.StringIO()
    room.say(silence(0.3))
    room.say(spoken("What time is it?"))
    room.say(silence(0.3))
    status = listen_loop(assistant, settings, mic=mic, player=player, out=out, err=err, max_turns=1)
    assert status == 0, err.getvalue()
    assert "(you went on" in err.getvalue(), (assistant.requests, err.getvalue())
    # the answer to the first part was stopped; the one answered request holds both parts
    assert len(assistant.requests) == 2 and assistant.cancelled == assistant.requests[:1], assistant.requests
    whole = assistant.requests[1].lower()
    assert "time" in whole and "new york" in whole and not whole.startswith(INTERRUPTED_NOTE.lower()), assistant.requests
    assert "You: " + assistant.requests[1] in out.getvalue()
    # both requests are in the one session; the joined recording is linked to the answered one
    sessions = store.list_sessions()
    assert len(sessions) == 1
    recordings = store.get_session(sessions[0].id).recordings
    assert [r["request_id"] for r in recordings] == ["r1", "r2"]
    assert "new york" in recordings[1]["text"].lower() and recordings[1]["seconds"] > recordings[0]["seconds"]
