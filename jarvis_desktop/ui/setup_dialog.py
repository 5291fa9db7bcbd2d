"""First-run model setup: packs by need, their download sizes and the free disk space, one progress
bar per download (size and speed), a Cancel that stops between chunks. Offline it explains the
export/import route instead (the Models page in Settings has the Import button)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (QCheckBox, QDialog, QGridLayout, QHBoxLayout, QLabel, QProgressBar, QPushButton,
                               QVBoxLayout, QWidget)

from ..cancel import CancelToken
from ..experts.model_store import size_text
from .workers import run_job


class SetupDialog(QDialog):
    """Pick packs, download them; ``endpoint`` points at a Hub mirror (tests: a fake Hub)."""

    @classmethod
    def open_for(cls, owner: QWidget, settings: Any, on_finished: Any, endpoint: str | None = None) -> "SetupDialog":
        """Open it over ``owner`` (kept as ``owner.setup_dialog``); ``on_finished`` runs when it
        closes, so the owner can show what is now on this computer."""
        dialog = cls(settings, owner, endpoint=endpoint)
        dialog.finished.connect(lambda _r: on_finished())
        owner.setup_dialog = dialog
        dialog.open()
        return dialog

    def __init__(self, settings: Any, parent: QWidget | None = None, endpoint: str | None = None):
        super().__init__(parent)
        from ..experts.model_store import cached_ids
        from ..experts.packs import disk_free, load_packs, pack_plan

        self.setWindowTitle("Set up models")
        self.settings = settings
        self.endpoint = endpoint
        self.cancel_token: CancelToken | None = None
        self.packs = load_packs()
        cached = cached_ids(settings)  # one folder listing for every pack
        self.plans = {p.id: pack_plan(p, settings, cached) for p in self.packs}
        self.boxes: dict[str, QCheckBox] = {}
        self.bars: dict[str, QProgressBar] = {}
        self.bar_labels: dict[str, QLabel] = {}
        self.results: list[Any] = []
        self.finished_downloads = False
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("<b>Choose what this computer should do offline.</b> Each pack downloads the models "
                             "it needs once; afterwards they work without network."))
        for p in self.packs:
            plan = self.plans[p.id]
            size = "ready" if not plan.models else f"{size_text(plan.total_mb * 1e6)} to download"
            box = QCheckBox(f"{p.title} ({size})")
            box.setToolTip(p.summary)
            box.setEnabled(bool(plan.models))
            self.boxes[p.id] = box
            lay.addWidget(box)
            hint = QLabel(f"<span style='color:#555'>{p.summary}</span>")
            hint.setWordWrap(True)
            lay.addWidget(hint)
        self.free = QLabel(f"Free disk space for models: {size_text(disk_free(settings))} ({settings.model_cache_path})")
        self.free.setWordWrap(True)
        lay.addWidget(self.free)
        self.progress_area = QGridLayout()
        lay.addLayout(self.progress_area)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        row = QHBoxLayout()
        row.addStretch(1)
        self.download_button = QPushButton("Download")
        self.download_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel download")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        for b in (self.download_button, self.cancel_button, close):
            row.addWidget(b)
        lay.addLayout(row)
        self.resize(560, 460)
        self._check_network()

    def _check_network(self) -> None:
        from ..experts.packs import setup_reachability

        settings, endpoint = self.settings, self.endpoint

        def shown(problem: str) -> None:
            self.offline_problem = problem
            if problem:
                self.download_button.setEnabled(False)
                self.status.setText(problem)

        self.offline_problem = ""
        run_job(lambda: setup_reachability(settings, endpoint), shown, lambda m: None, name="hub-check", context=self)

    def chosen_models(self) -> list[Any]:
        models: dict[str, Any] = {}
        for p in self.packs:
            if self.boxes[p.id].isChecked():
                for m in self.plans[p.id].models:
                    models.setdefault(m.model_id, m)
        return list(models.values())

    def start(self) -> None:
        from ..experts.packs import disk_free, download

        models = self.chosen_models()
        if not models:
            self.status.setText("Tick at least one pack that still needs a download.")
            return
        total = sum(m.size_mb for m in models) * 1e6
        if total > disk_free(self.settings):
            self.status.setText(f"Not enough disk space: about {size_text(total)} needed, "
                                f"{size_text(disk_free(self.settings))} free.")
            return
        for i, m in enumerate(models):
            label = QLabel(m.model_id)
            bar = QProgressBar()
            bar.setRange(0, 1000)
            bar.setFormat(f"0 of about {size_text(m.size_mb * 1e6)}")
            self.progress_area.addWidget(label, i, 0)
            self.progress_area.addWidget(bar, i, 1)
            self.bars[m.model_id], self.bar_labels[m.model_id] = bar, label
        self.download_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText(f"Downloading {len(models)} model(s)…")
        self.cancel_token = cancel = CancelToken()
        settings, endpoint = self.settings, self.endpoint
        run_job(lambda report: download(models, settings, on_progress=report, cancel=cancel, endpoint=endpoint),
                self._done, self._failed, on_progress=self._progress, name="setup-download", context=self)

    def _progress(self, p: Any) -> None:
        bar = self.bars.get(p.model_id)
        if bar is None:
            return
        if p.total_bytes:
            bar.setValue(int(1000 * p.done_bytes / p.total_bytes))
        bar.setFormat(p.text)

    def cancel(self) -> None:
        if self.cancel_token is not None:
            self.cancel_token.cancel()
            self.status.setText("Stopping… files already finished are kept; Download again resumes.")

    def _done(self, results: list[Any]) -> None:
        self.results = results
        self.cancel_button.setEnabled(False)
        self.download_button.setEnabled(True)
        for r in results:
            bar = self.bars.get(r.model_id)
            if bar is not None and not r.error:
                bar.setValue(1000)
                bar.setFormat("ready")
            elif bar is not None:
                bar.setFormat("stopped" if r.cancelled else "failed")
        bad = [r.error for r in results if r.error and not r.cancelled]
        ready = sum(1 for r in results if not r.error)
        msg = f"{ready} of {len(results)} model(s) ready."
        if any(r.cancelled for r in results):
            msg += " Stopped: press Download to fetch the rest."
        if bad:
            msg += " " + " ".join(bad)
        self.status.setText(msg)
        self.finished_downloads = True

    def _failed(self, message: str) -> None:
        self.cancel_button.setEnabled(False)
        self.download_button.setEnabled(True)
        self.status.setText(message)
        self.finished_downloads = True

    def reject(self) -> None:
        self.cancel()
        super().reject()
