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


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass
class SessionSummary:
    id: str
    title: str
    created: float
    updated: float
    messages: int = 0


@dataclass
class SessionDetail:
    session: SessionSummary
    messages: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)


class SessionStore:
    """Thread-safe: the pipeline writes from worker threads while the GUI reads."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10)
        self.db = sqlite_utils.Database(conn)
        self._lock = threading.RLock()
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.migrate()

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
        with self._lock, self.db.conn:
            return fn()

    # -- sessions -----------------------------------------------------------------------------
    def new_session(self, title: str = "") -> str:
        sid = uuid.uuid4().hex[:12]
        now = time.time()
        self._write(lambda: self.db["sessions"].insert({"id": sid, "title": title[:80], "created": now, "updated": now}))
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
            row = self.db["messages"].insert({
                "session_id": session_id, "request_id": request_id, "role": role, "text": text,
                "files": _dumps(files or []), "created": now,
            })
            self.db["sessions"].update(session_id, {"updated": now})
            return row.last_pk

        return self._write(write)

    def list_sessions(self, limit: int = 200) -> list[SessionSummary]:
        with self._lock:
            rows = self.db.execute(
                "select s.id, s.title, s.created, s.updated, count(m.id) from sessions s "
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
                "select distinct s.id, s.title, s.created, s.updated, 0 from messages_fts f "
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
        return SessionDetail(SessionSummary(*row, messages=len(messages)), messages, requests)

    def export_session(self, session_id: str) -> dict[str, Any] | None:
        d = self.get_session(session_id)
        if d is None:
            return None
        return {"session": d.session.__dict__, "messages": d.messages, "requests": d.requests}

    def delete_session(self, session_id: str) -> bool:
        def write() -> bool:
            if not self.session_exists(session_id):
                return False
            rids = [r[0] for r in self.db.execute("select id from requests where session_id = ?", [session_id])]
            for rid in rids:
                self.db.execute("delete from tasks where request_id = ?", [rid])
                self.db.execute("delete from outputs where request_id = ?", [rid])
            self.db.execute("delete from requests where session_id = ?", [session_id])
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
        self._write(lambda: self.db["requests"].insert({
            "id": request_id, "session_id": session_id, "text": text, "files": _dumps(files),
            "status": "running", "started": time.time(),
        }))

    def update_request(self, request_id: str, **values: Any) -> None:
        for k in ("plan", "plan_repairs"):
            if k in values and not isinstance(values[k], str):
                values[k] = _dumps(values[k])
        self._write(lambda: self.db["requests"].update(request_id, values))

    def upsert_task(self, request_id: str, task_id: int, **values: Any) -> None:
        for k in ("args", "dep", "candidates", "data"):
            if k in values and not isinstance(values[k], str):
                values[k] = _dumps(values[k])
        row = {"request_id": request_id, "task_id": task_id, **values}
        self._write(lambda: self.db["tasks"].upsert(row, pk=("request_id", "task_id")))

    def add_output(self, request_id: str, task_id: int, path: str) -> None:
        self._write(lambda: self.db["outputs"].insert({
            "request_id": request_id, "task_id": task_id, "path": path, "kind": kind_of(path) or "file", "created": time.time(),
        }))
