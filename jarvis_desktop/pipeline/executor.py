"""Stage 3: run a plan's task graph.

Tasks run on a thread pool. A task is submitted the moment its last dependency finishes (the
scheduler waits on a completion queue, it never polls), so independent branches overlap. Each task
has a timeout; a failure is recorded with its message and everything downstream of it is skipped
with a reason; cancelling stops whatever has not started and tells running tasks to stop.
"""

from __future__ import annotations

import logging
import queue
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..experts.base import ExpertError, RunContext, TaskOutput
from ..media import MediaError, kind_of, read_text_file
from ..task_types import ARG_KINDS, FILE_KINDS
from .events import CancelToken, EventBus, TaskFailed, TaskFinished, TaskSkipped, TaskStarted
from .plan import PLACEHOLDER_RE, Plan, Task, placeholder_ids
from .variants import variant_seeds
from .worker_pool import WorkerPool

log = logging.getLogger(__name__)

#: Runs one task: (task, resolved args, context) -> output. The assistant binds the registry and
#: the chosen model into it; tests and benchmarks pass their own.
TaskRunner = Callable[[Task, dict[str, Any], RunContext], TaskOutput]


@dataclass
class TaskResult:
    task: Task
    status: str  # done | failed | skipped | cancelled
    output: TaskOutput | None = None
    error: str = ""
    model_id: str = ""
    where: str = ""
    started: float | None = None
    seconds: float = 0.0


@dataclass
class ExecutionOptions:
    max_workers: int = 4
    task_timeout: float = 300.0
    allowed_files: set[str] = field(default_factory=set)


class InputError(ExpertError):
    pass


def resolve_args(task: Task, outputs: dict[int, TaskOutput], allowed_files: set[str]) -> dict[str, Any]:
    """Replace ``<GENERATED>-N`` with task N's output of the right kind; read attached text files."""
    resolved: dict[str, Any] = {}
    for key, value in task.args.items():
        kind = ARG_KINDS.get(key)
        ids = placeholder_ids(value)
        if kind in FILE_KINDS and ids:
            out = outputs[ids[0]]
            path = out.file_of(kind)
            if path is None:
                raise InputError(f"task {ids[0]} produced no {kind} for task {task.id} to use")
            resolved[key] = str(path)
        elif kind == "text" and ids:
            resolved[key] = PLACEHOLDER_RE.sub(lambda m: outputs[int(m.group(1) or m.group(2))].text, value)
        elif kind == "text" and value in allowed_files and kind_of(value) == "text":
            resolved[key] = read_text_file(value)
        elif kind in FILE_KINDS:
            if value not in allowed_files:
                raise InputError(f"'{Path(value).name}' is not one of your files; a plan may only read the files you gave")
            resolved[key] = value
        else:
            resolved[key] = value
    return resolved


class Scheduler:
    def __init__(self, runner: TaskRunner, bus: EventBus, request_id: str, options: ExecutionOptions | None = None,
                 pool: WorkerPool | None = None):
        self.runner = runner
        self.pool = pool
        self.bus = bus
        self.request_id = request_id
        self.options = options or ExecutionOptions()

    def run(
        self,
        plan: Plan,
        output_dir: Path,
        cancel: CancelToken | None = None,
        models: dict[int, tuple[str, str]] | None = None,
        settings: Any = None,
        device: str = "cpu",
    ) -> dict[int, TaskResult]:
        """Run every task; returns a result per task id (done, failed, skipped or cancelled)."""
        cancel = cancel or CancelToken()
        models = models or {}
        tasks = plan.by_id()
        results: dict[int, TaskResult] = {}
        outputs: dict[int, TaskOutput] = {}
        waiting: dict[int, set[int]] = {t.id: set(t.dep) for t in plan.tasks}
        running: dict[int, tuple[float, CancelToken]] = {}
        done_q: queue.Queue = queue.Queue()
        cancel.on_cancel(lambda: done_q.put(None))
        rid = self.request_id
        seeds = variant_seeds(plan)  # "two limericks": the second copy is written with its own seed

        def model_of(tid: int) -> tuple[str, str]:
            return models.get(tid, ("", ""))

        def work(task: Task, task_cancel: CancelToken) -> None:
            started = time.perf_counter()
            mid, where = model_of(task.id)
            try:
                args = resolve_args(task, outputs, self.options.allowed_files)
                if task.id in seeds:
                    args["seed"] = seeds[task.id]
                ctx = RunContext(output_dir, device=device, cancel=task_cancel, task_id=task.id, settings=settings)
                out = self.runner(task, args, ctx)
                done_q.put((task.id, out, None, time.perf_counter() - started))
            except (ExpertError, MediaError) as e:
                done_q.put((task.id, None, str(e), time.perf_counter() - started))
            except Exception as e:  # an expert's bug must become a task failure, not a crash
                log.exception("task %s (%s) crashed", task.id, task.task)
                done_q.put((task.id, None, f"{type(e).__name__}: {e}", time.perf_counter() - started))

        def skip_downstream(tid: int, why: str) -> None:
            for dep_id in plan.dependants(tid):
                if dep_id in results or dep_id in running:
                    continue
                t = tasks[dep_id]
                results[dep_id] = TaskResult(t, "skipped", error=why, model_id=model_of(dep_id)[0])
                waiting.pop(dep_id, None)
                self.bus.emit(TaskSkipped(rid, dep_id, t.task, why))
                skip_downstream(dep_id, f"skipped: its input (task {dep_id}) was skipped")

        # A caller that runs many plans (the assistant) passes its warm pool; otherwise one per run.
        pool = self.pool or WorkerPool()
        limit = max(1, self.options.max_workers)
        def submit_ready() -> None:
            if cancel.cancelled:
                return
            for tid in [t for t, deps in waiting.items() if not deps]:
                if len(running) >= limit:
                    return
                del waiting[tid]
                t = tasks[tid]
                task_cancel = CancelToken()
                cancel.on_cancel(task_cancel.cancel)
                running[tid] = (time.perf_counter(), task_cancel)
                mid, where = model_of(tid)
                self.bus.emit(TaskStarted(rid, tid, t.task, mid, where))
                pool.submit(lambda t=t, tc=task_cancel: work(t, tc))

        submit_ready()
        while running and not cancel.cancelled:
            now = time.perf_counter()
            deadline = min(start + self.options.task_timeout for start, _ in running.values())
            try:
                item = done_q.get(timeout=max(0.0, deadline - now))
            except queue.Empty:
                item = "timeout"
            if item is None:  # cancelled
                break
            if item == "timeout":
                now = time.perf_counter()
                for tid, (start, tc) in list(running.items()):
                    if now - start >= self.options.task_timeout:
                        tc.cancel()
                        del running[tid]
                        t = tasks[tid]
                        msg = f"timed out after {self.options.task_timeout:g} s"
                        results[tid] = TaskResult(t, "failed", error=msg, model_id=model_of(tid)[0], seconds=now - start)
                        self.bus.emit(TaskFailed(rid, tid, t.task, model_of(tid)[0], msg, now - start))
                        skip_downstream(tid, f"skipped: its input (task {tid}) failed")
                submit_ready()
                continue
            tid, out, err, secs = item
            if tid not in running:  # finished after its timeout: already reported as failed
                continue
            start, _ = running.pop(tid)
            t = tasks[tid]
            mid, where = model_of(tid)
            if err is None:
                outputs[tid] = out
                results[tid] = TaskResult(t, "done", out, model_id=out.model_id or mid, where=out.where or where,
                                          started=start, seconds=secs)
                self.bus.emit(TaskFinished(rid, tid, t.task, out.model_id or mid, out.where or where, secs,
                                           text=out.text, files=[str(p) for p in out.files], data=_jsonable(out.data)))
                for deps in waiting.values():
                    deps.discard(tid)
            else:
                results[tid] = TaskResult(t, "failed", error=err, model_id=mid, where=where, started=start, seconds=secs)
                self.bus.emit(TaskFailed(rid, tid, t.task, mid, err, secs))
                skip_downstream(tid, f"skipped: its input (task {tid}) failed")
            submit_ready()
        if self.pool is None:
            pool.shutdown()
        if cancel.cancelled:
            for tid, (start, tc) in running.items():
                tc.cancel()
                secs = time.perf_counter() - start
                results[tid] = TaskResult(tasks[tid], "cancelled", error="cancelled while running",
                                          model_id=model_of(tid)[0], seconds=secs)
                self.bus.emit(TaskFailed(rid, tid, tasks[tid].task, model_of(tid)[0], "cancelled while running", secs))
            for tid in list(waiting):
                results[tid] = TaskResult(tasks[tid], "cancelled", error="cancelled before it started", model_id=model_of(tid)[0])
                self.bus.emit(TaskSkipped(rid, tid, tasks[tid].task, "cancelled before it started"))
        return {t.id: results[t.id] for t in plan.tasks if t.id in results}


def _jsonable(data: Any) -> Any:
    """Structured outputs go into events and the database as JSON; anything else as text."""
    import json

    if data is None:
        return None
    try:
        json.dumps(data)
        return data
    except (TypeError, ValueError):
        return str(data)

