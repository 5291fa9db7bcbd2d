"""The session log on a real SQLite file: schema, migrations, search, export, and a process
killed mid-request keeping every completed step."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from jarvis_desktop.pipeline import events as ev
from jarvis_desktop.pipeline.session_log import SessionLogger
from jarvis_desktop.store.sessions import MIGRATIONS, SessionStore


def test_schema_is_migrated_and_wal(tmp_path):
    store = SessionStore(tmp_path / "s.db")
    assert store.schema_version == len(MIGRATIONS)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"sessions", "messages", "requests", "tasks", "outputs"} <= set(store.db.table_names())
    store.close()
    # reopening runs no migration twice and keeps the data
    again = SessionStore(tmp_path / "s.db")
    assert again.schema_version == len(MIGRATIONS)


def test_events_are_logged_step_by_step(tmp_path):
    store = SessionStore(tmp_path / "s.db")
    sid = store.new_session("first")
    log = SessionLogger(store, sid)
    plan = [{"task": "text-to-speech", "id": 0, "dep": [-1], "args": {"text": "hi"}}]
    for e in [
        ev.RequestStarted("r1", "say hi", []),
        ev.PlanReady("r1", plan, "offline", 0.01),
        ev.ModelChosen("r1", 0, "text-to-speech", "voice/x", "only local model", ["voice/x"], "local-cpu"),
        ev.TaskStarted("r1", 0, "text-to-speech", "voice/x", "local-cpu"),
        ev.TaskFinished("r1", 0, "text-to-speech", "voice/x", "local-cpu", 0.5, text="hi", files=[str(tmp_path / "a.wav")]),
        ev.AnswerDone("r1", "I said hi with voice/x.", 0.0, composer="composer"),
    ]:
        log(e)
    d = store.get_session(sid)
    assert [m["role"] for m in d.messages] == ["user", "assistant"]
    r = d.requests[0]
    assert r["status"] == "done" and r["plan"] == plan and r["plan_source"] == "offline"
    t = r["tasks"][0]
    assert t["status"] == "done" and t["model_id"] == "voice/x" and t["reason"] == "only local model"
    assert r["outputs"][0]["path"].endswith("a.wav") and r["outputs"][0]["kind"] == "audio"
    assert store.output_paths(sid) == {str(tmp_path / "a.wav")}


def test_the_latest_requests_written_results_last_step_first(tmp_path):
    """What a follow-up ("translate that") works on: the steps' texts of the latest request only."""
    store = SessionStore(tmp_path / "s.db")
    sid = store.new_session("first")
    log = SessionLogger(store, sid)
    plan = [{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "a.jpg"}},
            {"task": "translation", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}}]
    for e in [ev.RequestStarted("r1", "caption it in French", []), ev.PlanReady("r1", plan, "offline", 0.01),
              ev.TaskFinished("r1", 0, "image-to-text", "m/cap", "local-cpu", 0.5, text="a red boat"),
              ev.TaskFinished("r1", 1, "translation", "m/tr", "local-cpu", 0.5, text="un bateau rouge"),
              ev.AnswerDone("r1", "m/cap saw a red boat; m/tr: un bateau rouge.", 0.0, composer="composer")]:
        log(e)
    assert store.last_text_results(sid) == [("translation", "un bateau rouge"), ("image-to-text", "a red boat")]
    time.sleep(0.01)
    for e in [ev.RequestStarted("r2", "thanks!", []), ev.PlanReady("r2", [], "offline", 0.01),
              ev.AnswerDone("r2", "You're welcome.", 0.0, composer="chat")]:
        log(e)
    assert store.last_text_results(sid) == []  # the latest request was chat: its answer is the words


def test_search_export_delete(tmp_path):
    store = SessionStore(tmp_path / "s.db")
    a = store.new_session("cats")
    store.add_message(a, "user", "Describe my kitten photograph")
    store.add_message(a, "assistant", "A grey kitten on a sofa.")
    b = store.new_session("dogs")
    store.add_message(b, "user", "Transcribe the puppy video")
    assert [s.id for s in store.search("kitten")] == [a]
    assert [s.id for s in store.search("puppy")] == [b]
    assert [s.id for s in store.search("sofa")] == [a]
    assert store.search("zebra") == []
    exported = store.export_session(a)
    json.dumps(exported)  # JSON-serialisable
    assert exported["messages"][1]["text"] == "A grey kitten on a sofa."
    assert store.delete_session(a)
    assert store.get_session(a) is None
    assert store.search("kitten") == []
    assert {s.id for s in store.list_sessions()} == {b}


CRASH_SCRIPT = textwrap.dedent(
    """
    import sys, threading
    from jarvis_desktop.config import Settings
    from jarvis_desktop.experts.base import TaskOutput
    from jarvis_desktop.experts.registry import ExpertRegistry
    from jarvis_desktop.experts.catalog import Catalog, CatalogModel
    from jarvis_desktop.pipeline.assistant import Assistant
    from jarvis_desktop.pipeline.plan import Plan, PlanCheck, Task

    class FakeBackendThatHangs:
        '''Task 0 finishes and writes a file; task 1 never returns (the process is killed).'''
        name = "fake"
        def models(self, task): return ["fake/model"]
        def where(self, task, model_id): return "local-cpu"
        def run(self, task, model_id, args, ctx):
            if ctx.task_id == 0:
                p = ctx.output_path("out", ".txt"); p.write_text("made")
                return TaskOutput(text="first done", image=None, data={"n": 1})
            print("HANGING", flush=True)
            threading.Event().wait()

    class PlannedAssistant(Assistant):
        def make_plan(self, text, attachments, history=None, written=None):
            return PlanCheck(Plan([Task(0, "summarization", [], {"text": text}),
                                   Task(1, "translation", [0], {"text": "<GENERATED>-0"})], "test")), "test plan"

    s = Settings(data_dir=sys.argv[1], offline=True)
    a = PlannedAssistant(s, registry=ExpertRegistry([FakeBackendThatHangs()]),
                         catalog=Catalog([CatalogModel("fake/model", "summarization")]))
    a.ask("remember this")
    """
)


def test_a_killed_process_keeps_completed_steps(tmp_path):
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-c", CRASH_SCRIPT, str(data)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        line = proc.stdout.readline()
        assert "HANGING" in line
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    db = sqlite3.connect(data / "sessions.db")
    req = db.execute("select text, status, plan from requests").fetchone()
    assert req[0] == "remember this" and req[1] == "running" and json.loads(req[2])[1]["task"] == "translation"
    tasks = dict(db.execute("select task_id, status from tasks").fetchall())
    assert tasks == {0: "done", 1: "running"}
    assert db.execute("select text from messages where role='user'").fetchone()[0] == "remember this"


def test_no_secret_reaches_the_database(tmp_path):
    from jarvis_desktop.config import Settings

    s = Settings(api_key="sk-very-secret", hf_token="hf_secret", data_dir=str(tmp_path))
    store = SessionStore(s.db_path)
    sid = store.new_session("x")
    store.add_message(sid, "user", json.dumps(s.redacted()))
    raw = (tmp_path / "sessions.db").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("sessions.db-*"))
    assert b"sk-very-secret" not in raw and b"hf_secret" not in raw
