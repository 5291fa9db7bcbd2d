"""Scheduler overhead: plans of 1, 5, 20 and 50 tasks (chains, fans, diamonds) whose experts sleep
a known time. Reports wall time against the critical path (the sum of sleeps along the longest
chain) and the overhead per task. Aim: wall within 5% of the critical path, < 2 ms per task.

    python bench/pipeline_overhead.py [--sleep 0.05] [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jarvis_desktop.experts.base import TaskOutput  # noqa: E402
from jarvis_desktop.pipeline.events import EventBus  # noqa: E402
from jarvis_desktop.pipeline.executor import ExecutionOptions, Scheduler  # noqa: E402
from jarvis_desktop.pipeline.plan import Plan, Task  # noqa: E402
from jarvis_desktop.pipeline.worker_pool import WorkerPool  # noqa: E402

#: One pool for the whole run, as the assistant keeps one for its life.
POOL = WorkerPool()


def chain(n: int) -> Plan:
    return Plan([Task(i, "summarization", [i - 1] if i else [], {"text": f"<GENERATED>-{i - 1}" if i else "x"}) for i in range(n)])


def fan(n: int) -> Plan:
    """One root, n-2 parallel branches, one join."""
    if n < 3:
        return chain(n)
    mid = list(range(1, n - 1))
    tasks = [Task(0, "summarization", [], {"text": "x"})]
    tasks += [Task(i, "translation", [0], {"text": "<GENERATED>-0"}) for i in mid]
    tasks += [Task(n - 1, "summarization", mid, {"text": " ".join(f"<GENERATED>-{i}" for i in mid)})]
    return Plan(tasks)


def diamonds(n: int) -> Plan:
    """Stacked diamonds: a -> (b, c) -> d -> (e, f) -> g ..."""
    tasks = [Task(0, "summarization", [], {"text": "x"})]
    i = 1
    top = 0
    while i < n:
        left, right = i, i + 1 if i + 1 < n else None
        tasks.append(Task(left, "translation", [top], {"text": f"<GENERATED>-{top}"}))
        if right is None:
            break
        tasks.append(Task(right, "translation", [top], {"text": f"<GENERATED>-{top}"}))
        if right + 1 >= n:
            break
        join = right + 1
        tasks.append(Task(join, "summarization", [left, right], {"text": f"<GENERATED>-{left} <GENERATED>-{right}"}))
        top = join
        i = join + 1
    return Plan(tasks[:n])


def critical_path(plan: Plan, sleep: float) -> float:
    longest: dict[int, float] = {}
    for tid in plan.topological_order():
        t = plan.by_id()[tid]
        longest[tid] = sleep + max((longest[d] for d in t.dep), default=0.0)
    return max(longest.values())


def measure(plan: Plan, sleep: float, workers: int) -> float:
    def runner(task, args, ctx):
        time.sleep(sleep)
        return TaskOutput(text="ok")

    with tempfile.TemporaryDirectory() as d:
        sched = Scheduler(runner, EventBus([lambda e: None]), "bench", ExecutionOptions(max_workers=workers, task_timeout=60), pool=POOL)
        t0 = time.perf_counter()
        results = sched.run(plan, Path(d))
        wall = time.perf_counter() - t0
    assert all(r.status == "done" for r in results.values())
    return wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sleep", type=float, default=0.05, help="seconds each expert sleeps")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"expert sleep {args.sleep * 1000:.0f} ms; 'first' is the first run of each plan, 'wall' the best of {args.repeats} "
          "(the worker pool stays warm between requests, as in the app); one worker per task, since the critical path "
          "assumes unlimited parallelism")
    print(f"{'shape':<9}{'tasks':>6}{'critical ms':>13}{'first ms':>10}{'wall ms':>10}{'over %':>8}{'ms/task':>9}")
    worst_pct, worst_per_task = 0.0, 0.0
    for n in (1, 5, 20, 50):
        for name, make in (("chain", chain), ("fan", fan), ("diamond", diamonds)):
            plan = make(n)
            crit = critical_path(plan, args.sleep)
            walls = [measure(plan, args.sleep, len(plan.tasks)) for _ in range(args.repeats)]
            first, wall = walls[0], min(walls)
            over = wall - crit
            pct = 100 * over / crit
            per_task = 1000 * over / len(plan.tasks)
            worst_pct, worst_per_task = max(worst_pct, pct), max(worst_per_task, per_task)
            print(f"{name:<9}{len(plan.tasks):>6}{crit * 1000:>13.1f}{first * 1000:>10.1f}{wall * 1000:>10.1f}{pct:>8.2f}{per_task:>9.3f}")
    print(f"worst: {worst_pct:.2f}% over the critical path, {worst_per_task:.3f} ms overhead per task")


if __name__ == "__main__":
    main()
