"""The order the steps found in a request run in, where the order they were asked in is not it:
within a clause, data order (the reader, then the text step, then the speech or picture made of
its text: "summarise it and read the summary aloud"), and a step named as the means of another
("answer it using depth estimation") before the step that uses it."""

from __future__ import annotations

import re

from ..task_types import ARG_KINDS, TASK_TYPES
from .detect import Detection
from .extract import RequestReading


def in_run_order(dets: list[Detection], reading: RequestReading) -> list[Detection]:
    """``dets`` (sorted by where they were asked) in the order they run."""
    return _instruments_first(_type_order(dets, reading), reading)


def _flow_rank(task: str) -> int | None:
    """Where a step sits in the usual flow of data: reading a file into text (0), working on text
    (1), turning text into a medium (2); None for the rest."""
    spec = TASK_TYPES.get(task)
    if spec is None:
        return None
    kinds = {ARG_KINDS[n] for n in spec.inputs}
    if spec.output == "text":
        return 1 if kinds == {"text"} else 0
    if kinds == {"text"}:
        return 2
    return None


def _type_order(dets: list[Detection], reading: RequestReading) -> list[Detection]:
    """Steps found in one clause run in data order: the reader before the text step before the
    speech or picture made of that text ("summarise it and read the summary aloud")."""
    out = list(dets)
    for ci in {reading.clause_at(d.start) for d in dets}:
        slots = [k for k, d in enumerate(out) if reading.clause_at(d.start) == ci and _flow_rank(d.task) is not None]
        ranked = sorted((out[k] for k in slots), key=lambda d: (_flow_rank(d.task), d.start))
        starts = sorted(out[k].start for k in slots)
        for k, d, st in zip(slots, ranked, starts):
            d.start = st
            out[k] = d
    return out


#: Words that introduce the means of a step ("answer X using depth estimation"): that step runs first.
_INSTRUMENT_RE = re.compile(r"\b(?:using|with the help of|by means of|via|through|by running|by applying|based on)\s+(?:the\s+|an?\s+)?$", re.I)


def _instruments_first(dets: list[Detection], reading: RequestReading) -> list[Detection]:
    """A step named as the means of an earlier-named one in the same clause, whose output that
    step reads, runs before it."""
    out = list(dets)
    for k in range(len(out) - 1):
        a, b = out[k], out[k + 1]
        if reading.clause_at(a.start) != reading.clause_at(b.start) or b.task not in TASK_TYPES or a.task not in TASK_TYPES:
            continue
        a_in = {ARG_KINDS[n] for n in TASK_TYPES[a.task].inputs}
        if TASK_TYPES[b.task].output in a_in and _INSTRUMENT_RE.search(reading.text[max(0, b.start - 30) : b.start]):
            a.start, b.start = b.start, a.start
            out[k], out[k + 1] = b, a
    return out
