"""TaskBench (Hugging Face tools domain) for our planners: node, edge, argument-type and
argument-value F1, overall and per sample type, plans per second and the parse-failure share.

    python bench/taskbench.py --data ../shared/taskbench/dev.jsonl --out preds.jsonl --planner offline

Input lines need ``id`` and ``instruction``; with gold ``task_nodes`` they are also scored.
Files a request names ('example.jpg') count as attached, since TaskBench gives no files.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jarvis_desktop.planning.taskbench import METRICS, attachments_from_text, plan_to_taskbench, score  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "taskbench" / "dev.jsonl"
GROUPS = ("overall", "single", "chain", "dag")


def make_planner(name: str):
    """A callable request, attachments -> PlanCheck for the planner asked for."""
    from jarvis_desktop.planning.offline import OfflinePlanner

    if name == "offline":
        p = OfflinePlanner()
        note = p.warm_up()
        if note:
            print(f"note: {note}", file=sys.stderr)
        return p.plan
    try:
        from jarvis_desktop.config import load_settings
        from jarvis_desktop.llm.factory import make_controller
        from jarvis_desktop.pipeline.planner import LLMPlanner
    except ImportError as e:
        raise SystemExit(f"--planner {name} needs the LLM planner (jarvis_desktop.pipeline.planner.LLMPlanner and "
                         f"jarvis_desktop.llm.factory.make_controller), which could not be imported: {e}") from None
    settings = load_settings()
    controller = make_controller(settings)
    if getattr(controller, "tiny", False):
        print(f"note: the configured controller ({getattr(controller, 'name', 'embedded')}) is a tiny embedded model; "
              "set base_url/api_key for a capable LLM", file=sys.stderr)
    llm = LLMPlanner(controller, settings)
    if name == "llm":
        return llm.plan
    if name == "hybrid":
        offline = OfflinePlanner()
        offline.warm_up()

        def hybrid(request: str, attachments: list):
            draft = offline.plan(request, attachments)
            if not draft.ok or not draft.plan:
                return llm.plan(request, attachments)
            revised = llm.plan(request, attachments, draft=draft.plan)
            # a revision that drops every step is not a correction of a non-empty draft
            return revised if revised.ok and revised.plan else draft

        return hybrid
    raise SystemExit(f"unknown planner {name!r}: use offline, llm or hybrid")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{n}: not JSON ({e.msg})") from None
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="TaskBench JSONL (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=Path("taskbench_predictions.jsonl"), help="where predictions go")
    ap.add_argument("--planner", choices=("offline", "llm", "hybrid"), default="offline")
    ap.add_argument("--limit", type=int, default=0, help="only the first N samples")
    ap.add_argument("--edges-from", choices=("links", "args"), default="links",
                    help="gold edges from task_links (TaskBench's scorer) or rebuilt from <node-j> arguments")
    a = ap.parse_args(argv)
    if not a.data.is_file():
        raise SystemExit(f"no data file at {a.data}; pass --data FILE.jsonl")
    rows = read_jsonl(a.data)
    if a.limit:
        rows = rows[: a.limit]
    plan = make_planner(a.planner)

    failures = empty = 0
    preds: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for row in rows:
        text = str(row.get("instruction", ""))
        check = plan(text, attachments_from_text(text))
        if not check.ok:
            failures += 1
        elif not check.plan:
            empty += 1
        preds.append({"id": row.get("id"), "result": plan_to_taskbench(check.plan if check.ok else None)})
    elapsed = time.perf_counter() - t0
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w", encoding="utf-8") as f:
        for p in preds:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")

    n = len(rows)
    print(f"planner: {a.planner}   samples: {n}   predictions: {a.out}")
    print(f"plans/s: {n / elapsed:.1f}   ms/plan: {1000 * elapsed / max(n, 1):.1f}   "
          f"parse/validation failures: {failures}/{n} ({100 * failures / max(n, 1):.1f}%)   empty plans: {empty}")
    gold = [r for r in rows if "task_nodes" in r]
    if not gold:
        print("no gold plans in the data: predictions written, nothing scored")
        return 0
    by_id = {p["id"]: p["result"] for p in preds}
    s = score(((by_id[r.get("id")], r, str(r.get("type", ""))) for r in gold), links_from=a.edges_from)
    print(f"\n{'group':8} {'n':>5} " + " ".join(f"{m + ' F1':>12}" for m in METRICS))
    for g in GROUPS:
        if g in s.groups:
            cells = []
            for m in METRICS:
                c = s.groups[g][m]
                # nothing to find and nothing found (edges of single-tool plans): no score, not 0
                cells.append(f"{'n/a':>12}" if c.n_gold == 0 and c.n_pred == 0 else f"{c.f1:>12.2f}")
            print(f"{g:8} {s.samples[g]:>5} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
