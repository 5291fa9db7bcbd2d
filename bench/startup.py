"""Start-up time and idle memory of the desktop window.

Starts ``jarvis gui`` in a fresh process (offscreen unless a display is set, private data folders,
offline) several times and prints: process start -> window shown, -> pipeline ready (history
loaded), and the resident memory (RSS) a few seconds after start, once idle.

    .venv/bin/python bench/startup.py [--runs 5] [--idle-seconds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import time, sys
t0 = float(sys.argv[1])
from jarvis_desktop.ui.app import run_app
raise SystemExit(run_app(["jarvis"]))
"""


def one_run(idle_seconds: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
            env.setdefault("QT_QPA_PLATFORM", "offscreen")
        env.update({
            "JARVIS_CONFIG_DIR": f"{tmp}/config", "JARVIS_DATA_DIR": f"{tmp}/data", "JARVIS_OFFLINE": "1",
            "HF_HUB_OFFLINE": "1", "JARVIS_STARTUP_PROBE": str(idle_seconds), "PYTHONPATH": str(ROOT),
        })
        start = time.time()
        out = subprocess.run([sys.executable, "-c", CHILD, str(start)], env=env, capture_output=True, text=True,
                             timeout=120, cwd=ROOT)
    figures: dict[str, float] = {}
    for line in out.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "JARVIS_SHOWN":
            figures["shown_s"] = float(value) - start
        elif key == "JARVIS_READY":
            figures["ready_s"] = float(value) - start
        elif key == "JARVIS_IDLE_RSS_KB":
            figures["idle_rss_mb"] = int(value) / 1024
    if "shown_s" not in figures:
        raise SystemExit(f"the window did not report being shown:\n{out.stdout}\n{out.stderr}")
    return figures


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--idle-seconds", type=float, default=3.0)
    args = p.parse_args()
    runs = [one_run(args.idle_seconds) for _ in range(args.runs)]
    print(f"desktop window start-up, {args.runs} runs (median, min-max):")
    for key, label, unit in (("shown_s", "process start -> window shown", "s"),
                             ("ready_s", "process start -> pipeline ready", "s"),
                             ("idle_rss_mb", f"idle RSS after {args.idle_seconds:g} s", "MB")):
        values = [r[key] for r in runs if key in r]
        if values:
            print(f"  {label:36s} {statistics.median(values):7.2f} {unit}  ({min(values):.2f}-{max(values):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
