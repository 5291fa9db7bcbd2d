"""The REST API: plan only, plan plus results, the full answer (optionally as server-sent events),
the session log, the files the assistant produced, and an OpenAI-compatible chat endpoint.

Every request shares one :class:`Assistant` (and so one model cache). ``Assistant.ask`` blocks for
seconds, so it runs in the thread pool while the event loop keeps serving other clients.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Callable
from urllib.parse import quote, urlsplit

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse, StreamingResponse

from .. import __version__
from ..cancel import CancelToken
from ..config import Settings
from ..media import MediaError, check_attachment
from ..pipeline import events as ev
from ..textclean import fix_surrogates
from .schemas import AskBody, InlineFile, PlanBody, describe, error_list
from .uploads import DEFAULT_MAX_UPLOAD_BYTES, BodyLimitMiddleware, UploadFolder

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                413: "request_too_large", 415: "invalid_request_error", 422: "invalid_request_error"}


@dataclass
class ServerState:
    """What every endpoint needs: the shared assistant and where files go."""

    assistant: Any
    settings: Settings
    allow_local_paths: bool = True

    @property
    def uploads_root(self) -> Path:
        return self.settings.data_path / "uploads"

    @property
    def outputs_root(self) -> Path:
        return self.settings.outputs_path.resolve()

    def output_url(self, path: str | Path) -> str | None:
        """The ``/v1/outputs/...`` URL of a produced file, or None when it lies outside outputs."""
        p = Path(path).resolve()
        if not p.is_relative_to(self.outputs_root):
            return None
        return "/v1/outputs/" + quote(p.relative_to(self.outputs_root).as_posix())

    def result_dict(self, result: Any) -> dict[str, Any]:
        """``AskResult.to_dict()`` plus download URLs for every file a task produced."""
        d = result.to_dict()
        outputs = []
        for r in d.get("results", {}).values():
            r["urls"] = [u for u in (self.output_url(f) for f in r.get("files", [])) if u]
            outputs += [{"path": f, "url": self.output_url(f)} for f in r.get("files", [])]
        d["outputs"] = outputs
        # a file name with undecodable bytes must not break the UTF-8 response
        return json.loads(fix_surrogates(json.dumps(d, ensure_ascii=False, default=str)))


@dataclass
class ParsedRequest:
    body: Any
    files: list[str]
    attachments: list[Any]


def sse(event: str, data: Any) -> str:
    """One server-sent event; the JSON is on one line so ``data:`` needs no splitting."""
    return f"event: {event}\ndata: {fix_surrogates(json.dumps(data, ensure_ascii=False, default=str))}\n\n"


def _error_body(status: int, message: str, errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """OpenAI's error shape (so OpenAI clients show the message) plus FastAPI's ``detail``."""
    body: dict[str, Any] = {"error": {"message": message, "type": _ERROR_TYPES.get(status, "server_error"), "code": status},
                            "detail": message}
    if errors:
        body["errors"] = errors
    return body


async def parse_request(request: Request, model: type[BaseModel], state: ServerState,
                        require_request: bool = True) -> ParsedRequest:
    """A JSON body or a multipart form (fields plus uploaded files) as ``model``, with every file
    saved or resolved and checked as an attachment. Problems are 4xx with a readable message."""
    folder = UploadFolder(state.uploads_root)
    try:
        return await _parse(request, model, state, require_request, folder)
    except BaseException:
        folder.remove()  # a refused request keeps none of its uploads
        raise


async def _parse(request: Request, model: type[BaseModel], state: ServerState, require_request: bool,
                 folder: UploadFolder) -> ParsedRequest:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    uploaded: list[str] = []
    if ctype == "multipart/form-data":
        form = await request.form(max_files=32, max_fields=64)
        data: dict[str, Any] = {}
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                if not value.filename and not value.size:  # a form's file input left empty
                    continue
                uploaded.append(str(await folder.save_upload(value)))
            elif key == "files":
                data.setdefault("files", []).append(value)
            else:
                data[key] = value
        await form.close()
    elif ctype in ("application/json", "") or ctype.endswith("+json"):
        raw = await request.body()
        try:
            data = json.loads(raw) if raw.strip() else {}
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise HTTPException(422, f"the body is not valid JSON ({e})") from None
        if not isinstance(data, dict):
            raise HTTPException(422, "the body must be a JSON object, e.g. {\"request\": \"...\"}")
    else:
        raise HTTPException(415, f"unsupported content type {ctype!r}: send application/json or multipart/form-data")
    data = _cleaned(data)
    try:
        body = model.model_validate(data)
    except ValidationError as e:
        raise RequestValidationError(error_list(e), body=describe(e)) from None
    files = list(uploaded)
    for f in getattr(body, "files", []):
        if isinstance(f, InlineFile):
            files.append(str(folder.save_base64(f.name, f.content_base64)))
        elif not state.allow_local_paths:
            raise HTTPException(422, "file paths are refused on a server reachable from other machines: upload the file")
        else:
            files.append(f)
    attachments = check_files(files)
    if require_request and not getattr(body, "request", "").strip() and not files:
        raise HTTPException(422, "the request is empty: send a 'request' text and/or files")
    return ParsedRequest(body, files, attachments)


def _cleaned(value: Any) -> Any:
    """A body pydantic can validate: JSON may carry lone surrogates ("\\ud800") that it refuses.
    The request text's control bytes are cleaned where every face meets (the assistant)."""
    if isinstance(value, str):
        return fix_surrogates(value)
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    if isinstance(value, dict):
        return {k: _cleaned(v) for k, v in value.items()}
    return value


def check_files(files: list[str]) -> list[Any]:
    """Each file checked as the assistant would; the first problem is a 422 naming the file."""
    try:
        return [check_attachment(f) for f in files]
    except MediaError as e:
        raise HTTPException(422, str(e)) from None


def stream_ask(state: ServerState, run: Callable[[ev.Listener, CancelToken], Any],
               render: Callable[[Any], str | None], finish: Callable[[Any], AsyncIterator[str]]) -> StreamingResponse:
    """Run ``run(listener, cancel)`` in a worker thread and stream what ``render`` makes of each
    pipeline event, then what ``finish`` makes of the result. A client that disconnects cancels
    the request (the pipeline checks the token between steps)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    cancel = CancelToken()
    done = object()

    def put(item: Any) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the event loop is gone (server shutting down)
            cancel.cancel()

    def work() -> Any:
        try:
            return run(put, cancel)
        finally:
            put(done)

    job = asyncio.ensure_future(run_in_threadpool(work))

    async def body() -> AsyncIterator[str]:
        try:
            while True:
                item = await queue.get()
                if item is done:
                    break
                text = render(item)
                if text:
                    yield text
            try:
                result = await job
            except Exception as e:  # a bug deep in the pipeline: tell the client, keep serving
                log.exception("request failed")
                yield sse("error", _error_body(500, f"the assistant failed: {e}"))
                return
            async for text in finish(result):
                yield text
        finally:
            if not job.done():
                cancel.cancel()

    return StreamingResponse(body(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def create_app(assistant: Any, settings: Settings, token: str | None = None,
               max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES, *, allow_local_paths: bool = True,
               allowed_hosts: list[str] | None = None) -> FastAPI:
    """The API around one shared assistant.

    ``token``: when set, every endpoint needs ``Authorization: Bearer <token>`` (else 401).
    ``allow_local_paths``: JSON bodies may name files on this machine (fine for a loopback server;
    a server reachable from other machines must refuse it and accept uploads only).
    ``allowed_hosts``: Host headers accepted (guards a loopback server against DNS rebinding).
    """
    state = ServerState(assistant, settings, allow_local_paths)
    expected = token.encode() if token else None

    hosts = {h.strip("[]").lower() for h in allowed_hosts or ()}

    def guard(request: Request) -> None:
        if hosts and (urlsplit("//" + request.headers.get("host", "")).hostname or "") not in hosts:
            # DNS rebinding: a web site's name pointed at 127.0.0.1 still carries its own Host.
            raise HTTPException(400, "invalid Host header for this server")
        origin = request.headers.get("origin")
        if origin and (urlsplit(origin).hostname or "") not in LOOPBACK_HOSTS and expected is None:
            # A web page in the user's browser must not drive an open local server.
            raise HTTPException(403, f"requests from web pages ({origin}) are refused; start the server with a token")
        if expected is None:
            return
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not secrets.compare_digest(value.strip().encode(), expected):
            raise HTTPException(401, "missing or wrong token: send the header 'Authorization: Bearer <token>'",
                                headers={"WWW-Authenticate": "Bearer"})

    app = FastAPI(title="JARVIS Desktop", version=__version__, docs_url=None, redoc_url=None, openapi_url=None,
                  dependencies=[Depends(guard)])
    app.state.jarvis = state
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_upload_bytes)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(_error_body(exc.status_code, str(exc.detail)), exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        log.error("request %s %s failed", request.method, request.url.path, exc_info=exc)
        return JSONResponse(_error_body(500, f"the assistant failed: {type(exc).__name__}: {exc}"), 500)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in exc.errors()]
        message = exc.body if isinstance(exc.body, str) else "invalid request: " + "; ".join(
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
        return JSONResponse(_error_body(422, message, errors), 422)

    # -- the three depths of HuggingGPT's server mode -------------------------------------------
    @app.post("/v1/plan")
    async def plan(request: Request) -> dict[str, Any]:
        """Stage 1 only: the validated plan in HuggingGPT's JSON form."""
        parsed = await parse_request(request, PlanBody, state)
        check, note = await run_in_threadpool(assistant.make_plan, parsed.body.request.strip(), parsed.attachments)
        plan = check.plan
        return {"plan": plan.to_json() if plan else [], "source": plan.source if plan else "fallback",
                "ok": check.ok, "errors": check.errors, "repairs": check.repairs, "note": note,
                "files": parsed.files}

    async def ask(request: Request, respond: bool) -> Any:
        parsed = await parse_request(request, AskBody, state)
        b = parsed.body

        def run(listener: ev.Listener | None, cancel: CancelToken | None) -> Any:
            return assistant.ask(b.request, parsed.files, session_id=b.session_id, on_event=listener,
                                 cancel=cancel, respond=respond)

        if not b.stream:
            result = await run_in_threadpool(run, None, None)
            return state.result_dict(result)

        async def finish(result: Any) -> AsyncIterator[str]:
            yield sse("result", state.result_dict(result))

        return stream_ask(state, run, lambda e: sse(e.kind, e.to_dict()), finish)

    @app.post("/v1/run")
    async def run_request(request: Request) -> Any:
        """Stages 1-3: plan, chosen models and each task's result (no written answer)."""
        return await ask(request, respond=False)

    @app.post("/v1/ask")
    async def ask_request(request: Request) -> Any:
        """All four stages: the answer too. ``"stream": true`` sends the pipeline events as SSE."""
        return await ask(request, respond=True)

    # -- the session log and its files ----------------------------------------------------------
    @app.get("/v1/sessions")
    async def sessions(limit: int = 50, q: str = "") -> dict[str, Any]:
        store = assistant.store
        if not 1 <= limit <= 1000:
            raise HTTPException(422, "limit must be between 1 and 1000")
        if q:
            rows = await run_in_threadpool(store.search, q, limit)
        else:
            rows = await run_in_threadpool(store.list_sessions, limit)
        return {"sessions": [r.__dict__ for r in rows]}

    @app.get("/v1/sessions/{session_id}")
    async def session(session_id: str) -> dict[str, Any]:
        d = await run_in_threadpool(assistant.store.export_session, session_id)
        if d is None:
            raise HTTPException(404, f"no session {session_id!r}")
        for r in d.get("requests", []):
            for o in r.get("outputs", []):
                o["url"] = state.output_url(o["path"])
        return d

    @app.get("/v1/outputs/{path:path}")
    async def output(path: str) -> FileResponse:
        """A file the assistant produced, by its path under the outputs folder. Anything else
        (other files, ``..``, absolute paths, links out of the folder) is refused."""
        parts = path.replace("\\", "/").split("/")
        if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\x00" in path:
            raise HTTPException(403, "refused: an output path is <session>/<request>/<file>, without '..'")
        target = (state.outputs_root / path).resolve()
        if not target.is_relative_to(state.outputs_root):
            raise HTTPException(403, "refused: that path leaves the outputs folder")
        produced = await run_in_threadpool(assistant.store.output_paths, parts[0])
        if str(target) not in {str(Path(p).resolve()) for p in produced} or not target.is_file():
            raise HTTPException(404, "no such output: only files this session produced are served")
        return FileResponse(target, filename=target.name)

    from .openai_api import add_chat_routes

    add_chat_routes(app, state)
    return app
