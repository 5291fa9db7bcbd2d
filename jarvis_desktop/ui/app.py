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
        settings = load_settings()
    except SettingsError as e:
        QMessageBox.critical(None, "JARVIS", f"The settings cannot be read:\n{e}\n\nThe defaults are used for now.")
        from ..config import Settings

        settings = Settings()
    from .main_window import MainWindow

    window = MainWindow(settings)
    window.show()
    if os.environ.get("JARVIS_STARTUP_PROBE"):  # bench/startup.py: report when shown, then quit
        _probe(app, window, os.environ["JARVIS_STARTUP_PROBE"])
    return int(app.exec())


def _probe(app, window, mode: str) -> None:
    """Print the time the window was first shown, and (``idle``) the RSS once it is idle."""
    import time

    from PySide6.QtCore import QTimer

    shown = time.time()
    print(f"JARVIS_SHOWN {shown:.6f}", flush=True)

    def idle() -> None:
        rss = _rss_kb()
        print(f"JARVIS_IDLE_RSS_KB {rss}", flush=True)
        window.close()

    def on_ready() -> None:
        print(f"JARVIS_READY {time.time():.6f}", flush=True)
        QTimer.singleShot(int(float(mode) * 1000) if mode.replace('.', '', 1).isdigit() else 3000, idle)

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
