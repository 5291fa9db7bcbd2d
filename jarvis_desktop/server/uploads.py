"""Uploaded files: a size limit on request bodies, and a private folder per request to keep them.

The limit is enforced while the body streams in (not after it was spooled to disk), so a client
cannot fill the disk or memory with one huge upload.
"""

from __future__ import annotations

import base64
import binascii
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def too_large(limit: int) -> HTTPException:
    return HTTPException(413, f"request body too large: the limit is {limit / 1e6:g} MB (start the server with a "
                              "larger --max-upload-mb to accept bigger files)")


class BodyLimitMiddleware:
    """Answers 413 when a request body is over ``max_bytes``: at once from Content-Length, or as
    soon as the streamed body passes the limit (the endpoint reading it then gets the 413)."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            e = too_large(self.max_bytes)
            await JSONResponse({"error": {"message": e.detail, "type": "request_too_large", "code": 413},
                                "detail": e.detail}, status_code=413)(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise too_large(self.max_bytes)
            return message

        await self.app(scope, limited, send)


def safe_name(name: str, fallback: str = "upload") -> str:
    """A file name that cannot leave its folder: the last path part, odd characters replaced."""
    base = Path(name.replace("\\", "/")).name
    base = _SAFE_NAME.sub("_", base).strip("._") or fallback
    return base[:120]


@dataclass
class UploadFolder:
    """The folder of one request's uploads, under ``data_path/uploads``; created on first file."""

    root: Path
    path: Path = field(init=False)
    files: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.path = self.root / uuid.uuid4().hex[:16]

    def _target(self, name: str) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        target = self.path / safe_name(name)
        n = 1
        while target.exists():  # two uploads with one name keep both
            target = self.path / f"{target.stem}-{n}{target.suffix}"
            n += 1
        self.files.append(target)
        return target

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    async def save_upload(self, upload: UploadFile) -> Path:
        target = self._target(upload.filename or "upload")
        with target.open("wb") as out:
            while chunk := await upload.read(1024 * 1024):
                out.write(chunk)
        return target

    def save_base64(self, name: str, data: str) -> Path:
        """Decode a base64 payload (a bare string or a ``data:`` URL) into a file."""
        if data.startswith("data:"):
            data = data.split(",", 1)[-1]
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise HTTPException(422, f"{safe_name(name)}: the file content is not valid base64") from None
        target = self._target(name)
        target.write_bytes(raw)
        return target
