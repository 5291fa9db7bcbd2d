"""The whole assistant offline (JARVIS_OFFLINE=1), with the models the registry packages ship:
a spoken WAV is transcribed by Whisper tiny.en, read aloud by the piper voice, and everything
lands in the SQLite log. Then the bad inputs a user will certainly produce."""

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import soundfile as sf

from jarvis_desktop.config import load_settings
from jarvis_desktop.pipeline import events as ev
from jarvis_desktop.pipeline.assistant import Assistant

pytestmark = pytest.mark.slow


def espeak(text: str, path: Path) -> Path:
    subprocess.run(["espeak-ng", "-w", str(path), text], check=True)
    return path


@pytest.fixture
def assistant(jarvis_env):
    a = Assistant(load_settings())
    yield a
    a.close()


def test_spoken_request_transcribed_and_read_aloud(assistant, tmp_path):
    wav = espeak("The meeting moved to Thursday in Paris", tmp_path / "memo.wav")
    seen: list[ev.Event] = []
    result = assistant.ask("Transcribe this recording and read the transcript aloud", [wav], on_event=seen.append)

    assert result.status == "done", result.error
    assert [t.task for t in result.plan.tasks] == ["automatic-speech-recognition", "text-to-speech"]
    asr, tts = result.results[0], result.results[1]
    assert asr.status == "done" and "thursday" in asr.output.text.lower() and "paris" in asr.output.text.lower()
    assert tts.status == "done" and tts.output.audio is not None
    samples, rate = sf.read(tts.output.audio)
    assert rate > 8000 and len(samples) > rate  # more than a second of speech
    # the answer names both models and the output file
    assert asr.model_id in result.answer and tts.model_id in result.answer
    assert str(tts.output.audio) in result.answer
    # the answer streamed token by token before it was done
    kinds = [e.kind for e in seen]
    assert kinds.index("PlanReady") < kinds.index("TaskStarted") < kinds.index("AnswerToken") < kinds.index("AnswerDone")
    assert "".join(e.text for e in seen if isinstance(e, ev.AnswerToken)).strip() == result.answer.strip()

    # the SQLite log holds the session with plan, tasks and outputs
    db = sqlite3.connect(assistant.settings.db_path)
    req = db.execute("select status, plan, answer from requests where id = ?", [result.request_id]).fetchone()
    assert req[0] == "done" and len(json.loads(req[1])) == 2 and req[2] == result.answer
    tasks = db.execute("select task, model_id, status from tasks where request_id = ? order by task_id", [result.request_id]).fetchall()
    assert tasks == [("automatic-speech-recognition", asr.model_id, "done"), ("text-to-speech", tts.model_id, "done")]
    outs = [r[0] for r in db.execute("select path from outputs where request_id = ?", [result.request_id])]
    assert outs == [str(tts.output.audio)]


def test_follow_up_in_the_same_session(assistant, tmp_path):
    first = assistant.ask("hello there")
    second = assistant.ask("Read this aloud: good night", session_id=first.session_id)
    assert second.session_id == first.session_id
    detail = assistant.store.get_session(first.session_id)
    assert [m["role"] for m in detail.messages] == ["user", "assistant", "user", "assistant"]


def test_a_follow_up_that_points_back_speaks_the_last_answer(assistant):
    """ "read that out loud" after an answer: the offline planner is given the session's last answer
    and speech reads it, not the words "read that out loud"."""
    first = assistant.ask("hello there")
    assert first.status == "done" and first.answer.strip()
    second = assistant.ask("read that out loud please", session_id=first.session_id)
    assert second.status == "done", second.error
    assert [t.task for t in second.plan.tasks] == ["text-to-speech"]
    assert second.plan.tasks[0].args["text"] == first.answer.strip()
    assert second.results[0].status == "done" and second.results[0].output.audio is not None


def test_a_follow_up_works_on_what_the_last_steps_wrote(assistant, tmp_path):
    """ "read that out loud" after a transcription: the transcript is spoken, not the answer that
    names the model and the file."""
    wav = espeak("Please water the tomatoes on Monday", tmp_path / "note.wav")
    first = assistant.ask("Transcribe this recording", [wav])
    assert first.status == "done", first.error
    transcript = first.results[0].output.text
    assert "tomato" in transcript.lower() and first.answer.strip() != transcript.strip()
    second = assistant.ask("read that out loud", session_id=first.session_id)
    assert [t.task for t in second.plan.tasks] == ["text-to-speech"]
    assert second.plan.tasks[0].args["text"] == transcript
    assert second.results[0].status == "done"


def test_a_correction_is_spoken_as_corrected_and_shown(assistant):
    """'Say "good morning". Sorry, make that "good night"': the corrected words are spoken, and the
    plan's note (shown beside the plan, kept in the session log) says what was read as withdrawn."""
    seen: list[ev.Event] = []
    result = assistant.ask('Say "good morning" out loud. Sorry, make that "good night".', on_event=seen.append)
    assert result.status == "done", result.error
    assert [(t.task, t.args["text"]) for t in result.plan.tasks] == [("text-to-speech", "good night")]
    assert result.results[0].status == "done" and result.results[0].output.audio is not None
    note = next(e.note for e in seen if isinstance(e, ev.PlanReady))
    assert "correction" in note and "good morning" in note
    db = sqlite3.connect(assistant.settings.db_path)
    assert db.execute("select plan_note from requests where id = ?", [result.request_id]).fetchone()[0] == note


def _check_failed_but_saved(assistant, result, *phrases):
    assert result.status == "failed" or any(r.status == "failed" for r in result.results.values())
    text = (result.answer + " " + result.error).lower()
    for p in phrases:
        assert p.lower() in text, (p, result.answer)
    detail = assistant.store.get_session(result.session_id)
    assert detail is not None and detail.messages[0]["role"] == "user"
    assert detail.messages[-1]["role"] == "assistant" and detail.messages[-1]["text"] == result.answer


def test_corrupt_wav_gets_a_clear_message(assistant, tmp_path):
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunkjunkjunk" * 10)
    result = assistant.ask("Transcribe this recording", [bad])
    _check_failed_but_saved(assistant, result, "broken.wav")
    assert result.results[0].status == "failed"


def test_zero_byte_image(assistant, tmp_path):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    result = assistant.ask("What text is in this image?", [empty])
    _check_failed_but_saved(assistant, result, "empty.png", "empty")


def test_file_that_does_not_exist(assistant, tmp_path):
    result = assistant.ask("Transcribe this", [tmp_path / "nowhere.wav"])
    _check_failed_but_saved(assistant, result, "nowhere.wav", "not found")


def test_unsupported_file_type(assistant, tmp_path):
    f = tmp_path / "archive.zip"
    f.write_bytes(b"PK\x03\x04")
    result = assistant.ask("Open this", [f])
    _check_failed_but_saved(assistant, result, "unsupported file type")


class ScriptedFakeController:
    """Stands in for a hosted LLM (none can be reached here): replies with a fixed script."""

    tiny = False
    name = "scripted fake controller"
    context_tokens = 8000

    def __init__(self, replies):
        self.replies = list(replies)
        self.calls = 0
        self.asked: list[list[dict]] = []  # the messages of each call

    def chat(self, messages, *, json_schema=None, stream=False, max_tokens=None, temperature=0.0):
        self.calls += 1
        self.asked.append(list(messages))
        reply = self.replies.pop(0) if self.replies else "I cannot help with that."
        return iter(re.findall(r"\S+\s*", reply)) if stream else reply


def test_plan_reading_a_file_the_user_never_gave_is_refused(jarvis_env, tmp_path):
    evil = json.dumps([{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "/etc/ssl/private/key.png"}}])
    controller = ScriptedFakeController([evil, evil, "Sorry, I can only read files you attach."])
    a = Assistant(load_settings(), controller=controller)
    result = a.ask("Read the text in my key file")
    assert controller.calls == 3  # plan, re-ask once, then plain chat
    assert result.plan.tasks == [] and result.plan.source == "fallback"
    assert any("not a file you attached" in e for e in result.plan_errors)
    assert result.answer == "Sorry, I can only read files you attach."
    db = sqlite3.connect(a.settings.db_path)
    note = db.execute("select plan_note from requests where id = ?", [result.request_id]).fetchone()[0]
    assert "not a file you attached" in note


def test_the_chat_is_told_what_it_can_and_cannot_do(jarvis_env):
    """"set a timer" has no expert step: the chat partner answers, told which models this computer
    has and that it acts on nothing, so it says no rather than "Timer set"."""
    controller = ScriptedFakeController(["[]", "I can't set timers; the clock on your phone can."])
    a = Assistant(load_settings(), controller=controller)
    result = a.ask("set a timer for ten minutes please")
    assert result.plan.tasks == [] and result.answer == "I can't set timers; the clock on your phone can."
    system = controller.asked[-1][0]
    assert system["role"] == "system" and "timers" in system["content"] and "{abilities}" not in system["content"]
    local = a.local_task_types()
    assert local and all(t.replace("-", " ") in system["content"] for t in local)


def test_cli_ask_json_offline(jarvis_env, tmp_path):
    wav = espeak("Hello from the command line", tmp_path / "hi.wav")
    out = subprocess.run(
        [sys.executable, "-m", "jarvis_desktop", "ask", "transcribe this audio", "--file", str(wav), "--json"],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout)
    assert data["plan"][0]["task"] == "automatic-speech-recognition"
    assert "command line" in data["results"]["0"]["text"].lower()
    assert "plan" in out.stderr  # progress went to stderr
    sessions = subprocess.run([sys.executable, "-m", "jarvis_desktop", "sessions", "list"], capture_output=True, text=True)
    assert data["session_id"] in sessions.stdout


def test_an_interrupted_answer_is_noted_for_the_next_request(assistant):
    first = assistant.ask("hello")
    assistant.ask("and now?", session_id=first.session_id, interrupted=True)
    roles = [(m["role"], m["text"]) for m in assistant.store.get_session(first.session_id).messages]
    assert roles[2][0] == "system" and "interrupted" in roles[2][1]
    assert roles[3] == ("user", "and now?")


def test_hybrid_keeps_the_offline_draft_when_the_llm_drops_every_step(jarvis_env, monkeypatch, tmp_path):
    monkeypatch.setenv("JARVIS_PLANNER", "hybrid")
    wav = espeak("Hybrid planning test", tmp_path / "h.wav")
    controller = ScriptedFakeController(["[]", "It says: hybrid planning test."])
    a = Assistant(load_settings(), controller=controller)
    check, note = a.make_plan("Transcribe this recording", [__import__("jarvis_desktop.media", fromlist=["x"]).check_attachment(wav)])
    assert [t.task for t in check.plan.tasks] == ["automatic-speech-recognition"]
    assert "draft kept" in note


def test_a_dropped_image_with_no_step_named_is_read(assistant, tmp_path):
    """No step is named ("have a look at this"), but an image came with it: read the image."""
    from PIL import Image, ImageDraw

    img = tmp_path / "sign.png"
    im = Image.new("RGB", (420, 90), "white")
    ImageDraw.Draw(im).text((10, 30), "OPEN ON SUNDAYS", fill="black", font_size=36)
    im.save(img)
    result = assistant.ask("Have a look at this", [img])
    assert [t.task for t in result.plan.tasks] == ["image-to-text"]
    assert result.results[0].status == "done"
    assert "SUNDAYS" in result.results[0].output.text.upper()


def test_a_request_naming_a_file_that_was_not_attached_says_so_and_runs_nothing(assistant):
    """'describe photo.jpg and read it aloud' with no photo given: planned anyway, the speech step
    read "Read it aloud" aloud. Nothing runs; the answer names the file to attach, and the
    request is kept in the session."""
    result = assistant.ask("describe photo.jpg and read it aloud")
    assert result.plan.tasks == [] and result.results == {}
    assert result.answer == ("This request needs photo.jpg, which was not attached. "
                             "Attach it and ask again; nothing was run.")
    db = sqlite3.connect(assistant.settings.db_path)
    saved = db.execute("select text from requests where id = ?", [result.request_id]).fetchone()[0]
    assert saved == "describe photo.jpg and read it aloud"


def test_the_attached_file_waits_for_the_one_the_request_names(assistant, tmp_path):
    """'describe photo.jpg and transcribe this recording' with only the recording: nothing runs,
    and the recording is kept for when the photo comes too."""
    wav = espeak("Budget meeting notes for Monday", tmp_path / "talk.wav")
    result = assistant.ask("describe photo.jpg and transcribe this recording", [wav])
    assert result.plan.tasks == [] and result.results == {}
    assert result.answer.startswith("This request needs photo.jpg, which was not attached.")
    assert result.kept_files == [str(wav.resolve())]


def test_files_left_for_later_are_kept_and_nothing_runs(assistant, tmp_path):
    """'here's the recording, nothing to do yet': the natural step on a dropped file (transcribe
    it) is not run, and the answer says so instead of listing what the assistant can do."""
    wav = espeak("Budget meeting notes for Monday", tmp_path / "meeting.wav")
    result = assistant.ask("here's the meeting recording for later, nothing to do yet", [wav])
    assert result.plan.tasks == [] and result.results == {}
    assert result.answer == "Okay, nothing was run. When you want something done with meeting.wav, just ask."
    assert result.kept_files == [str(wav.resolve())]  # the window keeps it attached for the next request
    db = sqlite3.connect(assistant.settings.db_path)
    saved = db.execute("select text from requests where id = ?", [result.request_id]).fetchone()[0]
    assert saved == "here's the meeting recording for later, nothing to do yet"


def test_copies_that_fail_alike_are_told_once(assistant):
    """'write two limericks' plans two copies of one step; with the writing model not in the cache
    both fail with the same message, and the answer says it once, for both, not twice over."""
    result = assistant.ask("write two limericks about a sleepy cat")
    assert [t.task for t in result.plan.tasks] == ["text-generation", "text-generation"]
    assert [r.status for r in result.results.values()] == ["failed", "failed"]
    assert result.answer.count("failed") == 1 and "The 2 text generation steps with" in result.answer
    assert "jarvis models pull" in result.answer  # what to do about it
