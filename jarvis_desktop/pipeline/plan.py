"""Plans in HuggingGPT's JSON form: parse what a controller wrote, repair it, validate it.

This is where HuggingGPT breaks most often (JSONDecodeError is its most reported bug), so every
step here is forgiving about form and strict about meaning: prose, code fences, trailing commas,
single quotes, a missing bracket and the ``<GENERATED-0>`` misspelling are repaired; an unknown
task, an argument of the wrong kind, a dependency cycle or a file the user never gave is an error
with a message the controller (and the user) can act on.
"""

from __future__ import annotations

import graphlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..media import SHEET_EXTS, Attachment, kind_of
from ..task_types import ARG_KINDS, FILE_KINDS, PARAM_ARGS, TASK_TYPES, normalize_task_name

MAX_TASKS = 48

#: ``<GENERATED>-3`` is canonical; controllers also write ``<GENERATED-3>``, ``<generated>_3``...
PLACEHOLDER_RE = re.compile(r"<\s*generated\s*(?:>\s*[-_:]?\s*(\d+)|[-_:]\s*(\d+)\s*>)", re.IGNORECASE)


def placeholder(task_id: int) -> str:
    return f"<GENERATED>-{task_id}"


def placeholder_ids(value: str) -> list[int]:
    """The task ids a string refers to through ``<GENERATED>-N`` placeholders."""
    return [int(a or b) for a, b in PLACEHOLDER_RE.findall(value)]


def canonical_placeholders(value: str) -> str:
    return PLACEHOLDER_RE.sub(lambda m: placeholder(int(m.group(1) or m.group(2))), value)


@dataclass
class Task:
    """One subtask: ``args`` values are literals, file paths, or ``<GENERATED>-N`` references."""

    id: int
    task: str
    dep: list[int] = field(default_factory=list)
    args: dict[str, str] = field(default_factory=dict)

    def refs(self) -> set[int]:
        out: set[int] = set()
        for v in self.args.values():
            out.update(placeholder_ids(v))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "id": self.id, "dep": list(self.dep) or [-1], "args": dict(self.args)}


@dataclass
class Plan:
    """A validated task graph. An empty plan means: answer as plain chat."""

    tasks: list[Task] = field(default_factory=list)
    source: str = "llm"
    notes: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.tasks)

    def by_id(self) -> dict[int, Task]:
        return {t.id: t for t in self.tasks}

    def dependants(self, task_id: int) -> list[int]:
        return [t.id for t in self.tasks if task_id in t.dep]

    def topological_order(self) -> list[int]:
        ts = graphlib.TopologicalSorter({t.id: set(t.dep) for t in self.tasks})
        return list(ts.static_order())

    def to_json(self) -> list[dict[str, Any]]:
        return [t.to_json() for t in self.tasks]

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: list[dict[str, Any]], source: str = "stored") -> Plan:
        """Rebuild a plan this module wrote (no validation: it was validated when made)."""
        tasks = [
            Task(int(d["id"]), d["task"], [int(x) for x in d.get("dep", []) if int(x) >= 0], dict(d.get("args", {})))
            for d in data
        ]
        return cls(tasks, source)


@dataclass
class PlanCheck:
    """The outcome of parsing and validating a controller's plan."""

    plan: Plan | None
    errors: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    #: files the request needs that were not attached (their names, or "a recording"): nothing
    #: can run until they are, and the answer says so instead of listing what it can do
    missing: list[str] = field(default_factory=list)
    #: the request puts its files aside for later ("nothing to do yet"): nothing is run, not even
    #: the natural step on each file, and the answer says so
    held: bool = False
    #: what the planner read as corrected in the request ('"a cat" -> "a dog"'), shown beside the
    #: plan so that a correction misheard is caught
    corrected: str | None = None

    @property
    def ok(self) -> bool:
        return self.plan is not None and not self.errors


def missing_files_message(needs: list[str]) -> str:
    """What the user is told when the request needs files that were not attached (``needs``:
    their names, or what kind of file: "a recording")."""
    many = len(needs) > 1
    what = ", ".join(needs[:-1]) + " and " + needs[-1] if many else needs[0]
    return (f"This request needs {what}, which {'were' if many else 'was'} not attached. "
            f"Attach {'them' if many else 'it'} and ask again; nothing was run.")


def held_files_message(names: list[str]) -> str:
    """What the user is told when the request puts its files aside for later."""
    what = (", ".join(names[:-1]) + " and " + names[-1]) if len(names) > 1 else (names[0] if names else "")
    later = f" with {what}, just ask" if what else ", just ask"
    return f"Okay, nothing was run. When you want something done{later}."


class PlanParseError(ValueError):
    pass


# --------------------------------------------------------------------------------------------
# Stage A: text -> JSON value


_FENCE_RE = re.compile(r"```(?:json|JSON|javascript)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> tuple[Any, list[str]]:
    """Find and decode the JSON a controller meant, repairing common damage.

    Returns the decoded value and a list of what was repaired; raises PlanParseError when no
    JSON-like content can be found at all.
    """
    repairs: list[str] = []
    if not isinstance(text, str):
        raise PlanParseError("the controller returned no text")
    s = text.strip()
    if not s:
        raise PlanParseError("the controller returned an empty reply")
    fenced = _FENCE_RE.findall(s)
    if fenced:
        s = max(fenced, key=len).strip()
        repairs.append("took the JSON out of a code fence")
    elif "```" in s:
        # An unterminated fence: drop the opening marker.
        s = re.sub(r"```(?:json|JSON)?", "", s).strip()
        repairs.append("removed an unterminated code fence")
    start = min([i for i in (s.find("["), s.find("{")) if i >= 0], default=-1)
    if start < 0:
        raise PlanParseError("no JSON found in the controller's reply")
    if start > 0:
        repairs.append("removed prose before the JSON")
    s = s[start:]
    end = max(s.rfind("]"), s.rfind("}"))
    if 0 <= end < len(s) - 1 and s[end + 1 :].strip():
        repairs.append("removed prose after the JSON")
        s = s[: end + 1]
    fixed = canonical_placeholders(s)
    if fixed != s:
        repairs.append("rewrote misspelled <GENERATED>-N placeholders")
        s = fixed
    # JARVIS demo bug: a list of objects with its opening '[' missing.
    if s.startswith("{") and s.rstrip().endswith("]") and s.count("[") < s.count("]"):
        s = "[" + s
        repairs.append("added a missing '['")
    try:
        return json.loads(s), repairs
    except RecursionError:
        raise PlanParseError("the reply nests brackets too deeply to be a plan") from None
    except json.JSONDecodeError:
        pass
    import json_repair

    try:
        value = json_repair.loads(s)
    except (Exception, RecursionError) as e:  # json_repair is best-effort; anything it raises means unparseable
        raise PlanParseError(f"the reply is not JSON and could not be repaired ({type(e).__name__})") from None
    if value in ("", None, [], {}) and s not in ("[]", "{}"):
        raise PlanParseError("the reply is not JSON and could not be repaired")
    repairs.append("repaired malformed JSON (quotes, commas or brackets)")
    return value, repairs


# --------------------------------------------------------------------------------------------
# Stage B: JSON value -> validated Plan


def _task_items(value: Any) -> list[Any]:
    if isinstance(value, dict):
        for key in ("tasks", "plan", "task_list", "steps"):
            if isinstance(value.get(key), list):
                return value[key]
        if "task" in value:
            return [value]
        raise PlanParseError("the JSON object has no list of tasks")
    if isinstance(value, list):
        return value
    raise PlanParseError(f"expected a list of tasks, got {type(value).__name__}")


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*-?\d+\s*", value) or None
        if m:
            return int(value)
        ids = placeholder_ids(value)
        if len(ids) == 1:
            return ids[0]
    return None


class _Resources:
    """Which files a plan may read: those the user attached (matched by path or by name)."""

    def __init__(self, attachments: list[Attachment]):
        self.by_path = {str(a.path): a for a in attachments}
        self.by_name: dict[str, Attachment] = {}
        for a in attachments:
            self.by_name.setdefault(a.path.name.lower(), a)

    def find(self, value: str) -> Attachment | None:
        v = value.strip().strip("'\"")
        if v in self.by_path:
            return self.by_path[v]
        try:
            resolved = str(Path(v).expanduser().resolve())
            if resolved in self.by_path:
                return self.by_path[resolved]
        except (OSError, ValueError):
            pass
        return self.by_name.get(Path(v).name.lower())


def validate_plan(value: Any, attachments: list[Attachment] | None = None, *, source: str = "llm") -> PlanCheck:
    """Turn decoded JSON into a Plan, repairing what is safe and reporting what is not."""
    errors: list[str] = []
    repairs: list[str] = []
    try:
        items = _task_items(value)
    except PlanParseError as e:
        return PlanCheck(None, [str(e)])
    if len(items) > MAX_TASKS:
        return PlanCheck(None, [f"the plan has {len(items)} tasks; at most {MAX_TASKS} are allowed - plan fewer, larger steps"])
    resources = _Resources(attachments or [])

    tasks: list[Task] = []
    seen: set[int] = set()
    for pos, item in enumerate(items):
        if not isinstance(item, dict):
            errors.append(f"item {pos} is not a task object")
            continue
        raw_name = item.get("task", "")
        name = normalize_task_name(raw_name) if raw_name else None
        tid = _as_int(item.get("id", pos))
        label = f"task {tid if tid is not None else pos}"
        if tid is None or tid < 0:
            errors.append(f"{label}: id {item.get('id')!r} is not a non-negative integer")
            continue
        if tid in seen:
            errors.append(f"{label}: the id {tid} is used twice")
            continue
        seen.add(tid)
        if name is None:
            errors.append(f"{label}: unknown task type {raw_name!r}; use one of: {', '.join(sorted(TASK_TYPES))}")
            continue
        if name != raw_name:
            repairs.append(f"{label}: task {raw_name!r} read as {name!r}")
        raw_dep = item.get("dep", [])
        if not isinstance(raw_dep, list):
            raw_dep = [raw_dep]
        deps: list[int] = []
        for d in raw_dep:
            di = _as_int(d)
            if di is None:
                errors.append(f"{label}: dependency {d!r} is not a task id")
            elif di >= 0:
                deps.append(di)
        args = item.get("args", {})
        if not isinstance(args, dict):
            errors.append(f"{label}: args must be an object like {{\"image\": \"photo.jpg\"}}")
            continue
        tasks.append(Task(tid, name, deps, {}))
        _check_args(tasks[-1], args, resources, errors, repairs)

    ids = {t.id for t in tasks}
    for t in tasks:
        refs = t.refs()
        for r in sorted(refs):
            if r == t.id:
                errors.append(f"task {t.id}: it uses its own output (<GENERATED>-{r})")
            elif r not in seen:
                errors.append(f"task {t.id}: <GENERATED>-{r} refers to a task that does not exist")
        dangling = [d for d in t.dep if d not in ids and d not in seen]
        if dangling:
            repairs.append(f"task {t.id}: dropped dependencies on missing tasks {dangling}")
        declared = {d for d in t.dep if d in ids or d in seen}
        rebuilt = sorted((refs | declared) - {t.id})
        if refs and set(rebuilt) != set(t.dep):
            repairs.append(f"task {t.id}: dep rebuilt from its <GENERATED> references as {rebuilt}")
        elif t.id in t.dep:
            errors.append(f"task {t.id}: it depends on itself")
        t.dep = rebuilt if refs or dangling else [d for d in t.dep if d != t.id]
    if not errors:
        try:
            graphlib.TopologicalSorter({t.id: set(t.dep) for t in tasks}).prepare()
        except graphlib.CycleError as e:
            cycle = " -> ".join(str(x) for x in e.args[1])
            errors.append(f"the tasks depend on each other in a cycle ({cycle}); a task may only use earlier outputs")
    if not errors:
        _check_generated_kinds(tasks, errors)
    if errors:
        return PlanCheck(None, errors, repairs)
    return PlanCheck(Plan(tasks, source), [], repairs)


def _check_args(task: Task, args: dict[str, Any], resources: _Resources, errors: list[str], repairs: list[str]) -> None:
    spec = TASK_TYPES[task.task]
    label = f"task {task.id} ({task.task})"
    for key, raw in args.items():
        key_n = str(key).strip().lower()
        if isinstance(raw, list):
            if len(raw) == 1:
                raw = raw[0]
                repairs.append(f"{label}: unwrapped the one-item list in '{key_n}'")
            else:
                errors.append(f"{label}: '{key_n}' holds {len(raw)} values; give one resource per argument (use one task per file)")
                continue
        if isinstance(raw, (dict, list)) or raw is None:
            errors.append(f"{label}: '{key_n}' must be a string")
            continue
        value = canonical_placeholders(str(raw))
        if key_n in PARAM_ARGS:
            task.args[key_n] = value
            continue
        if key_n not in ARG_KINDS:
            # A file under an odd name ("img", "url", "file"): file it by its kind if the task wants that kind.
            k = kind_of(value)
            if k in spec.inputs + spec.optional and k not in args:
                repairs.append(f"{label}: argument '{key_n}' read as '{k}'")
                key_n = k
            else:
                repairs.append(f"{label}: ignored argument '{key_n}' that {task.task} does not take")
                continue
        if key_n not in spec.inputs + spec.optional:
            # e.g. {"image": "a.wav"} for speech recognition: move it when the kind fits.
            k = kind_of(value)
            if k in spec.inputs and k not in args:
                repairs.append(f"{label}: argument '{key_n}' read as '{k}'")
                key_n = k
            else:
                errors.append(f"{label}: takes {', '.join(spec.inputs + spec.optional)}, not '{key_n}'")
                continue
        kind = ARG_KINDS[key_n]
        if not placeholder_ids(value) and kind in FILE_KINDS:
            found = resources.find(value)
            if found is None:
                errors.append(
                    f"{label}: '{value}' is not a file you attached or one an earlier task makes; "
                    "a plan may only read the files you gave"
                )
                continue
            if found.kind != kind and not _is_table_for(task.task, found.path):
                errors.append(f"{label}: '{found.name}' is {found.kind}, but '{key_n}' needs {kind}")
                continue
            value = str(found.path)
        elif kind == "text" and not placeholder_ids(value):
            found = resources.find(value) if kind_of(value) is not None else None
            if found is not None and found.kind == "text":
                value = str(found.path)
            elif found is None and kind_of(value) in FILE_KINDS and Path(value).suffix and " " not in value.strip():
                errors.append(f"{label}: '{value}' looks like a file you did not attach; a plan may only read the files you gave")
                continue
        task.args[key_n] = value
    missing = [a for a in spec.inputs if a not in task.args]
    if missing:
        errors.append(f"{label}: missing argument(s) {', '.join(missing)}")


#: Table files that tabular-classification reads in place of a picture of a table.
TABLE_EXTS = (".csv", ".tsv", *sorted(SHEET_EXTS))


def _is_table_for(task: str, path: Path) -> bool:
    """HuggingGPT passes tabular-classification its table as ``image``; a CSV/TSV file is the
    usual form of a table on a desktop, so it is accepted there too."""
    return task == "tabular-classification" and path.suffix.lower() in TABLE_EXTS


def _check_generated_kinds(tasks: list[Task], errors: list[str]) -> None:
    """A file argument that refers to an earlier task must get that task's kind of output."""
    by_id = {t.id: t for t in tasks}
    for t in tasks:
        for key, value in t.args.items():
            kind = ARG_KINDS.get(key)
            ids = placeholder_ids(value)
            if kind in FILE_KINDS and ids:
                if len(ids) > 1 or value.strip() != placeholder(ids[0]):
                    errors.append(f"task {t.id}: '{key}' must be exactly one <GENERATED>-N reference")
                    continue
                src = by_id[ids[0]]
                produced = TASK_TYPES[src.task].output
                if produced != kind:
                    errors.append(
                        f"task {t.id} ({t.task}): '{key}' needs {kind}, but task {src.id} ({src.task}) produces {produced}"
                    )


def parse_plan(text: str, attachments: list[Attachment] | None = None, *, source: str = "llm") -> PlanCheck:
    """Parse a controller's reply into a validated plan (errors are collected, never raised)."""
    try:
        value, repairs = extract_json(text)
    except PlanParseError as e:
        return PlanCheck(None, [str(e)])
    check = validate_plan(value, attachments, source=source)
    check.repairs[:0] = repairs
    return check


#: JSON schema for servers that support schema-constrained output (llama.cpp, vLLM, OpenAI).
PLAN_JSON_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "task": {"type": "string", "enum": sorted(TASK_TYPES)},
            "id": {"type": "integer", "minimum": 0},
            "dep": {"type": "array", "items": {"type": "integer"}},
            "args": {
                "type": "object",
                "properties": {k: {"type": "string"} for k in list(ARG_KINDS) + list(PARAM_ARGS)},
                "additionalProperties": False,
            },
        },
        "required": ["task", "id", "dep", "args"],
        "additionalProperties": False,
    },
    "maxItems": MAX_TASKS,
}
