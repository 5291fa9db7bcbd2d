"""Writes pipeline events into the session store as they happen."""

from __future__ import annotations

from ..store.sessions import SessionStore
from . import events as ev


class SessionLogger:
    """Listens to pipeline events and writes each completed step at once."""

    def __init__(self, store: SessionStore, session_id: str):
        self.store = store
        self.session_id = session_id

    def __call__(self, e: ev.Event) -> None:
        s, rid = self.store, e.request_id
        if isinstance(e, ev.RequestStarted):
            s.start_request(rid, self.session_id, e.text, e.files)
            s.add_message(self.session_id, "user", e.text, rid, e.files)
        elif isinstance(e, ev.PlanReady):
            s.update_request(rid, plan=e.plan, plan_source=e.source, plan_repairs=e.repairs, plan_note=e.note)
            for t in e.plan:
                s.upsert_task(rid, t["id"], task=t["task"], args=t["args"], dep=t["dep"], status="waiting")
        elif isinstance(e, ev.ModelChosen):
            s.upsert_task(rid, e.task_id, task=e.task, model_id=e.model_id, reason=e.reason, candidates=e.candidates, where_ran=e.where)
        elif isinstance(e, ev.TaskStarted):
            s.upsert_task(rid, e.task_id, status="running", started=e.at, model_id=e.model_id, where_ran=e.where)
        elif isinstance(e, ev.TaskFinished):
            s.upsert_task(rid, e.task_id, status="done", finished=e.at, seconds=e.seconds, text=e.text, data=e.data,
                          model_id=e.model_id, where_ran=e.where)
            for f in e.files:
                s.add_output(rid, e.task_id, f)
        elif isinstance(e, ev.TaskFailed):
            s.upsert_task(rid, e.task_id, status="failed", finished=e.at, seconds=e.seconds, error=e.error)
        elif isinstance(e, ev.TaskSkipped):
            s.upsert_task(rid, e.task_id, status="skipped", error=e.reason)
        elif isinstance(e, ev.AnswerDone):
            s.update_request(rid, answer=e.text, answer_composer=e.composer, status="done", finished=e.at)
            s.add_message(self.session_id, "assistant", e.text, rid)
        elif isinstance(e, ev.RequestFailed):
            s.update_request(rid, status="failed", error=e.message, finished=e.at)
        elif isinstance(e, ev.RequestCancelled):
            s.update_request(rid, status="cancelled", error=f"cancelled during {e.stage}", finished=e.at)
