"""Stage 4: one answer from the request, the plan, the chosen models and the results.

A capable controller writes it (streamed token by token). A tiny embedded model cannot summarise
results faithfully, so then a deterministic composer states each result and output file plainly;
its text is streamed word by word through the same events, so speech and the GUI behave the same.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Callable, Iterator

from ..llm.base import Controller, ControllerError
from ..task_types import TASK_TYPES
from .executor import TaskResult
from .planner import _prompt_file
from .plan import Plan
from .selector import Choice

WHERE_WORDS = {
    "local-cpu": "on this computer's CPU",
    "local-gpu": "on this computer's GPU",
    "local-mps": "on this Mac's GPU",
    "hosted": "on hosted inference",
    "controller": "by the language model",
}

#: The most text of one result quoted in an answer.
QUOTE_LIMIT = 1500


def where_words(where: str) -> str:
    return WHERE_WORDS.get(where, where or "locally")


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "..."


def compose_answer(plan: Plan, choices: dict[int, Choice], results: dict[int, TaskResult]) -> str:
    """A plain, faithful account of what each task produced, which model did it, and where."""
    return " ".join(compose_sentences(plan, choices, results))


def compose_sentences(plan: Plan, choices: dict[int, Choice], results: dict[int, TaskResult]) -> Iterator[str]:
    """The composer's account one task at a time, first task first: a caller that speaks can
    send the first sentence to speech before the rest is written."""
    def model_of(t, r) -> str:
        choice = choices.get(t.id)
        return (r.model_id if r and r.model_id else None) or (choice.model_id if choice else "") or "no model"

    # copies of one step that fail alike ("two limericks" with the model missing) are told once
    failures = Counter((t.task, model_of(t, r), _error_of(t, r)) for t in plan.tasks
                       if (r := results.get(t.id)) is not None and r.status == "failed")
    told: set[tuple[str, str, str]] = set()
    for t in plan.tasks:
        r = results.get(t.id)
        model = model_of(t, r)
        label = t.task.replace("-", " ")
        if r is None or r.status == "cancelled":
            yield f"The {label} step was cancelled."
        elif r.status == "done" and r.output is not None:
            out = r.output
            sentence = f"{model} did the {label} {where_words(r.where)}"
            files = [str(p) for p in out.files]
            kind = TASK_TYPES[t.task].output
            if out.text and (kind == "text" or not files):
                sentence += f': "{_quote(out.text)}"'
            elif out.text and files and out.text.strip():
                sentence += f" ({_quote(out.text).rstrip('.!? ')})"
            if files:
                sentence += ("" if sentence.endswith((".", '."')) else ".") + " Saved to " + " and ".join(files)
            yield sentence if sentence.endswith((".", "!", "?", '."', '!"', '?"')) else sentence + "."
        elif r.status == "failed":
            key = (t.task, model, error := _error_of(t, r))
            if key not in told:
                told.add(key)
                steps = f"{failures[key]} {label} steps" if failures[key] > 1 else f"{label} step"
                yield f"The {steps} with {model} failed: {error if error.endswith(('.', '!', '?')) else error + '.'}"
        else:
            yield f"The {label} step was skipped because its input failed."


def _error_of(t, r: TaskResult) -> str:
    """A failed task's message without the task name it starts with."""
    return (r.error[len(t.task) + 2:] if r.error.startswith(f"{t.task}: ") else r.error).strip()


def capabilities_answer(local_tasks: list[str], reason: str = "") -> str:
    """What to say when no plan can run and no capable language model is connected."""
    msg = "I could not find a task for my expert models in that request"
    if reason:
        msg += f" ({reason})"
    msg += ". "
    if local_tasks:
        names = ", ".join(t.replace("-", " ") for t in local_tasks)
        msg += f"Offline, I can do: {names}. "
    msg += (
        "Attach a file or ask for one of these, or connect a language model in Settings "
        "(or set OPENAI_API_KEY / OPENAI_BASE_URL) for open questions."
    )
    return msg


def stream_words(text: str) -> Iterator[str]:
    for piece in re.findall(r"\S+\s*", text):
        yield piece


def results_for_prompt(plan: Plan, choices: dict[int, Choice], results: dict[int, TaskResult]) -> str:
    rows = []
    for t in plan.tasks:
        r = results.get(t.id)
        c = choices.get(t.id)
        row = {
            "task": t.task,
            "args": t.args,
            "model": (r.model_id if r else "") or (c.model_id if c else ""),
            "why this model": c.reason if c else "",
            "ran": where_words(r.where) if r else "",
            "status": r.status if r else "not run",
        }
        if r and r.output is not None:
            row["result"] = _quote(r.output.text)
            if r.output.files:
                row["files"] = [str(p) for p in r.output.files]
            if r.output.data is not None:
                row["data"] = json.loads(json.dumps(r.output.data, default=str))
        if r and r.error:
            row["error"] = r.error
        rows.append(row)
    return json.dumps(rows, ensure_ascii=False, indent=1)


def controller_answer(
    controller: Controller,
    request: str,
    plan: Plan,
    choices: dict[int, Choice],
    results: dict[int, TaskResult],
    on_token: Callable[[str], None],
) -> str:
    messages = [
        {"role": "system", "content": _prompt_file("respond_system.md")},
        {"role": "user", "content": f"Request: {request}\n\nResults:\n{results_for_prompt(plan, choices, results)}"},
    ]
    return _stream(controller, messages, on_token)


def chat_system_prompt(local_tasks: list[str]) -> str:
    """The chat partner's instructions: what it can do here (the expert models on this computer)
    and what it cannot (act on the device or the world), so that "set a timer" gets an honest no
    rather than "Timer set"."""
    abilities = ", ".join(t.replace("-", " ") for t in local_tasks) or "none are installed yet"
    return _prompt_file("chat_system.md").replace("{abilities}", abilities)


def chat_answer(controller: Controller, history: list[dict[str, str]], request: str, on_token: Callable[[str], None],
                local_tasks: list[str] | None = None) -> str:
    messages = [{"role": "system", "content": chat_system_prompt(local_tasks or [])}] + history + [{"role": "user", "content": request}]
    return _stream(controller, messages, on_token)


def _stream(controller: Controller, messages: list[dict[str, str]], on_token: Callable[[str], None]) -> str:
    pieces: list[str] = []
    try:
        for piece in controller.chat(messages, stream=True, max_tokens=800, temperature=0.3):
            pieces.append(piece)
            on_token(piece)
    except ControllerError:
        if not pieces:
            raise
        pieces.append(" (the answer was cut off: the language model stopped responding)")
        on_token(pieces[-1])
    return "".join(pieces).strip()
