"""The history sidebar: past sessions from the SQLite log, searchable, reopenable, deletable, exportable.

Queries are small indexed reads (full-text search for the search box), so they run on the GUI
thread; the store's own lock keeps them safe while a request writes from its worker thread.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem, QMenu,
                               QMessageBox, QPushButton, QVBoxLayout, QWidget)


def when(ts: float) -> str:
    d = dt.datetime.fromtimestamp(ts)
    today = dt.date.today()
    if d.date() == today:
        return d.strftime("%H:%M")
    if (today - d.date()).days < 7:
        return d.strftime("%a %H:%M")
    return d.strftime("%Y-%m-%d")


class HistorySidebar(QWidget):
    """Lists sessions; ``open_requested(session_id)`` when one is chosen, ``new_requested`` for a new one."""

    open_requested = Signal(str)
    rerun_requested = Signal(str)  # a session whose interrupted request should run again
    new_requested = Signal()
    deleted = Signal(str)
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("history")
        self.store: Any = None
        self.current_id = ""
        self.confirm_delete = True  # tests switch the modal question off
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search history…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(200)
        self._debounce.timeout.connect(self.refresh)
        self.list = QListWidget()
        self.list.setObjectName("sessionList")
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.itemActivated.connect(self._open_item)
        self.list.itemClicked.connect(self._open_item)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.new_button = QPushButton("+ New conversation")
        self.new_button.clicked.connect(self.new_requested.emit)
        self.delete_button = QPushButton("Delete")
        self.delete_button.setToolTip("Delete the selected conversation and its log")
        self.delete_button.clicked.connect(lambda: self.delete(self.selected_id()))
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the selected conversation (requests, plans, results) as JSON")
        self.export_button.clicked.connect(lambda: self.export(self.selected_id()))
        self.empty = QLabel("No conversations yet.")
        self.empty.setObjectName("hint")
        self.empty.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.export_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        title = QLabel("<b>History</b>")
        lay.addWidget(title)
        lay.addWidget(self.new_button)
        lay.addWidget(self.search)
        lay.addWidget(self.empty)
        lay.addWidget(self.list, 1)
        lay.addLayout(buttons)
        self._update_buttons()
        self.list.currentItemChanged.connect(lambda *_: self._update_buttons())

    def set_store(self, store: Any) -> None:
        self.store = store
        self.refresh()

    def session_ids(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def interrupted_ids(self) -> list[str]:
        """Sessions shown with an interrupted request (offered to run again)."""
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())
                if self.list.item(i).data(Qt.ItemDataRole.UserRole + 1)]

    def titles(self) -> list[str]:
        return [self.list.item(i).text().split("\n")[0] for i in range(self.list.count())]

    def selected_id(self) -> str:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item else ""

    def refresh(self) -> None:
        if self.store is None:
            return
        query = self.search.text().strip()
        try:
            rows = self.store.search(query) if query else self.store.list_sessions()
        except Exception as e:  # a malformed FTS query or a locked database: keep the old list
            self.message.emit(f"Cannot search the history: {e}")
            return
        self.list.blockSignals(True)
        self.list.clear()
        for s in rows:
            title = s.title or "(untitled)"
            interrupted = getattr(s, "interrupted", 0)
            item = QListWidgetItem(f"{title}\n{when(s.updated)}" + (f" · {s.messages} messages" if s.messages else "")
                                   + (" · ⚠ interrupted" if interrupted else ""))
            item.setData(Qt.ItemDataRole.UserRole, s.id)
            item.setData(Qt.ItemDataRole.UserRole + 1, bool(interrupted))
            item.setToolTip(title + ("\nA request was interrupted (the program stopped); right-click › Run again"
                                     if interrupted else ""))
            self.list.addItem(item)
            if s.id == self.current_id:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self.empty.setText("No matches." if query else "No conversations yet.")
        self.empty.setVisible(not rows)
        self._update_buttons()

    def mark_current(self, session_id: str) -> None:
        self.current_id = session_id
        self.refresh()

    def _update_buttons(self) -> None:
        has = self.list.currentItem() is not None
        self.delete_button.setEnabled(has)
        self.export_button.setEnabled(has)

    def _open_item(self, item: QListWidgetItem) -> None:
        sid = item.data(Qt.ItemDataRole.UserRole)
        if sid and sid != self.current_id:
            self.open_requested.emit(sid)

    def _menu(self, pos) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        sid = item.data(Qt.ItemDataRole.UserRole)
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.open_requested.emit(sid))
        if item.data(Qt.ItemDataRole.UserRole + 1):
            menu.addAction("Run again", lambda: self.rerun_requested.emit(sid))
        menu.addAction("Export…", lambda: self.export(sid))
        menu.addAction("Delete", lambda: self.delete(sid))
        menu.exec(self.list.mapToGlobal(pos))

    def delete(self, session_id: str) -> bool:
        if not session_id or self.store is None:
            return False
        if self.confirm_delete:
            answer = QMessageBox.question(self, "Delete conversation",
                                          "Delete this conversation and its log? Output files stay on disk.")
            if answer != QMessageBox.StandardButton.Yes:
                return False
        ok = self.store.delete_session(session_id)
        if ok:
            self.deleted.emit(session_id)
            if session_id == self.current_id:
                self.current_id = ""
        self.refresh()
        return ok

    def export(self, session_id: str, path: str | None = None) -> Path | None:
        """Write the session as JSON (asks where when ``path`` is not given)."""
        if not session_id or self.store is None:
            return None
        data = self.store.export_session(session_id)
        if data is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export conversation", f"jarvis-session-{session_id}.json",
                                                  "JSON (*.json)")
            if not path:
                return None
        out = Path(path)
        out.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
        self.message.emit(f"Exported to {out}")
        return out
