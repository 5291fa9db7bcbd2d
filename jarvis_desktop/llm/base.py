"""The controller interface: one ``chat`` call that every language model behind JARVIS answers."""

from __future__ import annotations

from typing import Any, Iterator, Protocol, runtime_checkable

Message = dict[str, str]


class ControllerError(RuntimeError):
    """The controller could not answer; the message says, in one line, what to fix."""


@runtime_checkable
class Controller(Protocol):
    #: a short label for logs and the answer ("gpt-4o-mini at api.openai.com")
    name: str
    #: True for tiny embedded models that cannot plan or summarise faithfully
    tiny: bool
    #: tokens the model can read; the planner fits recent chat into it
    context_tokens: int

    def chat(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        stream: bool = False,
        max_tokens: int | None = None,
        temperature: float = 0.0,
    ) -> str | Iterator[str]:
        """The reply text, or an iterator of text pieces when ``stream`` is True."""
        ...
