"""The settings dialog: controller, experts, voice, and the local model cache.

Only the fields the user changed are written back, on top of what the settings file already holds,
so values that came from environment variables are not frozen into the file. API keys go to the OS
keyring (``jarvis_desktop.secrets``), never to the file; without a keyring they live for this
session only and the dialog says so.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMessageBox, QProgressBar,
                               QPushButton, QSlider, QSpinBox, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout,
                               QWidget)

from .. import secrets
from ..config import INFERENCE_MODES, PLANNERS, SECRET_FIELDS, Settings, save_setting_changes
from ..experts.model_store import size_text
from .workers import run_job

DEVICES = ("auto", "cpu", "cuda", "mps")


def _dir_bytes(path) -> int:
    import os

    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


class ModelsPage(QWidget):
    """Cached models with their sizes; pull one by id with progress; remove one."""

    def __init__(self, settings: Settings, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings = settings
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Model", "Tasks", "Size"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.where = QLabel(f"Cache: {settings.model_cache_path}")
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.shipped = QLabel("")
        self.shipped.setWordWrap(True)
        self.model_id = QLineEdit()
        self.model_id.setPlaceholderText("Hugging Face model id, e.g. Salesforce/blip-image-captioning-base")
        self.pull_button = QPushButton("Pull")
        self.pull_button.clicked.connect(self.pull)
        self.remove_button = QPushButton("Remove selected")
        self.remove_button.clicked.connect(self.remove_selected)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Copy the selected models (all when none is selected) to a folder or USB stick, "
                                      "to import them on a computer without network")
        self.export_button.clicked.connect(self.choose_export_folder)
        self.import_button = QPushButton("Import…")
        self.import_button.setToolTip("Install models from a folder made by Export, a Hugging Face cache folder, "
                                      "or an `hf download --local-dir` folder (works offline)")
        self.import_button.clicked.connect(self.choose_import_folder)
        self.setup_button = QPushButton("Set up models…")
        self.setup_button.setToolTip("Download packs of models by need: images, listening, making images, text")
        self.setup_button.clicked.connect(lambda: self.open_setup())
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        pull_row = QHBoxLayout()
        pull_row.addWidget(self.model_id, 1)
        pull_row.addWidget(self.pull_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        buttons.addWidget(self.setup_button)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.import_button)
        lay = QVBoxLayout(self)
        lay.addWidget(self.where)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)
        lay.addWidget(self.shipped)
        lay.addWidget(QLabel("<b>Add a model</b>"))
        lay.addLayout(pull_row)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        self._poll = QTimer(self)
        self._poll.setInterval(500)
        self._poll.timeout.connect(self._poll_size)
        self._pulling = ""
        self.models: list[Any] = []
        self.loaded = False
        self.transfer_done = False
        self._after_refresh = ""
        self.endpoint: str | None = None  # a Hub mirror; None: HF_ENDPOINT or huggingface.co
        if settings.offline:
            self.pull_button.setEnabled(False)
            self.pull_button.setToolTip("Offline mode is on: turn it off (Experts page) to download models.")
        self.refresh()

    def refresh(self) -> None:
        from ..experts import model_store

        settings = self.settings
        self.status.setText("Reading the model cache…")

        def work():
            models = model_store.list_cached(settings)
            try:
                from ..experts.shipped import ShippedBackend

                shipped = ShippedBackend(settings).available()
            except Exception:
                shipped = {}
            return models, shipped

        run_job(work, self._listed, lambda m: self.status.setText(f"Cannot read the model cache: {m}"), name="models",
                context=self)

    def _listed(self, result) -> None:
        models, shipped = result
        self.models = models
        self.table.setRowCount(len(models))
        for i, m in enumerate(models):
            self.table.setItem(i, 0, QTableWidgetItem(m.model_id))
            self.table.setItem(i, 1, QTableWidgetItem(", ".join(m.tasks) or "?"))
            size = QTableWidgetItem(size_text(m.size_bytes))
            size.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(i, 2, size)
        total = sum(m.size_bytes for m in models)
        self.status.setText(f"{len(models)} model{'s' if len(models) != 1 else ''} in the cache, {size_text(total)}."
                            if models else "No models in the cache yet.")
        if shipped:
            items = ", ".join(f"{t} ({mid})" for t, mid in sorted(shipped.items()))
            self.shipped.setText(f"<span style='color:#555'>Shipped with the app (always offline): {items}</span>")
        self.loaded = True
        if self._after_refresh:
            self.status.setText(self._after_refresh)
            self._after_refresh = ""
            self.transfer_done = True

    def pull(self) -> None:
        from ..experts import model_store

        if self._pulling:  # the button reads "Cancel pull" meanwhile
            self.pull_cancel.cancel()
            self.status.setText(f"Stopping the pull of {self._pulling}… files already finished are kept.")
            return
        mid = self.model_id.text().strip()
        if not mid:
            return
        self._pulling = mid
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)  # total unknown until the hub answers
        self.status.setText(f"Pulling {mid}…")
        self._poll.start()
        settings = self.settings
        from ..cancel import CancelToken

        self.pull_cancel = cancel = CancelToken()
        self.pull_button.setText("Cancel pull")
        endpoint = self.endpoint
        run_job(lambda report: model_store.pull(mid, settings, on_progress=report, cancel=cancel, endpoint=endpoint),
                self._pulled,
                self._pull_failed, on_progress=self._pull_progress, name="pull", context=self)

    def _pull_progress(self, p) -> None:
        """One bar for the download: bytes, total and speed (huggingface_hub sums the files)."""
        if p.total_bytes:
            self._poll.stop()
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * p.done_bytes / p.total_bytes))
            self.progress.setFormat(p.text)
            self.status.setText(f"Pulling {p.model_id}…")

    def _poll_size(self) -> None:
        from ..experts.local_cache import repo_folder_name

        folder = self.settings.model_cache_path / repo_folder_name(self._pulling)
        if folder.is_dir():
            self.status.setText(f"Pulling {self._pulling}… {size_text(_dir_bytes(folder))} so far")

    def _pull_done(self) -> None:
        self._poll.stop()
        self._pulling = ""
        self.pull_button.setText("Pull")
        self.pull_button.setEnabled(not self.settings.offline)
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.progress.setVisible(False)

    def _pulled(self, result) -> None:
        self._pull_done()
        self._after_refresh = f"Pulled {result.model_id} ({size_text(result.size_bytes)}) in {result.seconds:.0f} s."
        self.refresh()  # the message shows once the list is in

    def _pull_failed(self, message: str) -> None:
        self._pull_done()
        self.status.setText(message)

    # -- across the air gap --------------------------------------------------------------------
    def choose_export_folder(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        folder = QFileDialog.getExistingDirectory(self, "Export models to (a folder or USB stick)")
        if folder:
            row = self.table.currentRow()
            names = [self.models[row].model_id] if 0 <= row < len(self.models) else None
            self.export_to(folder, names)

    def choose_import_folder(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        folder = QFileDialog.getExistingDirectory(self, "Import models from")
        if folder:
            self.import_from(folder)

    def _transfer_started(self, what: str) -> None:
        self.transfer_done = False
        for b in (self.export_button, self.import_button):
            b.setEnabled(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.status.setText(what)

    def _transfer_progress(self, p) -> None:
        if p.total_bytes:
            self.progress.setValue(int(1000 * p.done_bytes / p.total_bytes))
        self.progress.setFormat(p.text)

    def _transfer_finished(self, message: str) -> None:
        for b in (self.export_button, self.import_button):
            b.setEnabled(True)
        self.progress.setVisible(False)
        self._after_refresh = message  # shown once the refreshed list is in (it rewrites the status)
        self.refresh()

    def export_to(self, folder: str, names: list[str] | None = None) -> None:
        """Copy ``names`` (model ids or task types; None: every cached model) to ``folder``."""
        from ..experts.transfer import export_models

        settings = self.settings
        self._transfer_started(f"Exporting to {folder}…")

        def done(r) -> None:
            skipped = (" Skipped: " + "; ".join(r.skipped) + ".") if r.skipped else ""
            self._transfer_finished(f"Exported {len(r.models)} model(s), {size_text(r.bytes)}, to {r.folder}. On the other "
                                    f"computer: Settings › Models › Import, or jarvis models import DIR.{skipped}")

        run_job(lambda report: export_models(folder, settings, names, on_progress=report), done,
                lambda m: self._transfer_finished(m), on_progress=self._transfer_progress, name="export", context=self)

    def import_from(self, folder: str, repo_id: str | None = None) -> None:
        """Verify and install the models in ``folder`` (no network needed)."""
        from ..experts.transfer import import_models

        settings = self.settings
        self._transfer_started(f"Verifying and importing from {folder}…")

        def done(r) -> None:
            parts = [f"Imported {len(r.installed)} model(s) ({', '.join(r.installed) or 'none'}), "
                     f"{r.verified_files} file(s) verified by checksum."]
            if r.already:
                parts.append(f"Already here: {', '.join(r.already)}.")
            if r.failed:
                parts.append("Refused: " + " ".join(r.failed))
            self._transfer_finished(" ".join(parts))

        run_job(lambda report: import_models(folder, settings, repo_id=repo_id, on_progress=report), done,
                lambda m: self._transfer_finished(m), on_progress=self._transfer_progress, name="import", context=self)

    def open_setup(self, endpoint: str | None = None):
        from .setup_dialog import SetupDialog

        return SetupDialog.open_for(self, self.settings, self.refresh, endpoint)

    def remove_selected(self) -> None:
        from ..experts import model_store

        row = self.table.currentRow()
        if row < 0 or row >= len(self.models):
            return
        mid = self.models[row].model_id
        if QMessageBox.question(self, "Remove model", f"Delete {mid} from the model cache?") != QMessageBox.StandardButton.Yes:
            return
        try:
            freed = model_store.remove(mid, self.settings)
        except Exception as e:
            self.status.setText(str(e))
            return
        self.refresh()
        self.status.setText(f"Removed {mid} ({size_text(freed)} freed).")




class SettingsDialog(QDialog):
    """Edit the settings; ``saved(Settings)`` after they were written."""

    saved = Signal(object)

    def __init__(self, settings: Settings, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.original = settings
        self.tabs = QTabWidget()
        self.tabs.addTab(self._controller_page(settings), "Language model")
        self.tabs.addTab(self._experts_page(settings), "Experts")
        self.tabs.addTab(self._voice_page(settings), "Voice")
        self.models_page = ModelsPage(settings)
        self.tabs.addTab(self.models_page, "Models")
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setObjectName("settingsNote")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.note)
        lay.addWidget(buttons)
        self.resize(640, 520)
        self._load_devices()

    # -- pages --------------------------------------------------------------------------------
    def _controller_page(self, s: Settings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.base_url = QLineEdit(s.base_url)
        self.base_url.setPlaceholderText("empty: OpenAI when a key is set, else the small built-in model")
        self.llm_model = QLineEdit(s.llm_model)
        self.api_key = QLineEdit(s.api_key)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("stored in the system keyring, never in files")
        self.planner = QComboBox()
        self.planner.addItems(PLANNERS)
        self.planner.setCurrentText(s.planner)
        self.local_llm_path = QLineEdit(s.local_llm_path)
        self.local_llm_path.setPlaceholderText("a .gguf file; empty: the shipped SmolLM2-135M")
        form.addRow("Endpoint (OpenAI-compatible)", self.base_url)
        form.addRow("Model", self.llm_model)
        form.addRow("API key", self.api_key)
        keyring_note = QLabel("Keys are kept in the system keyring." if secrets.keyring_available() else
                              "No system keyring here: a key entered is used for this session only "
                              "(or set OPENAI_API_KEY in the environment).")
        keyring_note.setWordWrap(True)
        keyring_note.setObjectName("hint")
        form.addRow("", keyring_note)
        form.addRow("Planner", self.planner)
        form.addRow("Local model file", self.local_llm_path)
        return page

    def _experts_page(self, s: Settings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.inference_mode = QComboBox()
        self.inference_mode.addItems(INFERENCE_MODES)
        self.inference_mode.setCurrentText(s.inference_mode)
        self.offline = QCheckBox("Offline: never download or call hosted services")
        self.offline.setChecked(s.offline)
        self.device = QComboBox()
        self.device.setEditable(True)
        self.device.addItems(DEVICES)
        self.device.setCurrentText(s.device)
        self.model_budget = QDoubleSpinBox()
        self.model_budget.setRange(0.0, 1024.0)
        self.model_budget.setDecimals(1)
        self.model_budget.setSuffix(" GB")
        self.model_budget.setSpecialValueText("automatic")
        self.model_budget.setValue(s.model_budget_gb)
        self.parallel = QSpinBox()
        self.parallel.setRange(1, 32)
        self.parallel.setValue(s.parallel_tasks)
        self.hosted_base_url = QLineEdit(s.hosted_base_url)
        self.hosted_base_url.setPlaceholderText("optional: your own inference endpoint")
        self.hf_token = QLineEdit(s.hf_token)
        self.hf_token.setEchoMode(QLineEdit.EchoMode.Password)
        self.hf_token.setPlaceholderText("for hosted inference and gated models (keyring)")
        form.addRow("Inference", self.inference_mode)
        form.addRow("", self.offline)
        form.addRow("Device", self.device)
        form.addRow("Model memory budget", self.model_budget)
        form.addRow("Tasks in parallel", self.parallel)
        form.addRow("Hosted endpoint", self.hosted_base_url)
        form.addRow("Hugging Face token", self.hf_token)
        return page

    def _voice_page(self, s: Settings) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.input_device = QComboBox()
        self.input_device.setEditable(True)
        self.input_device.addItem("")
        self.input_device.setCurrentText(s.input_device)
        self.input_device.lineEdit().setPlaceholderText("system default")
        self.output_device = QComboBox()
        self.output_device.setEditable(True)
        self.output_device.addItem("")
        self.output_device.setCurrentText(s.output_device)
        self.output_device.lineEdit().setPlaceholderText("system default")
        self.voice = QComboBox()
        self.voice.setEditable(True)
        self.voice.addItem("")
        self.voice.lineEdit().setPlaceholderText("the shipped voice (piper, en_US joe)")
        try:
            from ..voice.tts import cached_piper_voices

            for v in cached_piper_voices(s.model_cache_path):
                self.voice.addItem(v)
        except Exception:  # the voice package may be incomplete: the field stays free text
            pass
        self.voice.addItem("espeak-ng")
        self.voice.setCurrentText(s.voice)
        self.tts = QCheckBox("Speak answers aloud")
        self.tts.setChecked(s.tts)
        self.volume = QSlider(Qt.Orientation.Horizontal)
        self.volume.setRange(0, 100)
        self.volume.setValue(int(round(s.volume * 100)))
        self.speech_rate = QSlider(Qt.Orientation.Horizontal)
        self.speech_rate.setRange(50, 200)  # percent of the voice's own pace
        self.speech_rate.setValue(int(round(s.speech_rate * 100)))
        self.silence_ms = QSpinBox()
        self.silence_ms.setRange(200, 5000)
        self.silence_ms.setSingleStep(100)
        self.silence_ms.setSuffix(" ms")
        self.silence_ms.setValue(s.silence_ms)
        self.devices_note = QLabel("Looking for sound devices…")
        self.devices_note.setObjectName("hint")
        self.devices_note.setWordWrap(True)
        form.addRow("Microphone", self.input_device)
        form.addRow("Speaker", self.output_device)
        form.addRow("", self.devices_note)
        form.addRow("Voice", self.voice)
        form.addRow("", self.tts)
        form.addRow("Volume", self.volume)
        form.addRow("Speed", self.speech_rate)
        form.addRow("End of speech after", self.silence_ms)
        return page

    def _load_devices(self) -> None:
        def work():
            from ..voice.capture import list_devices

            return list_devices()

        def listed(devices) -> None:
            ins = [d.name for d in devices if d.inputs > 0]
            outs = [d.name for d in devices if d.outputs > 0]
            for combo, names in ((self.input_device, ins), (self.output_device, outs)):
                current = combo.currentText()
                for n in names:
                    if combo.findText(n) < 0:
                        combo.addItem(n)
                combo.setCurrentText(current)
            self.devices_note.setText(f"{len(ins)} microphone(s), {len(outs)} output device(s) found.")

        run_job(work, listed, lambda m: self.devices_note.setText(f"No sound devices: {m}"), name="devices",
                context=self)

    # -- saving -------------------------------------------------------------------------------
    def values(self) -> Settings:
        """The settings as the dialog shows them (not yet saved)."""
        return dataclasses.replace(
            self.original,
            base_url=self.base_url.text().strip(), llm_model=self.llm_model.text().strip() or Settings.llm_model,
            api_key=self.api_key.text().strip(), planner=self.planner.currentText(),
            local_llm_path=self.local_llm_path.text().strip(),
            inference_mode=self.inference_mode.currentText(), offline=self.offline.isChecked(),
            device=self.device.currentText().strip() or "auto", model_budget_gb=float(self.model_budget.value()),
            parallel_tasks=int(self.parallel.value()), hosted_base_url=self.hosted_base_url.text().strip(),
            hf_token=self.hf_token.text().strip(),
            input_device=self.input_device.currentText().strip(), output_device=self.output_device.currentText().strip(),
            voice=self.voice.currentText().strip(), tts=self.tts.isChecked(), volume=self.volume.value() / 100.0,
            speech_rate=self.speech_rate.value() / 100.0,
            silence_ms=int(self.silence_ms.value()),
        )

    def save(self) -> bool:
        new = self.values()
        problems = new.validate()
        if problems:
            self.note.setText("<span style='color:#c0392b'>" + "; ".join(problems) + "</span>")
            return False
        changed = {f.name: getattr(new, f.name) for f in dataclasses.fields(Settings)
                   if getattr(new, f.name) != getattr(self.original, f.name)}
        notes = []
        for name in SECRET_FIELDS:
            if name in changed:
                ok, msg = secrets.store_secret(name, changed.pop(name))
                notes.append(msg)
        if changed:
            save_setting_changes(changed)
        self.saved_note = " ".join(notes)
        self.saved.emit(new)
        self.accept()
        return True

