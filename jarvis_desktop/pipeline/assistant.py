"""The assistant: one request through plan -> select -> execute -> respond, with events.

The CLI, the desktop window and the REST server all call ``Assistant.ask``; they differ only in
how they show the events. Heavy parts (controller, expert registry, catalog) are built on first
use, so creating an Assistant is instant.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..cancel import CancelToken
from ..config import Settings, load_settings, save_setting_changes
from ..experts.base import ExpertError, RunContext, TaskOutput
from ..experts.catalog import Catalog, load_catalog
from ..experts.registry import ExpertRegistry
from ..llm.base import Controller, ControllerError
from ..media import Attachment, MediaError, check_attachment
from ..store.sessions import SessionStore
from ..task_types import TASK_TYPES
from ..textclean import clean_text, escape_names, one_line
from ..voice.commands import VoiceCommand, asks_to_repeat, read_voice_command
from . import events as ev
from .answer_check import AnswerGate
from .executor import ExecutionOptions, Scheduler, TaskResult
from .plan import Plan, PlanCheck, Task, held_files_message, missing_files_message
from .planner import LLMPlanner, Turn
from .responder import capabilities_answer, chat_answer, compose_answer, controller_answer, stream_words
from .selector import Choice, ModelSelector, run_choice
from .session_log import SessionLogger
from .worker_pool import WorkerPool

log = logging.getLogger(__name__)


@dataclass
class AskResult:
    request_id: str
    session_id: str
    text: str
    files: list[str]
    plan: Plan = field(default_factory=Plan)
    plan_errors: list[str] = field(default_factory=list)
    choices: dict[int, Choice] = field(default_factory=dict)
    results: dict[int, TaskResult] = field(default_factory=dict)
    answer: str = ""
    status: str = "done"  # done | failed | cancelled
    error: str = ""
    composer: str = ""
    #: attached files nothing was run on because the request put them aside ("nothing to do yet")
    #: or waits for another file: a front end keeps them attached for the next request
    kept_files: list[str] = field(default_factory=list)
    #: settings the request changed ("speak slower" -> {"speech_rate": 0.8}), already saved
    settings_changes: dict[str, Any] = field(default_factory=dict)

    @property
    def output_files(self) -> list[str]:
        return [str(p) for r in self.results.values() if r.output for p in r.output.files]

    def to_dict(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id,
            "session_id": self.session_id,
            "request": self.text,
            "files": self.files,
            "plan": self.plan.to_json(),
            "plan_source": self.plan.source,
            "plan_errors": self.plan_errors,
            "models": {str(k): {"task": c.task, "model": c.model_id, "reason": c.reason, "where": c.where}
                       for k, c in self.choices.items()},
            "results": {
                str(k): {
                    "task": r.task.task, "status": r.status, "model": r.model_id, "where": r.where, "error": r.error,
                    "seconds": round(r.seconds, 3),
                    "text": r.output.text if r.output else "",
                    "files": [str(p) for p in r.output.files] if r.output else [],
                    "data": r.output.data if r.output else None,
                }
                for k, r in self.results.items()
            },
            "answer": self.answer,
            "status": self.status,
            "error": self.error,
        }


class Assistant:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        controller: Controller | None = None,
        registry: ExpertRegistry | None = None,
        store: SessionStore | None = None,
        catalog: Catalog | None = None,
    ):
        self.settings = settings or load_settings()
        self._controller = controller
        self._controller_error = ""
        self._registry = registry
        self._store = store
        self._catalog = catalog
        self._offline_planner: Any = None
        self._lock = threading.RLock()
        self._local = threading.local()  # per request thread: why the controller failed while planning
        self._workers = WorkerPool()  # warm between requests; released by close()
        self.bus = ev.EventBus()
        from ..progress_bars import quiet_loading_bars

        quiet_loading_bars()  # loading a model from the cache prints nothing; downloads keep their bar

    # -- lazily built parts -----------------------------------------------------------------
    @property
    def store(self) -> SessionStore:
        with self._lock:
            if self._store is None:
                self._store = SessionStore(self.settings.db_path)
            return self._store

    @property
    def registry(self) -> ExpertRegistry:
        with self._lock:
            if self._registry is None:
                from ..experts.defaults import build_registry

                self._registry = build_registry(self.settings, controller=self._text_task_controller())
            return self._registry

    def _text_task_controller(self):
        """Lets text-only tasks (summarise, translate...) run on a capable controller LLM when no
        local model is there, as JARVIS does. None with the tiny embedded model."""
        capable = self.capable_controller
        if capable is None:
            return None

        def complete(prompt: str) -> str:
            return str(capable.chat([{"role": "user", "content": prompt}], max_tokens=800))

        complete.name = capable.name  # type: ignore[attr-defined]
        return complete

    @property
    def catalog(self) -> Catalog:
        with self._lock:
            if self._catalog is None:
                self._catalog = load_catalog(self.settings)
            return self._catalog

    @property
    def controller(self) -> Controller | None:
        """The configured controller, or None (with ``controller_error`` saying why)."""
        with self._lock:
            if self._controller is None and not self._controller_error:
                from ..llm.factory import make_controller

                try:
                    self._controller = make_controller(self.settings)
                except ControllerError as e:
                    self._controller_error = str(e)
            return self._controller

    @property
    def controller_error(self) -> str:
        return self._controller_error

    @property
    def capable_controller(self) -> Controller | None:
        c = self.controller
        return c if c is not None and not getattr(c, "tiny", False) else None

    def offline_planner(self) -> Any:
        with self._lock:
            if self._offline_planner is None:
                from ..planning.offline import OfflinePlanner

                self._offline_planner = OfflinePlanner()
            return self._offline_planner

    def warm_up_planner(self) -> str | None:
        """Load the offline planner's parser and clause encoder now (seconds, once a process), so
        the first request is planned as fast as the rest. Returns what is missing, if anything."""
        return self.offline_planner().warm_up()

    def local_task_types(self) -> list[str]:
        return [t for t in TASK_TYPES if self.registry.local_models(t)]

    def close(self) -> None:
        self._workers.shutdown(timeout=2.0)  # idle workers leave at once; a hung task is not waited for long
        self._workers = WorkerPool()  # an assistant may still be asked after close (the server)
        c = self._controller
        if c is not None and hasattr(c, "stop"):
            c.stop()

    # -- stage 1 -----------------------------------------------------------------------------
    def make_plan(self, text: str, attachments: list[Attachment], history: list[Turn] | None = None,
                  written: str | None = None) -> tuple[PlanCheck, str]:
        """A validated plan (maybe empty) and a note on how it was made. ``written``: the text the
        last request's steps wrote, which a follow-up ("translate that") works on."""
        check, note, down = self._plan(clean_text(text), attachments, history, written)
        self._local.controller_down = down
        return check, note

    def _plan(self, text: str, attachments: list[Attachment], history: list[Turn] | None = None,
              written: str | None = None) -> tuple[PlanCheck, str, str]:
        """``make_plan`` plus why the controller is down for this request ("" when it answered):
        then neither the selector nor the answer step asks it again."""
        mode = self.settings.planner
        capable = self.capable_controller if mode != "offline" else None
        if mode == "llm" and capable is None:
            why = self.controller_error or "the controller is a tiny embedded model"
            check = self._offline_plan(text, attachments, history, written)
            return check, _with_correction(f"LLM planner asked for but unavailable ({why}); used the offline planner", check), ""
        if capable is None:
            check = self._offline_plan(text, attachments, history, written)
            return check, _with_correction("offline planner", check), ""
        draft = None
        if mode == "hybrid":
            draft_check = self._offline_plan(text, attachments, history, written)
            draft = draft_check.plan if draft_check.ok and draft_check.plan else None
        try:
            check = LLMPlanner(capable, self.settings).plan(text, attachments, history, draft=draft)
        except ControllerError as e:
            log.warning("controller unavailable for planning: %s", e)
            return self._offline_plan(text, attachments, history, written), f"offline planner (the language model failed: {e})", str(e)
        if check.ok and not check.plan and draft:
            # The LLM dropped every step of a good draft: keep the draft rather than only chatting.
            return (PlanCheck(Plan(draft.tasks, "offline"), [], check.repairs),
                    f"offline draft kept ({capable.name} returned no steps)", "")
        if check.ok:
            return check, f"{capable.name}", ""
        errors = "; ".join(_short(e) for e in check.errors)
        offline = self._offline_plan(text, attachments, history, written) if attachments else None
        if offline is not None and offline.ok and offline.plan and offline.plan.tasks:
            # The user's files still get their work done; the note says whose plan it is.
            # A controller that planned junk twice is not asked to describe the results either.
            log.warning("the controller's plan was invalid twice (%s); used the offline planner", errors)
            return (offline, f"the controller's plan was invalid twice ({errors}); used the offline planner",
                    f"{capable.name} gave an invalid plan twice ({errors})")
        log.warning("the controller's plan was invalid twice (%s); answering as plain chat", errors)
        return PlanCheck(Plan([], "fallback"), check.errors, check.repairs), (
            "the controller's plan was invalid twice; answered as plain chat: " + errors
        ), ""

    def _offline_plan(self, text: str, attachments: list[Attachment], history: list[Turn] | None = None,
                      written: str | None = None) -> PlanCheck:
        try:
            planner = self.offline_planner()
        except ImportError as e:
            return PlanCheck(Plan([], "offline"), [f"the offline planner is not installed ({e})"])
        # "read that out loud", "translate it into French": the words pointed at are what the last
        # request's steps wrote, else the last answer
        previous = written or _last_answer(history or [])
        check = planner.plan(text, attachments, previous)
        if check.missing:  # the steps on the other files would work on the wrong thing: none run
            message = missing_files_message(check.missing)
            return PlanCheck(Plan([], "offline", [message]), [message], check.repairs, check.missing, corrected=check.corrected)
        if check.plan is None:
            check.plan = Plan([], "offline")
        if not check.plan.tasks and attachments and not check.errors and not check.held:
            fallback = self._file_plan(text, attachments)
            if fallback.plan:
                fallback.corrected = check.corrected
                return fallback
        return check

    def _file_plan(self, text: str, attachments: list[Attachment]) -> PlanCheck:
        """When no step is recognised but files came with the request, do the natural thing with
        each file (read an image, transcribe a recording) instead of ignoring them: a person who
        drops a photo and asks "what does it say?" expects an answer about the photo."""
        from .plan import validate_plan

        question = text.strip().endswith("?")
        vqa_local = bool(self.registry.local_models("visual-question-answering"))
        items = []
        for a in attachments:
            tid = len(items)
            if a.kind == "image" and question and vqa_local:
                items.append({"task": "visual-question-answering", "id": tid, "dep": [-1], "args": {"image": str(a.path), "text": text}})
            elif a.kind == "image":
                items.append({"task": "image-to-text", "id": tid, "dep": [-1], "args": {"image": str(a.path)}})
            elif a.kind == "audio":
                items.append({"task": "automatic-speech-recognition", "id": tid, "dep": [-1], "args": {"audio": str(a.path)}})
        check = validate_plan(items, attachments, source="offline")
        if check.plan:
            check.plan.notes.append("no step was recognised in the words; ran the usual step for each attached file")
        return check

    # -- the whole request -------------------------------------------------------------------
    def ask(
        self,
        text: str,
        files: Iterable[str | Path] = (),
        *,
        session_id: str | None = None,
        on_event: ev.Listener | None = None,
        cancel: CancelToken | None = None,
        respond: bool = True,
        interrupted: bool = False,
    ) -> AskResult:
        """Run one request. ``interrupted``: the user cut the previous spoken answer short; it is
        noted in the session so the controller knows the last answer was not heard in full."""
        cancel = cancel or CancelToken()
        text = clean_text(text).strip()  # before anything stores or shows it (every face comes here)
        files = [str(f) for f in files]
        store = self.store
        sid = store.ensure_session(session_id, text or (Path(files[0]).name if files else "New conversation"))
        rid = uuid.uuid4().hex
        bus = ev.EventBus([SessionLogger(store, sid)] + ([on_event] if on_event else []))
        bus.subscribe(self.bus.emit)
        result = AskResult(rid, sid, text, files)
        if interrupted:
            store.add_message(sid, "system", "The user interrupted the previous answer before it was spoken in full.")
        history = [Turn(r, t) for r, t in store.history(sid, 20)]
        # what the last request's steps wrote ("translate that" after a caption: the caption, not
        # the answer that named the model); read before this request is logged
        written = next((x for task, x in store.last_text_results(sid) if task in TASK_TYPES and TASK_TYPES[task].output == "text"), None)
        bus.emit(ev.RequestStarted(rid, text, files))

        def fail(message: str) -> AskResult:
            result.status, result.error, result.answer = "failed", message, message
            bus.emit(ev.RequestFailed(rid, message))
            bus.emit(ev.AnswerToken(rid, message))
            bus.emit(ev.AnswerDone(rid, message, 0.0, composer="error"))
            return result

        def cancelled(stage: str) -> AskResult:
            result.status, result.error = "cancelled", f"cancelled during {stage}"
            bus.emit(ev.RequestCancelled(rid, stage))
            return result

        attachments: list[Attachment] = []
        problems: list[str] = []
        for f in files:
            try:
                attachments.append(check_attachment(f))
            except MediaError as e:
                problems.append(escape_names(str(e), files))
        if problems:
            return fail("I could not use your file(s): " + " ".join(problems))
        if not text and not attachments:
            return fail("The request is empty. Type or say what you would like me to do.")
        if not text:
            text = "Tell me what is in the attached file" + ("s." if len(attachments) > 1 else ".")
        if not attachments and asks_to_repeat(text):  # "sorry, what did you say?": the last answer again
            last = _last_answer(history) or "I have not said anything yet in this conversation."
            return self._say(last, rid, bus, result, "repeat")
        command = None if attachments else read_voice_command(text, self.settings)
        if command is not None:  # "speak slower": a setting to change, not a plan
            return self._obey(command, rid, bus, result)

        # 1. plan
        bus.emit(ev.StageStarted(rid, "plan"))
        t0 = time.perf_counter()
        self._local.controller_down = ""
        check, note = self.make_plan(text, attachments, history, written)
        controller_down = getattr(self._local, "controller_down", "")
        plan = check.plan if check.plan is not None else Plan([], "fallback")
        result.plan, result.plan_errors = plan, check.errors
        if not plan.tasks and (check.held or check.missing):
            result.kept_files = [str(a.path) for a in attachments]
        bus.emit(ev.PlanReady(rid, plan.to_json(), plan.source, time.perf_counter() - t0, check.repairs, note))
        if cancel.cancelled:
            return cancelled("plan")

        # 2. select
        if plan.tasks:
            bus.emit(ev.StageStarted(rid, "select"))
            selector = ModelSelector(self.catalog, self.registry, self.settings,
                                     None if controller_down else self.capable_controller)
            for task in plan.tasks:
                choice = selector.choose(task, text)
                result.choices[task.id] = choice
                bus.emit(ev.ModelChosen(rid, task.id, task.task, choice.model_id, choice.reason, choice.candidates, choice.where or ""))
            if cancel.cancelled:
                return cancelled("select")

            # 3. execute
            bus.emit(ev.StageStarted(rid, "execute"))
            out_dir = self.settings.outputs_path / sid / rid[:8]
            options = ExecutionOptions(
                max_workers=self.settings.parallel_tasks,
                task_timeout=self.settings.task_timeout,
                allowed_files={str(a.path) for a in attachments},
            )
            scheduler = Scheduler(self._runner(result.choices), bus, rid, options, pool=self._workers)
            models = {tid: (c.model_id, c.where or "") for tid, c in result.choices.items()}
            result.results = scheduler.run(plan, out_dir, cancel, models, settings=self.settings,
                                           device=self.settings.resolved_device())
            if cancel.cancelled:
                return cancelled("execute")
            for r in result.results.values():
                r.error = escape_names(r.error or "", files)
        if not respond:
            result.status = "done"
            return result

        # 4. respond
        bus.emit(ev.StageStarted(rid, "respond"))
        t0 = time.perf_counter()
        answer, composer = self._respond(rid, bus, text, plan, result, history, check, cancel, controller_down, attachments)
        if cancel.cancelled:
            return cancelled("respond")
        result.answer, result.composer = answer, composer
        bus.emit(ev.AnswerDone(rid, answer, time.perf_counter() - t0, composer=composer))
        if plan.tasks and not any(r.status == "done" for r in result.results.values()):
            # Every step failed: the answer says why, but the request produced nothing.
            result.status, result.error = "failed", "no step of the plan succeeded"
            store.update_request(rid, status="failed", error=result.error)
        return result

    def _obey(self, command: VoiceCommand, rid: str, bus: ev.EventBus, result: AskResult) -> AskResult:
        """Change the voice settings a request asked for, in this run and in the settings file."""
        t0 = time.perf_counter()
        answer = command.answer
        if command.changes:
            for name, value in command.changes.items():
                setattr(self.settings, name, value)
            try:
                save_setting_changes(command.changes)
            except OSError as e:
                answer += f" (It lasts until you close the app: the settings file could not be written: {e.strerror or e}.)"
            bus.emit(ev.SettingsChanged(rid, dict(command.changes)))
        result.settings_changes = dict(command.changes)
        return self._say(answer, rid, bus, result, "voice-command", t0)

    def _say(self, answer: str, rid: str, bus: ev.EventBus, result: AskResult, composer: str,
             t0: float | None = None) -> AskResult:
        """Give ``answer`` as the request's answer without a plan (a voice command obeyed, the last
        answer repeated): shown word by word, spoken when the voice is on, logged."""
        t0 = time.perf_counter() if t0 is None else t0
        for piece in stream_words(answer):
            bus.emit(ev.AnswerToken(rid, piece))
        result.answer, result.composer = answer, composer
        bus.emit(ev.AnswerDone(rid, answer, time.perf_counter() - t0, composer=composer))
        return result

    def _runner(self, choices: dict[int, Choice]):
        registry = self.registry

        def run(task: Task, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
            choice = choices.get(task.id)
            if choice is None or not choice.model_id:
                raise ExpertError(f"{task.task}: no model is known for this task type. Add one to the catalog or pull one.")
            return run_choice(registry, task, choice, args, ctx)  # a missing captioner: says so, with the OCR text

        return run

    def _respond(self, rid, bus, text, plan, result, history, check, cancel, controller_down: str = "",
                 attachments: list[Attachment] | None = None) -> tuple[str, str]:
        def token(piece: str) -> None:
            if not cancel.cancelled:
                bus.emit(ev.AnswerToken(rid, piece))

        capable = None if controller_down else self.capable_controller
        prefix = ""
        if controller_down:
            prefix = f"(The language model failed: {_sentence(_short(controller_down))} I planned with the offline planner.) "
        elif capable is not None:
            gate = AnswerGate(token)  # a reply that is no answer (null, a plan, nothing) is never shown
            try:
                if plan.tasks:
                    controller_answer(capable, text, plan, result.choices, result.results, gate)
                else:
                    past = [{"role": t.role if t.role in ("user", "assistant", "system") else "user", "content": t.text}
                            for t in history[-10:] if t.text]
                    chat_answer(capable, past, text, gate, self.local_task_types())
                unusable = gate.finish()
                if not unusable:
                    return gate.text, "controller"
                log.warning("the controller's answer was unusable (%s); composing the answer instead", unusable)
                prefix = f"(The language model failed: {capable.name} gave {unusable}. This answer is composed from the results.) "
            except ControllerError as e:
                if gate.open:  # part of its answer was shown: keep it, say it stopped
                    return gate.text + " (the answer was cut off: the language model stopped responding)", "controller"
                log.warning("controller failed to answer: %s", e)
                prefix = f"(The language model failed: {_sentence(_short(str(e)))}) "
        if plan.tasks:
            answer = prefix + compose_answer(plan, result.choices, result.results)
        elif check.missing:  # the request names what it needs: asking again with it attached is the fix
            answer = prefix + missing_files_message(check.missing)
        elif check.held:  # "here's the contract, nothing to do yet"
            answer = prefix + held_files_message([a.path.name for a in attachments or []])
        else:
            reason = "; ".join(_short(e) for e in check.errors[:2]) if check.errors else ""
            answer = prefix + capabilities_answer(self.local_task_types(), reason)
        for piece in stream_words(answer):
            token(piece)
        return answer, "composer"


def _last_answer(history: list[Turn]) -> str | None:
    """The assistant's last answer in the conversation, if it has given one."""
    return next((t.text for t in reversed(history) if t.role == "assistant" and t.text.strip()), None)


def _with_correction(note: str, check: PlanCheck) -> str:
    """How the plan was made, and what the planner read as corrected ("a cat" -> "a dog"), which
    the plan view shows beside the steps and the session log keeps."""
    return f"{note}; {check.corrected}" if check.corrected else note


def _short(message: str, limit: int = 200) -> str:
    """A junk reply quoted in an error: one line, without its closing full stop."""
    return one_line(message, limit).rstrip(".")


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."
