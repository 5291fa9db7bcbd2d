"""Files attached to the next request, shown as removable chips.

A dropped file is checked twice: at once by name, size and type (``media.check_attachment``), then
on a worker thread by actually reading it, so a corrupt image or sound file is refused at drop time
with a message, rather than failing deep inside a model later.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QToolButton, QWidget

from ..documents import is_document
from ..media import Attachment, MediaError, check_attachment, is_workbook, kind_of, load_image
from .workers import run_job

KIND_MARK = {"image": "IMG", "audio": "AUDIO", "video": "VIDEO", "text": "TEXT"}


def probe_attachment(path: str | Path) -> Attachment:
    """Check that a file can really be used: decodes images, reads audio headers, and refuses
    binary data posing as text. Raises MediaError with a message for the user. Slow: off the GUI thread."""
    a = check_attachment(path)
    if a.kind == "image":
        load_image(a.path)
    elif a.kind == "audio":
        import soundfile as sf

        try:
            info = sf.info(str(a.path))
        except Exception as e:  # LibsndfileError, RuntimeError: corrupt or an unsupported codec
            first = str(e).splitlines()[0][:100] if str(e) else type(e).__name__
            raise MediaError(f"{a.name}: not a readable audio file ({first}). Is it corrupt? "
                             "WAV, FLAC, OGG and MP3 work.") from None
        if info.frames == 0:
            raise MediaError(f"{a.name}: the audio file has no samples.")
    elif is_workbook(a.path):
        from ..sheets import check_workbook

        check_workbook(a.path, open_it=True)  # a zip archive, not text: opened as a workbook instead
    elif is_document(a.path):
        from ..documents import check_document

        check_document(a.path, open_it=True)  # a zip archive or a PDF: its text read instead
    elif a.kind == "text":
        try:
            with open(a.path, "rb") as f:
                head = f.read(8192)
        except OSError as e:
            raise MediaError(f"{a.name}: cannot read the file ({e.strerror}).") from None
        if b"\x00" in head:
            raise MediaError(f"{a.name}: this looks like binary data, not text. Attach a text file.")
    return a


class Chip(QFrame):
    """One attached file: its kind, its name, and a button to remove it."""

    removed = Signal(str)

    def __init__(self, path: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.path = path
        self.ready = False
        self.setObjectName("chip")
        self.setProperty("state", "checking")
        kind = kind_of(path) or "file"
        self.kind = QLabel(KIND_MARK.get(kind, "FILE"))
        self.kind.setObjectName("chipKind")
        self.name = QLabel(os.path.basename(path))
        self.name.setToolTip(f"{path}\nchecking the file…")
        close = QToolButton()
        close.setText("✕")
        close.setObjectName("chipRemove")
        close.setToolTip("Remove this file from the request")
        close.setAutoRaise(True)
        close.clicked.connect(lambda: self.removed.emit(self.path))
        self.remove_button = close
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 1, 2, 1)
        lay.setSpacing(4)
        lay.addWidget(self.kind)
        lay.addWidget(self.name)
        lay.addWidget(close)

    def set_ready(self) -> None:
        self.ready = True
        self.setProperty("state", "ready")
        self.name.setToolTip(self.path)
        self.style().unpolish(self)
        self.style().polish(self)


class AttachmentBar(QScrollArea):
    """The chips of the next request. ``refused(message)`` when a file cannot be used."""

    refused = Signal(str)
    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("attachmentBar")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFixedHeight(34)
        inner = QWidget()
        self.row = QHBoxLayout(inner)
        self.row.setContentsMargins(0, 2, 0, 2)
        self.row.setSpacing(6)
        self.row.addStretch(1)
        self.setWidget(inner)
        self.chips: dict[str, Chip] = {}
        self.setVisible(False)

    def add(self, path: str | Path) -> bool:
        """Attach a file; False (and ``refused``) when it is refused by name, size or type at once.
        Its content is then checked on a worker thread."""
        path = str(Path(path).expanduser())
        try:
            a = check_attachment(path)
        except MediaError as e:
            self.refused.emit(str(e))
            return False
        key = str(a.path)
        if key in self.chips:
            return True
        chip = Chip(key)
        chip.removed.connect(self.remove)
        self.chips[key] = chip
        self.row.insertWidget(self.row.count() - 1, chip)
        self.setVisible(True)
        self.changed.emit()
        run_job(lambda: probe_attachment(key), lambda _a, k=key: self._ok(k), lambda msg, k=key: self._bad(k, msg),
                name="probe", context=self)
        return True

    def _ok(self, key: str) -> None:
        chip = self.chips.get(key)
        if chip is not None:
            chip.set_ready()

    def _bad(self, key: str, message: str) -> None:
        if key in self.chips:
            self.remove(key)
            self.refused.emit(message)

    def remove(self, path: str) -> None:
        chip = self.chips.pop(path, None)
        if chip is not None:
            self.row.removeWidget(chip)
            chip.deleteLater()
        self.setVisible(bool(self.chips))
        self.changed.emit()

    def paths(self) -> list[str]:
        return list(self.chips)

    def checking(self) -> bool:
        return any(not c.ready for c in self.chips.values())

    def clear(self) -> None:
        for p in list(self.chips):
            self.remove(p)
