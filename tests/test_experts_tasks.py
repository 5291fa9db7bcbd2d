"""Every task type runs locally through the registry, from tiny random models in the Hugging Face
cache layout under a temporary model cache, with HF_HUB_OFFLINE=1 (set in conftest).

The weights are random, so outputs are checked for their kind and shape (an image that opens with
the right size, a WAV with samples, boxes with labels...), never for meaning. All tiny models are
built once per session (~10 s) and the whole file runs in about a minute on 2 cores.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import soundfile as sf
from PIL import Image

from helpers.tiny_models import tiny_model_cache, write_png_header
from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import ExpertError, ModelMissingError, RunContext, TaskOutput
from jarvis_desktop.experts.defaults import backend, build_registry
from jarvis_desktop.task_types import TASK_TYPES


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory) -> Path:
    return tiny_model_cache(tmp_path_factory.mktemp("tiny"))


def make_registry(cache: Path, **kw):
    """The registry a user gets, pointed at the tiny cache, local only, tuned to stay quick."""
    settings = Settings(offline=True, model_cache=str(cache), inference_mode="local", device="cpu", **kw)
    reg = build_registry(settings)
    tf = backend(reg, "transformers")
    tf.detection_threshold = 0.0  # random weights score low: keep every box
    tf.max_new_tokens = 8
    backend(reg, "control").max_new_tokens = 8
    df = backend(reg, "diffusers")
    df.steps, df.video_frames = 2, 3
    return reg


@pytest.fixture(scope="module")
def registry(tiny_cache):
    return make_registry(tiny_cache)


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("media")
    rng = np.random.RandomState(0)
    photo = d / "photo.png"
    Image.fromarray((rng.rand(48, 40, 3) * 255).astype("uint8")).save(photo)
    t = np.arange(16000) / 16000
    speech = d / "tone.wav"
    sf.write(speech, (0.3 * np.sin(2 * np.pi * 220 * t) + 0.02 * rng.randn(len(t))).astype("float32"), 16000)
    silent = d / "silent.wav"
    sf.write(silent, np.zeros(16000, dtype="float32"), 16000)
    from PIL import ImageDraw, ImageFont

    doc = Image.new("RGB", (360, 120), "white")
    ImageDraw.Draw(doc).text((10, 30), "Invoice total 42", fill="black", font=ImageFont.load_default(size=30))
    doc.save(d / "invoice.png")
    corrupt = d / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 truncated jpeg")
    huge = write_png_header(d / "huge.png", 10_000, 9_000)
    return {"photo": str(photo), "speech": str(speech), "silent": str(silent), "invoice": str(d / "invoice.png"),
            "corrupt": str(corrupt), "huge": str(huge), "dir": str(d)}


@pytest.fixture
def ctx(tmp_path):
    return RunContext(tmp_path / "outputs", task_id=3)


# --- output checks -----------------------------------------------------------------------
def text_out(out: TaskOutput, *keys: str) -> None:
    assert isinstance(out.text, str) and out.text.strip()
    for k in keys:
        assert k in out.data, (k, out.data)


def image_out(size: tuple[int, int] | None = None, key: str | None = None) -> Callable[[TaskOutput], None]:
    def check(out: TaskOutput) -> None:
        assert out.image is not None and out.image.is_file() and out.image.parent.name == "outputs"
        assert out.image.name.startswith("task3-")
        with Image.open(out.image) as im:
            im.load()
            assert im.mode == "RGB"
            if size:
                assert im.size == size
        if key:
            assert key in out.data

    return check


def audio_out(out: TaskOutput) -> None:
    assert out.audio is not None and out.audio.suffix == ".wav"
    data, rate = sf.read(out.audio)
    assert rate == 16000 and len(data) > 0 and np.isfinite(data).all()


def video_out(out: TaskOutput) -> None:
    assert out.video is not None and out.video.is_file()
    import av

    with av.open(str(out.video)) as c:
        frames = sum(1 for _ in c.decode(video=0))
    assert frames == out.data["frames"] == 3


def boxes(out: TaskOutput) -> None:
    image_out((40, 48))(out)
    objs = out.data["objects"]
    assert objs and all(o["label"] in ("cat", "dog") and set(o["box"]) == {"xmin", "ymin", "xmax", "ymax"} for o in objs)
    assert all(0 <= o["score"] <= 1 for o in objs)


def segments(out: TaskOutput) -> None:
    image_out((40, 48))(out)
    segs = out.data["segments"]
    assert segs and {s["label"] for s in segs} <= {"wall", "sky", "person"}
    assert abs(sum(s["area"] for s in segs) - 1.0) < 0.02  # semantic masks tile the image


def labels(*allowed: str) -> Callable[[TaskOutput], None]:
    def check(out: TaskOutput) -> None:
        text_out(out, "labels")
        assert {x["label"] for x in out.data["labels"]} <= set(allowed)

    return check


def similarity(out: TaskOutput) -> None:
    text_out(out, "similarity")
    assert -1.0 <= out.data["similarity"] <= 1.0


def generated(out: TaskOutput) -> None:
    text_out(out, "generated_text")


def answer_span(out: TaskOutput) -> None:
    text_out(out, "answer")
    assert out.data["answer"] in "the cat sat in paris"


def entities(out: TaskOutput) -> None:
    assert isinstance(out.data["entities"], list)
    assert all(e["entity"] in ("PER", "LOC") for e in out.data["entities"])


def answers(out: TaskOutput) -> None:
    text_out(out)
    assert out.data["answers"]


def transcript(out: TaskOutput) -> None:
    text_out(out, "text", "duration")
    assert out.data["duration"] == 1.0


def pose(out: TaskOutput) -> None:
    image_out()(out)
    assert len(out.data["people"]) == 1 and len(out.data["people"][0]["keypoints"]) == 17


# task -> (model id, args (media names are filled in), check)
CASES: dict[str, tuple[str, dict[str, Any], Callable[[TaskOutput], None]]] = {
    "token-classification": ("tiny/bert-ner", {"text": "hello paris"}, entities),
    "text-classification": ("tiny/bert-sentiment", {"text": "hello world"}, labels("POS", "NEG")),
    "text2text-generation": ("tiny/bart-seq2seq", {"text": "the quick brown fox"}, generated),
    "summarization": ("tiny/bart-seq2seq", {"text": "the quick brown fox jumps over the lazy dog"}, generated),
    "translation": ("tiny/bart-seq2seq", {"text": "hello world", "target_language": "French"}, generated),
    "question-answering": ("tiny/bert-squad", {"text": "where is the cat", "context": "the cat sat in paris"}, answer_span),
    "conversational": ("tiny/gpt2-chat", {"text": "hello there"}, generated),
    "text-generation": ("tiny/gpt2-chat", {"text": "the quick brown"}, generated),
    "sentence-similarity": ("tiny/minilm-embed", {"text": "a cat", "text2": "a dog"}, similarity),
    "object-detection": ("tiny/detr-detect", {"image": "photo"}, boxes),
    "image-classification": ("tiny/vit-classify", {"image": "photo"}, labels("cat", "dog", "car")),
    "image-to-image": ("tiny/instruct-pix2pix", {"image": "photo", "text": "make it blue"}, image_out((40, 48))),
    "image-to-text": ("tiny/blip-caption", {"image": "photo"}, lambda o: text_out(o, "caption")),
    "text-to-image": ("tiny/sd", {"text": "a red cat"}, image_out((32, 32))),
    "text-to-video": ("tiny/text-to-video", {"text": "a cat running"}, video_out),
    "visual-question-answering": ("tiny/vilt-vqa", {"image": "photo", "text": "what color is it"}, answers),
    "document-question-answering": ("tiny/layoutlm-docqa", {"image": "invoice", "text": "what is the total"}, answers),
    "image-segmentation": ("tiny/segformer-ade", {"image": "photo"}, segments),
    "depth-estimation": ("tiny/dpt-depth", {"image": "photo"}, image_out((40, 48), "min")),
    "text-to-speech": ("tiny/vits-tts", {"text": "hello world"}, audio_out),
    "automatic-speech-recognition": ("tiny/wav2vec2-asr", {"audio": "speech"}, transcript),
    "audio-to-audio": ("builtin/spectral-gate", {"audio": "speech"}, audio_out),
    "audio-classification": ("tiny/wav2vec2-audio-cls", {"audio": "speech"}, labels("speech", "music", "silence")),
    "canny-control": ("builtin/canny", {"image": "photo"}, image_out((40, 48))),
    "hed-control": ("builtin/softedge", {"image": "photo"}, image_out((40, 48))),
    "mlsd-control": ("builtin/mlsd", {"image": "invoice"}, image_out((360, 120), "lines")),
    "openpose-control": ("tiny/vitpose", {"image": "photo"}, pose),
    "normal-control": ("tiny/dpt-depth", {"image": "photo"}, image_out((40, 48))),
    "seg-control": ("tiny/segformer-ade", {"image": "photo"}, image_out((40, 48))),
    "depth-control": ("tiny/dpt-depth", {"image": "photo"}, image_out((40, 48))),
}
for _kind in ("canny", "hed", "mlsd", "openpose", "normal", "seg", "depth"):
    CASES[f"{_kind}-text-to-image"] = (f"tiny/sd-controlnet-{_kind}", {"image": "photo", "text": "a house"},
                                       image_out((40, 48), "controlnet"))

#: task types with no local runner, and why (they are covered by the hosted tests instead)
NOT_LOCAL = {
    "tabular-classification": "Hub tabular models are scikit-learn pickles; they run through hosted inference",
}


def test_every_task_type_is_covered_here():
    assert set(CASES) | set(NOT_LOCAL) == set(TASK_TYPES)


def _args(args: dict[str, Any], media: dict[str, str]) -> dict[str, Any]:
    return {k: (media[v] if k in ("image", "audio") else v) for k, v in args.items()}


@pytest.mark.parametrize("task", sorted(CASES))
def test_task_runs_locally_from_the_cache(task, registry, media, ctx):
    model_id, args, check = CASES[task]
    assert model_id in registry.local_models(task)
    found = registry.find(task, model_id)
    assert found is not None and found.where == "local-cpu"
    out = registry.run(task, model_id, _args(args, media), ctx)
    assert out.model_id == model_id and out.where == "local-cpu"
    kind = TASK_TYPES[task].output
    assert out.file_of(kind) is not None if kind != "text" else out.files == []
    check(out)


def test_image_to_image_with_a_plain_text_to_image_model(registry, media, ctx):
    out = registry.run("image-to-image", "tiny/sd", {"image": media["photo"], "text": "in winter"}, ctx)
    image_out((40, 48))(out)


def test_controlnet_takes_a_ready_map_as_is(registry, media, ctx):
    edges = registry.run("canny-control", "builtin/canny", {"image": media["photo"]}, ctx)
    out = registry.run("canny-text-to-image", "tiny/sd-controlnet-canny", {"image": str(edges.image), "text": "a house"}, ctx)
    assert "extracted" not in out.text
    photo = registry.run("canny-text-to-image", "tiny/sd-controlnet-canny", {"image": media["photo"], "text": "a house"}, ctx)
    assert "extracted from the photo" in photo.text


def test_controlnet_kind_comes_from_the_repo_name(registry):
    assert registry.local_models("depth-text-to-image") == ["tiny/sd-controlnet-depth"]
    assert registry.local_models("hed-text-to-image") == ["tiny/sd-controlnet-hed"]
    assert registry.find("canny-text-to-image", "tiny/sd-controlnet-depth") is None


def test_generative_text_model_serves_every_text_task(registry):
    for task in ("summarization", "translation", "question-answering", "conversational", "text2text-generation"):
        assert "tiny/gpt2-chat" in registry.local_models(task)
    assert "tiny/gpt2-chat" not in registry.local_models("text-classification")


def test_causal_lm_answers_a_question_without_context(registry, ctx):
    out = registry.run("question-answering", "tiny/gpt2-chat", {"text": "what is the capital of france"}, ctx)
    generated(out)


def test_extractive_qa_needs_a_passage(registry, ctx):
    with pytest.raises(ExpertError, match="missing `context`"):
        registry.run("question-answering", "tiny/bert-squad", {"text": "where is the cat"}, ctx)


def test_loaded_models_stay_warm(registry, media, ctx):
    cache = registry.model_cache
    registry.run("image-classification", "tiny/vit-classify", {"image": media["photo"]}, ctx)
    loads = cache.loads
    for _ in range(3):
        registry.run("image-classification", "tiny/vit-classify", {"image": media["photo"]}, ctx)
    assert cache.loads == loads


def test_depth_model_is_shared_by_depth_and_control_tasks(registry, media, ctx):
    cache = registry.model_cache
    registry.run("depth-estimation", "tiny/dpt-depth", {"image": media["photo"]}, ctx)
    loads = cache.loads
    registry.run("normal-control", "tiny/dpt-depth", {"image": media["photo"]}, ctx)
    registry.run("depth-control", "tiny/dpt-depth", {"image": media["photo"]}, ctx)
    assert cache.loads == loads


# --- bad input ---------------------------------------------------------------------------
@pytest.mark.parametrize("task,model_id", [("image-classification", "tiny/vit-classify"),
                                           ("object-detection", "tiny/detr-detect"),
                                           ("canny-control", "builtin/canny"),
                                           ("text-to-image", None)])
def test_corrupt_image_is_a_clear_error(task, model_id, registry, media, ctx):
    if model_id is None:  # image-to-image on a diffusion model reads the image too
        task, model_id = "image-to-image", "tiny/sd"
    with pytest.raises(ExpertError, match=r"corrupt\.jpg: not a readable image .*corrupt"):
        registry.run(task, model_id, {"image": media["corrupt"], "text": "x"}, ctx)


def test_wrong_media_type_is_a_clear_error(registry, media, ctx):
    with pytest.raises(ExpertError, match=r"image-classification: tone\.wav: not a readable image"):
        registry.run("image-classification", "tiny/vit-classify", {"image": media["speech"]}, ctx)
    with pytest.raises(ExpertError, match=r"automatic-speech-recognition: photo\.png: not a readable audio file"):
        registry.run("automatic-speech-recognition", "tiny/wav2vec2-asr", {"audio": media["photo"]}, ctx)


def test_huge_image_is_refused_before_decoding(registry, media, ctx):
    with pytest.raises(ExpertError, match=r"huge\.png: 10000x9000 pixels is too large"):
        registry.run("depth-estimation", "tiny/dpt-depth", {"image": media["huge"]}, ctx)


def test_silent_audio(registry, media, ctx):
    out = registry.run("automatic-speech-recognition", "tiny/wav2vec2-asr", {"audio": media["silent"]}, ctx)
    assert out.text == "(no speech found in the recording)" and out.data["silent"] is True
    with pytest.raises(ExpertError, match="silent, there is nothing to enhance"):
        registry.run("audio-to-audio", "builtin/spectral-gate", {"audio": media["silent"]}, ctx)
    cls = registry.run("audio-classification", "tiny/wav2vec2-audio-cls", {"audio": media["silent"]}, ctx)
    assert cls.data["silent"] is True and "silent" in cls.text


def test_missing_file_and_missing_argument(registry, media, ctx):
    with pytest.raises(ExpertError, match=r"gone\.png: file not found"):
        registry.run("image-classification", "tiny/vit-classify", {"image": media["dir"] + "/gone.png"}, ctx)
    with pytest.raises(ExpertError, match="missing `text`"):
        registry.run("text-to-image", "tiny/sd", {"text": "  "}, ctx)


def test_cancelled_task_does_not_run(registry, media, ctx):
    ctx.cancel.cancel()
    with pytest.raises(ExpertError, match="cancelled"):
        registry.run("text-to-image", "tiny/sd", {"text": "a cat"}, ctx)


# --- missing and broken models -----------------------------------------------------------
def test_missing_model_names_the_pull_command(registry, ctx):
    assert registry.find("image-classification", "google/vit-base-patch16-224") is None
    with pytest.raises(ModelMissingError) as e:
        registry.run("image-classification", "google/vit-base-patch16-224", {"image": "x.png"}, ctx)
    msg = str(e.value)
    assert "image-classification" in msg and "google/vit-base-patch16-224" in msg
    assert "jarvis models pull google/vit-base-patch16-224" in msg


def test_controlnet_without_a_base_model_names_one_to_pull(tmp_path, tiny_cache, media, ctx):
    from helpers.tiny_models import put_in_cache

    cache = tmp_path / "cache"
    put_in_cache(cache, "tiny/sd-controlnet-canny", next((tiny_cache / "models--tiny--sd-controlnet-canny" / "snapshots").iterdir()))
    reg = make_registry(cache)
    with pytest.raises(ModelMissingError, match=r"jarvis models pull stable-diffusion-v1-5/stable-diffusion-v1-5 .*needs a Stable Diffusion base"):
        reg.run("canny-text-to-image", "tiny/sd-controlnet-canny", {"image": media["photo"], "text": "x"}, ctx)


def test_incomplete_download_is_a_clear_error(tmp_path, tiny_cache, media, ctx):
    import shutil

    from helpers.tiny_models import put_in_cache

    cache = tmp_path / "cache"
    snap = put_in_cache(cache, "tiny/vit-classify", next((tiny_cache / "models--tiny--vit-classify" / "snapshots").iterdir()))
    (snap / "model.safetensors").unlink()
    reg = make_registry(cache)
    with pytest.raises(ModelMissingError, match=r"jarvis models pull tiny/vit-classify \(its weight files are missing"):
        reg.run("image-classification", "tiny/vit-classify", {"image": media["photo"]}, ctx)
    shutil.rmtree(cache)


def test_controller_answers_text_tasks_without_a_local_model(tiny_cache, ctx):
    prompts = []

    def controller(prompt: str) -> str:
        prompts.append(prompt)
        return "A short summary."

    reg = build_registry(Settings(offline=True, model_cache=str(tiny_cache), inference_mode="local"), controller=controller)
    assert reg.local_models("summarization")[-1] == "controller"
    out = reg.run("summarization", "facebook/bart-large-cnn", {"text": "A long text about cats."}, ctx)
    assert out.text == "A short summary." and out.where == "controller" and out.model_id == "controller"
    assert "jarvis models pull facebook/bart-large-cnn" in out.data["note"]
    assert "A long text about cats." in prompts[0] and prompts[0].startswith("Summarize")
    with pytest.raises(ModelMissingError):  # not a text task: no controller fallback
        reg.run("image-classification", "google/vit-base-patch16-224", {"image": "x.png"}, ctx)


def test_controller_with_a_chat_interface(tiny_cache, ctx):
    class FakeChatLLM:  # the controller interface is chat(messages) -> text
        def chat(self, messages, **kw):
            return "Bonjour le monde"

    reg = build_registry(Settings(offline=True, model_cache=str(tiny_cache)), controller=FakeChatLLM())
    out = reg.run("translation", "controller", {"text": "hello world", "target_language": "French"}, ctx)
    assert out.text == "Bonjour le monde" and "controller LLM answered" in out.data["note"]


def test_a_seeded_copy_of_a_writing_step_is_sampled(registry, ctx):
    # the executor seeds the second of two identical steps ("two limericks about cats"): greedy
    # decoding would write the same text twice
    args = {"text": "the quick brown"}
    greedy = [registry.run("text-generation", "tiny/gpt2-chat", args, ctx).text for _ in range(2)]
    assert greedy[0] == greedy[1]
    seeded = {s: registry.run("text-generation", "tiny/gpt2-chat", {**args, "seed": s}, ctx).text for s in (1, 2, 3)}
    assert len(set(seeded.values()) | {greedy[0]}) > 1
    assert registry.run("text-generation", "tiny/gpt2-chat", {**args, "seed": 2}, ctx).text == seeded[2]


def test_a_seeded_copy_of_a_picture_step_draws_another_picture(registry, ctx):
    from PIL import Image
    import numpy as np

    pixels = [np.asarray(Image.open(registry.run("text-to-image", "tiny/sd", {"text": "a red cat", **s}, ctx).image))
              for s in ({}, {"seed": 1})]
    assert pixels[0].shape == pixels[1].shape and not np.array_equal(pixels[0], pixels[1])
