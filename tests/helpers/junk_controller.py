"""A fake hosted controller: an OpenAI-compatible HTTP server on 127.0.0.1 that answers badly.

No hosted LLM can be reached here, and a real one seldom misbehaves on cue; this server does, on
purpose. The model name in each request picks the failure (``JARVIS_LLM_MODEL=junk-prose``), so
one server serves any number of processes and faces at once; model ``junk-current`` gets the
server's ``mode``, for a long-lived client (a REST server, a window) cycled through the modes. A call with ``response_format`` (a
plan or a model choice) gets the mode's planning reply, any other call its answer reply; the
``*-answer`` modes plan well and answer badly.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Seconds a ``slow`` reply waits: past the ``llm_timeout`` the fault tests set (2 s).
SLOW_SECONDS = 6.0

_CAPTION_PLAN = [{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "photo.png"}}]


def _huge_plan() -> str:
    tasks = [{"task": "text-to-speech", "id": i, "dep": [i - 1] if i else [-1], "args": {"text": f"word {i} " * 20}}
             for i in range(3000)]
    return json.dumps(tasks)


#: failure mode -> (planning reply, answer reply)
TEXT_MODES: dict[str, tuple[str, str]] = {
    "malformed-json": ('[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": ', '{"answer": "the ca'),
    "prose": ("Sure! I would be happy to help you with that. Let me know what else you need.",
              "Sure! I would be happy to help you with that. Let me know what else you need."),
    "empty": ("", ""),
    "null": ("null", "null"),
    "nul-bytes": ("\x00\x00\x00[\x00]\x00", "\x00\x00\x00\x00\x00\x00\x00\x00"),
    "huge-plan": (_huge_plan(), _huge_plan()),
    "cycle": (json.dumps([
        {"task": "image-to-text", "id": 0, "dep": [1], "args": {"image": "<GENERATED>-1"}},
        {"task": "text-to-image", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}},
    ]), json.dumps([{"task": "text-to-image", "id": 0, "dep": [0], "args": {"text": "x"}}])),
    "unknown-task": (json.dumps([{"task": "teleportation", "id": 0, "dep": [-1], "args": {"place": "Mars"}}]),
                     json.dumps([{"task": "teleportation", "id": 0, "dep": [-1], "args": {}}])),
    "unrelated-plan": (json.dumps([{"task": "text-to-speech", "id": 0, "dep": [-1], "args": {"text": "hello"}}]),
                       "I read the text aloud for you."),
    "plan-as-answer": (json.dumps(_CAPTION_PLAN), json.dumps(_CAPTION_PLAN)),
    "null-answer": (json.dumps(_CAPTION_PLAN), "null"),
    "empty-answer": (json.dumps(_CAPTION_PLAN), ""),
}

#: failure modes at the HTTP level: (status, headers) or a named behaviour.
HTTP_MODES: dict[str, Any] = {
    "http-429": (429, {}),
    "http-429-retry-after": (429, {"Retry-After": "1"}),
    "http-500": (500, {}),
    "http-500-retry-after": (500, {"Retry-After": "1"}),
    "slow": "slow",
    "slow-answer": "slow-answer",
    "reset": "reset",
    "reset-mid-stream": "reset-mid-stream",
    "not-json-body": "not-json-body",
    "null-content": "null-content",
}

MODES = [*TEXT_MODES, *HTTP_MODES]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "JunkControllerServer"

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the tests read their own logs
        pass

    def do_GET(self) -> None:
        self._json(200, {"object": "list", "data": [{"id": f"junk-{m}", "object": "model"} for m in MODES]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        mode = str(body.get("model", "")).removeprefix("junk-")
        if mode == "current":  # one long-lived client (a server, a window) cycled through the modes
            mode = self.server.mode
        stream = bool(body.get("stream"))
        planning = "response_format" in body
        with self.server.lock:
            self.server.calls.append((mode, "plan" if planning else "answer", stream))
        try:
            if mode in HTTP_MODES:
                return self._http_fault(mode, stream, planning)
            text_plan, text_answer = TEXT_MODES.get(mode, ("I do not know that failure mode.",) * 2)
            text = text_plan if planning else text_answer
            if stream:
                self._stream(text)
            else:
                self._json(200, _completion(text))
        except OSError:  # the client gave up (a timeout): nothing to tell it
            self.close_connection = True

    # -- replies -------------------------------------------------------------------------------
    def _json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, text: str, cut_after: int | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces = [text[i:i + 8] for i in range(0, len(text), 8)] or [""]
        for n, piece in enumerate(pieces):
            if cut_after is not None and n == cut_after:
                return self._reset()
            chunk = {"id": "junk", "object": "chat.completion.chunk", "created": 0, "model": "junk",
                     "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            self._chunk(f"data: {json.dumps(chunk)}\n\n".encode())
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _reset(self) -> None:
        """Close with a TCP RST (SO_LINGER 0), as a crashed proxy does."""
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def _http_fault(self, mode: str, stream: bool, planning: bool) -> None:
        fault = HTTP_MODES[mode]
        if isinstance(fault, tuple):
            status, headers = fault
            return self._json(status, {"error": {"message": f"junk controller: {mode}", "type": "server_error"}}, headers)
        if fault == "slow" or (fault == "slow-answer" and not planning):
            time.sleep(SLOW_SECONDS)
            self._json(200, _completion("Too late."))
        elif fault == "slow-answer":  # plans at once; the answer is the slow part
            self._json(200, _completion(json.dumps(_CAPTION_PLAN)))
        elif fault == "reset":
            self._reset()
        elif fault == "reset-mid-stream":
            if stream:
                self._stream("The answer starts here and then the connection breaks off.", cut_after=2)
            else:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "500")
                self.end_headers()
                self.wfile.write(b'{"id": "junk", "choices": [{"index": 0, "mess')
                self._reset()
        elif fault == "not-json-body":
            data = b"<html><body>502 Bad Gateway</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif fault == "null-content":
            if stream:
                self._stream("")
            else:
                self._json(200, {"id": "junk", "object": "chat.completion", "created": 0, "model": "junk",
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": None},
                                              "finish_reason": "stop"}]})


def _completion(text: str) -> dict[str, Any]:
    return {"id": "junk", "object": "chat.completion", "created": 0, "model": "junk",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


class JunkControllerServer(ThreadingHTTPServer):
    """``with JunkControllerServer() as s: s.base_url`` serves on a free 127.0.0.1 port."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.calls: list[tuple[str, str, bool]] = []
        self.mode = "prose"  # what model "junk-current" gets
        self.lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> "JunkControllerServer":
        self._thread = threading.Thread(target=self.serve_forever, name="junk-controller", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()


def main() -> None:
    """``python tests/helpers/junk_controller.py``: serve until interrupted (for trying by hand)."""
    with JunkControllerServer() as s:
        print(f"junk controller at {s.base_url}; modes: {', '.join(MODES)}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
