"""Text-only tasks answered by the controller LLM, as JARVIS does when no expert model runs them.

Used last: when the chosen model is neither local nor reachable as hosted inference, a summary,
translation, rewrite, answer or reply still comes back, and the result says plainly that the
controller wrote it (``where="controller"`` and a note in ``data``) so the answer can cite it.
"""

from __future__ import annotations

from typing import Any, Callable

from .base import ExpertError, RunContext, TaskOutput

CONTROLLER_ID = "controller"

_PROMPTS = {
    "summarization": "Summarize the following text in a few sentences. Reply with the summary only.\n\n{text}",
    "translation": "Translate the following text{source} into {target}. Reply with the translation only.\n\n{text}",
    "question-answering": "Answer the question{ctx_hint}. Reply with the answer only.\n\n{context}Question: {text}",
    "text2text-generation": "{text}",
    "conversational": "{text}",
    "text-generation": "{text}",
}
LLM_TASKS = frozenset(_PROMPTS)


def _ask(controller: Any, prompt: str) -> str:
    """Works with a plain ``prompt -> text`` callable or an LLM client with ``chat(messages)``."""
    if hasattr(controller, "chat"):
        reply = controller.chat([{"role": "user", "content": prompt}])
    else:
        reply = controller(prompt)
    if isinstance(reply, dict):
        reply = reply.get("content") or reply.get("text") or ""
    reply = getattr(reply, "content", reply)
    if not isinstance(reply, str):
        reply = "".join(str(part) for part in reply)  # a token stream
    return reply.strip()


class ControllerBackend:
    name = "controller"

    def __init__(self, controller: Callable[[str], str] | Any):
        self.controller = controller

    def models(self, task: str) -> list[str]:
        return [CONTROLLER_ID] if task in LLM_TASKS else []

    def where(self, task: str, model_id: str) -> str | None:
        return "controller" if task in LLM_TASKS else None

    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        text = str(args.get("text") or "").strip()
        if not text:
            raise ExpertError(f"{task}: missing `text` argument")
        if ctx.cancel.cancelled:
            raise ExpertError(f"{task}: cancelled")
        context = str(args.get("context") or "").strip()
        source = args.get("source_language")
        prompt = _PROMPTS[task].format(
            text=text, target=args.get("target_language") or "English", source=f" from {source}" if source else "",
            context=f"Passage: {context}\n\n" if context else "", ctx_hint=" using the passage" if context else "")
        try:
            reply = _ask(self.controller, prompt)
        except ExpertError:
            raise
        except Exception as e:
            raise ExpertError(f"{task}: the controller LLM could not answer ({type(e).__name__}: {str(e)[:160]})") from None
        if model_id and model_id != CONTROLLER_ID:
            note = (f"'{model_id}' is not available here, so the controller LLM answered this {task} task instead "
                    f"(to run the model locally: jarvis models pull {model_id})")
        else:
            note = f"No expert model was used: the controller LLM answered this {task} task."
        return TaskOutput(text=reply or "(the controller gave no answer)", model_id=CONTROLLER_ID, where="controller",
                          data={"answered_by": "controller", "requested_model": model_id, "note": note})
