"""Hosted fallback through huggingface_hub.InferenceClient, against a fake inference server on
127.0.0.1 (the real hosted service cannot be reached from tests). The fake answers in the wire
format of Hugging Face's inference API; each test scripts its replies."""

from __future__ import annotations

import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PIL import Image

from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import ExpertError, ModelMissingError, RunContext
from jarvis_desktop.experts.defaults import backend, build_registry
from jarvis_desktop.experts.hosted import HostedBackend, HostedUnavailable


class FakeInferenceServer:
    """A stand-in for hosted inference: replies from a script, records every request."""

    def __init__(self):
        self.script: list[tuple[int, object, dict]] = []
        self.requests: list[dict] = []
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fake.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if fake.delay:
                    time.sleep(fake.delay)
                status, payload, headers = fake.script.pop(0) if fake.script else (500, {"error": "unscripted"}, {})
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                ctype = headers.pop("Content-Type", "application/json" if not isinstance(payload, bytes) else "image/png")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def reply(self, status: int, payload: object, **headers: str) -> None:
        self.script.append((status, payload, dict(headers)))

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake(monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # conftest makes the Hub offline for model loading
    server = FakeInferenceServer()
    yield server
    server.close()


def settings_for(fake: FakeInferenceServer, tmp_path: Path, **kw) -> Settings:
    base = dict(inference_mode="hybrid", offline=False, hf_token="hf_faketoken", hosted_base_url=fake.url,
                model_cache=str(tmp_path / "empty_cache"), task_timeout=5.0)
    base.update(kw)
    return Settings(**base)


@pytest.fixture
def ctx(tmp_path):
    return RunContext(tmp_path / "out", task_id=7)


def quick(reg_or_backend):
    b = reg_or_backend if isinstance(reg_or_backend, HostedBackend) else backend(reg_or_backend, "hosted")
    b.backoff = 0.01
    return b


def _png(color=(200, 30, 30), size=(24, 16)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def test_missing_local_model_falls_back_to_hosted(fake, tmp_path, ctx):
    reg = build_registry(settings_for(fake, tmp_path))
    quick(reg)
    fake.reply(200, [[{"label": "POSITIVE", "score": 0.98}, {"label": "NEGATIVE", "score": 0.02}]])
    assert reg.find("text-classification", "distilbert/sst2").where == "hosted"
    out = reg.run("text-classification", "distilbert/sst2", {"text": "I love it"}, ctx)
    assert out.where == "hosted" and out.model_id == "distilbert/sst2"
    assert out.text == "POSITIVE (0.98)" and out.data["labels"][1]["label"] == "NEGATIVE"
    req = fake.requests[0]
    assert json.loads(req["body"])["inputs"] == "I love it"
    assert req["headers"]["authorization"] == "Bearer hf_faketoken"


def test_busy_server_is_retried_with_backoff(fake, tmp_path, ctx):
    b = quick(HostedBackend(settings_for(fake, tmp_path), retries=3))
    fake.reply(503, {"error": "Model is loading"}, **{"Retry-After": "0.05"})
    fake.reply(429, {"error": "rate limited"})
    fake.reply(200, [{"summary_text": "Short."}])
    t0 = time.perf_counter()
    out = b.run("summarization", "org/summ", {"text": "long text " * 20}, ctx)
    assert out.text == "Short." and len(fake.requests) == 3
    assert time.perf_counter() - t0 >= 0.05  # Retry-After was honoured


def test_still_busy_after_retries_is_a_clear_message(fake, tmp_path, ctx):
    b = quick(HostedBackend(settings_for(fake, tmp_path), retries=2))
    for _ in range(3):
        fake.reply(503, {"error": "Model is loading"})
    with pytest.raises(HostedUnavailable) as e:
        b.run("summarization", "org/summ", {"text": "x"}, ctx)
    assert len(fake.requests) == 3
    msg = str(e.value)
    assert "busy or loading (HTTP 503) after 3 tries" in msg and "jarvis models pull org/summ" in msg


@pytest.mark.parametrize("status,expected", [(404, "not available on hosted inference"), (401, "valid HF_TOKEN"),
                                             (500, "hosted inference failed")])
def test_http_errors_are_one_sentence_without_retries(fake, tmp_path, ctx, status, expected):
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(status, {"error": "nope"})
    with pytest.raises(HostedUnavailable, match=expected):
        b.run("text-classification", "org/m", {"text": "x"}, ctx)
    assert len(fake.requests) == 1


def test_timeout(fake, tmp_path, ctx):
    b = quick(HostedBackend(settings_for(fake, tmp_path, task_timeout=0.3)))
    fake.delay = 1.0
    fake.reply(200, [[{"label": "late", "score": 1.0}]])
    with pytest.raises(HostedUnavailable, match="did not answer in time"):
        b.run("text-classification", "org/m", {"text": "x"}, ctx)


def test_unreachable_server(tmp_path, ctx, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    b = HostedBackend(Settings(inference_mode="hosted", hosted_base_url=f"http://127.0.0.1:{port}"), retries=0)
    with pytest.raises(HostedUnavailable, match="cannot reach hosted inference"):
        b.run("text-classification", "org/m", {"text": "x"}, ctx)


def test_offline_or_local_mode_never_goes_hosted(fake, tmp_path, ctx):
    for s in (settings_for(fake, tmp_path, offline=True), settings_for(fake, tmp_path, inference_mode="local")):
        reg = build_registry(s)
        assert reg.find("text-classification", "org/m") is None
        with pytest.raises(ModelMissingError, match="jarvis models pull org/m"):
            reg.run("text-classification", "org/m", {"text": "x"}, ctx)
    assert fake.requests == []


def test_hf_hub_offline_environment_blocks_hosted(tmp_path, ctx):
    # conftest sets HF_HUB_OFFLINE=1: the Hub client would refuse, so the model counts as missing
    reg = build_registry(Settings(inference_mode="hybrid", offline=False, model_cache=str(tmp_path / "c")))
    assert reg.find("text-classification", "org/m") is None


def test_text_to_image_saves_the_picture(fake, tmp_path, ctx):
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(200, _png())
    out = b.run("text-to-image", "org/sd", {"text": "a red square"}, ctx)
    assert out.image.name == "task7-image.png" and Image.open(out.image).size == (24, 16)
    assert out.where == "hosted"


def test_object_detection_draws_boxes(fake, tmp_path, ctx):
    photo = tmp_path / "photo.png"
    Image.new("RGB", (64, 48), "white").save(photo)
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(200, [{"label": "cat", "score": 0.9, "box": {"xmin": 5, "ymin": 6, "xmax": 30, "ymax": 40}}])
    out = b.run("object-detection", "org/detr", {"image": str(photo)}, ctx)
    assert out.data["objects"][0]["box"] == {"xmin": 5, "ymin": 6, "xmax": 30, "ymax": 40}
    im = np.asarray(Image.open(out.image))
    assert im.shape == (48, 64, 3) and (im[6:40, 5] != 255).any()  # the box edge is drawn
    assert fake.requests[0]["body"]  # the image went up (as base64 JSON or raw bytes)


def test_speech_recognition_uploads_the_audio(fake, tmp_path, ctx):
    wav = tmp_path / "a.wav"
    sf.write(wav, np.sin(np.arange(8000) / 5).astype("float32") * 0.3, 16000)
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(200, {"text": " hello there "})
    out = b.run("automatic-speech-recognition", "openai/whisper-small", {"audio": str(wav)}, ctx)
    assert out.text == "hello there"


def test_tabular_classification_sends_the_csv_as_a_table(fake, tmp_path, ctx):
    csv = tmp_path / "wine.csv"
    csv.write_text("alcohol,acidity\n12.5,0.3\n13.1,0.5\n")
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(200, ["red", "white"])
    out = b.run("tabular-classification", "org/wine", {"image": str(csv)}, ctx)
    assert out.data["predictions"] == ["red", "white"]
    sent = json.loads(fake.requests[0]["body"])
    assert sent["table"] == {"alcohol": ["12.5", "13.1"], "acidity": ["0.3", "0.5"]}


def test_tabular_classification_sends_a_workbooks_first_sheet_as_a_table(fake, tmp_path, ctx):
    from openpyxl import Workbook

    wb = Workbook()
    wb.active.title = "empty"
    sheet = wb.create_sheet("wine")
    for row in (["alcohol", "acidity"], [12.5, 0.3], [13, 0.5]):
        sheet.append(row)
    wb.save(tmp_path / "wine.xlsx")
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(200, ["red", "white"])
    b.run("tabular-classification", "org/wine", {"image": str(tmp_path / "wine.xlsx")}, ctx)
    sent = json.loads(fake.requests[0]["body"])
    assert sent["table"] == {"alcohol": ["12.5", "13"], "acidity": ["0.3", "0.5"]}


def test_bad_image_is_refused_before_upload(fake, tmp_path, ctx):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not an image")
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    with pytest.raises(ExpertError, match=r"bad\.png: not a readable image"):
        b.run("image-classification", "org/vit", {"image": str(bad)}, ctx)
    assert fake.requests == []


def test_control_maps_never_go_hosted(fake, tmp_path):
    b = HostedBackend(settings_for(fake, tmp_path))
    assert b.where("canny-control", "lllyasviel/ControlNet") is None
    assert b.where("depth-estimation", "Intel/dpt-large") is None
    assert b.models("text-classification") == [] and b.hosted is True


def test_an_incomplete_local_copy_falls_back_to_hosted(fake, tmp_path, ctx):
    from helpers.tiny_models import image_classifier, put_in_cache

    src = tmp_path / "src"
    src.mkdir()
    image_classifier(src)
    settings = settings_for(fake, tmp_path)
    snap = put_in_cache(settings.model_cache_path, "google/vit-base-patch16-224", src)
    (snap / "model.safetensors").unlink()  # an interrupted pull
    photo = tmp_path / "photo.png"
    Image.new("RGB", (32, 32), "green").save(photo)
    reg = build_registry(settings)
    quick(reg)
    assert [r.where for r in reg.runnables("image-classification", "google/vit-base-patch16-224")] == ["local-cpu", "hosted"]
    fake.reply(200, [{"label": "lawn", "score": 0.7}])
    out = reg.run("image-classification", "google/vit-base-patch16-224", {"image": str(photo)}, ctx)
    assert out.where == "hosted" and out.text == "lawn (0.70)"


def test_conversational_uses_the_chat_route_of_your_own_server(fake, tmp_path, ctx):
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(200, {"id": "1", "object": "chat.completion", "created": 0, "model": "tgi",
                     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi! How can I help?"}}],
                     "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}})
    out = b.run("conversational", "HuggingFaceTB/SmolLM2-1.7B-Instruct", {"text": "hello"}, ctx)
    assert out.text == "Hi! How can I help?" and out.where == "hosted"
    req = fake.requests[0]
    assert req["path"].endswith("/chat/completions")
    assert json.loads(req["body"])["messages"] == [{"role": "user", "content": "hello"}]


def test_a_malformed_answer_is_a_clear_error(fake, tmp_path, ctx):
    b = quick(HostedBackend(settings_for(fake, tmp_path)))
    fake.reply(200, {"unexpected": True})
    with pytest.raises(HostedUnavailable, match="hosted model 'org/m' gave an unusable answer"):
        b.run("summarization", "org/m", {"text": "x"}, ctx)
