"""Fault-injection benchmark: a fake hosted controller on 127.0.0.1 misbehaves in every way it
knows (tests/helpers/junk_controller.py) while one real request goes through each face of the app.

    .venv/bin/python bench/faults.py                        # every fault x every face (minutes)
    .venv/bin/python bench/faults.py --faces "REST,GUI worker" --faults prose,slow

Prints one row per (fault, face): whether the answer was truthful (not the controller's junk, says
the language model failed, reports what the OCR really read), whether the session was saved, and
how many tracebacks reached stderr or a log; then the totals. Goal: every row truthful and saved,
0 tracebacks. Runs offline on CPU; times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.chdir(ROOT)

from helpers.faults import ALL_MODES, FACES, Outcome, RestServer, make_home, make_photo, run_cli, run_gui_worker  # noqa: E402
from helpers.junk_controller import JunkControllerServer  # noqa: E402


def gui_outcomes(modes: list[str], junk, photo: Path, root: Path) -> list[Outcome]:
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from jarvis_desktop.config import load_settings
    from jarvis_desktop.pipeline.assistant import Assistant

    app = QApplication.instance() or QApplication([])
    os.environ.update({**make_home(root), "OPENAI_BASE_URL": junk.base_url, "JARVIS_LLM_MODEL": "junk-current"})
    assistant = Assistant(load_settings())

    def wait(worker):
        loop, box = QEventLoop(), {}
        worker.finished.connect(lambda r: (box.setdefault("result", r), loop.quit()))
        QTimer.singleShot(300_000, loop.quit)
        worker.start()
        loop.exec()
        worker.thread.join(10)
        return box.get("result")

    try:
        return [run_gui_worker(m, assistant, junk, photo, wait) for m in modes]
    finally:
        assistant.close()
        del app


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--faults", default=",".join(ALL_MODES), help="comma-separated failure modes")
    p.add_argument("--faces", default=",".join(FACES), help="comma-separated faces: " + ", ".join(FACES))
    a = p.parse_args()
    modes = [m for m in a.faults.split(",") if m]
    faces = [f.strip() for f in a.faces.split(",") if f.strip()]
    unknown = [m for m in modes if m not in ALL_MODES] + [f for f in faces if f not in FACES]
    if unknown:
        print(f"unknown: {', '.join(unknown)}", file=sys.stderr)
        return 2
    outcomes: list[Outcome] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="jarvis-faults-") as tmp, JunkControllerServer() as junk:
        root = Path(tmp)
        photo = make_photo(root / "photo.png")
        if "CLI" in faces:
            home = make_home(root / "cli")
            for m in modes:
                outcomes.append(run_cli(m, home, photo, junk.base_url))
                _row(outcomes[-1])
        if "REST" in faces or "REST stream" in faces:
            server = RestServer(root / "rest", junk.base_url)
            try:
                for m in modes:
                    junk.mode = m
                    for stream, face in ((False, "REST"), (True, "REST stream")):
                        if face in faces:
                            outcomes.append(server.ask(m, photo, stream))
                            _row(outcomes[-1])
            finally:
                server.close()
        if "GUI worker" in faces:
            for o in gui_outcomes(modes, junk, photo, root / "gui"):
                outcomes.append(o)
                _row(o)
    good = sum(o.ok for o in outcomes)
    print(f"\n{len(outcomes)} cases ({len(modes)} faults x {len(faces)} faces) in {time.perf_counter() - t0:.0f} s: "
          f"truthful {sum(o.truthful for o in outcomes)}/{len(outcomes)}, saved {sum(o.saved for o in outcomes)}/"
          f"{len(outcomes)}, tracebacks {sum(o.tracebacks for o in outcomes)}; all good: {good}/{len(outcomes)}")
    for o in outcomes:
        if not o.ok:
            print(f"  {o.fault} / {o.face}: {'; '.join(o.problems)}")
    return 0 if good == len(outcomes) else 1


_header_done = False


def _row(o: Outcome) -> None:
    global _header_done
    if not _header_done:
        print(f"{'fault':<22} {'face':<12} {'truthful':<9} {'saved':<6} {'tracebacks':>10} {'seconds':>8}")
        _header_done = True
    print(f"{o.fault:<22} {o.face:<12} {'yes' if o.truthful else 'NO':<9} {'yes' if o.saved else 'NO':<6} "
          f"{o.tracebacks:>10} {o.seconds:>8.1f}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
