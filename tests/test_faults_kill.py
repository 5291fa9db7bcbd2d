"""``kill -9`` at several points of a real ``jarvis ask`` (while planning, while a task runs,
while the answer streams), then a restart: the log shows the request and its unfinished steps as
interrupted (``jarvis sessions show``, ``sessions list``, the window's history), offers to run it
again, and ``jarvis sessions rerun`` does. The controller is the fake hosted endpoint of
tests/helpers/junk_controller.py, slowed down so each point can be hit."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.faults import JARVIS, clean_env, make_home, make_photo
from helpers.junk_controller import JunkControllerServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def junk():
    with JunkControllerServer() as server:
        yield server


def _start(home, junk_url: str, model: str, args: list[str]) -> subprocess.Popen:
    env = clean_env({**home, "OPENAI_BASE_URL": junk_url, "JARVIS_LLM_MODEL": model, "PYTHONUNBUFFERED": "1"})
    return subprocess.Popen(JARVIS + ["ask", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _kill_when(proc: subprocess.Popen, stream, marker: bytes, timeout: float = 240) -> bytes:
    """Read ``stream`` until ``marker`` shows, then SIGKILL the process. Returns what was read."""
    seen = b""
    deadline = time.monotonic() + timeout
    os.set_blocking(stream.fileno(), False)
    while marker not in seen:
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail(f"{marker!r} never appeared (exit {proc.poll()}): {seen[-2000:]!r}")
        chunk = stream.read()
        if chunk:
            seen += chunk
        else:
            time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    return seen


def _session_id(home) -> str:
    db = sqlite3.connect(Path(home["JARVIS_DATA_DIR"]) / "sessions.db")
    return db.execute("select session_id from requests order by started desc limit 1").fetchone()[0]


def _jarvis(home, *args) -> subprocess.CompletedProcess:
    return subprocess.run(JARVIS + list(args), env=clean_env(home), capture_output=True, text=True, timeout=300)


def _check_interrupted(home, expect_tasks: dict[int, str]) -> str:
    """Restart (``sessions show``), and check the interrupted state everywhere."""
    sid = _session_id(home)
    db = Path(home["JARVIS_DATA_DIR"]) / "sessions.db"
    raw = sqlite3.connect(db)
    assert raw.execute("select status from requests").fetchone()[0] == "running"  # as the kill left it
    shown = _jarvis(home, "sessions", "show", sid)  # the next start
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr[-2000:]
    assert "interrupted" in shown.stdout and f"jarvis sessions rerun {sid}" in shown.stdout
    status, error, finished = raw.execute("select status, error, finished from requests").fetchone()
    assert status == "interrupted" and "stopped before this request finished" in error and finished
    tasks = dict(raw.execute("select task_id, status from tasks").fetchall())
    assert tasks == expect_tasks
    assert "[interrupted]" in _jarvis(home, "sessions", "list").stdout
    return sid


def test_killed_while_planning(junk, tmp_path):
    home = make_home(tmp_path / "home")
    (tmp_path / "home" / "config" / "settings.toml").write_text("llm_timeout = 60\n")  # so 'slow' really hangs
    proc = _start(home, junk.base_url, "junk-slow", ["What is the capital of France?"])
    _kill_when(proc, proc.stderr, "plan…".encode())
    time.sleep(1.0)  # inside the 6-second reply
    sid = _check_interrupted(home, {})
    rerun = _jarvis({**home, "OPENAI_BASE_URL": junk.base_url, "JARVIS_LLM_MODEL": "junk-prose"}, "sessions", "rerun", sid)
    assert "Traceback" not in rerun.stderr
    db = sqlite3.connect(Path(home["JARVIS_DATA_DIR"]) / "sessions.db")
    rows = db.execute("select text, status from requests order by started").fetchall()
    assert rows[0][0] == rows[1][0] == "What is the capital of France?"
    assert rows[1][1] in ("done", "failed") and rows[0][1] in ("rerun", "interrupted")
    assert rows[0][1] == ("rerun" if rerun.returncode == 0 else "interrupted")


def test_killed_while_a_task_runs(junk, tmp_path):
    """Two steps: speech recognition of a real recording, then speech of its text; killed as the
    first starts (the Whisper model load takes over a second)."""
    home = make_home(tmp_path / "home")
    wav = tmp_path / "memo.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), "The meeting moved to Thursday"], check=True)
    proc = _start(home, junk.base_url, "junk-null", ["Transcribe this recording and read the transcript aloud",
                                                     "--file", str(wav)])
    _kill_when(proc, proc.stderr, "automatic-speech-recognition started".encode())
    db = sqlite3.connect(Path(home["JARVIS_DATA_DIR"]) / "sessions.db")
    planned = dict(db.execute("select task_id, task from tasks").fetchall())
    assert planned[0] == "automatic-speech-recognition"
    expect = {tid: "interrupted" for tid in planned}
    statuses = dict(db.execute("select task_id, status from tasks").fetchall())
    expect.update({tid: s for tid, s in statuses.items() if s in ("done", "failed", "skipped")})
    _check_interrupted(home, expect)
    errors = dict(db.execute("select task_id, error from tasks").fetchall())
    assert "stopped while this step ran" in errors[0]


def test_killed_while_the_answer_streams(junk, tmp_path):
    """The plan and the task finished; the kill comes during the answer step: every step is kept
    as done and only the request is interrupted."""
    home = make_home(tmp_path / "home")
    photo = make_photo(tmp_path / "photo.png")
    (tmp_path / "home" / "config" / "settings.toml").write_text("llm_timeout = 60\n")
    # plans well (a caption plan reading photo.png), then the answer call hangs for 6 s
    proc = _start(home, junk.base_url, "junk-slow-answer", ["Read the text in photo.png", "--file", str(photo)])
    _kill_when(proc, proc.stderr, "respond…".encode())
    _check_interrupted(home, {0: "done"})
    db = sqlite3.connect(Path(home["JARVIS_DATA_DIR"]) / "sessions.db")
    assert db.execute("select count(*) from outputs").fetchone()[0] >= 0
    last = db.execute("select role, text from messages order by id desc limit 1").fetchone()
    assert last[0] == "assistant" and "1 of 1 steps had finished" in last[1]


def test_the_window_history_shows_the_interrupted_session(junk, tmp_path, qtbot, monkeypatch):
    home = make_home(tmp_path / "home")
    (tmp_path / "home" / "config" / "settings.toml").write_text("llm_timeout = 60\n")
    proc = _start(home, junk.base_url, "junk-slow", ["Tell me a joke"])
    _kill_when(proc, proc.stderr, "plan…".encode())
    from jarvis_desktop.store.sessions import SessionStore
    from jarvis_desktop.ui.history import HistorySidebar

    store = SessionStore(Path(home["JARVIS_DATA_DIR"]) / "sessions.db")  # the window's start
    assert len(store.recovered) == 1
    sidebar = HistorySidebar()
    qtbot.addWidget(sidebar)
    sidebar.set_store(store)
    sid = _session_id(home)
    assert sidebar.interrupted_ids() == [sid]
    assert "interrupted" in sidebar.list.item(0).text()
    with qtbot.waitSignal(sidebar.rerun_requested) as blocker:
        sidebar.rerun_requested.emit(sid)  # what the 'Run again' menu entry sends
    assert blocker.args == [sid]
    assert store.interrupted_request(sid)["text"] == "Tell me a joke"
