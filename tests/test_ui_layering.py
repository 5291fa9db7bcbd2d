"""The layer rules the window depends on: Qt stays in jarvis_desktop.ui (import-linter contract),
and the window appears before anything heavy is imported (the pipeline loads after first paint)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "transformers", "diffusers", "faster_whisper", "ctranslate2", "onnxruntime", "spacy",
         "sounddevice", "jarvis_desktop.pipeline.assistant", "sqlite_utils")


def test_only_the_ui_package_imports_qt():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe is not None, "import-linter (the test extra) must be installed"
    out = subprocess.run([exe, str(ROOT / ".importlinter")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "Only jarvis_desktop.ui imports Qt (the core runs headless) KEPT" in out.stdout
    assert " 0 broken" in out.stdout


def test_the_headless_core_does_not_load_qt():
    code = ("import sys, jarvis_desktop.cli, jarvis_desktop.pipeline.assistant, jarvis_desktop.secrets;"
            "print([m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_window_is_shown_before_anything_heavy_is_imported(tmp_path):
    code = f"""
import sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from jarvis_desktop.config import load_settings
from jarvis_desktop.ui.main_window import MainWindow
w = MainWindow(load_settings())
seen = {{}}
class FirstPaint(QObject):
    def eventFilter(self, obj, e):
        if e.type() == QEvent.Type.Paint and obj is w and 'paint' not in seen:
            seen['paint'] = [m for m in {HEAVY!r} if m in sys.modules]
        return False
f = FirstPaint()
w.installEventFilter(f)
w.ready.connect(lambda: (seen.setdefault('ready', 'jarvis_desktop.pipeline.assistant' in sys.modules), w.close()))
w.show()
QTimer.singleShot(30000, app.quit)
w.destroyed.connect(app.quit)
app.exec()
print(seen)
"""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", JARVIS_CONFIG_DIR=str(tmp_path / "c"),
               JARVIS_DATA_DIR=str(tmp_path / "d"), JARVIS_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    seen = eval(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else {}
    assert seen.get("paint") == [], (seen, out.stderr[-2000:])
    assert seen.get("ready") is True  # the pipeline came right after
