"""The live plan: the current request's task graph, each task's model, where it runs and its state.

Dependencies are drawn as an indented tree: a task sits under the first task it needs; any other
inputs are named in its row ("also needs #2"). Each task keeps the list of states it went through
so the panel (and its tests) can tell what happened, not only where it ended.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QTimer, Qt, QUrl, Signal
from PySide6.QtGui import QBrush, QColor, QDesktopServices
from PySide6.QtWidgets import QHeaderView, QLabel, QSizePolicy, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

COLUMNS = ("Task", "Model", "On", "Status", "Output")
COL_TASK, COL_MODEL, COL_WHERE, COL_STATUS, COL_OUTPUT = range(5)

STATUS_COLOURS = {
    "waiting": "#7a7f87", "running": "#1f6fd1", "done": "#1f8a4c", "failed": "#c0392b",
    "skipped": "#b7791f", "cancelled": "#7a7f87",
}
STATUS_MARKS = {"waiting": "○", "running": "▶", "done": "✔", "failed": "✘", "skipped": "–", "cancelled": "■"}
STAGE_TEXT = {"plan": "Planning…", "select": "Choosing models…", "execute": "Running tasks…", "respond": "Writing the answer…"}


def short_model(model_id: str) -> str:
    """The model's own name without its organisation (the full id is in the tooltip): the end of
    an id is what tells models apart in a narrow column."""
    return (model_id or "").rstrip("/").rsplit("/", 1)[-1]


def where_label(where: str) -> str:
    """A person's words for where a task runs."""
    return {"local-cpu": "CPU", "local-gpu": "GPU", "hosted": "hosted", "controller": "language model",
            "local": "this computer"}.get(where or "", where or "—")


@dataclass
class TaskRow:
    """What the panel knows about one task."""

    task_id: int
    task: str
    dep: list[int]
    args: dict[str, Any]
    item: QTreeWidgetItem
    status: str = "waiting"
    states: list[str] = field(default_factory=list)
    started: float | None = None
    seconds: float | None = None
    model_id: str = ""
    reason: str = ""
    where: str = ""
    error: str = ""
    outputs: list[str] = field(default_factory=list)
    text: str = ""


class PlanPanel(QWidget):
    """Shows one request's plan and follows its events (``on_event``) while it runs."""

    output_opened = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("planPanel")
        self.title = QLabel("<b>Plan</b>")
        # a long request in the title must not widen the panel
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary = QLabel("No request yet. Each request is split into tasks; they show up here as they run.")
        self.summary.setWordWrap(True)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setObjectName("planSummary")
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(True)
        self.tree.setIndentation(18)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setMouseTracking(True)
        header = self.tree.header()
        header.setSectionResizeMode(COL_TASK, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_MODEL, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_WHERE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_STATUS, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.tree.setColumnWidth(COL_MODEL, 130)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._clicked)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.title)
        lay.addWidget(self.summary)
        lay.addWidget(self.tree, 1)
        self.rows: dict[int, TaskRow] = {}
        self.request_id = ""
        self.stage = ""
        self._timer = QTimer(self)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self._tick)

    # -- reading the state (used by the window and the tests) ---------------------------------
    def states(self, task_id: int) -> list[str]:
        row = self.rows.get(task_id)
        return list(row.states) if row else []

    def status_text(self, task_id: int) -> str:
        row = self.rows.get(task_id)
        return row.item.text(COL_STATUS) if row else ""

    # -- building -----------------------------------------------------------------------------
    def clear(self) -> None:
        self._timer.stop()
        self.tree.clear()
        self.rows.clear()
        self.request_id = ""
        self.stage = ""

    def start_request(self, request_id: str, text: str) -> None:
        self.clear()
        self.request_id = request_id
        short = text if len(text) <= 80 else text[:77] + "…"
        self.title.setText(f"<b>Plan</b> &nbsp;<span style='color:#7a7f87'>for “{_esc(short)}”</span>")
        self.summary.setText("Planning…")

    def set_plan(self, plan: list[dict[str, Any]], source: str = "", seconds: float = 0.0, note: str = "") -> None:
        self.tree.clear()
        self.rows.clear()
        ids = {int(t["id"]) for t in plan}
        for t in sorted(plan, key=lambda t: int(t["id"])):
            tid = int(t["id"])
            deps = [int(d) for d in (t.get("dep") or []) if int(d) in ids and int(d) != tid]
            parent_row = self.rows.get(deps[0]) if deps else None
            item = QTreeWidgetItem(parent_row.item if parent_row else self.tree)
            label = f"#{tid} {t['task']}"
            if len(deps) > 1:
                label += "  (also needs " + ", ".join(f"#{d}" for d in deps[1:]) + ")"
            item.setText(COL_TASK, label)
            args = t.get("args") or {}
            item.setToolTip(COL_TASK, _tooltip_args(t["task"], deps, args))
            item.setText(COL_MODEL, "choosing…")
            item.setText(COL_WHERE, "")
            row = TaskRow(tid, t["task"], deps, args, item)
            self.rows[tid] = row
            self._set_status(row, "waiting")
        self.tree.expandAll()
        how = f"{source} planner" if source and source not in ("fallback",) else "no tasks"
        n = len(plan)
        if n:
            self.summary.setText(f"{n} task{'s' if n != 1 else ''} · {how} · {seconds * 1000:.0f} ms"
                                 + (f" · {note}" if note and note != "offline planner" else ""))
        else:
            self.summary.setText("No expert tasks: answered directly." + (f" ({note})" if note and source == "fallback" and note != "offline planner" else ""))

    # -- events -------------------------------------------------------------------------------
    def on_event(self, e: Any) -> None:
        kind = type(e).__name__
        if kind == "RequestStarted":
            self.start_request(e.request_id, e.text or ", ".join(os.path.basename(f) for f in e.files))
        elif kind == "StageStarted":
            self.stage = e.stage
            if e.stage == "plan" or not self.rows:
                self.summary.setText(STAGE_TEXT.get(e.stage, e.stage))
        elif kind == "PlanReady":
            self.set_plan(e.plan, e.source, e.seconds, e.note)
        elif kind == "ModelChosen":
            row = self.rows.get(e.task_id)
            if row:
                row.model_id, row.reason, row.where = e.model_id, e.reason, e.where
                row.item.setText(COL_MODEL, short_model(e.model_id) or "(none available)")
                tip = f"<b>{_esc(e.model_id or 'no model')}</b><br>{_esc(e.reason)}"
                if e.candidates:
                    tip += "<br><br>Candidates: " + ", ".join(_esc(c) for c in e.candidates[:8])
                row.item.setToolTip(COL_MODEL, tip)
                row.item.setText(COL_WHERE, where_label(e.where) if e.model_id else "—")
        elif kind == "TaskStarted":
            row = self.rows.get(e.task_id)
            if row:
                row.started = time.monotonic()
                if e.where:
                    row.where = e.where
                    row.item.setText(COL_WHERE, where_label(e.where))
                self._set_status(row, "running")
                self._timer.start()
        elif kind == "TaskFinished":
            row = self.rows.get(e.task_id)
            if row:
                row.seconds, row.outputs, row.text = e.seconds, list(e.files), e.text
                if e.where:
                    row.item.setText(COL_WHERE, where_label(e.where))
                self._set_status(row, "done")
                self._show_output(row)
        elif kind == "TaskFailed":
            row = self.rows.get(e.task_id)
            if row:
                row.seconds, row.error = e.seconds, e.error
                self._set_status(row, "failed")
                row.item.setText(COL_OUTPUT, " ".join(e.error.split()))
                row.item.setToolTip(COL_OUTPUT, _esc(e.error))
                row.item.setToolTip(COL_STATUS, _esc(e.error))
        elif kind == "TaskSkipped":
            row = self.rows.get(e.task_id)
            if row:
                row.error = e.reason
                self._set_status(row, "skipped")
                row.item.setText(COL_OUTPUT, e.reason)
                row.item.setToolTip(COL_OUTPUT, _esc(e.reason))
        elif kind == "AnswerDone":
            self._finish_summary("done")
        elif kind == "RequestCancelled":
            for row in self.rows.values():
                if row.status in ("waiting", "running"):
                    self._set_status(row, "cancelled")
            self._finish_summary(f"cancelled during {e.stage}")
        elif kind == "RequestFailed":
            self._finish_summary("failed: " + e.message)

    def _finish_summary(self, how: str) -> None:
        self._timer.stop()
        counts: dict[str, int] = {}
        for row in self.rows.values():
            counts[row.status] = counts.get(row.status, 0) + 1
        parts = [f"{n} {s}" for s, n in counts.items()]
        base = self.summary.text().split(" — ")[0]
        if base in STAGE_TEXT.values():
            n = len(self.rows)
            base = "No expert tasks" if not n else f"{n} task{'s' if n != 1 else ''}"
        self.summary.setText(f"{base} — {how}" + (f" ({', '.join(parts)})" if parts else ""))

    # -- past requests ------------------------------------------------------------------------
    def show_request(self, request: dict[str, Any]) -> None:
        """Show a stored request's plan with its final states (when a session is reopened)."""
        self.start_request(request.get("id", ""), request.get("text") or "")
        plan = request.get("plan") or []
        self.set_plan(plan, request.get("plan_source") or "", 0.0, request.get("plan_note") or "")
        outputs: dict[int, list[str]] = {}
        for o in request.get("outputs") or []:
            outputs.setdefault(int(o["task_id"]), []).append(o["path"])
        for t in request.get("tasks") or []:
            row = self.rows.get(int(t["task_id"]))
            if row is None:
                continue
            row.model_id, row.reason, row.where = t.get("model_id") or "", t.get("reason") or "", t.get("where_ran") or ""
            row.item.setText(COL_MODEL, short_model(row.model_id) or "(none)")
            row.item.setToolTip(COL_MODEL, f"<b>{_esc(row.model_id)}</b><br>{_esc(row.reason)}")
            row.item.setText(COL_WHERE, where_label(row.where))
            row.seconds = t.get("seconds")
            row.error = t.get("error") or ""
            row.text = t.get("text") or ""
            row.outputs = outputs.get(row.task_id, [])
            status = t.get("status") or "waiting"
            if status == "running":  # the app was closed while it ran
                status = "cancelled"
            self._set_status(row, status)
            if status == "done":
                self._show_output(row)
            elif row.error:
                row.item.setText(COL_OUTPUT, row.error)
        n = len(self.rows)
        self.summary.setText(f"{n} task{'s' if n != 1 else ''} — {request.get('status') or ''} (from the history)"
                             if self.rows else f"No expert tasks — {request.get('status') or ''} (from the history)")

    # -- helpers ------------------------------------------------------------------------------
    def _set_status(self, row: TaskRow, status: str) -> None:
        row.status = status
        row.states.append(status)
        text = f"{STATUS_MARKS.get(status, '')} {status}"
        if status == "running":
            text += " 0.0 s"
        elif status in ("done", "failed") and row.seconds is not None:
            text += f" {row.seconds:.1f} s"
        row.item.setText(COL_STATUS, text)
        row.item.setForeground(COL_STATUS, QBrush(QColor(STATUS_COLOURS.get(status, "#333"))))

    def _show_output(self, row: TaskRow) -> None:
        if row.outputs:
            names = ", ".join(os.path.basename(p) for p in row.outputs)
            row.item.setText(COL_OUTPUT, names)
            row.item.setForeground(COL_OUTPUT, QBrush(QColor("#1f6fd1")))
            font = row.item.font(COL_OUTPUT)
            font.setUnderline(True)
            row.item.setFont(COL_OUTPUT, font)
            row.item.setToolTip(COL_OUTPUT, "Click to open: " + _esc(row.outputs[0]))
        elif row.text:
            flat = " ".join(row.text.split())
            short = flat if len(flat) <= 60 else flat[:57] + "…"
            row.item.setText(COL_OUTPUT, short)
            row.item.setToolTip(COL_OUTPUT, _esc(row.text[:1000]))

    def _tick(self) -> None:
        running = False
        now = time.monotonic()
        for row in self.rows.values():
            if row.status == "running" and row.started is not None:
                running = True
                row.item.setText(COL_STATUS, f"{STATUS_MARKS['running']} running {now - row.started:.1f} s")
        if not running:
            self._timer.stop()

    def _clicked(self, item: QTreeWidgetItem, column: int) -> None:
        if column == COL_OUTPUT:
            self._activated(item, column)

    def _activated(self, item: QTreeWidgetItem, column: int) -> None:
        for row in self.rows.values():
            if row.item is item and row.outputs:
                self.output_opened.emit(row.outputs[0])
                QDesktopServices.openUrl(QUrl.fromLocalFile(row.outputs[0]))
                return


def _esc(text: str) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _tooltip_args(task: str, deps: list[int], args: dict[str, Any]) -> str:
    lines = [f"<b>{_esc(task)}</b>"]
    if deps:
        lines.append("needs " + ", ".join(f"#{d}" for d in deps))
    for k, v in args.items():
        v = str(v)
        lines.append(f"{_esc(k)}: {_esc(v if len(v) < 120 else v[:117] + '…')}")
    return "<br>".join(lines)
