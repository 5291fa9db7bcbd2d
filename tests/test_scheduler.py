"""The DAG scheduler: parallelism, order, failures, timeouts, cancellation, placeholders.

The experts here are plain Python functions run through the real scheduler; overlap is checked
with a barrier (both tasks must be inside at once), not with wall-clock time.
"""

import threading
from pathlib import Path

import pytest

from jarvis_desktop.cancel import CancelToken
from jarvis_desktop.experts.base import ExpertError, TaskOutput
from jarvis_desktop.pipeline import events as ev
from jarvis_desktop.pipeline.executor import ExecutionOptions, Scheduler
from jarvis_desktop.pipeline.plan import Plan, Task


def run(plan, runner, tmp_path, timeout=30.0, cancel=None, workers=4, allowed=()):
    seen = []
    bus = ev.EventBus([seen.append])
    sched = Scheduler(runner, bus, "req", ExecutionOptions(max_workers=workers, task_timeout=timeout, allowed_files=set(allowed)))
    results = sched.run(plan, tmp_path, cancel or CancelToken())
    return results, seen


def test_independent_tasks_overlap(tmp_path):
    barrier = threading.Barrier(2, timeout=10)

    def runner(task, args, ctx):
        barrier.wait()  # raises BrokenBarrierError unless both tasks run at the same time
        return TaskOutput(text=f"t{task.id}")

    plan = Plan([Task(0, "summarization", [], {"text": "a"}), Task(1, "summarization", [], {"text": "b"})])
    results, _ = run(plan, runner, tmp_path)
    assert [r.status for r in results.values()] == ["done", "done"]


def test_dependency_order_and_placeholder_substitution(tmp_path):
    order = []

    def runner(task, args, ctx):
        order.append(task.id)
        if task.task == "text-to-speech":
            path = ctx.output_path("speech", ".wav")
            path.write_bytes(b"RIFF")
            return TaskOutput(text="spoken", audio=path)
        return TaskOutput(text=args["text"].upper())

    plan = Plan([
        Task(0, "summarization", [], {"text": "hello"}),
        Task(1, "translation", [0], {"text": "got <GENERATED>-0 ok"}),
        Task(2, "text-to-speech", [1], {"text": "<GENERATED>-1"}),
        Task(3, "automatic-speech-recognition", [2], {"audio": "<GENERATED>-2"}),
    ])
    captured = {}

    def recording_runner(task, args, ctx):
        captured[task.id] = args
        if task.id == 3:
            return TaskOutput(text=Path(args["audio"]).name)
        return runner(task, args, ctx)

    results, events = run(plan, recording_runner, tmp_path)
    assert all(r.status == "done" for r in results.values())
    assert captured[1]["text"] == "got HELLO ok"
    assert captured[2]["text"] == "GOT HELLO OK"
    assert captured[3]["audio"] == str(tmp_path / "task2-speech.wav")
    kinds = [e.kind for e in events]
    assert kinds.count("TaskStarted") == 4 and kinds.count("TaskFinished") == 4
    starts = [e.task_id for e in events if isinstance(e, ev.TaskStarted)]
    assert starts == [0, 1, 2, 3]


def test_failure_skips_dependants_only(tmp_path):
    def runner(task, args, ctx):
        if task.id == 0:
            raise ExpertError("the model ran out of memory")
        return TaskOutput(text="ok")

    plan = Plan([
        Task(0, "summarization", [], {"text": "a"}),
        Task(1, "translation", [0], {"text": "<GENERATED>-0"}),
        Task(2, "text-to-speech", [1], {"text": "<GENERATED>-1"}),
        Task(3, "summarization", [], {"text": "independent"}),
    ])
    results, events = run(plan, runner, tmp_path)
    assert results[0].status == "failed" and "out of memory" in results[0].error
    assert results[1].status == "skipped" and "task 0" in results[1].error
    assert results[2].status == "skipped"
    assert results[3].status == "done"
    assert any(isinstance(e, ev.TaskSkipped) and e.task_id == 2 for e in events)


def test_unexpected_exception_becomes_a_failure(tmp_path):
    def runner(task, args, ctx):
        raise ZeroDivisionError("boom")

    results, _ = run(Plan([Task(0, "summarization", [], {"text": "a"})]), runner, tmp_path)
    assert results[0].status == "failed" and "ZeroDivisionError" in results[0].error


def test_timeout_fails_the_task_and_signals_it_to_stop(tmp_path):
    stopped = threading.Event()

    def runner(task, args, ctx):
        if task.id == 0:
            ctx.cancel.wait(30)  # a cooperative expert: returns when told to stop
            stopped.set()
            return TaskOutput(text="too late")
        return TaskOutput(text="fast")

    plan = Plan([Task(0, "summarization", [], {"text": "slow"}), Task(1, "summarization", [], {"text": "fast"}),
                 Task(2, "translation", [0], {"text": "<GENERATED>-0"})])
    results, _ = run(plan, runner, tmp_path, timeout=0.3)
    assert results[0].status == "failed" and "timed out" in results[0].error
    assert results[1].status == "done"
    assert results[2].status == "skipped"
    assert stopped.wait(5), "the timed-out task was not told to stop"


def test_cancel_stops_what_has_not_started(tmp_path):
    cancel = CancelToken()
    entered = threading.Event()
    ran = []

    def runner(task, args, ctx):
        ran.append(task.id)
        entered.set()
        ctx.cancel.wait(30)
        return TaskOutput(text="x")

    plan = Plan([Task(0, "summarization", [], {"text": "a"}), Task(1, "translation", [0], {"text": "<GENERATED>-0"})])
    threading.Thread(target=lambda: (entered.wait(10), cancel.cancel()), daemon=True).start()
    results, events = run(plan, runner, tmp_path, cancel=cancel)
    assert ran == [0]
    assert results[0].status == "cancelled" and results[1].status == "cancelled"


def test_a_file_argument_outside_the_users_files_is_refused(tmp_path):
    def runner(task, args, ctx):
        return TaskOutput(text="read " + args["image"])

    plan = Plan([Task(0, "image-to-text", [], {"image": "/etc/shadow.png"})])
    results, _ = run(plan, runner, tmp_path, allowed={"/home/u/ok.png"})
    assert results[0].status == "failed" and "not one of your files" in results[0].error


def test_missing_generated_kind_is_a_clear_failure(tmp_path):
    def runner(task, args, ctx):
        return TaskOutput(text="no image here")

    plan = Plan([Task(0, "text-to-image", [], {"text": "a cat"}), Task(1, "image-to-text", [0], {"image": "<GENERATED>-0"})])
    results, _ = run(plan, runner, tmp_path)
    assert results[0].status == "done"
    assert results[1].status == "failed" and "produced no image" in results[1].error


@pytest.mark.parametrize("workers", [1, 3])
def test_wide_fan_out_completes(tmp_path, workers):
    def runner(task, args, ctx):
        return TaskOutput(text=args["text"] if task.id == 20 else str(task.id))

    tasks = [Task(0, "summarization", [], {"text": "root"})]
    tasks += [Task(i, "translation", [0], {"text": "<GENERATED>-0"}) for i in range(1, 20)]
    tasks += [Task(20, "summarization", list(range(1, 20)), {"text": " ".join(f"<GENERATED>-{i}" for i in range(1, 20))})]
    results, _ = run(Plan(tasks), runner, tmp_path, workers=workers)
    assert all(r.status == "done" for r in results.values())
    assert results[20].output.text == " ".join(str(i) for i in range(1, 20))


def test_a_task_that_ignores_its_timeout_does_not_starve_the_rest(tmp_path):
    """One worker allowed: the hung task times out, and the next task still gets to run."""
    release = threading.Event()

    def runner(task, args, ctx):
        if task.id == 0:
            release.wait(30)  # ignores ctx.cancel: a badly behaved expert
        return TaskOutput(text="ok")

    plan = Plan([Task(0, "summarization", [], {"text": "hang"}), Task(1, "summarization", [], {"text": "next"})])
    try:
        results, _ = run(plan, runner, tmp_path, timeout=0.3, workers=1)
    finally:
        release.set()
    assert results[0].status == "failed" and "timed out" in results[0].error
    assert results[1].status == "done"


def test_worker_pool_reuses_warm_threads():
    from jarvis_desktop.pipeline.worker_pool import WorkerPool

    pool = WorkerPool(idle_seconds=5)
    for _ in range(20):
        done = threading.Event()
        pool.submit(done.set)
        assert done.wait(5)
    assert pool.threads <= 2  # sequential jobs run on the same warm worker(s)
    gate = threading.Barrier(5, timeout=10)
    finished = threading.Semaphore(0)
    for _ in range(5):
        pool.submit(lambda: (gate.wait(), finished.release()))
    for _ in range(5):
        assert finished.acquire(timeout=10)  # the pool grew so all five could meet at the barrier
    assert pool.threads >= 5
    pool.shutdown(timeout=5)


def test_worker_pool_shutdown_releases_its_threads():
    from jarvis_desktop.pipeline.worker_pool import WorkerPool

    pool = WorkerPool(idle_seconds=60, name="shutdown-test")
    done = threading.Semaphore(0)
    for _ in range(3):
        pool.submit(done.release)
    for _ in range(3):
        assert done.acquire(timeout=5)
    names = lambda: [t.name for t in threading.enumerate() if t.name.startswith("shutdown-test")]  # noqa: E731
    assert names()
    pool.shutdown(timeout=5)
    assert names() == [] and pool.threads == 0
    with pytest.raises(RuntimeError):
        pool.submit(done.release)


def test_copies_of_one_making_step_each_get_their_own_seed(tmp_path):
    # "two limericks about cats, and draw a fox twice": the same step twice must not make the same thing twice
    seen = {}

    def runner(task, args, ctx):
        seen[task.id] = args.get("seed")
        return TaskOutput(text=f"t{task.id}")

    plan = Plan([
        Task(0, "text-generation", [], {"text": "a limerick about cats"}),
        Task(1, "text-generation", [], {"text": "a limerick about cats"}),
        Task(2, "text-to-image", [], {"text": "a fox"}),
        Task(3, "text-to-image", [], {"text": "a fox"}),
        Task(4, "text-to-image", [], {"text": "a fox"}),
        Task(5, "text-to-image", [], {"text": "a fox", "seed": "7"}),
        Task(6, "summarization", [], {"text": "a fox"}),
        Task(7, "summarization", [], {"text": "a fox"}),
    ])
    results, _ = run(plan, runner, tmp_path)
    assert all(r.status == "done" for r in results.values())
    assert seen == {0: None, 1: 1, 2: None, 3: 1, 4: 2, 5: "7", 6: None, 7: None}
