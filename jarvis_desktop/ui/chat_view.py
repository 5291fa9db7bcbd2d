"""The conversation: user and assistant turns, with their files shown as what they are.

Images become thumbnails (decoded off the GUI thread; a click opens the full size), audio gets
play/stop, anything else is a link that opens the folder holding it. The assistant's turn fills in
token by token while the answer streams.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QImageReader, QPixmap
from PySide6.QtWidgets import (QDialog, QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QSizePolicy,
                               QVBoxLayout, QWidget)

from ..media import kind_of
from .workers import run_job

THUMB = 220


def open_folder_of(path: str) -> None:
    """Open the folder that holds ``path`` in the system file manager."""
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(path).parent)))


def read_image(path: str, max_side: int | None = None) -> QImage:
    """Decode an image (scaled while decoding when ``max_side`` is given). Safe on any thread."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    if max_side:
        size = reader.size()
        if size.isValid() and max(size.width(), size.height()) > max_side:
            reader.setScaledSize(size.scaled(QSize(max_side, max_side), Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        raise ValueError(f"{os.path.basename(path)}: {reader.errorString()}")
    return image


class ImageViewer(QDialog):
    """An image at full size, scrollable."""

    def __init__(self, path: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(os.path.basename(path))
        label = QLabel("loading…")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label = label
        self.image_size = (0, 0)
        run_job(lambda: read_image(path), self._loaded, label.setText, name="image", context=self)
        area = QScrollArea()
        area.setWidget(label)
        area.setWidgetResizable(True)
        lay = QVBoxLayout(self)
        lay.addWidget(area)
        folder = QPushButton("Open containing folder")
        folder.clicked.connect(lambda: open_folder_of(path))
        lay.addWidget(folder, 0, Qt.AlignmentFlag.AlignRight)
        self.resize(900, 700)

    def _loaded(self, image: QImage) -> None:
        self.label.setPixmap(QPixmap.fromImage(image))
        self.image_size = (image.width(), image.height())


class ImageThumb(QLabel):
    """A thumbnail that opens the full image when clicked."""

    def __init__(self, path: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.path = path
        self.loaded = False
        self.setObjectName("thumb")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(f"{os.path.basename(path)} — click to open full size")
        self.setText("loading image…")
        self.setFixedSize(THUMB, 90)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        run_job(lambda: read_image(path, THUMB), self._loaded, self._failed, name="thumbnail", context=self)

    def _loaded(self, image: QImage) -> None:
        pix = QPixmap.fromImage(image)
        self.setFixedSize(pix.size())
        self.setPixmap(pix)
        self.loaded = True

    def _failed(self, message: str) -> None:
        self.setFixedSize(THUMB, 40)
        self.setText(f"cannot show {os.path.basename(self.path)}")
        self.setToolTip(message)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton:
            self.viewer = ImageViewer(self.path, self.window())
            self.viewer.show()
        super().mouseReleaseEvent(event)


class AudioItem(QWidget):
    """A sound file with play/stop; playback goes through the window's audio player."""

    def __init__(self, path: str, player: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.path = path
        self.player = player
        self.button = QPushButton("▶ Play")
        self.button.setObjectName("playButton")
        self.button.setFixedWidth(84)
        self.button.clicked.connect(self.toggle)
        name = QLabel(f"<a href='#'>{_esc(os.path.basename(path))}</a>")
        name.setToolTip(f"{path}\nClick to open the folder")
        name.linkActivated.connect(lambda _=None: open_folder_of(path))
        self.name = name
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.button)
        lay.addWidget(name, 1)
        reason = player.unavailable_reason() if player is not None else "no audio output"
        if reason:
            self.button.setEnabled(False)
            self.button.setToolTip(f"Cannot play: {reason}")

    def toggle(self) -> None:
        if self.player is None:
            return
        if self.player.is_playing(self.path):
            self.player.stop()
        else:
            self.player.play(self.path, self._state)

    def _state(self, playing: bool, error: str = "") -> None:
        self.button.setText("■ Stop" if playing else "▶ Play")
        if error:
            self.button.setToolTip(error)


class FileLink(QLabel):
    """A produced file as a link that opens its folder."""

    def __init__(self, path: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.path = path
        self.setText(f"<a href='#'>{_esc(os.path.basename(path))}</a> <span style='color:#7a7f87'>(open folder)</span>")
        self.setToolTip(path)
        self.linkActivated.connect(lambda _=None: open_folder_of(path))


class MessageWidget(QFrame):
    """One turn: who, the text, and the files."""

    def __init__(self, role: str, text: str = "", files: list[str] | None = None, player: Any = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.role = role
        self.player = player
        self.files: list[str] = []
        self.setObjectName("userBubble" if role == "user" else "errorBubble" if role == "error" else "assistantBubble")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        who = QLabel({"user": "You", "assistant": "JARVIS", "error": "JARVIS"}.get(role, role))
        who.setObjectName("who")
        self.body = QLabel(text)
        self.body.setObjectName("body")
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.status = QLabel("")
        self.status.setObjectName("turnStatus")
        self.status.hide()
        self.files_box = QVBoxLayout()
        self.files_box.setSpacing(4)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 8)
        lay.setSpacing(3)
        lay.addWidget(who)
        lay.addWidget(self.body)
        lay.addLayout(self.files_box)
        lay.addWidget(self.status)
        self.body.setVisible(bool(text))
        self.add_files(files or [])

    @property
    def text(self) -> str:
        return self.body.text()

    def set_text(self, text: str) -> None:
        self.body.setText(text)
        self.body.setVisible(bool(text))

    def append(self, piece: str) -> None:
        self.set_text(self.body.text() + piece)

    def set_status(self, text: str) -> None:
        self.status.setText(text)
        self.status.setVisible(bool(text))

    def add_files(self, files: list[str]) -> None:
        images = QHBoxLayout()
        images.setSpacing(6)
        n_images = 0
        for f in files:
            if f in self.files:
                continue
            self.files.append(f)
            kind = kind_of(f)
            if kind == "image" and os.path.isfile(f):
                images.addWidget(ImageThumb(f))
                n_images += 1
            elif kind == "audio" and os.path.isfile(f):
                self.files_box.addWidget(AudioItem(f, self.player))
            else:
                self.files_box.addWidget(FileLink(f))
        if n_images:
            images.addStretch(1)
            self.files_box.addLayout(images)

    def thumbnails(self) -> list[ImageThumb]:
        return self.findChildren(ImageThumb)

    def audio_items(self) -> list[AudioItem]:
        return self.findChildren(AudioItem)


class ConversationView(QScrollArea):
    """The list of turns, following the newest one while it grows."""

    def __init__(self, player: Any = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.player = player
        self.setObjectName("conversation")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.inner = QWidget()
        self.inner.setObjectName("conversationInner")
        self.column = QVBoxLayout(self.inner)
        self.column.setContentsMargins(12, 12, 12, 12)
        self.column.setSpacing(10)
        self.placeholder = QLabel("")
        self.placeholder.setObjectName("placeholder")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.column.addWidget(self.placeholder)
        self.column.addStretch(1)
        self.setWidget(self.inner)
        self.messages: list[MessageWidget] = []
        self.current: MessageWidget | None = None
        self.verticalScrollBar().rangeChanged.connect(lambda _lo, hi: self.verticalScrollBar().setValue(hi))

    def set_placeholder(self, text: str) -> None:
        self.placeholder.setText(text)
        self.placeholder.setVisible(not self.messages and bool(text))

    def clear(self) -> None:
        for m in self.messages:
            self.column.removeWidget(m)
            m.deleteLater()
        self.messages.clear()
        self.current = None
        self.placeholder.setVisible(bool(self.placeholder.text()))

    def add(self, role: str, text: str, files: list[str] | None = None) -> MessageWidget:
        m = MessageWidget(role, text, files, self.player)
        self.column.insertWidget(self.column.count() - 1, m)
        self.messages.append(m)
        self.placeholder.hide()
        return m

    def begin_answer(self) -> MessageWidget:
        self.current = self.add("assistant", "")
        self.current.set_status("thinking…")
        return self.current

    def last(self, role: str | None = None) -> MessageWidget | None:
        for m in reversed(self.messages):
            if role is None or m.role == role:
                return m
        return None

    def texts(self) -> list[tuple[str, str]]:
        return [(m.role, m.text) for m in self.messages]


def _esc(text: str) -> str:
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

