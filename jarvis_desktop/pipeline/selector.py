"""Stage 2: choose an expert model for each task.

Filter the catalog by task, put models that run on this machine first, rank by downloads, keep the
top K, and let the controller choose among them. The controller call is skipped when the choice
is clear: one candidate, one runnable candidate, or a tiny controller that cannot judge.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field

from typing import Any

from ..config import Settings
from ..experts.base import ExpertError, RunContext, TaskOutput
from ..experts.catalog import Catalog
from ..experts.image_need import CAPTION, READ, image_to_text_need, is_text_reader
from ..experts.registry import ExpertRegistry
from ..llm.base import Controller, ControllerError
from .plan import Task

log = logging.getLogger(__name__)

CHOICE_SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "reason": {"type": "string"}},
    "required": ["id", "reason"],
}


@dataclass
class Candidate:
    id: str
    downloads: int = 0
    likes: int = 0
    where: str | None = None  # where it would run; None: not runnable here now
    description: str = ""
    license: str | None = None

    @property
    def local(self) -> bool:
        return bool(self.where) and self.where.startswith("local")


@dataclass
class Choice:
    task_id: int
    task: str
    model_id: str
    reason: str
    where: str | None
    candidates: list[str] = field(default_factory=list)
    need: str = ""  # image-to-text: caption | read
    fallback: str = ""  # a runnable model that does part of the job when the chosen one is missing


class ModelSelector:
    def __init__(self, catalog: Catalog, registry: ExpertRegistry, settings: Settings, controller: Controller | None = None):
        self.catalog = catalog
        self.registry = registry
        self.settings = settings
        self.controller = controller

    def candidates(self, task: str, limit: int | None = 0) -> list[Candidate]:
        """Top-K candidates: runnable-locally first, then hosted-runnable, then the rest; by downloads.
        ``limit`` 0: the settings' K; None: all of them."""
        seen: dict[str, Candidate] = {}
        local = self.registry.local_models(task)
        for mid in local:
            info = self.catalog.get(mid, task)
            seen[mid] = Candidate(mid, info.downloads if info else 0, info.likes if info else 0,
                                  description=info.description if info else "", license=info.license if info else None)
        for m in self.catalog.for_task(task):
            if m.id not in seen:
                seen[m.id] = Candidate(m.id, m.downloads, m.likes, description=m.description, license=m.license)
        local_order = {m: i for i, m in enumerate(local)}
        for c in seen.values():
            r = self.registry.find(task, c.id)
            c.where = r.where if r else None
        ranked = sorted(
            seen.values(),
            key=lambda c: (0 if c.local else 1 if c.where else 2, local_order.get(c.id, 1 << 30), -c.downloads, -c.likes, c.id),
        )
        if limit is None:
            return ranked
        return ranked[: max(1, limit or self.settings.candidates)]

    def choose(self, task: Task, request: str) -> Choice:
        if task.task == "image-to-text":
            return self._choose_image_to_text(task, request)
        return self._choose(task, request, self.candidates(task.task))

    def _choose(self, task: Task, request: str, cands: list[Candidate]) -> Choice:
        ids = [c.id for c in cands]
        if not cands:
            return Choice(task.id, task.task, "", "no model in the catalog for this task", None, [])
        runnable = [c for c in cands if c.where]
        if not runnable:
            suggested = _suggested_download(task.task)
            if suggested:
                return Choice(task.id, task.task, suggested, f"the suggested download for {task.task}; "
                              "it is not on this machine (nor is any other model for it)", None, ids)
            top = cands[0]
            return Choice(task.id, task.task, top.id, "the most downloaded model; it is not on this machine", None, ids)
        if len(cands) == 1 or len(runnable) == 1:
            c = runnable[0]
            return Choice(task.id, task.task, c.id, f"the only {'local' if c.local else 'runnable'} model for {task.task}", c.where, ids)
        if self.controller is None or getattr(self.controller, "tiny", False):
            c = runnable[0]
            why = "runs on this machine" if c.local else "runs on hosted inference"
            return Choice(task.id, task.task, c.id, f"{why}; first of {len(runnable)} runnable candidates", c.where, ids)
        return self._ask_controller(task, request, runnable, ids)

    def _choose_image_to_text(self, task: Task, request: str) -> Choice:
        """A caption request never goes to an OCR model; a read-the-text request prefers one.
        With no captioner here, the choice names the one to pull and keeps OCR as the fallback
        that still reports any text in the picture."""
        need = image_to_text_need(request, task.args)
        every = self.candidates("image-to-text", limit=None)
        readers = [c for c in every if is_text_reader(c.id)]
        others = [c for c in every if not is_text_reader(c.id)]
        k = max(1, self.settings.candidates)
        if need == READ:
            choice = self._choose(task, request, (readers + others)[:k])
            choice.need = READ
            if not choice.where and readers:
                choice.model_id = readers[0].id
                choice.reason = f"no model that reads text in images is on this machine; {readers[0].id} is one to download"
            return choice
        choice = self._choose(task, request, others[:k])
        choice.need = CAPTION
        if not choice.where:
            reader = next((c for c in readers if c.local), None)
            choice.fallback = reader.id if reader else ""
            choice.reason = (f"no image-captioning model is on this machine ({choice.model_id} is the suggested "
                             "download); OCR only reads text, so it is not used to describe the picture")
        return choice

    def _ask_controller(self, task: Task, request: str, runnable: list[Candidate], ids: list[str]) -> Choice:
        limit = self.settings.max_description_length
        lines = []
        for c in runnable:
            lines.append(json.dumps({
                "id": c.id,
                "runs": c.where,
                "downloads": c.downloads,
                "likes": c.likes,
                "description": (c.description or "")[:limit],
            }))
        messages = [
            {"role": "system", "content": (
                "You choose the most suitable model for one task of a user's request. "
                "Prefer models that run locally, then quality and popularity. "
                'Reply with JSON only: {"id": "<model id from the list>", "reason": "<one short sentence>"}.'
            )},
            {"role": "user", "content": (
                f"User request: {request}\nTask: {json.dumps(task.to_json())}\nCandidate models:\n" + "\n".join(lines)
            )},
        ]
        try:
            reply = self.controller.chat(messages, json_schema=CHOICE_SCHEMA, max_tokens=200)
        except ControllerError as e:
            c = runnable[0]
            return Choice(task.id, task.task, c.id, f"ranked first (the controller could not choose: {e})", c.where, ids)
        chosen, reason = parse_choice(str(reply), [c.id for c in runnable])
        c = next((c for c in runnable if c.id == chosen), runnable[0])
        if chosen is None:
            reason = "ranked first (the controller's choice was not one of the candidates)"
        return Choice(task.id, task.task, c.id, reason, c.where, ids)


def _suggested_download(task: str) -> str:
    """The curated default for ``task`` (small, permissive licence), else ""."""
    try:
        from ..experts.model_store import default_models

        d = default_models([task])[0]
    except Exception:  # an unknown task type or no defaults table: the catalog order decides
        return ""
    return d.model_id or ""


def run_choice(registry: ExpertRegistry, task: Task, choice: Choice, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
    """Run the chosen model. When it is missing and a fallback does part of the job (OCR for a
    caption), the result says plainly what is missing and how to get it, then what the fallback
    found, labelled as such (so a spoken or translated answer carries the same honesty)."""
    if choice.where or not choice.fallback:
        return registry.run(task.task, choice.model_id, args, ctx)
    missing = (f"No image-captioning model is on this computer, so I cannot describe the picture; "
               f"get one with: jarvis models pull {choice.model_id}.")
    try:
        found = registry.run(task.task, choice.fallback, args, ctx)
    except ExpertError as e:
        raise ExpertError(f"{task.task}: {missing} Reading its text failed too: {e}") from None
    lines = found.data.get("lines") if isinstance(found.data, dict) else None
    if lines:
        text = f"{missing} Text found in the image by OCR (not a description): " + " / ".join(l["text"] for l in lines)
    else:
        text = f"{missing} It has no text that OCR could read either."
    data = {"missing_model": choice.model_id, "need": choice.need, "ocr_text": found.text if lines else "",
            "lines": lines or []}
    return TaskOutput(text=text, data=data, model_id=choice.fallback, where=found.where)


def parse_choice(reply: str, ids: list[str]) -> tuple[str | None, str]:
    """The model id and reason from a controller reply: strict JSON first, then a regex fallback."""
    from .plan import PlanParseError, extract_json

    try:
        value, _ = extract_json(reply)
        if isinstance(value, dict) and str(value.get("id", "")) in ids:
            return str(value["id"]), str(value.get("reason", "")).strip() or "chosen by the controller"
    except PlanParseError:
        pass
    for mid in sorted(ids, key=len, reverse=True):
        if re.search(re.escape(mid), reply, re.IGNORECASE):
            m = re.search(r'"?reason"?\s*[:=]\s*"?([^"}\n]+)', reply)
            return mid, (m.group(1).strip() if m else "chosen by the controller")
    return None, ""
