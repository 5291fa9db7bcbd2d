"""The fault-injection harness shared by tests/test_faults*.py and bench/faults.py: one request,
"Read the text in photo.png" with a photo whose words the shipped OCR reads offline, sent through
each face of the app while the fake hosted controller (junk_controller.py) misbehaves.

Every case is judged the same way: the answer is truthful (not the controller's junk, says that
the language model failed, and reports the words the OCR really read), the session is saved
(request ended, user and assistant messages in the log), and no traceback reached a log or stderr.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .junk_controller import MODES
from .ports import free_port

REQUEST = "Read the text in photo.png"
WORDS = "SUNDAYS"
JARVIS = [sys.executable, "-m", "jarvis_desktop"]
FACES = ("CLI", "REST", "REST stream", "GUI worker")
#: The controller's timeout in every fault case: the ``slow`` mode answers after 6 s.
LLM_TIMEOUT = 2


@dataclass
class Outcome:
    fault: str
    face: str
    truthful: bool = False
    saved: bool = False
    tracebacks: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.truthful and self.saved and self.tracebacks == 0


def make_photo(path: Path) -> Path:
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (420, 90), "white")
    ImageDraw.Draw(im).text((10, 30), "OPEN ON SUNDAYS", fill="black", font_size=36)
    im.save(path)
    return path


def make_home(root: Path) -> dict[str, str]:
    """A private config/data/model-cache folder, offline, with a short controller timeout; the
    environment variables that point the app at it."""
    for name in ("config", "data", "model_cache"):
        (root / name).mkdir(parents=True, exist_ok=True)
    (root / "config" / "settings.toml").write_text(f"llm_timeout = {LLM_TIMEOUT}\n")
    return {"JARVIS_CONFIG_DIR": str(root / "config"), "JARVIS_DATA_DIR": str(root / "data"),
            "JARVIS_MODEL_CACHE": str(root / "model_cache"), "JARVIS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}


def clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "JARVIS_LLM_MODEL")}
    env.update(extra)
    return env


def judge_answer(answer: str) -> list[str]:
    """What is untruthful about an answer to REQUEST given while the controller misbehaved."""
    problems = []
    text = answer.strip()
    if not text:
        problems.append("empty answer")
    if '"task"' in text or text.lower() in ("null", "none") or "\x00" in text:
        problems.append("the controller's junk is the answer")
    if "happy to help" in text or "Too late" in text or "I read the text aloud" in text:
        problems.append("the controller's unrelated words are the answer")
    if "language model failed" not in text:
        problems.append("does not say the language model failed")
    if WORDS.lower() not in text.lower():
        problems.append("does not report what the OCR read")
    if text.count("cannot reach") > 1 or text.count("language model failed") > 1:
        problems.append("repeats the failure")
    return problems


def judge_saved(db_path: Path, request_id: str, answer: str) -> list[str]:
    """What is missing from the session log for one request."""
    if not request_id:
        return ["no request id"]
    db = sqlite3.connect(db_path)
    try:
        row = db.execute("select status, answer, session_id, text from requests where id = ?", [request_id]).fetchone()
        if row is None:
            return ["request not in the log"]
        problems = []
        status, saved_answer, sid, text = row
        if status not in ("done", "failed"):
            problems.append(f"request status {status}")
        if (saved_answer or "").strip() != answer.strip():
            problems.append("saved answer differs")
        roles = [r for (r,) in db.execute("select role from messages where request_id = ? order by id", [request_id])]
        if roles != ["user", "assistant"]:
            problems.append(f"messages {roles}")
        if db.execute("select count(*) from tasks where request_id = ? and status in ('running', 'waiting')",
                      [request_id]).fetchone()[0]:
            problems.append("a task left running")
        return problems
    finally:
        db.close()


def count_tracebacks(text: str) -> int:
    return text.count("Traceback (most recent call last)") + text.count("jarvis: unexpected error")


def _finish(outcome: Outcome, answer: str, db: Path, request_id: str, log_text: str) -> Outcome:
    answer_problems = judge_answer(answer)
    saved_problems = judge_saved(db, request_id, answer)
    outcome.truthful, outcome.saved = not answer_problems, not saved_problems
    outcome.tracebacks = count_tracebacks(log_text)
    outcome.problems = answer_problems + saved_problems + ([f"traceback: ...{log_text[-800:]}"] if outcome.tracebacks else [])
    if outcome.problems:
        outcome.problems.append(f"answer: {answer[:300]!r}")
    return outcome


# -- the faces -----------------------------------------------------------------------------------
def run_cli(mode: str, home: dict[str, str], photo: Path, junk_url: str, timeout: float = 240) -> Outcome:
    """``jarvis ask ... --json`` in a fresh process."""
    out = Outcome(mode, "CLI")
    env = clean_env({**home, "OPENAI_BASE_URL": junk_url, "JARVIS_LLM_MODEL": f"junk-{mode}"})
    t0 = time.perf_counter()
    proc = subprocess.run(JARVIS + ["ask", REQUEST, "--file", str(photo), "--json"], capture_output=True, text=True,
                          env=env, timeout=timeout)
    out.seconds = time.perf_counter() - t0
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        data = {}
        out.problems.append(f"no JSON on stdout (exit {proc.returncode})")
    _finish(out, data.get("answer", ""), Path(home["JARVIS_DATA_DIR"]) / "sessions.db", data.get("request_id", ""),
            proc.stderr)
    if proc.returncode not in (0, 1):
        out.truthful = False
        out.problems.insert(0, f"exit code {proc.returncode}")
    return out


class RestServer:
    """A real ``jarvis serve`` on 127.0.0.1 whose controller is the junk server's current mode."""

    def __init__(self, root: Path, junk_url: str):
        self.root = root
        self.home = make_home(root)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = root / "server.log"
        env = clean_env({**self.home, "OPENAI_BASE_URL": junk_url, "JARVIS_LLM_MODEL": "junk-current"})
        self._log = self.log_path.open("w")
        self.proc = subprocess.Popen(JARVIS + ["serve", "--port", str(self.port)], env=env, cwd=root,
                                     stdout=self._log, stderr=subprocess.STDOUT)
        self._wait()

    def _wait(self, seconds: float = 120) -> None:
        import httpx

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jarvis serve exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/v1/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise RuntimeError("jarvis serve did not start")

    @property
    def db(self) -> Path:
        return Path(self.home["JARVIS_DATA_DIR"]) / "sessions.db"

    def ask(self, mode: str, photo: Path, stream: bool, timeout: float = 240) -> Outcome:
        import httpx

        out = Outcome(mode, "REST stream" if stream else "REST")
        start = self.log_path.stat().st_size
        t0 = time.perf_counter()
        body = {"request": REQUEST, "files": [str(photo)], "stream": stream}
        data: dict[str, Any] = {}
        with httpx.Client(base_url=self.url, timeout=timeout) as client:
            if not stream:
                r = client.post("/v1/ask", json=body)
                if r.status_code == 200:
                    data = r.json()
                else:
                    out.problems.append(f"HTTP {r.status_code}")
            else:
                event = ""
                with client.stream("POST", "/v1/ask", json=body) as r:
                    for line in r.iter_lines():
                        if line.startswith("event: "):
                            event = line[7:]
                        elif line.startswith("data: ") and event == "result":
                            data = json.loads(line[6:])
                        elif line.startswith("data: ") and event == "error":
                            out.problems.append(f"error event {line[6:300]}")
        out.seconds = time.perf_counter() - t0
        with self.log_path.open() as f:
            f.seek(start)
            log_text = f.read()
        return _finish(out, data.get("answer", ""), self.db, data.get("request_id", ""), log_text)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(20)
        self._log.close()


class TracebackCounter(logging.Handler):
    """Counts log records that carry a traceback (``log.exception``) in this process."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or "Traceback" in record.getMessage():
            self.count += 1


def run_gui_worker(mode: str, assistant: Any, junk: Any, photo: Path, wait: Any) -> Outcome:
    """The window's RequestWorker (real Qt signals) on the shared assistant. ``wait(worker)`` runs
    the Qt event loop until ``finished`` (pytest-qt's waitSignal in tests, a QEventLoop in the
    benchmark) and returns the AskResult."""
    from jarvis_desktop.ui.workers import RequestWorker

    out = Outcome(mode, "GUI worker")
    junk.mode = mode
    counter = TracebackCounter()
    logging.getLogger().addHandler(counter)
    t0 = time.perf_counter()
    try:
        worker = RequestWorker(assistant, REQUEST, [str(photo)], None)
        result = wait(worker)
    finally:
        logging.getLogger().removeHandler(counter)
    out.seconds = time.perf_counter() - t0
    if result is None:
        out.problems.append("the worker crashed")
        return out
    return _finish(out, result.answer, Path(assistant.settings.db_path), result.request_id,
                   "Traceback (most recent call last)" * counter.count)


ALL_MODES = list(MODES)
