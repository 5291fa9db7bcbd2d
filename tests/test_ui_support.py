"""Helpers shared by the desktop-window tests (holds no tests itself)."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

SHOTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "screenshots"
SPOKEN = "Please describe this image and read the answer aloud"


def screenshot(widget, name: str) -> Path:
    """Save what the widget shows (the tests write them; a person looks at them)."""
    from PySide6.QtWidgets import QApplication

    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    for _ in range(3):  # let pending layouts settle, as they would before a person sees them
        QApplication.processEvents()
    assert widget.grab().save(str(path)), f"could not save {path}"
    return path


def make_settings(**overrides):
    from jarvis_desktop.config import load_settings

    s = load_settings()
    return dataclasses.replace(s, **{"tts": False, **overrides})


def espeak_wav(path: Path, text: str = SPOKEN) -> Path:
    assert shutil.which("espeak-ng"), "espeak-ng is missing: make setup installs it (make system-deps)"
    subprocess.run(["espeak-ng", "-w", str(path), text], check=True, capture_output=True)
    return path


def page_png(path: Path) -> Path:
    from PIL import Image
    from skimage import data

    Image.fromarray(data.page()).save(path)
    return path


def drop_files(qtbot, window, paths: list[Path]) -> None:
    """A real drag-and-drop as Qt delivers it: DragEnter, then Drop, with file URLs."""
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(window.width() / 2, window.height() / 2)
    enter = QDragEnterEvent(pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted(), "the window refused the drag"
    drop = QDropEvent(pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)


def type_and_enter(qtbot, window, text: str) -> None:
    from PySide6.QtCore import Qt

    window.input.setFocus()
    qtbot.keyClicks(window.input, text)
    qtbot.keyClick(window.input, Qt.Key.Key_Return)


def close_window(qtbot, window, timeout: int = 120_000) -> None:
    window.close()
    qtbot.waitUntil(lambda: window._closed, timeout=timeout)


#: Process-wide threads that libraries start once and keep (not work the window left behind):
#: tqdm's monitor starts with the first progress bar a model library draws.
LIBRARY_THREADS = {"tqdm_monitor"}


def python_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate()
                  if t is not threading.main_thread() and t.name not in LIBRARY_THREADS)
