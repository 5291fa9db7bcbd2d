"""The main window: history | conversation and input | live plan.

The window is built and shown before anything heavy is imported; the assistant (pipeline, session
store) is created right after the first paint. Every request runs on a worker thread and its events
come back as signals, so the window stays responsive; closing it mid-request cancels the request,
waits for the worker to stop (the window hides at once), then quits. Everything the request did
up to then is already in the session log.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QImage, QKeySequence
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QMainWindow, QPushButton, QSplitter, QToolButton,
                               QVBoxLayout, QWidget)

from ..voice.commands import asks_to_stop

from .attachments import AttachmentBar
from .chat_view import ConversationView
from .history import HistorySidebar
from .input_box import InputBox, local_files
from .plan_view import STAGE_TEXT, PlanPanel
from .mic_controls import MicControls
from .style import STYLESHEET
from .voice_bridge import VoiceBridge
from .workers import RequestWorker, join_all, run_job

log = logging.getLogger(__name__)

WELCOME = ("Type a request, hold the microphone button (or Ctrl+Space) to speak, or drop images, "
           "audio and text files on the window.")


class Notice(QFrame):
    """A one-line message with a close button (refused files, voice problems)."""

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setOpenExternalLinks(False)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        self.extra = QHBoxLayout()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 6, 6)
        lay.addWidget(self.label, 1)
        lay.addLayout(self.extra)
        lay.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_text(self, html: str) -> None:
        self.label.setText(html)
        self.show()

    @property
    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""


class MainWindow(QMainWindow):
    ready = Signal()  # the assistant exists: requests can be sent
    request_finished = Signal(object)

    def __init__(self, settings: Any, parent: QWidget | None = None, *, fill_secrets: bool = False):
        super().__init__(parent)
        self.settings = settings
        self.first_run: bool | None = None  # decided once the pipeline exists
        self._fill_secrets = fill_secrets  # settings were read without the keyring (see app.py)
        self.assistant: Any = None
        self.session_id: str | None = None
        self.worker: RequestWorker | None = None
        self.last_result: Any = None
        self._closing = False
        self._voice_request = False  # the running request came from hands-free speech
        self._whole_request = ""  # a request that went on, to send when the stopped part has ended
        self._closed = False
        self._rebuild_pending = False
        self.setWindowTitle("JARVIS")
        self.setObjectName("mainWindow")
        self.setStyleSheet(STYLESHEET)
        self.setAcceptDrops(True)
        self.resize(1280, 780)
        self.voice = VoiceBridge(settings, self)
        self._build()
        self._wire_voice()
        self._core_started = False
        QTimer.singleShot(1000, self._start_core)  # in case the window is never painted

    def event(self, e: QEvent) -> bool:  # noqa: D401 - Qt override
        # Build the pipeline only once the window has painted: the window appears first.
        if e.type() == QEvent.Type.Paint and not self._core_started:
            QTimer.singleShot(0, self._start_core)
        return super().event(e)

    # -- layout -------------------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = Notice("banner")
        settings_link = QPushButton("Open settings")
        settings_link.clicked.connect(self.open_settings)
        self.banner.extra.addWidget(settings_link, 0, Qt.AlignmentFlag.AlignTop)
        self.setup_models_button = QPushButton("Set up models")  # first-run packs (or the offline route)
        self.setup_models_button.clicked.connect(lambda: self.open_model_setup())
        self.banner.extra.addWidget(self.setup_models_button, 0, Qt.AlignmentFlag.AlignTop)
        self.notice = Notice("notice")
        self.history = HistorySidebar()
        self.history.open_requested.connect(self.open_session)
        self.history.rerun_requested.connect(self.rerun_interrupted)
        self.history.new_requested.connect(self.new_conversation)
        self.history.deleted.connect(self._session_deleted)
        self.history.message.connect(lambda m: self.statusBar().showMessage(m, 6000))
        self.conversation = ConversationView(self.voice)
        self.conversation.set_placeholder(WELCOME)
        self.plan = PlanPanel()
        self.attachments = AttachmentBar()
        self.attachments.refused.connect(self.refuse)
        self.input = InputBox()
        self.input.submitted.connect(self.send)
        self.input.files_given.connect(self.attach_files)
        self.input.image_pasted.connect(self.attach_image)
        self.mic_controls = MicControls(self.voice, self)
        self.mic, self.hands_free = self.mic_controls.mic, self.mic_controls.hands_free
        self.level, self.voice_status = self.mic_controls.level, self.mic_controls.status
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("sendButton")
        self.send_button.clicked.connect(self.send)
        self.send_button.setEnabled(False)
        self.stop_button = QPushButton("■ Stop")
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setToolTip("Cancel the running request and stop speaking (Esc)")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)

        row = QHBoxLayout()
        row.addWidget(self.mic, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.input, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        row.addLayout(buttons)
        under = QHBoxLayout()
        under.addWidget(self.hands_free)
        under.addWidget(self.level)
        under.addWidget(self.voice_status, 1)

        center = QWidget()
        col = QVBoxLayout(center)
        col.setContentsMargins(6, 6, 6, 6)
        col.addWidget(self.conversation, 1)
        col.addWidget(self.attachments)
        col.addLayout(row)
        col.addLayout(under)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.history)
        self.splitter.addWidget(center)
        self.splitter.addWidget(self.plan)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([200, 530, 550])

        root = QWidget()
        root.setObjectName("central")
        outer = QVBoxLayout(root)
        outer.setContentsMargins(6, 6, 6, 0)
        outer.addWidget(self.banner)
        outer.addWidget(self.notice)
        outer.addWidget(self.splitter, 1)
        self.setCentralWidget(root)

        bar = self.menuBar()
        app_menu = bar.addMenu("&JARVIS")
        self.settings_action = QAction("&Settings…", self)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.triggered.connect(self.open_settings)
        app_menu.addAction(self.settings_action)
        new = QAction("&New conversation", self)
        new.setShortcut(QKeySequence("Ctrl+N"))
        new.triggered.connect(self.new_conversation)
        app_menu.addAction(new)
        app_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        app_menu.addAction(quit_action)
        stop = QAction("Stop", self)
        stop.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        stop.triggered.connect(self.stop)
        self.addAction(stop)
        self.statusBar().showMessage("Starting…")

    # -- start-up -----------------------------------------------------------------------------
    def _start_core(self) -> None:
        """Right after the first paint: the pipeline (lazy parts stay lazy) and the history."""
        if self._closed or self._core_started:
            return
        self._core_started = True
        if self._fill_secrets:
            from ..secrets import stored_secrets

            for name, value in stored_secrets().items():
                if not getattr(self.settings, name, ""):  # empty: the environment did not set it
                    setattr(self.settings, name, value)
        from ..pipeline.assistant import Assistant

        self.assistant = Assistant(self.settings)
        try:
            self.history.set_store(self.assistant.store)
        except Exception as e:  # an unreadable database: the window still works for new requests
            self.refuse(f"Cannot open the history database: {e}")
        self.send_button.setEnabled(True)
        self.statusBar().showMessage("Ready", 3000)
        self.voice.check()
        self._first_run_banner()
        run_job(self.assistant.warm_up_planner, self._planner_warmed, name="planner warm-up", context=self)
        self.ready.emit()

    def _planner_warmed(self, missing: str | None) -> None:
        if missing and not self._closed:
            self.statusBar().showMessage(f"Offline planner: {missing}", 10000)

    def _first_run_banner(self) -> None:
        s = self.settings
        self.first_run = not (s.api_key or s.base_url or s.azure_endpoint)  # no language model set up
        if not self.first_run:
            return
        assistant = self.assistant
        run_job(assistant.local_task_types, self._show_banner, lambda m: self._show_banner([]), name="capabilities",
                context=self)

    def _show_banner(self, tasks: list[str]) -> None:
        if self._closed:
            return
        s = self.settings
        have = ", ".join(t.replace("-", " ") for t in tasks) if tasks else "nothing yet"
        llm = ("a language model is configured" if (s.api_key or s.base_url or s.azure_endpoint) else
               "no language model is connected, so open questions get a short answer")
        self.banner.show_text(
            f"<b>Working offline.</b> Available on this computer now: {have}. Plans come from the built-in "
            f"offline planner; {llm}.<br>To do more, press <i>Set up models</i> (downloads, or how to bring models "
            "over without network), or connect an "
            "OpenAI-compatible endpoint and key in <i>Settings › Language model</i>.")

    # -- requests -----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.worker is not None

    def send(self, text: str | None = None) -> bool:
        """Send the typed text (or ``text``) with the attached files. False when nothing was sent."""
        if self.assistant is None or self._closing:
            return False
        text = (self.input.text if text is None else text).strip()
        files = self.attachments.paths()
        if not text and not files:
            return False
        if self.busy:
            self.statusBar().showMessage("A request is running: wait for it or press Stop.", 5000)
            return False
        try:
            self.session_id = self.assistant.store.ensure_session(self.session_id, text or Path(files[0]).name)
        except Exception as e:
            self.refuse(f"Cannot write to the history database: {e}")
            return False
        self.notice.hide()
        self.conversation.add("user", text, files)
        self.answer = self.conversation.begin_answer()
        self.input.clear()
        self.attachments.clear()
        self.plan.clear()
        listener = self.voice.answer_listener()
        self.voice.stop_speaking()
        worker = RequestWorker(self.assistant, text, files, self.session_id, [listener] if listener else [], self)
        worker.event.connect(self._on_event)
        worker.crashed.connect(lambda m: self.answer.set_text(m))
        worker.finished.connect(self._on_finished)
        self.worker = worker
        self._set_busy(True)
        self.history.mark_current(self.session_id)
        worker.start()
        return True

    def _set_busy(self, busy: bool) -> None:
        self.stop_button.setEnabled(busy or self.voice.speaking)
        self.send_button.setEnabled(not busy and self.assistant is not None)
        self.send_button.setText("Working…" if busy else "Send")

    def _on_event(self, e: Any) -> None:
        self.plan.on_event(e)
        kind = type(e).__name__
        answer = self.answer
        if kind == "StageStarted":
            text = STAGE_TEXT.get(e.stage, e.stage)
            answer.set_status(text.lower().rstrip("…") + "…")
            self.statusBar().showMessage(text)
        elif kind == "PlanReady" and e.plan:
            answer.set_status(f"running {len(e.plan)} task{'s' if len(e.plan) != 1 else ''}…")
        elif kind == "TaskFinished" and e.files:
            answer.add_files(list(e.files))
        elif kind == "AnswerToken":
            answer.append(e.text)
            answer.set_status("")
        elif kind == "AnswerDone":
            answer.set_text(e.text)
            answer.set_status("")
        elif kind == "RequestFailed":
            answer.setObjectName("errorBubble")
            answer.style().unpolish(answer)  # re-apply the window style for the new object name
            answer.style().polish(answer)
        elif kind == "RequestCancelled":
            answer.set_status(f"Stopped (during {e.stage}).")
            if not answer.text:
                answer.set_text("Stopped.")

    def _on_finished(self, result: Any) -> None:
        self.last_result = result
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.deleteLater()
        self._set_busy(False)
        self.statusBar().showMessage({"done": "Done", "failed": "Failed", "cancelled": "Stopped"}.get(
            getattr(result, "status", ""), "Finished"), 4000)
        self.history.refresh()
        self._keep_attached(getattr(result, "kept_files", []))
        self.request_finished.emit(result)
        if self._closing:
            self.close()
        elif self._rebuild_pending:
            self._apply_settings(self.settings)
        if self._whole_request and not self._closing:
            text, self._whole_request = self._whole_request, ""
            self._voice_request = self.send(text)
        elif not self.busy:
            self._voice_request = False

    def _keep_attached(self, paths: list[str]) -> None:
        """Files the request put aside ("nothing to do yet") or that wait for a missing one go
        back in the attachment bar, so the next request works on them without dropping them again."""
        kept = [p for p in paths if self.attachments.add(p)]
        if kept:
            names = ", ".join(Path(p).name for p in kept)
            self.statusBar().showMessage(f"Still attached for your next request: {names}", 8000)

    def stop(self) -> None:
        """Cancel the running request and silence any speech or playback."""
        if self.worker is not None:
            self.worker.cancel()
            self.statusBar().showMessage("Stopping…")
            self.answer.set_status("stopping…")
        self.voice.stop_speaking()
        self.voice.stop()
        self._set_busy(self.busy)

    # -- files --------------------------------------------------------------------------------
    def attach_files(self, paths: list[str]) -> None:
        for p in paths:
            self.attachments.add(p)

    def attach_image(self, image: QImage) -> None:
        """A pasted image is saved under the data folder and attached like a dropped file."""
        folder = self.settings.data_path / "pasted"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / time.strftime("pasted-%Y%m%d-%H%M%S.png")
        n = 1
        while path.exists():
            path = folder / time.strftime(f"pasted-%Y%m%d-%H%M%S-{n}.png")
            n += 1
        if not image.save(str(path), "PNG"):
            self.refuse("Cannot save the pasted image.")
            return
        self.attachments.add(path)

    def refuse(self, message: str) -> None:
        self.notice.show_text(_esc(message))
        self.statusBar().showMessage(message, 8000)

    def dragEnterEvent(self, e) -> None:  # noqa: N802 - Qt override
        if local_files(e.mimeData()) or e.mimeData().hasImage():
            e.acceptProposedAction()

    def dragMoveEvent(self, e) -> None:  # noqa: N802
        if local_files(e.mimeData()) or e.mimeData().hasImage():
            e.acceptProposedAction()

    def dropEvent(self, e) -> None:  # noqa: N802
        files = local_files(e.mimeData())
        if files:
            self.attach_files(files)
            e.acceptProposedAction()
        elif e.mimeData().hasImage():
            self.attach_image(e.mimeData().imageData())
            e.acceptProposedAction()

    # -- voice --------------------------------------------------------------------------------
    def _wire_voice(self) -> None:
        v = self.voice
        v.transcribed.connect(self._heard)
        v.went_on.connect(self._went_on)
        v.continued.connect(self._heard_whole)
        v.voice_error.connect(lambda m: self.refuse(m))
        v.speaking_changed.connect(lambda _on: self._set_busy(self.busy))

    def _heard(self, text: str) -> None:
        if self.busy and asks_to_stop(text):  # "stop, stop talking" said over a running request
            self.stop()
            return
        if self.busy:
            self.input.setPlainText(text)  # keep it: the user can send it when the request ends
            return
        self._voice_request = self.send(text)

    def _went_on(self) -> None:
        """Hands-free: the user is still talking after a pause that ended the turn early, so the
        request sent for the first part is not whole: stop it (the whole one follows)."""
        if self.busy and self._voice_request and self.worker is not None:
            self.worker.cancel()
            self.answer.set_status("stopped: you went on…")

    def _heard_whole(self, text: str) -> None:
        """The whole request after the user went on: sent once the stopped part has ended."""
        if self.busy:
            self._whole_request = text
            return
        self._voice_request = self.send(text)

    # -- history ------------------------------------------------------------------------------
    def new_conversation(self) -> None:
        if self.busy:
            self.statusBar().showMessage("Stop the running request first.", 4000)
            return
        self.session_id = None
        self.conversation.clear()
        self.plan.clear()
        self.history.mark_current("")
        self.input.setFocus()

    def open_session(self, session_id: str) -> bool:
        """Show a past conversation with its outputs, and continue it."""
        if self.busy:
            self.statusBar().showMessage("Stop the running request first.", 4000)
            return False
        detail = self.assistant.store.get_session(session_id) if self.assistant else None
        if detail is None:
            self.refuse("That conversation no longer exists.")
            self.history.refresh()
            return False
        self.session_id = session_id
        self.conversation.clear()
        requests = {r["id"]: r for r in detail.requests}
        answered = {m["request_id"] for m in detail.messages if m["role"] == "assistant"}
        for m in detail.messages:
            r = requests.get(m["request_id"])
            if m["role"] == "assistant":
                outputs = [o["path"] for o in (r or {}).get("outputs") or []]
                self.conversation.add("assistant", m["text"], outputs)
            else:
                self.conversation.add(m["role"], m["text"], m["files"])
                if r is not None and m["request_id"] not in answered and r.get("status") != "running":
                    note = {"cancelled": "Stopped.", "failed": r.get("error") or "Failed."}.get(r.get("status"), "")
                    if note:
                        self.conversation.add("error" if r.get("status") == "failed" else "assistant", note)
        if detail.requests:  # the latest request that ran tasks tells the most
            planned = [r for r in detail.requests if r.get("plan")]
            self.plan.show_request((planned or detail.requests)[-1])
        else:
            self.plan.clear()
        self.history.mark_current(session_id)
        return True

    def rerun_interrupted(self, session_id: str) -> bool:
        """Open a session and send its interrupted request again, with the same files."""
        request = self.assistant.store.interrupted_request(session_id) if self.assistant else None
        if request is None or not self.open_session(session_id):
            return False
        for f in request["files"]:
            self.attachments.add(f)
        sent = self.send(request["text"])
        if sent:
            self.assistant.store.update_request(request["id"], status="rerun")
        return sent

    def _session_deleted(self, session_id: str) -> None:
        if session_id == self.session_id:
            self.session_id = None
            self.conversation.clear()
            self.plan.clear()

    # -- settings -----------------------------------------------------------------------------
    def open_settings(self, modal: bool = True):
        from .settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self)
        dialog.saved.connect(self._apply_settings)
        self.settings_dialog = dialog
        if modal:
            dialog.open()
        return dialog

    def open_model_setup(self, endpoint: str | None = None):
        """The first-run packs dialog; models it fetches are seen by the next request."""
        from .setup_dialog import SetupDialog

        return SetupDialog.open_for(self, self.settings, self._first_run_banner, endpoint)

    def _apply_settings(self, settings: Any) -> None:
        self.settings = settings
        if self.busy:
            self._rebuild_pending = True  # the running request keeps its assistant
            return
        self._rebuild_pending = False
        old = self.assistant
        from ..pipeline.assistant import Assistant

        self.assistant = Assistant(settings, store=old.store if old is not None and
                                   old.settings.db_path == settings.db_path else None)
        if old is not None:
            old.close()
        self.history.set_store(self.assistant.store)
        self.voice.update_settings(settings)
        note = getattr(self, "settings_dialog", None)
        self.statusBar().showMessage("Settings saved. " + (getattr(note, "saved_note", "") or ""), 6000)

    # -- closing ------------------------------------------------------------------------------
    def closeEvent(self, e: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if self.worker is not None:
            # Cancel, hide now, finish closing when the worker has stopped (its steps are logged).
            self._closing = True
            self.worker.cancel()
            self.voice.stop_speaking()
            self.hide()
            e.ignore()
            return
        self._shutdown()
        e.accept()

    def _shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.hide()  # gone for the user at once, while background work winds down
        self.mic_controls.detach()
        self.voice.close()
        if self.assistant is not None:
            try:
                self.assistant.close()
            except Exception:
                log.exception("closing the assistant failed")
        if not join_all(timeout=5.0):  # a download cannot be interrupted: its daemon thread ends with us
            log.warning("some background work was still running at exit")


def _esc(text: str) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
