"""Stage 1 with a language model: prompt, ask (schema-constrained where the server allows),
validate, re-ask once with the errors. The caller falls back to plain chat when this fails.

A controller that cannot be reached raises :class:`ControllerError` at once (asking again would
only repeat the same message); the caller then plans offline."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..config import Settings, resources_dir
from ..llm.base import Controller, ControllerError, Message
from ..media import Attachment
from ..textclean import shown
from ..task_types import TASK_TYPES
from .plan import PLAN_JSON_SCHEMA, Plan, PlanCheck, parse_plan

log = logging.getLogger(__name__)

#: Rough characters per token, to fit recent chat into the controller's context.
CHARS_PER_TOKEN = 4


@dataclass
class Turn:
    role: str  # user | assistant | system
    text: str


@lru_cache(maxsize=8)
def _prompt_file(name: str) -> str:
    return (resources_dir() / "prompts" / name).read_text(encoding="utf-8")


def task_type_lines() -> str:
    return "\n".join(
        f"  {t.name}: {', '.join(t.inputs + tuple(o + '?' for o in t.optional))} -> {t.output}. {t.description}"
        for t in TASK_TYPES.values()
    )


def _files_line(files: list[Attachment] | list[str]) -> str:
    names = [f.name if isinstance(f, Attachment) else Path(f).name for f in files]
    return "Attached files: " + (", ".join(names) if names else "none")


def build_plan_messages(
    request: str,
    attachments: list[Attachment],
    history: list[Turn] | None = None,
    context_tokens: int = 4096,
    draft: Plan | None = None,
) -> list[Message]:
    """System text, demonstrations, as much recent chat as fits, then the request."""
    system = _prompt_file("plan_system.md").replace("{task_types}", task_type_lines())
    messages: list[Message] = [{"role": "system", "content": system}]
    for demo in json.loads(_prompt_file("plan_demos.json")):
        messages.append({"role": "user", "content": f"{demo['request']}\n{_files_line(demo['files'])}"})
        messages.append({"role": "assistant", "content": json.dumps(demo["plan"])})
    user = f"{request}\n{_files_line(attachments)}"
    if draft is not None:
        user += (
            "\nA rule-based planner drafted this plan; correct it if it misreads the request, "
            f"otherwise return it unchanged:\n{draft.dumps()}"
        )
    budget = context_tokens * CHARS_PER_TOKEN - sum(len(m["content"]) for m in messages) - len(user) - 1200 * CHARS_PER_TOKEN
    recent: list[Message] = []
    for turn in reversed(history or []):
        text = turn.text if len(turn.text) < 2000 else turn.text[:2000] + "..."
        if budget - len(text) < 0:
            break
        budget -= len(text)
        recent.insert(0, {"role": turn.role if turn.role in ("user", "assistant", "system") else "user", "content": text})
    if recent:
        messages.append({"role": "system", "content": "The recent conversation follows; plan only for the last request."})
        messages += recent
    messages.append({"role": "user", "content": user})
    return messages


class LLMPlanner:
    name = "llm"

    def __init__(self, controller: Controller, settings: Settings | None = None):
        self.controller = controller
        self.settings = settings or Settings()

    def plan(
        self,
        request: str,
        attachments: list[Attachment] | None = None,
        history: list[Turn] | None = None,
        draft: Plan | None = None,
    ) -> PlanCheck:
        """Ask, validate, and re-ask once with the validation errors."""
        attachments = attachments or []
        messages = build_plan_messages(request, attachments, history, getattr(self.controller, "context_tokens", 4096), draft)
        source = "hybrid" if draft is not None else "llm"
        check = self._ask(messages, attachments, source)
        if check.ok:
            return check
        log.info("plan rejected (%s); asking again", "; ".join(check.errors))
        retry = messages + [
            {"role": "assistant", "content": check.plan.dumps() if check.plan else "(invalid)"},
            {"role": "user", "content": "That plan is invalid:\n- " + "\n- ".join(check.errors)
             + "\nReply with a corrected JSON list only."},
        ]
        second = self._ask(retry, attachments, source)
        second.repairs[:0] = ["asked again after: " + "; ".join(check.errors)]
        return second

    def _ask(self, messages: list[Message], attachments: list[Attachment], source: str) -> PlanCheck:
        """One reply, parsed and validated. A :class:`ControllerError` (no reply at all) propagates."""
        reply = self.controller.chat(messages, json_schema=PLAN_JSON_SCHEMA, max_tokens=1500)
        check = parse_plan("" if reply is None else str(reply), attachments, source=source)
        if check.ok and check.plan and check.plan.tasks:
            check.errors += unread_attachments(check.plan, attachments)
        return check


def unread_attachments(plan: Plan, attachments: list[Attachment]) -> list[str]:
    """An error per attached file no task reads: a valid plan that ignores the user's file (speech
    of "hello" for "caption a.png") answers some other request."""
    # validation has already replaced every file a plan reads by its attachment's path
    read = {v for t in plan.tasks for v in t.args.values() if isinstance(v, str)}
    errors = []
    for a in attachments:
        if str(a.path) not in read:
            errors.append(f"no task reads the attached file '{shown(a.name)}'; the plan must use the files "
                          "the user attached")
    return errors
