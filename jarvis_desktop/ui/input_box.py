"""The text box: Enter sends, Shift+Enter breaks the line, dropped or pasted files become attachments."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QImage, QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget


def local_files(mime: QMimeData) -> list[str]:
    return [u.toLocalFile() for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []


class InputBox(QPlainTextEdit):
    submitted = Signal()
    files_given = Signal(list)
    image_pasted = Signal(QImage)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("inputBox")
        self.setPlaceholderText("Ask JARVIS, or drop files here…  (Enter to send, Shift+Enter for a new line)")
        self.setTabChangesFocus(True)
        self.setFixedHeight(64)

    def keyPressEvent(self, e: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if e.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (e.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            self.submitted.emit()
            return
        super().keyPressEvent(e)

    # Paste and drop both come through here: files and images attach instead of becoming text.
    def canInsertFromMimeData(self, source: QMimeData) -> bool:  # noqa: N802
        return bool(local_files(source)) or source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802
        files = local_files(source)
        if files:
            self.files_given.emit(files)
        elif source.hasImage():
            image = source.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self.image_pasted.emit(image)
        else:
            super().insertFromMimeData(source)

    @property
    def text(self) -> str:
        return self.toPlainText()
