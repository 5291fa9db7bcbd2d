"""OpenAI-compatible ``POST /v1/chat/completions``: any OpenAI client or chat UI can use the whole
assistant (plan, experts, answer) as if it were one model called ``jarvis``.

The last user message is the request; its image and audio parts (``data:`` URLs / base64) become
attachments. Conversation memory lives in the session log: pass ``session_id`` (an extra body
field) or the ``X-Jarvis-Session`` header to continue one; the reply's ``jarvis`` field names it.
"""

from __future__ import annotations

import json
import time
from typing import Any, AsyncIterator

from fastapi import FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from ..cancel import CancelToken
from ..pipeline import events as ev
from .app import ServerState, check_files, parse_request, stream_ask
from .schemas import AudioPart, ChatCompletionBody, ImagePart, TextPart
from .uploads import UploadFolder

MODEL_ID = "jarvis"
_IMAGE_EXT = {"image/png": ".png", "image/jpeg": ".jpg", "image/jpg": ".jpg", "image/webp": ".webp",
              "image/gif": ".gif", "image/bmp": ".bmp"}


def _request_of(body: ChatCompletionBody, folder: UploadFolder) -> tuple[str, list[str]]:
    """The last user message as (text, saved attachment paths)."""
    users = [m for m in body.messages if m.role == "user"]
    if not users:
        raise HTTPException(422, "messages: there is no message with role 'user'")
    content = users[-1].content
    if content is None or isinstance(content, str):
        return (content or "").strip(), []
    texts, files = [], []
    for n, part in enumerate(content):
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ImagePart):
            url = part.image_url.url
            if not url.startswith("data:"):
                raise HTTPException(422, "image_url: only data: URLs are accepted (this server does not fetch the web)")
            mime = url[5:].split(";", 1)[0].lower()
            files.append(str(folder.save_base64(f"image{n}{_IMAGE_EXT.get(mime, '.png')}", url)))
        elif isinstance(part, AudioPart):
            fmt = part.input_audio.format.lower().strip(".") or "wav"
            files.append(str(folder.save_base64(f"audio{n}.{fmt}", part.input_audio.data)))
    return " ".join(t.strip() for t in texts if t.strip()), files


def _usage(text: str, answer: str) -> dict[str, int]:
    """Word counts stand in for tokens: the assistant runs several models, none with one tokenizer."""
    p, c = len(text.split()), len(answer.split())
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


def _extension(state: ServerState, result: Any) -> dict[str, Any]:
    d = state.result_dict(result)
    return {k: d[k] for k in ("session_id", "request_id", "status", "plan", "models", "outputs", "error")}


def add_chat_routes(app: FastAPI, state: ServerState) -> None:
    assistant = state.assistant

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        """What OpenAI clients and chat UIs list before they chat: the one model, ``jarvis``."""
        return {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "jarvis-desktop"}]}

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Any:
        if request.headers.get("content-type", "").split(";")[0].strip().lower() not in ("application/json", ""):
            raise HTTPException(415, "chat completions take a JSON body")
        body: ChatCompletionBody = (await parse_request(request, ChatCompletionBody, state, require_request=False)).body
        folder = UploadFolder(state.uploads_root)
        try:
            text, files = _request_of(body, folder)
            check_files(files)
            if not text and not files:
                raise HTTPException(422, "messages: the last user message is empty")
        except BaseException:
            folder.remove()
            raise
        session_id = body.session_id or request.headers.get("x-jarvis-session") or None
        created = int(time.time())
        model = body.model or MODEL_ID

        def run(listener: ev.Listener | None, cancel: CancelToken | None) -> Any:
            return assistant.ask(text, files, session_id=session_id, on_event=listener, cancel=cancel)

        if not body.stream:
            result = await run_in_threadpool(run, None, None)
            return {
                "id": f"chatcmpl-{result.request_id}", "object": "chat.completion", "created": created, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": result.answer},
                             "finish_reason": "stop", "logprobs": None}],
                "usage": _usage(text, result.answer),
                "jarvis": _extension(state, result),
            }

        chunk_id = f"chatcmpl-{int(time.time() * 1000)}"
        started = False

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
            payload = {"id": chunk_id, "object": "chat.completion.chunk", "created": created, "model": model,
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}
            return f"data: {json.dumps(payload, ensure_ascii=False, default=str)}\n\n"

        def render(e: ev.Event) -> str | None:
            nonlocal started
            if not isinstance(e, ev.AnswerToken) or not e.text:
                return None
            first = not started
            started = True
            return chunk({"role": "assistant", "content": e.text} if first else {"content": e.text})

        async def finish(result: Any) -> AsyncIterator[str]:
            if not started and result.answer:  # e.g. cancelled before any token: send what there is
                yield chunk({"role": "assistant", "content": result.answer})
            yield chunk({}, "stop", usage=_usage(text, result.answer), jarvis=_extension(state, result))
            yield "data: [DONE]\n\n"

        return stream_ask(state, run, render, finish)
