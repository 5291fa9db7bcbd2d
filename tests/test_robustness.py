"""Issue 12, one test per item: what a hostile user types or a broken controller returns never
crashes, lies, or leaves a step running. Real processes, a real SQLite log, and a fake hosted
controller (tests/helpers/junk_controller.py) on 127.0.0.1 where a hosted endpoint would be."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.junk_controller import JunkControllerServer

JARVIS = [sys.executable, "-m", "jarvis_desktop"]


def run(args, env=None, input=None, timeout=300) -> subprocess.CompletedProcess:
    """``jarvis ARGS`` as bytes in and out (arguments may hold bytes that are not UTF-8)."""
    return subprocess.run(JARVIS + list(args), capture_output=True, env=env, input=input, timeout=timeout)


@pytest.fixture(scope="module")
def junk():
    with JunkControllerServer() as server:
        yield server


@pytest.fixture
def sign(tmp_path) -> Path:
    """A photo named photo.png with words on it: the shipped OCR reads them offline."""
    from PIL import Image, ImageDraw

    path = tmp_path / "photo.png"
    im = Image.new("RGB", (420, 90), "white")
    ImageDraw.Draw(im).text((10, 30), "OPEN ON SUNDAYS", fill="black", font_size=36)
    im.save(path)
    return path


def _controller_env(jarvis_env, junk_url: str, model: str) -> dict[str, str]:
    (jarvis_env / "config" / "settings.toml").write_text("llm_timeout = 2\n")
    return {**os.environ, "OPENAI_BASE_URL": junk_url, "JARVIS_LLM_MODEL": model}


def _db(jarvis_env) -> sqlite3.Connection:
    return sqlite3.connect(jarvis_env / "data" / "sessions.db")


# 1. bytes that are not UTF-8, lone surrogates and control bytes ---------------------------------
def test_non_utf8_argument_is_cleaned_and_saved(jarvis_env):
    out = run(["ask", b"describe \xff\xfe image \x1b[31mnow\x1b[0m\x07"])
    assert b"Traceback" not in out.stderr, out.stderr.decode(errors="replace")[-2000:]
    db = _db(jarvis_env)
    text, status = db.execute("select text, status from requests").fetchone()
    assert text == "describe \ufffd\ufffd image now" and status in ("done", "failed")
    assert db.execute("select text from messages where role = 'user'").fetchone()[0] == text
    assert db.execute("select count(*) from messages where role = 'assistant'").fetchone()[0] == 1


def test_request_on_stdin_with_bad_bytes(jarvis_env):
    out = run(["ask", "-"], input=b"hello \xc3\x28 there \x00\x1b[2J\r\n")
    assert b"Traceback" not in out.stderr, out.stderr.decode(errors="replace")[-2000:]
    text = _db(jarvis_env).execute("select text from requests").fetchone()[0]
    assert text == "hello \ufffd( there"


def test_lone_surrogates_from_every_caller_reach_the_log(jarvis_env):
    """A JSON body may hold "\\ud800"; a GUI paste may hold NULs and escapes: the assistant cleans
    them before anything is stored, and the store refuses no text."""
    from jarvis_desktop.config import load_settings
    from jarvis_desktop.pipeline.assistant import Assistant
    from jarvis_desktop.store.sessions import SessionStore

    a = Assistant(load_settings())
    try:
        r = a.ask("what \ud800 is \x00this\x1b[1m \ud83d\ude00")
    finally:
        a.close()
    assert r.text == "what \ufffd is this \U0001F600"
    store = SessionStore(a.settings.db_path)
    sid = store.new_session("title \udcff")  # the store itself never fails on such text
    store.add_message(sid, "user", "x \ud800", files=["/tmp/\udcff.png"])
    assert store.get_session(sid).messages[0]["files"] == ["/tmp/\ufffd.png"]


# 2. a bad controller reply never becomes the answer ---------------------------------------------
@pytest.mark.parametrize("mode", ["plan-as-answer", "null-answer", "empty-answer"])
def test_unusable_controller_answer_falls_back_to_the_composer(jarvis_env, junk, sign, mode):
    from jarvis_desktop.config import load_settings
    from jarvis_desktop.pipeline.assistant import Assistant

    os.environ.update(_controller_env(jarvis_env, junk.base_url, f"junk-{mode}"))
    try:
        a = Assistant(load_settings())
        r = a.ask("Read the text in photo.png", [sign])
        a.close()
    finally:
        for k in ("OPENAI_BASE_URL", "JARVIS_LLM_MODEL"):
            os.environ.pop(k, None)
    assert r.plan.source == "llm" and [t.task for t in r.plan.tasks] == ["image-to-text"]
    assert r.composer == "composer"
    assert "language model failed" in r.answer and "SUNDAYS" in r.answer.upper()
    assert '"task"' not in r.answer and r.answer.strip() not in ("", "null")
    saved = a.store.get_session(r.session_id).messages[-1]
    assert saved["role"] == "assistant" and saved["text"] == r.answer


def test_valid_plan_that_ignores_the_attached_file_is_caught(jarvis_env, junk, sign):
    from jarvis_desktop.config import load_settings
    from jarvis_desktop.pipeline.assistant import Assistant

    os.environ.update(_controller_env(jarvis_env, junk.base_url, "junk-unrelated-plan"))
    try:
        a = Assistant(load_settings())
        r = a.ask("caption photo.png", [sign])
        a.close()
    finally:
        for k in ("OPENAI_BASE_URL", "JARVIS_LLM_MODEL"):
            os.environ.pop(k, None)
    assert "text-to-speech" not in [t.task for t in r.plan.tasks]
    assert [t.task for t in r.plan.tasks] == ["image-to-text"] and r.plan.source == "offline"
    note = _db(jarvis_env).execute("select plan_note from requests").fetchone()[0]
    assert "no task reads the attached file 'photo.png'" in note
    assert "language model failed" in r.answer and "read the text aloud" not in r.answer


# 3. an unreachable controller: said once, and the offline planner does the work -------------------
def test_unreachable_controller_is_said_once_and_the_work_is_done(jarvis_env, sign):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    env = _controller_env(jarvis_env, f"http://127.0.0.1:{dead}/v1", "gpt-4o-mini")
    out = run(["ask", "Read the text in photo.png", "--file", str(sign), "--json"], env=env)
    assert out.returncode == 0, out.stderr.decode(errors="replace")[-2000:]
    data = json.loads(out.stdout)
    assert data["plan_source"] == "offline" and data["plan"][0]["task"] == "image-to-text"
    assert "SUNDAYS" in data["results"]["0"]["text"].upper()
    assert data["answer"].count("cannot reach") == 1 and "offline planner" in data["answer"]
    assert "invalid twice" not in data["answer"]
    assert b"Traceback" not in out.stderr


# 4. a killed request is marked interrupted on the next start (more in test_faults_kill.py) -------
LIVE_REQUEST = """
import sys, time
from jarvis_desktop.store.sessions import SessionStore
s = SessionStore(sys.argv[1])
sid = s.new_session("live")
s.start_request("live-request", sid, "still working", [])
s.upsert_task("live-request", 0, task="summarization", status="running")
print("RUNNING", flush=True)
time.sleep(120)
"""


def test_a_running_request_of_a_live_process_is_left_alone_and_a_dead_ones_is_marked(tmp_path):
    from jarvis_desktop.store.sessions import SessionStore

    db = tmp_path / "sessions.db"
    proc = subprocess.Popen([sys.executable, "-c", LIVE_REQUEST, str(db)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        assert proc.stdout.readline().strip() == "RUNNING"
        other = SessionStore(db)  # a second process (window, CLI) starting meanwhile
        assert other.recovered == []
        assert other.db.execute("select status from requests").fetchone()[0] == "running"
        other.close()
    finally:
        proc.kill()
        proc.wait(30)
    after = SessionStore(db)
    assert after.recovered == ["live-request"]
    req = after.db.execute("select status, error, finished from requests").fetchone()
    assert req[0] == "interrupted" and "stopped before this request finished" in req[1] and req[2]
    assert after.db.execute("select status, error from tasks").fetchone() == (
        "interrupted", "interrupted: the program stopped while this step ran")
    sid = after.list_sessions()[0].id
    assert after.list_sessions()[0].interrupted == 1
    assert "jarvis sessions rerun" in after.get_session(sid).messages[-1]["text"]
    assert after.interrupted_request(sid)["text"] == "still working"
    assert SessionStore(db).recovered == []  # marked once


# 5. exit codes, and file names with control characters -----------------------------------------
def test_ask_exits_non_zero_when_every_task_failed(jarvis_env, tmp_path):
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunkjunkjunk" * 10)
    out = run(["ask", "Transcribe this recording", "--file", str(bad)])
    assert out.returncode == 1 and b"broken.wav" in out.stdout and b"Traceback" not in out.stderr
    assert _db(jarvis_env).execute("select status from requests").fetchone()[0] == "failed"


def test_file_name_with_a_newline_is_shown_escaped(jarvis_env, tmp_path):
    odd = tmp_path / "a\nb\x1b[31m.wav"
    odd.write_bytes(b"not audio at all")
    out = run(["ask", "Transcribe this recording", "--file", str(odd)])
    assert out.returncode == 1 and b"Traceback" not in out.stderr
    assert b"a\\nb\\x1b[31m.wav" in out.stdout and b"a\nb" not in out.stdout
    assert b"a\nb" not in out.stderr and b"\x1b[31m" not in out.stderr


# 6. pipes -------------------------------------------------------------------------------------------
def test_sessions_list_into_head_has_no_traceback(jarvis_env):
    from jarvis_desktop.config import load_settings
    from jarvis_desktop.store.sessions import SessionStore

    store = SessionStore(load_settings().db_path)
    for i in range(3000):  # more than a pipe buffer holds
        store.new_session(f"conversation {i}")
    store.close()
    jarvis = " ".join(JARVIS)
    out = subprocess.run(["bash", "-c", f"{jarvis} sessions list | head -2"], capture_output=True, text=True, timeout=120)
    assert len(out.stdout.splitlines()) == 2
    assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr, out.stderr[-2000:]
    # a reader that is gone before the first line is written: the write surely fails
    for buffering in ({}, {"PYTHONUNBUFFERED": "1"}):
        out = subprocess.run(["bash", "-c", f"{jarvis} sessions list | true; echo $" + "{PIPESTATUS[0]}"],
                             capture_output=True, text=True, timeout=120, env={**os.environ, **buffering})
        assert "Traceback" not in out.stderr and "BrokenPipe" not in out.stderr, out.stderr[-2000:]
        assert out.stdout.strip() == "141"


# library progress bars ----------------------------------------------------------------------------
QUIET_CHECK = """
from jarvis_desktop.progress_bars import quiet_loading_bars
quiet_loading_bars()
import transformers.utils.logging as tl, diffusers.utils.logging as dl, huggingface_hub.utils as hub
print(tl.is_progress_bar_enabled(), dl.is_progress_bar_enabled(), hub.are_progress_bars_disabled())
"""


def test_loading_bars_are_off_and_download_bars_stay_on():
    out = subprocess.run([sys.executable, "-c", QUIET_CHECK], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["False", "False", "False"], out.stderr[-2000:]


def test_loading_a_cached_model_prints_no_bar(tmp_path):
    """A real load of a tiny model from the cache, through transformers, after the CLI's switch."""
    script = (
        "import sys; sys.path.insert(0, 'tests')\n"
        "from pathlib import Path\n"
        "from helpers import tiny_models\n"
        "d = Path(sys.argv[1]); tiny_models.text_classifier(d)\n"
        "if sys.argv[2] == 'quiet':\n"
        "    from jarvis_desktop.progress_bars import quiet_loading_bars\n"
        "    quiet_loading_bars()\n"
        "import transformers\n"
        "print('LOADING', file=sys.stderr, flush=True)\n"
        "transformers.AutoModelForSequenceClassification.from_pretrained(d)\n"
        "print('LOADED')\n"
    )
    def load(how: str) -> str:
        out = subprocess.run([sys.executable, "-c", script, str(tmp_path / how), how], capture_output=True, text=True,
                             timeout=300, env={**os.environ, "PYTHONPATH": os.getcwd()})
        assert "LOADED" in out.stdout, out.stderr[-2000:]
        return out.stderr.split("LOADING", 1)[1]

    assert "%|" in load("plain")  # the bar this switch is for
    quiet = load("quiet")
    assert "%|" not in quiet and "it/s" not in quiet, quiet[-2000:]
