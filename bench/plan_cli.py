"""How long ``jarvis plan`` takes as a whole process: planning in-process, the first call that
starts the resident planner, and later calls it answers (jarvis_desktop/resident.py).

Each call is a fresh ``python -m jarvis_desktop plan`` with private, offline data folders, timed
from before the process starts until it has exited. The requests are the check set's (our own).

    .venv/bin/python bench/plan_cli.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def requests(n: int) -> list[str]:
    rows = [json.loads(line) for line in (ROOT / "bench/data/dev_requests_check.jsonl").read_text().splitlines() if line.strip()]
    texts = [r["request"] for r in rows if not r.get("files")]
    return [texts[i % len(texts)] for i in range(n)]


def call(request: str, env: dict[str, str]) -> tuple[float, int | None]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "jarvis_desktop", "-v", "plan", request], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - t0
    if out.returncode not in (0, 1) or not out.stdout.strip().startswith("["):
        raise SystemExit(f"jarvis plan failed:\n{out.stderr[-2000:]}")
    m = re.search(r"resident planner \(pid (\d+)\)", out.stderr)
    return elapsed, int(m.group(1)) if m else None


def env_for(tmp: str, minutes: str) -> dict[str, str]:
    return {**os.environ, "JARVIS_CONFIG_DIR": f"{tmp}/config", "JARVIS_DATA_DIR": f"{tmp}/data",
            "JARVIS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "JARVIS_RESIDENT_PLANNER_MINUTES": minutes,
            "PYTHONPATH": str(ROOT)}


def show(name: str, times: list[float]) -> None:
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    print(f"{name:<44} median {statistics.median(times):6.3f} s   p90 {p90:6.3f} s   (n={len(times)})", flush=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10)
    args = p.parse_args()
    texts = requests(args.runs)
    print(f"cpu threads: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        show("in-process (resident planner off)", [call(t, env_for(tmp, "0"))[0] for t in texts[:5]])
    pids: set[int] = set()
    firsts, warm = [], []
    try:
        for i in range(3):
            with tempfile.TemporaryDirectory() as tmp:
                env = env_for(tmp, "5")
                elapsed, pid = call(texts[0], env)
                firsts.append(elapsed)
                if pid is None:
                    raise SystemExit("the resident planner did not answer")
                pids.add(pid)
                if i == 0:
                    for t in texts:
                        elapsed, pid = call(t, env)
                        if pid is None:
                            raise SystemExit("the resident planner did not answer a later call")
                        warm.append(elapsed)
                os.kill(pid, signal.SIGTERM)
        show("first call (starts the resident planner)", firsts)
        show("later calls (answered by the resident planner)", warm)
    finally:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    print(f"load average after {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
