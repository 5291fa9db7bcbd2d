"""The REST server as clients see it: a real ``jarvis serve`` process on 127.0.0.1, real HTTP.

Requests use what runs offline here: the offline planner (an empty plan for "hello"), and the
shipped experts (faster-whisper tiny.en for a WAV spoken by espeak-ng, piper for speech).
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import httpx
import fastapi  # noqa: F401  (make setup installs it: missing is a failure)
import uvicorn  # noqa: F401  (make setup installs it: missing is a failure)
from helpers.ports import free_port as _free_port

TOKEN = "test-token-5f2c"
MAX_UPLOAD_MB = 1
JARVIS = [sys.executable, "-m", "jarvis_desktop"]


def _env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("config", "data", "model_cache"):
        (root / name).mkdir(parents=True, exist_ok=True)
    env.update(JARVIS_CONFIG_DIR=str(root / "config"), JARVIS_DATA_DIR=str(root / "data"),
               JARVIS_MODEL_CACHE=str(root / "model_cache"), JARVIS_OFFLINE="1", HF_HUB_OFFLINE="1")
    env.pop("JARVIS_SERVER_TOKEN", None)
    return env


class Server:
    def __init__(self, root: Path, url: str, proc: subprocess.Popen, port: int):
        self.root, self.url, self.proc, self.port = root, url, proc, port
        self.data = root / "data"

    def client(self, token: str | None = TOKEN, timeout: float = 180) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    def raw_get(self, path: str) -> tuple[int, bytes]:
        """A GET with the path sent exactly as given (httpx would normalise '..' away)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, body


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("server")
    port = _free_port()
    log = (root / "server.log").open("w")
    proc = subprocess.Popen(
        JARVIS + ["serve", "--port", str(port), "--token", TOKEN, "--max-upload-mb", str(MAX_UPLOAD_MB)],
        env=_env(root), cwd=root, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            pytest.fail(f"jarvis serve exited with {proc.returncode}:\n{(root / 'server.log').read_text()}")
        try:
            if httpx.get(f"{url}/v1/models", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"jarvis serve did not start:\n{(root / 'server.log').read_text()}")
        time.sleep(0.2)
    yield Server(root, url, proc, port)
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory) -> Path:
    assert shutil.which("espeak-ng"), "espeak-ng is missing: make setup installs it (make system-deps)"
    path = tmp_path_factory.mktemp("audio") / "request.wav"
    subprocess.run(["espeak-ng", "-w", str(path), "the weather is lovely today"], check=True)
    return path


def _events(text: str) -> list[tuple[str, dict]]:
    """Server-sent events as (event name, JSON data)."""
    out = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        name, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        out.append((name, json.loads("\n".join(data))))
    return out


# -- stage 1: the plan -------------------------------------------------------------------------

def test_plan_with_a_local_path(server, speech_wav):
    with server.client() as c:
        r = c.post("/v1/plan", json={"request": "transcribe this recording", "files": [str(speech_wav)]})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["ok"] and d["source"] == "offline"
    assert [t["task"] for t in d["plan"]] == ["automatic-speech-recognition"]
    assert d["plan"][0]["args"]["audio"] == str(speech_wav)
    assert d["plan"][0]["dep"] == [-1]


def test_plan_with_a_multipart_upload(server, speech_wav):
    with server.client() as c, speech_wav.open("rb") as f:
        r = c.post("/v1/plan", data={"request": "transcribe this recording"},
                   files={"files": ("my talk.wav", f, "audio/wav")})
    assert r.status_code == 200, r.text
    audio = Path(r.json()["plan"][0]["args"]["audio"])
    uploads = (server.data / "uploads").resolve()
    assert audio.resolve().parent.parent == uploads  # a folder of its own under data/uploads
    assert audio.name == "my_talk.wav"
    assert audio.read_bytes() == speech_wav.read_bytes()


def test_plan_with_an_inline_base64_file(server, speech_wav):
    payload = base64.b64encode(speech_wav.read_bytes()).decode()
    with server.client() as c:
        r = c.post("/v1/plan", json={"request": "transcribe this recording",
                                     "files": [{"name": "../../escape.wav", "content_base64": payload}]})
    assert r.status_code == 200, r.text
    saved = Path(r.json()["files"][0])
    assert saved.name == "escape.wav" and saved.resolve().is_relative_to((server.data / "uploads").resolve())
    assert saved.read_bytes() == speech_wav.read_bytes()


# -- stages 1-3 and 1-4 ------------------------------------------------------------------------

def test_run_returns_plan_models_and_results_without_an_answer(server, speech_wav):
    with server.client() as c, speech_wav.open("rb") as f:
        r = c.post("/v1/run", data={"request": "transcribe this recording"}, files={"files": ("talk.wav", f)})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["status"] == "done" and d["answer"] == ""
    assert d["models"]["0"]["task"] == "automatic-speech-recognition"
    assert "whisper" in d["models"]["0"]["model"].lower()
    result = d["results"]["0"]
    assert result["status"] == "done"
    assert "weather" in result["text"].lower() or "today" in result["text"].lower(), result["text"]


def test_ask_answers_plain_requests(server):
    with server.client() as c:
        r = c.post("/v1/ask", json={"request": "hello"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["status"] == "done" and d["plan"] == [] and d["answer"]


def test_ask_streams_pipeline_events_and_serves_the_output(server):
    with server.client() as c:
        with c.stream("POST", "/v1/ask", json={"request": 'convert this text to speech: "good morning"',
                                               "stream": True}) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            text = "".join(r.iter_text())
        events = _events(text)
        names = [n for n, _ in events]
        for kind in ("RequestStarted", "PlanReady", "ModelChosen", "TaskStarted", "TaskFinished", "AnswerToken",
                     "AnswerDone"):
            assert kind in names, names
        assert names[-1] == "result"
        assert names.index("PlanReady") < names.index("TaskStarted") < names.index("TaskFinished") < names.index("AnswerDone")
        tokens = "".join(d["text"] for n, d in events if n == "AnswerToken")
        result = events[-1][1]
        assert tokens == result["answer"] == next(d["text"] for n, d in events if n == "AnswerDone")
        assert result["results"]["0"]["task"] == "text-to-speech" and result["results"]["0"]["status"] == "done"
        url = result["outputs"][0]["url"]
        assert url.startswith(f"/v1/outputs/{result['session_id']}/")
        audio = c.get(url)
    assert audio.status_code == 200
    assert audio.content[:4] == b"RIFF"
    assert audio.content == Path(result["outputs"][0]["path"]).read_bytes()


def test_a_client_leaving_a_stream_cancels_its_request(server, speech_wav):
    with server.client() as c:
        sid = c.post("/v1/ask", json={"request": "hello"}).json()["session_id"]
        with c.stream("POST", "/v1/ask", json={"request": "transcribe this recording", "files": [str(speech_wav)],
                                               "session_id": sid, "stream": True}) as r:
            for line in r.iter_lines():
                if line.startswith("event: TaskStarted"):
                    break  # leave while the recording is being transcribed
        status = "running"
        for _ in range(300):
            requests = c.get(f"/v1/sessions/{sid}").json()["requests"]
            status = requests[-1]["status"] if len(requests) == 2 else "running"
            if status != "running":
                break
            time.sleep(0.2)
    assert status == "cancelled"
    assert requests[-1]["error"].startswith("cancelled during")


# -- the session log ---------------------------------------------------------------------------

def test_sessions_list_and_detail(server):
    with server.client() as c:
        first = c.post("/v1/ask", json={"request": "hello there"}).json()
        again = c.post("/v1/ask", json={"request": "hello again", "session_id": first["session_id"]}).json()
        assert again["session_id"] == first["session_id"]
        listed = c.get("/v1/sessions").json()["sessions"]
        detail = c.get(f"/v1/sessions/{first['session_id']}")
        missing = c.get("/v1/sessions/no-such-session")
        found = c.get("/v1/sessions", params={"q": "again"}).json()["sessions"]
    assert first["session_id"] in [s["id"] for s in listed]
    assert detail.status_code == 200
    texts = [m["text"] for m in detail.json()["messages"]]
    assert "hello there" in texts and "hello again" in texts
    assert len(detail.json()["requests"]) == 2
    assert missing.status_code == 404 and "no-such-session" in missing.json()["error"]["message"]
    assert first["session_id"] in [s["id"] for s in found]


# -- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("body, needle", [
    ({"request": 5}, "request"),
    ({"request": "hi", "bogus": 1}, "bogus"),
    ({"request": "hi", "files": [3]}, "files"),
    ({"request": ""}, "empty"),
    ({"request": "transcribe this", "files": ["/nonexistent/talk.wav"]}, "not found"),
    ({"request": "hi", "stream": "maybe"}, "stream"),
    ([1, 2], "JSON object"),
])
def test_bad_bodies_get_422_with_a_message(server, body, needle):
    with server.client() as c:
        r = c.post("/v1/ask", json=body)
    assert r.status_code == 422, r.text
    message = r.json()["error"]["message"]
    assert needle in message, message


def test_a_refused_multipart_request_keeps_no_upload(server, speech_wav):
    uploads = server.data / "uploads"
    before = set(uploads.rglob("*")) if uploads.exists() else set()
    with server.client() as c, speech_wav.open("rb") as f:
        r = c.post("/v1/ask", data={"request": "transcribe this", "stream": "perhaps"},
                   files={"files": ("kept.wav", f, "audio/wav")})
        wrong_kind = c.post("/v1/plan", data={"request": "read this"},
                            files={"files": ("notes.exe", b"MZ...", "application/octet-stream")})
    assert r.status_code == 422 and "stream" in r.json()["error"]["message"]
    assert wrong_kind.status_code == 422 and "unsupported file type" in wrong_kind.json()["error"]["message"]
    after = set(uploads.rglob("*")) if uploads.exists() else set()
    assert not [p for p in after - before if p.is_file()]


def test_invalid_json_and_wrong_content_type(server):
    with server.client() as c:
        bad_json = c.post("/v1/plan", content=b"{not json", headers={"content-type": "application/json"})
        wrong_type = c.post("/v1/plan", content=b"hello", headers={"content-type": "text/plain"})
        no_user = c.post("/v1/chat/completions", json={"model": "jarvis", "messages": [{"role": "system", "content": "x"}]})
    assert bad_json.status_code == 422 and "not valid JSON" in bad_json.json()["error"]["message"]
    assert wrong_type.status_code == 415
    assert no_user.status_code == 422 and "user" in no_user.json()["error"]["message"]


def test_an_upload_over_the_limit_gets_413(server):
    big = os.urandom(MAX_UPLOAD_MB * 1024 * 1024 + 4096)
    before = {p for p in (server.data / "uploads").rglob("*")} if (server.data / "uploads").exists() else set()
    with server.client() as c:
        r = c.post("/v1/plan", data={"request": "transcribe this"}, files={"files": ("huge.wav", big, "audio/wav")})
        inline = c.post("/v1/plan", json={"request": "x", "files": [{"name": "a.wav",
                                                                        "content_base64": base64.b64encode(big).decode()}]})
    assert r.status_code == 413 and "limit" in r.json()["error"]["message"]
    assert inline.status_code == 413
    chunked = _post_chunked(server, "/v1/plan", [b'{"request": "x", "files": [{"name": "a.wav", "content_base64": "']
                            + [b"A" * 65536] * (MAX_UPLOAD_MB * 16 + 4) + [b'"}]}'])
    assert chunked == 413  # no Content-Length: the limit is counted as the body streams in
    after = {p for p in (server.data / "uploads").rglob("*")} if (server.data / "uploads").exists() else set()
    assert not [p for p in after - before if p.name.startswith("huge")]


def _post_chunked(server, path: str, chunks: list[bytes]) -> int:
    """POST with Transfer-Encoding: chunked (no Content-Length); the response status."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    conn.putrequest("POST", path)
    conn.putheader("Authorization", f"Bearer {TOKEN}")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    try:
        for chunk in chunks:
            conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        conn.send(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server answered and closed before the whole body was sent
    status = conn.getresponse().status
    conn.close()
    return status


def test_outputs_serve_only_what_a_session_produced(server):
    outputs = server.data / "outputs"
    with server.client() as c:
        produced = c.post("/v1/ask", json={"request": 'convert this text to speech: "hello"'}).json()
    url = produced["outputs"][0]["url"]
    sid = produced["session_id"]
    # A file that is in the session's folder but was not produced by it, and a link out of the folder.
    (outputs / sid / "planted.txt").write_text("not an output")
    (outputs / sid / "link.db").symlink_to(server.data / "sessions.db")
    refused = [
        "/v1/outputs/../sessions.db",
        "/v1/outputs/..%2Fsessions.db",
        "/v1/outputs/%2E%2E/sessions.db",
        f"/v1/outputs/{sid}/../../sessions.db",
        "/v1/outputs/%2Fetc%2Fpasswd",
        "/v1/outputs//etc/passwd",
        f"/v1/outputs/{sid}/planted.txt",
        f"/v1/outputs/{sid}/link.db",
        "/v1/outputs/" + url.split("/v1/outputs/")[1].replace(sid, "0" * 12),
    ]
    for path in refused:
        status, body = server.raw_get(path)
        assert status in (403, 404), (path, status)
        assert b"SQLite" not in body and b"root:" not in body and b"not an output" not in body
    status, body = server.raw_get(url)
    assert status == 200 and body[:4] == b"RIFF"


# -- access ------------------------------------------------------------------------------------

def test_a_wrong_or_missing_token_gets_401(server):
    for token in (None, "wrong-token"):
        with server.client(token=token) as c:
            for method, path in (("GET", "/v1/sessions"), ("POST", "/v1/ask"), ("GET", "/v1/outputs/x/y.wav"),
                                 ("POST", "/v1/chat/completions")):
                r = c.request(method, path, json={"request": "hello"})
                assert r.status_code == 401, (token, path, r.status_code)
                assert r.headers.get("www-authenticate") == "Bearer"
    with server.client() as c:
        assert c.get("/v1/sessions").status_code == 200


def test_a_foreign_host_header_is_refused(server):
    with server.client() as c:
        r = c.get("/v1/sessions", headers={"Host": "attacker.example"})
    assert r.status_code == 400


@pytest.mark.parametrize("args, needle", [
    (["--host", "0.0.0.0"], "--allow-remote"),
    (["--host", "0.0.0.0", "--allow-remote"], "token"),
])
def test_serve_refuses_other_addresses_without_flag_and_token(tmp_path, args, needle):
    r = subprocess.run(JARVIS + ["serve", "--port", str(_free_port())] + args, env=_env(tmp_path),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert needle in r.stderr


# -- many clients at once ----------------------------------------------------------------------

def test_twenty_concurrent_requests_complete(server, speech_wav):
    def one(i: int) -> dict:
        with server.client() as c:
            if i % 7 == 0:
                with speech_wav.open("rb") as f:
                    r = c.post("/v1/run", data={"request": "transcribe this recording"}, files={"files": ("a.wav", f)})
            elif i % 7 == 1:
                r = c.post("/v1/ask", json={"request": f'convert this text to speech: "number {i}"'})
            elif i % 7 == 2:
                r = c.post("/v1/plan", json={"request": "transcribe this recording", "files": [str(speech_wav)]})
            else:
                r = c.post("/v1/ask", json={"request": f"hello number {i}"})
        assert r.status_code == 200, r.text
        return {"i": i, **r.json()}

    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(one, range(20)))
    assert len(results) == 20
    asks = [r for r in results if r["i"] % 7 != 2]
    assert all(r["status"] == "done" for r in asks)
    assert len({r["request_id"] for r in asks}) == len(asks)
    transcripts = {r["results"]["0"]["text"] for r in results if r["i"] % 7 == 0}
    assert len(transcripts) == 1  # the shared model gave every client the same transcript
    for r in results:
        if r["i"] % 7 == 1:
            assert Path(r["outputs"][0]["path"]).is_file()


# -- OpenAI compatibility ----------------------------------------------------------------------

def test_the_openai_client_talks_to_chat_completions(server, speech_wav):
    import openai
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key=TOKEN, max_retries=0, timeout=180)
    assert "jarvis" in [m.id for m in client.models.list()]

    reply = client.chat.completions.create(model="jarvis", messages=[{"role": "user", "content": "hello"}])
    answer = reply.choices[0].message.content
    assert answer and reply.choices[0].finish_reason == "stop"
    session = reply.model_extra["jarvis"]["session_id"]

    stream = client.chat.completions.create(model="jarvis", messages=[{"role": "user", "content": "hello"}],
                                            stream=True, extra_body={"session_id": session})
    pieces, finish = [], None
    for chunk in stream:
        if chunk.choices:
            pieces.append(chunk.choices[0].delta.content or "")
            finish = chunk.choices[0].finish_reason or finish
    assert "".join(pieces) == answer and finish == "stop"

    wav = base64.b64encode(speech_wav.read_bytes()).decode()
    heard = client.chat.completions.create(model="jarvis", messages=[{"role": "user", "content": [
        {"type": "text", "text": "transcribe this recording"},
        {"type": "input_audio", "input_audio": {"data": wav, "format": "wav"}},
    ]}])
    extra = heard.model_extra["jarvis"]
    assert [t["task"] for t in extra["plan"]] == ["automatic-speech-recognition"]
    assert "whisper" in heard.choices[0].message.content.lower()

    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{server.url}/v1", api_key="wrong", max_retries=0).chat.completions.create(
            model="jarvis", messages=[{"role": "user", "content": "hello"}])
    with server.client() as c:
        detail = c.get(f"/v1/sessions/{session}").json()
    assert len(detail["requests"]) == 2  # the streamed call continued the first one's session
