"""Several processes opening a new session log at the same moment (the window, a CLI request and
the server started together) must all get a working log: one creates the tables, the others wait."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OPEN_AND_WRITE = """
import sys, time
start = float(sys.argv[2])
while time.time() < start:
    pass
from jarvis_desktop.store.sessions import MIGRATIONS, SessionStore
store = SessionStore(sys.argv[1])
sid = store.new_session("hello")
assert store.schema_version == len(MIGRATIONS)
print("ok", sid)
"""


def test_processes_opening_a_new_log_at_once_all_succeed(tmp_path):
    db = tmp_path / "data" / "sessions.db"
    for attempt in range(3):  # a fresh file each time: the race is in creating it
        path = db.with_name(f"sessions{attempt}.db")
        start = time.time() + 3.0  # every process imports first, then all open at the same instant
        procs = [subprocess.Popen([sys.executable, "-c", OPEN_AND_WRITE, str(path), str(start)], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
        results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
        for out, err, rc in results:
            assert rc == 0 and out.startswith("ok"), err[-2000:]
        from jarvis_desktop.store.sessions import SessionStore

        store = SessionStore(path)
        assert len(store.list_sessions()) == 4
        store.close()
