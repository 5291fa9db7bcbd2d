"""``run_app(argv)``: the desktop window's entry point (``jarvis`` and ``jarvis gui`` call it).

Only Qt and the window's own modules are imported before the window is shown; the pipeline comes
right after the first paint, and models load on first use, on worker threads.
"""

from __future__ import annotations

import os
import sys


def _no_display() -> bool:
    if sys.platform in ("win32", "darwin") or os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_app(argv: list[str] | None = None) -> int:
    """Show the window and run until it closes; the exit code."""
    argv = list(argv if argv is not None else sys.argv[:1])
    if _no_display():
        print("jarvis: no display found (DISPLAY is not set). Run it in a desktop session, under "
              "`xvfb-run jarvis gui`, or use the terminal: `jarvis chat`.", file=sys.stderr)
        return 1
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    from PySide6.QtWidgets import QApplication, QMessageBox

    from ..config import SettingsError, load_settings

    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("JARVIS")
    app.setOrganizationName("jarvis-desktop")
    app.setDesktopFileName("jarvis-desktop")
    try:
        # the environment but not yet the keyring: finding a keyring backend can take half a
        # second, so the window fills the keys in after its first paint (fill_secrets)
        settings = load_settings(env=dict(os.environ))
    except SettingsError as e:
        QMessageBox.critical(None, "JARVIS", f"The settings cannot be read:\n{e}\n\nThe defaults are used for now.")
        from ..config import Settings

        settings = Settings()
    from .main_window import MainWindow

    window = MainWindow(settings, fill_secrets=True)
    if os.environ.get("JARVIS_STARTUP_PROBE"):  # bench/startup.py: report when shown, then quit
        _probe(app, window, os.environ["JARVIS_STARTUP_PROBE"])
    window.show()
    return int(app.exec())


def _probe(app, window, mode: str) -> None:
    """Print when the window first paints, and (after ``mode`` seconds idle) its RSS, then close."""
    import time

    from PySide6.QtCore import QEvent, QObject, QTimer

    class FirstPaint(QObject):
        def eventFilter(self, obj, e):  # noqa: N802 - Qt override
            if e.type() == QEvent.Type.Paint and obj is window:
                print(f"JARVIS_SHOWN {time.time():.6f}", flush=True)
                window.removeEventFilter(self)
            return False

    window._first_paint = FirstPaint(window)
    window.installEventFilter(window._first_paint)

    def idle() -> None:
        print(f"JARVIS_IDLE_RSS_KB {_rss_kb()}", flush=True)
        window.close()

    def on_ready() -> None:
        print(f"JARVIS_READY {time.time():.6f}", flush=True)
        QTimer.singleShot(int(float(mode) * 1000), idle)

    window.ready.connect(on_ready)


def _rss_kb() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


if __name__ == "__main__":
    raise SystemExit(run_app(sys.argv))
