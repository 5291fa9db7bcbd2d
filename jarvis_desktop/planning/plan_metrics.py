"""Scores for plans in HuggingGPT's JSON form (our own task names), for request sets written in it.

Besides F1 over nodes, edges and arguments (as TaskBench counts them, with our task names), the
figures a user feels: the share of plans exactly right (the same tasks, as a multiset, and the same
edges), plans left empty where a task was needed, plans made where none was, and whether requests
whose answer is spoken end in a text-to-speech step linked to the step whose text it speaks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..media import kind_of
from ..pipeline.plan import placeholder_ids
from ..task_types import TASK_TYPES
from .taskbench import METRICS, Counts



def _tasks(plan: Any) -> list[dict[str, Any]]:
    return [t for t in (plan or []) if isinstance(t, dict) and isinstance(t.get("task"), str)]


def _sources(t: dict[str, Any], ids: dict[int, str]) -> list[int]:
    """Ids this task reads from: its ``dep`` and the ``<GENERATED>-N`` in its arguments."""
    out: list[int] = []
    for d in t.get("dep") or []:
        if isinstance(d, int) and d in ids and d not in out:
            out.append(d)
    for v in (t.get("args") or {}).values():
        for d in placeholder_ids(str(v)):
            if d in ids and d not in out:
                out.append(d)
    return out


def edges(plan: Any) -> Counter:
    """(source task, target task) pairs, counted."""
    ts = _tasks(plan)
    ids = {t.get("id", i): t["task"] for i, t in enumerate(ts)}
    return Counter((ids[s], t["task"]) for t in ts for s in _sources(t, ids))


def plan_sets(plan: Any) -> dict[str, set[str]]:
    """The string sets compared per plan, as TaskBench builds them but with our task names."""
    ts = _tasks(plan)
    ids = {t.get("id", i): t["task"] for i, t in enumerate(ts)}
    out: dict[str, set[str]] = {m: set() for m in METRICS}
    out["node"] = {t["task"] for t in ts}
    out["edge"] = {f"{s} -> {t}" for s, t in edges(plan)}
    for t in ts:
        for key, value in (t.get("args") or {}).items():
            value = str(value)
            refs = [d for d in placeholder_ids(value) if d in ids]
            if refs:
                for d in refs:
                    spec = TASK_TYPES.get(ids[d])
                    out["arg_type"].add(f"{t['task']}-{key}-{spec.output if spec else 'text'}")
                    out["arg_value"].add(f"{t['task']}-{key}-{ids[d]}")
                continue
            kind = kind_of(value.strip()) or "text"
            literal = Path(value.strip()).name if kind != "text" else " ".join(value.lower().split()).strip(" .!?")
            out["arg_type"].add(f"{t['task']}-{key}-{kind}")
            out["arg_value"].add(f"{t['task']}-{key}-{literal}")
    return out


def exact(pred: Any, gold: Any) -> bool:
    """The same tasks (as a multiset) and the same edges."""
    return Counter(t["task"] for t in _tasks(pred)) == Counter(t["task"] for t in _tasks(gold)) and edges(pred) == edges(gold)


def spoken_ok(pred: Any, gold: Any) -> bool | None:
    """For a request whose gold plan speaks: does the prediction end in a text-to-speech fed like gold's?

    None when gold has no text-to-speech. A gold step that speaks another step's output needs a
    predicted text-to-speech that reads a step of the same task; one that speaks quoted words needs
    a text-to-speech (any text)."""
    g = _tasks(gold)
    gids = {t.get("id", i): t["task"] for i, t in enumerate(g)}
    speakers = [t for t in g if t["task"] == "text-to-speech"]
    if not speakers:
        return None
    p = _tasks(pred)
    pids = {t.get("id", i): t["task"] for i, t in enumerate(p)}
    for gs in speakers:
        want = {gids[s] for s in _sources(gs, gids)}
        found = [t for t in p if t["task"] == "text-to-speech"]
        if not found:
            return False
        if want and not any(want & {pids[s] for s in _sources(t, pids)} for t in found):
            return False
    return True


def _works_on(plan: Any, answer: str) -> bool:
    """Some step of ``plan`` reads ``answer`` (as its argument, or within it: a writing prompt)."""
    return any(isinstance(v, str) and answer in v for t in _tasks(plan) for v in (t.get("args") or {}).values())


@dataclass
class PlanScores:
    """Micro-averaged F1s plus the exact-plan, empty and spoken-output counts."""

    counts: dict[str, Counts] = field(default_factory=lambda: {m: Counts() for m in METRICS})
    n: int = 0
    exact: int = 0
    empty_needed: int = 0  # gold has tasks, prediction has none
    needed: int = 0
    extra_on_chat: int = 0  # gold is empty, prediction has tasks
    chat: int = 0
    spoken: int = 0
    spoken_ok: int = 0
    follow_ups: int = 0  # second turns whose gold works on the previous answer
    follow_ups_ok: int = 0  # ... and the prediction does too
    new_turns: int = 0  # second turns whose gold does not
    new_turns_on_it: int = 0  # ... and the prediction works on the previous answer all the same

    def add(self, pred: Any, gold: Any, previous_answer: str | None = None) -> bool:
        p, g = plan_sets(pred), plan_sets(gold)
        for m in METRICS:
            self.counts[m].add(p[m], g[m])
        self.n += 1
        ok = exact(pred, gold)
        self.exact += ok
        if _tasks(gold):
            self.needed += 1
            self.empty_needed += not _tasks(pred)
        else:
            self.chat += 1
            self.extra_on_chat += bool(_tasks(pred))
        s = spoken_ok(pred, gold)
        if s is not None:
            self.spoken += 1
            self.spoken_ok += s
        if previous_answer:
            if _works_on(gold, previous_answer):
                self.follow_ups += 1
                self.follow_ups_ok += _works_on(pred, previous_answer)
            else:
                self.new_turns += 1
                self.new_turns_on_it += _works_on(pred, previous_answer)
        return ok

    def f1(self, metric: str) -> float:
        return self.counts[metric].f1

    @property
    def exact_rate(self) -> float:
        return 100.0 * self.exact / self.n if self.n else 0.0
