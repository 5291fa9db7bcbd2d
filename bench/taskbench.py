"""TaskBench (Hugging Face tools domain) and our own request sets for the planners: node, edge,
argument-type and argument-value F1, exact-plan rate, empty plans, plans per second.

    python bench/taskbench.py --folds 5                     # held-out figures on the dev split
    python bench/taskbench.py --data ../shared/taskbench/dev.jsonl --planner offline
    python bench/taskbench.py --data bench/data/dev_requests_check.jsonl   # HuggingGPT-form set

``--folds K`` trains the step classifier K times, each time on all dev folds but one, and plans the
fold it did not see; every figure printed under "held-out" comes from such folds, and ``--out`` gets
those held-out predictions (one line per dev sample, to read the errors). It also prints
the old "fit on all of dev" figures (the phrase-table planner, and the shipped model, whose
training data includes dev) next to them.

``--data`` reads TaskBench lines (``instruction``, gold ``task_nodes``) or request sets in
HuggingGPT's form (``request``, ``files``, gold ``plan``; bench/data/blind/FORMAT.md). Files a
TaskBench request names ('example.jpg') count as attached, since TaskBench gives no files.
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

from jarvis_desktop.media import Attachment, kind_of  # noqa: E402
from jarvis_desktop.pipeline.plan import Plan  # noqa: E402
from jarvis_desktop.planning.taskbench import METRICS, Scores, attachments_from_text, plan_to_taskbench, score  # noqa: E402
from jarvis_desktop.planning import corpus  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "taskbench" / "dev.jsonl"
GROUPS = ("overall", "single", "chain", "dag")


def make_planner(name: str, detector: str = "learned", model: Any = None):
    """A callable (request, attachments, previous answer or None) -> PlanCheck for the planner
    asked for; the previous answer is the assistant's last turn (follow-up sets)."""
    from jarvis_desktop.planning.offline import OfflinePlanner

    if name == "offline":
        p = OfflinePlanner(detector=detector, model=model)
        note = p.warm_up()
        if note:
            print(f"note: {note}", file=sys.stderr)
        return lambda request, attachments, previous=None: p.plan(request, attachments, previous)
    try:
        from jarvis_desktop.config import load_settings
        from jarvis_desktop.llm.factory import make_controller
        from jarvis_desktop.pipeline.planner import LLMPlanner, Turn
    except ImportError as e:
        raise SystemExit(f"--planner {name} needs the LLM planner (jarvis_desktop.pipeline.planner.LLMPlanner and "
                         f"jarvis_desktop.llm.factory.make_controller), which could not be imported: {e}") from None
    settings = load_settings()
    controller = make_controller(settings)
    if getattr(controller, "tiny", False):
        print(f"note: the configured controller ({getattr(controller, 'name', 'embedded')}) is a tiny embedded model; "
              "set base_url/api_key for a capable LLM", file=sys.stderr)
    llm = LLMPlanner(controller, settings)

    def history(previous: str | None) -> list | None:
        return [Turn("assistant", previous)] if previous else None

    if name == "llm":
        return lambda request, attachments, previous=None: llm.plan(request, attachments, history(previous))
    if name == "hybrid":
        offline = OfflinePlanner(detector=detector, model=model)
        offline.warm_up()

        def hybrid(request: str, attachments: list, previous: str | None = None):
            draft = offline.plan(request, attachments, previous)
            if not draft.ok or not draft.plan:
                return llm.plan(request, attachments, history(previous))
            revised = llm.plan(request, attachments, history(previous), draft=draft.plan)
            # a revision that drops every step is not a correction of a non-empty draft
            return revised if revised.ok and revised.plan else draft

        return hybrid
    raise SystemExit(f"unknown planner {name!r}: use offline, llm or hybrid")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        return corpus.read_jsonl(path)
    except ValueError as e:  # a malformed line is one message, not a traceback
        raise SystemExit(str(e)) from None


def is_plan_form(rows: list[dict[str, Any]]) -> bool:
    """HuggingGPT-form request sets have ``request`` (and gold ``plan``); TaskBench has ``instruction``."""
    return bool(rows) and all(isinstance(r, dict) and "request" in r for r in rows)


def request_attachments(row: dict[str, Any]) -> list[Attachment]:
    """The files a request came with, plus any it names in its text, once each."""
    text = str(row.get("request", row.get("instruction", "")))
    out: dict[str, Attachment] = {}
    for f in row.get("files", []) or []:
        k = kind_of(str(f))
        if k:
            out.setdefault(Path(str(f)).name.lower(), Attachment(Path(str(f)), k))
    for a in attachments_from_text(text):
        out.setdefault(a.path.name.lower(), a)
    return list(out.values())


def print_taskbench(s: Scores, title: str) -> None:
    print(f"\n{title}")
    print(f"{'group':8} {'n':>5} " + " ".join(f"{m + ' F1':>12}" for m in METRICS))
    for g in GROUPS:
        if g in s.groups:
            cells = []
            for m in METRICS:
                c = s.groups[g][m]
                # nothing to find and nothing found (edges of single-tool plans): no score, not 0
                cells.append(f"{'n/a':>12}" if c.n_gold == 0 and c.n_pred == 0 else f"{c.f1:>12.2f}")
            print(f"{g:8} {s.samples[g]:>5} " + " ".join(cells))


def run_taskbench(rows: list[dict[str, Any]], plan, edges_from: str) -> tuple[list[dict[str, Any]], Scores | None, float, int, int]:
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
    gold = [(p["result"], r, str(r.get("type", ""))) for p, r in zip(preds, rows) if "task_nodes" in r]
    return preds, (score(gold, links_from=edges_from) if gold else None), elapsed, failures, empty


def run_plan_form(rows: list[dict[str, Any]], plan) -> tuple[list[dict[str, Any]], Any, Scores, float, dict[str, list[int]]]:
    """Plan each request of a HuggingGPT-form set; native scores and TaskBench-mapped scores."""
    from jarvis_desktop.planning.plan_metrics import PlanScores

    native = PlanScores()
    mapped = Scores()
    by_voice: dict[str, list[int]] = {}
    preds: list[dict[str, Any]] = []
    elapsed = 0.0
    for row in rows:
        t1 = time.perf_counter()
        check = plan(str(row["request"]), request_attachments(row), row.get("previous_answer"))
        elapsed += time.perf_counter() - t1
        pred = check.plan.to_json() if check.ok and check.plan else []
        preds.append({"id": row.get("id"), "plan": pred})
        if "plan" not in row:
            continue
        gold = row["plan"] or []
        ok = native.add(pred, gold, row.get("previous_answer"))
        v = by_voice.setdefault(str(row.get("voice", "")), [0, 0])
        v[0] += ok
        v[1] += 1
        try:
            gold_plan = Plan.from_json([{**t, "dep": [d for d in t.get("dep", []) if isinstance(d, int)]} for t in gold])
        except (KeyError, TypeError, ValueError):
            gold_plan = Plan([])
        mapped.add(plan_to_taskbench(Plan.from_json(pred) if pred else None), plan_to_taskbench(gold_plan), "")
    return preds, native, mapped, elapsed, by_voice


def print_plan_form(native, mapped: Scores, by_voice: dict[str, list[int]]) -> None:
    print(f"\nexact plans: {native.exact}/{native.n} ({native.exact_rate:.1f}%)   "
          f"empty where a task is needed: {native.empty_needed}/{native.needed}   "
          f"tasks planned for chat: {native.extra_on_chat}/{native.chat}   "
          f"spoken output ending in a linked text-to-speech: {native.spoken_ok}/{native.spoken}")
    if native.follow_ups or native.new_turns:
        print(f"follow-ups working on the previous answer: {native.follow_ups_ok}/{native.follow_ups}   "
              f"new requests planned on it all the same: {native.new_turns_on_it}/{native.new_turns}")
    print("native F1 (our task names):   " + "  ".join(f"{m} {native.f1(m):.2f}" for m in METRICS))
    print("TaskBench-mapped F1:          " + "  ".join(f"{m} {mapped.f1(m):.2f}" for m in METRICS))
    if len(by_voice) > 1:
        print("exact by voice: " + "  ".join(f"{v or '-'} {a}/{n}" for v, (a, n) in sorted(by_voice.items())))


def write_jsonl(path: Path, items) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")


def run_folds(rows: list[dict[str, Any]], k: int, seed: int, edges_from: str, compare: bool, out: Path | None = None) -> None:
    """Held-out figures: each fold planned by a model fitted on the other folds only."""
    from jarvis_desktop.planning.corpus import step_bags, taskbench_bags
    from jarvis_desktop.planning.cv import splits
    from jarvis_desktop.planning.offline import OfflinePlanner
    from jarvis_desktop.planning.train import extra_bags, fit

    t0 = time.perf_counter()
    bags = taskbench_bags(rows)
    steps = [step_bags([r]) for r in rows]  # each sample's step descriptions train only with its fold
    extra = extra_bags()
    print(f"features of {len(bags)} dev requests and {len(extra)} other training texts: {time.perf_counter() - t0:.1f} s")
    keys = [str(r.get("id", i)) for i, r in enumerate(rows)]
    results: dict[int, dict[str, Any]] = {}
    plan_time = 0.0
    for j, (fit_idx, held) in enumerate(splits(keys, k, seed)):
        t1 = time.perf_counter()
        model = fit([bags[i] for i in fit_idx] + [b for i in fit_idx for b in steps[i]] + extra)
        planner = OfflinePlanner(model=model)
        t2 = time.perf_counter()
        for i in held:
            text = str(rows[i].get("instruction", ""))
            check = planner.plan(text, attachments_from_text(text))
            results[i] = plan_to_taskbench(check.plan if check.ok else None)
        plan_time += time.perf_counter() - t2
        print(f"fold {j + 1}/{k}: fitted on {len(fit_idx)}, planned {len(held)} held out ({t2 - t1:.1f} s to fit)")
    s = score(((results[i], r, str(r.get("type", ""))) for i, r in enumerate(rows)), links_from=edges_from)
    if out is not None:  # the held-out predictions, one per dev sample, for reading errors
        write_jsonl(out, ({"id": r.get("id"), "result": results[i]} for i, r in enumerate(rows)))
    print(f"plans/s: {len(rows) / plan_time:.1f}   ms/plan: {1000 * plan_time / len(rows):.1f}")
    print_taskbench(s, f"HELD-OUT: {k}-fold cross-validation on {len(rows)} dev samples (learned planner, every fold planned by a model not fitted on it)")
    if compare:
        old = run_taskbench(rows, make_planner("offline", detector="patterns"), edges_from)[1]
        print_taskbench(old, "FIT ON ALL OF DEV (old figure): the phrase-table planner, whose tables were written reading dev")
        shipped = run_taskbench(rows, make_planner("offline"), edges_from)[1]
        print_taskbench(shipped, "FIT ON ALL OF DEV: the shipped learned model, trained on all of dev (memory, not a held-out figure)")


def author_of(row: dict[str, Any]) -> str:
    """Who wrote a training request: its id's prefix (``d`` ours, ``m1``.. other authors; bench/data/README.md)."""
    return str(row.get("id", "")).split("-", 1)[0] or "?"


def run_own_folds(path: Path, taskbench_rows: list[dict[str, Any]], out: Path | None = None) -> None:
    """Held-out figures on desktop requests: each author's training requests planned by a model
    fitted on everything else (TaskBench dev, descriptions, the other authors' requests). Unlike
    the blind sets, these folds may be used to choose settings: every figure is still held out."""
    from jarvis_desktop.planning.corpus import description_bags, plan_bags, step_bags, taskbench_bags
    from jarvis_desktop.planning.offline import OfflinePlanner
    from jarvis_desktop.planning.plan_metrics import PlanScores
    from jarvis_desktop.planning.train import TASKBENCH_DIR, fit

    rows = read_jsonl(path)
    t0 = time.perf_counter()
    base = taskbench_bags(taskbench_rows) + step_bags(taskbench_rows) + description_bags(TASKBENCH_DIR / "tool_desc.json")
    own = plan_bags(rows)
    print(f"features of {len(base)} TaskBench and description texts and {len(own)} own requests: {time.perf_counter() - t0:.1f} s")
    authors = sorted({author_of(r) for r in rows})
    planner_of: dict[str, Any] = {}
    for author in authors:
        t1 = time.perf_counter()
        model = fit(base + [b for r, b in zip(rows, own) if author_of(r) != author])
        planner = OfflinePlanner(model=model)
        for r in rows:
            if author_of(r) == author:
                planner_of[str(r["request"])] = planner
        print(f"without {author}: fitted in {time.perf_counter() - t1:.1f} s", flush=True)
    preds, native, mapped, elapsed, by_voice = run_plan_form(rows, lambda text, files, previous=None: planner_of[text].plan(text, files, previous))
    if out is not None:  # the held-out predictions, to read the errors
        write_jsonl(out, preds)
    print(f"plans/s: {len(rows) / elapsed:.1f}   ms/plan: {1000 * elapsed / len(rows):.1f}")
    print(f"\n{'author':8} {'n':>4} {'exact':>7} {'empty':>9} {'spoken':>9}")
    for author in authors:
        a = PlanScores()
        for r, p in zip(rows, preds):
            if author_of(r) == author:
                a.add(p["plan"], r.get("plan") or [])
        print(f"{author:8} {a.n:>4} {a.exact_rate:>6.1f}% {a.empty_needed:>4}/{a.needed:<4} {a.spoken_ok:>4}/{a.spoken:<4}")
    print(f"\nHELD-OUT by author: {len(rows)} own training requests, each author's planned by a model fitted without them")
    print_plan_form(native, mapped, by_voice)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="TaskBench or HuggingGPT-form JSONL (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=Path("taskbench_predictions.jsonl"), help="where predictions go")
    ap.add_argument("--planner", choices=("offline", "llm", "hybrid"), default="offline")
    ap.add_argument("--detector", choices=("learned", "patterns"), default="learned",
                    help="the offline planner's step finder: the trained classifier or the old phrase tables")
    ap.add_argument("--limit", type=int, default=0, help="only the first N samples")
    ap.add_argument("--folds", type=int, default=0, help="K-fold cross-validation over the TaskBench data (held-out figures)")
    ap.add_argument("--seed", type=int, default=0, help="which K-fold split")
    ap.add_argument("--own-folds", action="store_true",
                    help="leave-one-author-out over our own training requests (bench/data/dev_requests_train.jsonl)")
    ap.add_argument("--no-compare", action="store_true", help="with --folds: skip the fit-on-all figures")
    ap.add_argument("--edges-from", choices=("links", "args"), default="args",
                    help="edges from <node-j> arguments (TaskBench's evaluate.py for the Hugging Face tools) or from task_links")
    a = ap.parse_args(argv)
    if not a.data.is_file():
        raise SystemExit(f"no data file at {a.data}; pass --data FILE.jsonl")
    rows = read_jsonl(a.data)
    if a.limit:
        rows = rows[: a.limit]
    if not rows:
        raise SystemExit(f"{a.data} holds no requests")
    plan_form = is_plan_form(rows)
    if a.own_folds:
        from jarvis_desktop.planning.train import OWN_REQUESTS

        run_own_folds(OWN_REQUESTS, rows, a.out)
        return 0
    if a.folds:
        if plan_form or not all("task_nodes" in r for r in rows):
            raise SystemExit("--folds needs TaskBench data with gold task_nodes (the dev split)")
        run_folds(rows, a.folds, a.seed, a.edges_from, not a.no_compare, a.out)
        return 0
    plan = make_planner(a.planner, a.detector)
    if plan_form:
        preds, native, mapped, elapsed, by_voice = run_plan_form(rows, plan)
        failures = empty = None
    else:
        preds, s, elapsed, failures, empty = run_taskbench(rows, plan, a.edges_from)
    write_jsonl(a.out, preds)
    n = len(rows)
    print(f"planner: {a.planner} ({a.detector})   samples: {n}   predictions: {a.out}")
    line = f"plans/s: {n / max(elapsed, 1e-9):.1f}   ms/plan: {1000 * elapsed / n:.1f}"
    if failures is not None:
        line += f"   parse/validation failures: {failures}/{n} ({100 * failures / n:.1f}%)   empty plans: {empty}"
    print(line)
    if plan_form:
        if native.n == 0:
            print("no gold plans in the data: predictions written, nothing scored")
            return 0
        print_plan_form(native, mapped, by_voice)
        return 0
    if s is None:
        print("no gold plans in the data: predictions written, nothing scored")
        return 0
    print_taskbench(s, "scores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
