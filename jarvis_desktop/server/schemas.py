"""Request bodies of the REST server, validated by pydantic so a bad body is a 422 with a message."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: A request's text beyond this is surely a mistake (a file pasted as text): refuse it early.
MAX_REQUEST_CHARS = 100_000


class InlineFile(BaseModel):
    """A file sent inside a JSON body, base64-encoded (for clients that cannot send multipart)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=255, description="file name; its extension tells the media kind")
    content_base64: str = Field(min_length=1)


class PlanBody(BaseModel):
    """``POST /v1/plan``: the request and its files (local paths, or inline base64 files)."""

    model_config = ConfigDict(extra="forbid")

    request: str = Field(default="", max_length=MAX_REQUEST_CHARS)
    files: list[str | InlineFile] = Field(default_factory=list, max_length=32)


class AskBody(PlanBody):
    """``POST /v1/run`` and ``POST /v1/ask``: a request, optionally continuing a session."""

    session_id: str | None = Field(default=None, max_length=64)
    stream: bool = False


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["text"]
    text: str


class ImageURL(BaseModel):
    model_config = ConfigDict(extra="allow")
    url: str


class ImagePart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["image_url"]
    image_url: ImageURL


class InputAudio(BaseModel):
    model_config = ConfigDict(extra="allow")
    data: str
    format: str = "wav"


class AudioPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["input_audio"]
    input_audio: InputAudio


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: str | list[TextPart | ImagePart | AudioPart] | None = None


class ChatCompletionBody(BaseModel):
    """OpenAI's chat-completions body; unknown OpenAI parameters (temperature, ...) are accepted and
    ignored, since the assistant, not a sampler, decides the answer."""

    model_config = ConfigDict(extra="allow")

    model: str = "jarvis"
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    session_id: str | None = Field(default=None, max_length=64)
    user: str | None = None


def describe(error: ValidationError) -> str:
    """One readable line per problem: ``files.0: Input should be a valid string``."""
    lines = []
    for e in error.errors():
        where = ".".join(str(p) for p in e.get("loc", ())) or "body"
        lines.append(f"{where}: {e.get('msg', 'invalid')}")
    return "invalid request body: " + "; ".join(lines)


def error_list(error: ValidationError) -> list[dict[str, Any]]:
    """The pydantic errors, JSON-safe (their ``ctx`` may hold exception objects)."""
    return [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in error.errors()]
