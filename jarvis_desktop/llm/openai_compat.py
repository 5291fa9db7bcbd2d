"""A controller on any OpenAI-compatible endpoint: OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp.

Errors become one line that says what to fix (a bad key, an unknown model, an unreachable server);
the key itself never appears in a message or a log.
"""

from __future__ import annotations

import logging
from typing import Any, Iterator
from urllib.parse import urlparse

from .base import ControllerError, Message

log = logging.getLogger(__name__)


class OpenAICompatController:
    tiny = False

    def __init__(
        self,
        *,
        base_url: str = "",
        api_key: str = "",
        model: str = "gpt-4o-mini",
        timeout: float = 60.0,
        azure_endpoint: str = "",
        azure_api_version: str = "2024-06-01",
        azure_deployment: str = "",
        context_tokens: int = 16_000,
        max_retries: int = 1,
    ):
        import openai

        self.model = azure_deployment or model
        self.context_tokens = context_tokens
        self._schema_supported: bool | None = None
        if azure_endpoint:
            self.client = openai.AzureOpenAI(
                azure_endpoint=azure_endpoint,
                api_key=api_key or "missing",
                api_version=azure_api_version,
                timeout=timeout,
                max_retries=max_retries,
            )
            self.endpoint = azure_endpoint
        else:
            self.client = openai.OpenAI(
                base_url=base_url or None,
                api_key=api_key or "not-needed",
                timeout=timeout,
                max_retries=max_retries,
            )
            self.endpoint = base_url or "https://api.openai.com/v1"
        host = urlparse(self.endpoint).netloc or self.endpoint
        self.name = f"{self.model} at {host}"

    # ------------------------------------------------------------------------------------
    def chat(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        stream: bool = False,
        max_tokens: int | None = None,
        temperature: float = 0.0,
    ) -> str | Iterator[str]:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if json_schema is not None and self._schema_supported is not False:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "jarvis_output", "schema": json_schema},
            }
        if stream:
            return self._stream(kwargs)
        resp = self._create(kwargs)
        try:
            choices = resp.choices
            content = choices[0].message.content if choices else None
        except (AttributeError, IndexError, KeyError, TypeError):  # a body that is no chat completion
            raise ControllerError(f"{self.name} sent a reply that is not a chat completion. "
                                  "Check that the base URL points at an OpenAI-compatible /v1 endpoint.") from None
        if not choices:
            raise ControllerError(f"{self.name} returned no answer. Try again or choose another model.")
        return content if isinstance(content, str) else ""

    def _create(self, kwargs: dict[str, Any], stream: bool = False):
        import openai

        try:
            return self.client.chat.completions.create(stream=stream, **kwargs)
        except openai.BadRequestError as e:
            if "response_format" in kwargs:
                # Servers without structured output: remember it and ask again without a schema.
                log.info("%s rejected response_format (%s); retrying without a schema", self.name, _short(e))
                self._schema_supported = False
                kwargs = {k: v for k, v in kwargs.items() if k != "response_format"}
                return self._create(kwargs, stream)
            raise ControllerError(f"{self.name} rejected the request: {_short(e)}") from None
        except Exception as e:  # every other failure gets one actionable line
            raise ControllerError(explain_error(e, self.name)) from None

    def _stream(self, kwargs: dict[str, Any]) -> Iterator[str]:
        stream = self._create(kwargs, stream=True)
        try:
            for chunk in stream:
                choices = getattr(chunk, "choices", None)
                delta = getattr(choices[0], "delta", None) if choices else None
                content = getattr(delta, "content", None)
                if isinstance(content, str) and content:
                    yield content
        except GeneratorExit:
            raise
        except Exception as e:  # a reset connection or a broken event stream: one line, not a traceback
            raise ControllerError(explain_error(e, self.name)) from None


def _short(e: Exception) -> str:
    msg = getattr(e, "message", None) or str(e)
    return msg.splitlines()[0][:200] if msg else type(e).__name__


def explain_error(e: Exception, name: str) -> str:
    """One line that says what went wrong with the endpoint and what to change."""
    import openai

    if isinstance(e, openai.AuthenticationError):
        return f"{name}: the API key was refused. Set a valid key (OPENAI_API_KEY, or the key in Settings)."
    if isinstance(e, openai.PermissionDeniedError):
        return f"{name}: this key may not use that model. Check the key's permissions or choose another model."
    if isinstance(e, openai.RateLimitError):
        return f"{name}: rate limit or quota exceeded. Wait a minute, check your plan's quota, or use the offline planner."
    if isinstance(e, openai.NotFoundError):
        return f"{name}: model or endpoint not found. Check JARVIS_LLM_MODEL (or the Azure deployment) and the base URL."
    if isinstance(e, openai.APITimeoutError):
        return f"{name}: no answer in time. Check the server, or raise llm_timeout in the settings."
    if isinstance(e, openai.APIConnectionError):
        return f"{name}: cannot reach the endpoint. Is the server running and OPENAI_BASE_URL right? Or switch to offline mode."
    if isinstance(e, openai.APIStatusError):
        return f"{name}: the server answered with an error ({e.status_code}): {_short(e)}"
    if isinstance(e, ConnectionError) or type(e).__module__.split(".")[0] in ("httpx", "httpcore", "h11"):
        return f"{name}: the connection broke off ({type(e).__name__}). Try again, or check the server."
    if isinstance(e, (ValueError, openai.APIResponseValidationError)):
        return f"{name}: sent a reply that could not be read ({type(e).__name__}). Is it an OpenAI-compatible endpoint?"
    return f"{name}: {type(e).__name__}: {_short(e)}"
