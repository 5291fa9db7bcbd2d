"""The session log: every conversation, request, plan, task and output, in one SQLite file.

Written step by step as events arrive (each write is its own transaction, WAL mode), so a crash or
kill mid-request leaves every completed step on disk. Schema changes are numbered migrations
tracked with ``PRAGMA user_version``. Secrets never reach this file: only redacted settings and
the user's own words and results are stored.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import sqlite_utils

from ..media import kind_of
from ..textclean import fix_surrogates
from .run_locks import RunLocks, exclusive_file


def _migration_1(db: sqlite_utils.Database) -> None:
    db["sessions"].create({"id": str, "title": str, "created": float, "updated": float}, pk="id")
    db["messages"].create(
        {"id": int, "session_id": str, "request_id": str, "role": str, "text": str, "files": str, "created": float},
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["messages"].create_index(["session_id"])
    db["requests"].create(
        {
            "id": str, "session_id": str, "text": str, "files": str, "status": str, "plan_source": str,
            "plan": str, "plan_repairs": str, "plan_note": str, "answer": str, "answer_composer": str,
            "error": str, "started": float, "finished": float,
        },
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["requests"].create_index(["session_id"])
    db["tasks"].create(
        {
            "request_id": str, "task_id": int, "task": str, "args": str, "dep": str, "model_id": str,
            "reason": str, "candidates": str, "where_ran": str, "status": str, "error": str, "text": str,
            "data": str, "started": float, "finished": float, "seconds": float,
        },
        pk=("request_id", "task_id"),
    )
    db["outputs"].create(
        {"id": int, "request_id": str, "task_id": int, "path": str, "kind": str, "created": float},
        pk="id",
    )
    db["outputs"].create_index(["request_id"])
    db["messages"].enable_fts(["text"], create_triggers=True)


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_migration_1]


def _migration_2(db: sqlite_utils.Database) -> None:
    """Saved voice recordings, linked to the session (and request) they became."""
    db["recordings"].create(
        {"id": int, "session_id": str, "request_id": str, "path": str, "text": str, "seconds": float,
         "created": float},
        pk="id",
        foreign_keys=[("session_id", "sessions", "id")],
    )
    db["recordings"].create_index(["session_id"])


MIGRATIONS.append(_migration_2)


def _dumps(value: Any) -> str:
    return fix_surrogates(json.dumps(value, ensure_ascii=False, default=str))


def _storable(values: dict[str, Any]) -> dict[str, Any]:
    """Text SQLite can encode: a lone surrogate (an undecodable byte of a file name or terminal
    argument) would make the whole write fail, losing the step."""
    return {k: fix_surrogates(v) if isinstance(v, str) else v for k, v in values.items()}


@dataclass
class SessionSummary:
    id: str
    title: str
    created: float
    updated: float
    messages: int = 0
    interrupted: int = 0  # requests cut short by a killed process (shown with an offer to re-run)


@dataclass
class SessionDetail:
    session: SessionSummary
    messages: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    recordings: list[dict[str, Any]] = field(default_factory=list)  # the user's spoken requests (WAV paths)


class SessionStore:
    """Thread-safe: the pipeline writes from worker threads while the GUI reads."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10)
        self.db = sqlite_utils.Database(conn)
        self._lock = threading.RLock()
        self.run_locks = RunLocks(self.path.with_name(self.path.name + ".running"))
        # one process at a time sets the log up (tables, migrations, interrupted requests)
        with exclusive_file(self.path.with_name(self.path.name + ".setup-lock")):
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.migrate()
            self.recovered = self.mark_interrupted()

    # -- schema -------------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self) -> None:
        with self._lock:
            version = self.schema_version
            for n, step in enumerate(MIGRATIONS[version:], start=version + 1):
                with self.db.conn:
                    step(self.db)
                    self.db.execute(f"PRAGMA user_version = {n}")

    def close(self) -> None:
        with self._lock:
            self.db.conn.close()

    def _write(self, fn: Callable[[], Any]) -> Any:
        """One write transaction that takes the database's write lock before it reads anything.

        Another process may be writing the same log (the window and ``jarvis ask``, or ``jarvis
        serve``). A deferred transaction that first reads and then writes cannot wait for that
        writer: SQLite refuses the upgrade at once ("database is locked") and the message was
        lost. ``BEGIN IMMEDIATE`` waits for the lock instead (up to the connection's timeout)."""
        with self._lock, self.db.conn:
            self.db.conn.execute("BEGIN IMMEDIATE")
            return fn()

    # -- sessions -----------------------------------------------------------------------------
    def new_session(self, title: str = "") -> str:
        sid = uuid.uuid4().hex[:12]
        now = time.time()
        self._write(lambda: self.db["sessions"].insert({"id": sid, "title": fix_surrogates(title[:80]), "created": now,
                                                       "updated": now}))
        return sid

    def ensure_session(self, session_id: str | None, title: str) -> str:
        if session_id and self.session_exists(session_id):
            return session_id
        return self.new_session(title)

    def session_exists(self, session_id: str) -> bool:
        with self._lock:
            return self.db.execute("select 1 from sessions where id = ?", [session_id]).fetchone() is not None

    def add_message(self, session_id: str, role: str, text: str, request_id: str = "", files: list[str] | None = None) -> int:
        now = time.time()

        def write() -> int:
            row = self.db["messages"].insert(_storable({
                "session_id": session_id, "request_id": request_id, "role": role, "text": text,
                "files": _dumps(files or []), "created": now,
            }))
            self.db["sessions"].update(session_id, {"updated": now})
            return row.last_pk

        return self._write(write)

    def list_sessions(self, limit: int = 200) -> list[SessionSummary]:
        with self._lock:
            rows = self.db.execute(
                "select s.id, s.title, s.created, s.updated, count(m.id), (select count(*) from requests r "
                "where r.session_id = s.id and r.status = 'interrupted') from sessions s "
                "left join messages m on m.session_id = s.id group by s.id order by s.updated desc limit ?",
                [limit],
            ).fetchall()
        return [SessionSummary(*r) for r in rows]

    def search(self, query: str, limit: int = 50) -> list[SessionSummary]:
        """Sessions whose requests or answers match ``query`` (full-text search)."""
        words = [w for w in "".join(c if c.isalnum() else " " for c in query).split() if w]
        if not words:
            return self.list_sessions(limit)
        fts = " ".join(f'"{w}"*' for w in words)
        with self._lock:
            rows = self.db.execute(
                "select distinct s.id, s.title, s.created, s.updated, 0, (select count(*) from requests r "
                "where r.session_id = s.id and r.status = 'interrupted') from messages_fts f "
                "join messages m on m.id = f.rowid join sessions s on s.id = m.session_id "
                "where messages_fts match ? order by s.updated desc limit ?",
                [fts, limit],
            ).fetchall()
        return [SessionSummary(*r) for r in rows]

    def get_session(self, session_id: str) -> SessionDetail | None:
        with self._lock:
            row = self.db.execute("select id, title, created, updated from sessions where id = ?", [session_id]).fetchone()
            if row is None:
                return None
            messages = list(self.db.query("select * from messages where session_id = ? order by id", [session_id]))
            requests = list(self.db.query("select * from requests where session_id = ? order by started", [session_id]))
            recordings = list(self.db.query("select * from recordings where session_id = ? order by id", [session_id]))
            for r in requests:
                r["tasks"] = list(self.db.query("select * from tasks where request_id = ? order by task_id", [r["id"]]))
                r["outputs"] = list(self.db.query("select * from outputs where request_id = ? order by id", [r["id"]]))
        for m in messages:
            m["files"] = json.loads(m["files"] or "[]")
        for r in requests:
            for k in ("files", "plan", "plan_repairs"):
                r[k] = json.loads(r[k]) if r.get(k) else None
            for t in r["tasks"]:
                for k in ("args", "dep", "candidates", "data"):
                    t[k] = json.loads(t[k]) if t.get(k) else None
        return SessionDetail(SessionSummary(*row, messages=len(messages)), messages, requests, recordings)

    def export_session(self, session_id: str) -> dict[str, Any] | None:
        d = self.get_session(session_id)
        if d is None:
            return None
        return {"session": d.session.__dict__, "messages": d.messages, "requests": d.requests, "recordings": d.recordings}

    def delete_session(self, session_id: str) -> bool:
        def write() -> bool:
            if not self.session_exists(session_id):
                return False
            rids = [r[0] for r in self.db.execute("select id from requests where session_id = ?", [session_id])]
            for rid in rids:
                self.db.execute("delete from tasks where request_id = ?", [rid])
                self.db.execute("delete from outputs where request_id = ?", [rid])
            self.db.execute("delete from requests where session_id = ?", [session_id])
            self.db.execute("delete from recordings where session_id = ?", [session_id])
            self.db.execute("delete from messages where session_id = ?", [session_id])
            self.db.execute("delete from sessions where id = ?", [session_id])
            return True

        return self._write(write)

    def history(self, session_id: str, limit: int = 20) -> list[tuple[str, str]]:
        """The last ``limit`` (role, text) turns of a session, oldest first."""
        with self._lock:
            rows = self.db.execute(
                "select role, text from messages where session_id = ? order by id desc limit ?", [session_id, limit]
            ).fetchall()
        return [(r, t) for r, t in reversed(rows)]

    def last_text_results(self, session_id: str) -> list[tuple[str, str]]:
        """The (task type, text) results of the session's latest request, last step first: what
        its steps wrote, without the answer's words about which model did what. Empty when that
        request ran no step with text (a chat reply)."""
        with self._lock:
            row = self.db.execute(
                "select id from requests where session_id = ? order by started desc limit 1", [session_id]).fetchone()
            if row is None:
                return []
            rows = self.db.execute(
                "select task, text from tasks where request_id = ? and status = 'done' and text is not null and text != '' "
                "order by task_id desc", [row[0]]).fetchall()
        return [(t, x) for t, x in rows]

    def output_paths(self, session_id: str | None = None) -> set[str]:
        """Files the assistant produced (for serving them safely)."""
        with self._lock:
            if session_id:
                rows = self.db.execute(
                    "select o.path from outputs o join requests r on r.id = o.request_id where r.session_id = ?", [session_id]
                )
            else:
                rows = self.db.execute("select path from outputs")
            return {r[0] for r in rows}

    # -- requests, as events arrive ------------------------------------------------------------
    def start_request(self, request_id: str, session_id: str, text: str, files: list[str]) -> None:
        self.run_locks.acquire(request_id)  # before the row: no other start may see it ownerless
        self._write(lambda: self.db["requests"].insert(_storable({
            "id": request_id, "session_id": session_id, "text": text, "files": _dumps(files),
            "status": "running", "started": time.time(),
        })))

    def update_request(self, request_id: str, **values: Any) -> None:
        if values.get("status", "running") != "running":
            self.run_locks.release(request_id)
        for k in ("plan", "plan_repairs"):
            if k in values and not isinstance(values[k], str):
                values[k] = _dumps(values[k])
        values = _storable(values)
        self._write(lambda: self.db["requests"].update(request_id, values))

    def upsert_task(self, request_id: str, task_id: int, **values: Any) -> None:
        for k in ("args", "dep", "candidates", "data"):
            if k in values and not isinstance(values[k], str):
                values[k] = _dumps(values[k])
        row = _storable({"request_id": request_id, "task_id": task_id, **values})
        self._write(lambda: self.db["tasks"].upsert(row, pk=("request_id", "task_id")))

    def add_recording(self, session_id: str, path: str, request_id: str = "", text: str = "", seconds: float = 0.0) -> int:
        """Link a saved recording of the user's voice to its session (and the request it became)."""
        def write() -> int:
            row = self.db["recordings"].insert({
                "session_id": session_id, "request_id": request_id, "path": fix_surrogates(str(path)),
                "text": fix_surrogates(text), "seconds": float(seconds), "created": time.time(),
            })
            return row.last_pk

        return self._write(write)

    def add_output(self, request_id: str, task_id: int, path: str) -> None:
        self._write(lambda: self.db["outputs"].insert({
            "request_id": request_id, "task_id": task_id, "path": fix_surrogates(path), "kind": kind_of(path) or "file", "created": time.time(),
        }))

    # -- requests a killed process left running --------------------------------------------------
    def mark_interrupted(self) -> list[str]:
        """Give every request whose process died mid-way its end: the request and its unfinished
        tasks become ``interrupted``, and the session says so and how to run it again. Requests
        still running in a live process (this one or another) are left alone."""
        with self._lock:
            rows = self.db.execute("select id, session_id, text from requests where status = 'running'").fetchall()
        marked = []
        for rid, sid, text in rows:
            if self.run_locks.is_alive(rid):
                continue
            self._write(lambda rid=rid, sid=sid: self._interrupt(rid, sid))
            marked.append(rid)
        return marked

    def _interrupt(self, rid: str, sid: str) -> None:
        tasks = self.db.execute("select task_id, status, started, finished from tasks where request_id = ?", [rid]).fetchall()
        times = [t for row in tasks for t in row[2:] if t]
        started = self.db.execute("select started from requests where id = ?", [rid]).fetchone()[0]
        for task_id, status, _s, _f in tasks:
            if status == "running":
                error = "interrupted: the program stopped while this step ran"
            elif status in ("waiting", None, ""):
                error = "not run: the program stopped before this step started"
            else:
                continue
            self.db["tasks"].update((rid, task_id), {"status": "interrupted", "error": error})
        done = sum(1 for t in tasks if t[1] == "done")
        steps = f" ({done} of {len(tasks)} steps had finished)" if tasks else ""
        self.db["requests"].update(rid, {
            "status": "interrupted", "finished": max(times + [started or 0]) or None,
            "error": f"interrupted: the program stopped before this request finished{steps}",
        })
        self.db["messages"].insert({
            "session_id": sid, "request_id": rid, "role": "assistant", "created": time.time(), "files": "[]",
            "text": f"This request was interrupted: JARVIS stopped before it finished{steps}. "
                    f"Run it again with: jarvis sessions rerun {sid} (or 'Run again' in the window's history).",
        })

    def interrupted_request(self, session_id: str) -> dict[str, Any] | None:
        """The latest interrupted request of a session (its text and files), to run again."""
        with self._lock:
            row = self.db.execute(
                "select id, text, files from requests where session_id = ? and status = 'interrupted' "
                "order by started desc limit 1", [session_id]).fetchone()
        if row is None:
            return None
        return {"id": row[0], "text": row[1] or "", "files": json.loads(row[2] or "[]")}
