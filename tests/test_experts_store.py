"""Model management (list, remove, curated defaults, what a pull would fetch) and reading the
cache layout: which task types a cached model serves, from its files alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.fake_hub import FakeHub
from helpers.tiny_models import put_in_cache, tiny_model_cache
from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import ExpertError
from jarvis_desktop.experts.local_cache import CacheIndex, describe, snapshot_dir
from jarvis_desktop.experts.model_store import (_patterns, curated_defaults, default_models, list_cached, plan_defaults,
                                                pull, pull_defaults, remove)
from jarvis_desktop.task_types import TASK_TYPES


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory) -> Path:
    return tiny_model_cache(tmp_path_factory.mktemp("tiny"))


@pytest.fixture
def own_cache(tmp_path, tiny_cache) -> Path:
    """A private copy of a few tiny models (tests here delete things)."""
    cache = tmp_path / "cache"
    for repo in ("tiny/bert-sentiment", "tiny/sd", "tiny/sd-controlnet-canny", "tiny/gpt2-chat"):
        src = next((tiny_cache / ("models--" + repo.replace("/", "--")) / "snapshots").iterdir())
        put_in_cache(cache, repo, src)
    return cache


def test_list_cached_shows_sizes_and_task_types(own_cache):
    models = {m.model_id: m for m in list_cached(Settings(model_cache=str(own_cache)))}
    assert set(models) == {"tiny/bert-sentiment", "tiny/sd", "tiny/sd-controlnet-canny", "tiny/gpt2-chat"}
    bert = models["tiny/bert-sentiment"]
    assert bert.tasks == ["text-classification"] and bert.family == "transformers"
    assert 50_000 < bert.size_bytes < 5_000_000 and bert.size_mb == round(bert.size_bytes / 1e6, 1)
    assert models["tiny/sd"].tasks == ["text-to-image", "image-to-image"] and models["tiny/sd"].family == "diffusers"
    assert models["tiny/sd-controlnet-canny"].tasks == ["canny-text-to-image"]
    assert "conversational" in models["tiny/gpt2-chat"].tasks
    assert models["tiny/sd"].size_bytes > bert.size_bytes


def test_list_cached_of_a_missing_folder_is_empty(tmp_path):
    assert list_cached(Settings(model_cache=str(tmp_path / "none"))) == []


def test_remove_frees_the_model_and_the_index_notices(own_cache):
    s = Settings(model_cache=str(own_cache))
    index = CacheIndex(own_cache)
    assert "tiny/gpt2-chat" in index.models_for("text-generation")
    freed = remove("tiny/gpt2-chat", s)
    assert freed > 0 and not (own_cache / "models--tiny--gpt2-chat").exists()
    assert "tiny/gpt2-chat" not in index.models_for("text-generation")
    with pytest.raises(ExpertError, match="'tiny/gpt2-chat' is not in the model cache"):
        remove("tiny/gpt2-chat", s)


def test_pull_in_offline_mode_is_refused_plainly(tmp_path):
    with pytest.raises(ExpertError, match="Offline mode is on: cannot download 'org/x'"):
        pull("org/x", Settings(offline=True, model_cache=str(tmp_path)))
    with pytest.raises(ExpertError, match="Offline mode is on"):
        pull_defaults(["text-classification"], Settings(offline=True, model_cache=str(tmp_path)))


def test_curated_defaults_cover_every_task_type():
    table = curated_defaults()["tasks"]
    assert set(table) == set(TASK_TYPES)
    for task, entry in table.items():
        assert entry.get("model") or entry.get("shipped") or entry.get("builtin") or entry.get("note"), task
        if entry.get("model"):
            assert entry["size_mb"] > 0 and entry["license"], task


def test_plan_defaults_fetches_each_model_once_and_skips_cached(tmp_path):
    s = Settings(model_cache=str(tmp_path / "c"))
    plan = plan_defaults(["summarization", "translation", "text2text-generation", "canny-text-to-image", "canny-control",
                          "tabular-classification"], s)
    ids = [m.model_id for m in plan.models]
    assert ids.count("google/flan-t5-small") == 1
    assert "lllyasviel/sd-controlnet-canny" in ids and curated_defaults()["controlnet_base"] in ids
    assert plan.nothing_to_fetch == ["canny-control"] and plan.no_default == ["tabular-classification"]
    assert plan.total_mb == pytest.approx(310 + 1450 + 2100)
    # once cached, a model is not planned again
    put_in_cache(tmp_path / "c", "google/flan-t5-small", _fake_model(tmp_path))
    again = plan_defaults(["summarization"], s)
    assert again.models == []


def _fake_model(tmp_path: Path) -> Path:
    d = tmp_path / "fake-t5"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"architectures": ["T5ForConditionalGeneration"], "model_type": "t5"}))
    return d


def test_default_models_rejects_unknown_tasks():
    with pytest.raises(ExpertError, match="unknown task type"):
        default_models(["image-dreaming"])
    assert len(default_models()) == len(TASK_TYPES)


def test_pull_fetches_one_weight_format_and_one_precision():
    files = ["config.json", "model.safetensors", "pytorch_model.bin", "tf_model.h5", "flax_model.msgpack"]
    _, ignore = _patterns(files)
    assert "*.bin" in ignore and "*.h5" in ignore and "*.msgpack" in ignore
    sd = ["model_index.json", "unet/diffusion_pytorch_model.safetensors", "unet/diffusion_pytorch_model.fp16.safetensors",
          "vae/diffusion_pytorch_model.safetensors", "vae/diffusion_pytorch_model.fp16.safetensors", "v1-5-pruned.ckpt"]
    _, ignore = _patterns(sd, "fp16")
    assert "unet/diffusion_pytorch_model.safetensors" in ignore and "*.ckpt" in ignore
    assert not any("fp16" in i for i in ignore)
    _, ignore = _patterns(sd)
    assert "*.fp16.*" in ignore


# --- reading the cache layout -------------------------------------------------------------
def test_snapshot_follows_refs_main(tmp_path):
    base = tmp_path / "models--org--m"
    (base / "snapshots" / "old").mkdir(parents=True)
    (base / "snapshots" / "old" / "config.json").write_text("{}")
    (base / "snapshots" / "new").mkdir()
    (base / "snapshots" / "new" / "config.json").write_text("{}")
    (base / "refs").mkdir()
    (base / "refs" / "main").write_text("old")
    assert snapshot_dir(tmp_path, "org/m").name == "old"
    assert snapshot_dir(tmp_path, "org/other") is None


@pytest.mark.parametrize("repo,kind", [("lllyasviel/sd-controlnet-canny", "canny"), ("lllyasviel/control_v11p_sd15_softedge", "hed"),
                                       ("lllyasviel/control_v11p_sd15_normalbae", "normal"), ("lllyasviel/sd-controlnet-seg", "seg"),
                                       ("thibaud/controlnet-sd21-openpose-diffusers", "openpose"), ("x/controlnet-depth-sdxl", "depth")])
def test_controlnet_kind_from_repo_name(tmp_path, repo, kind):
    (tmp_path / "config.json").write_text(json.dumps({"_class_name": "ControlNetModel"}))
    assert describe(repo, tmp_path).tasks == (f"{kind}-text-to-image",)


@pytest.mark.parametrize("arch,model_type,tasks", [
    ("Wav2Vec2ForSequenceClassification", "wav2vec2", ["audio-classification"]),
    ("DistilBertForSequenceClassification", "distilbert", ["text-classification"]),
    ("WhisperForConditionalGeneration", "whisper", ["automatic-speech-recognition"]),
    ("T5ForConditionalGeneration", "t5", ["text2text-generation", "summarization", "translation"]),
    ("MarianMTModel", "marian", ["translation"]),
    ("LayoutLMForQuestionAnswering", "layoutlm", ["document-question-answering"]),
    ("UperNetForSemanticSegmentation", "upernet", ["image-segmentation"]),
    ("DepthAnythingForDepthEstimation", "depth_anything", ["depth-estimation"]),
    ("YolosForObjectDetection", "yolos", ["object-detection"]),
    ("VitPoseForPoseEstimation", "vitpose", ["openpose-control"]),
])
def test_task_types_from_architecture(tmp_path, arch, model_type, tasks):
    (tmp_path / "config.json").write_text(json.dumps({"architectures": [arch], "model_type": model_type}))
    assert list(describe("org/m", tmp_path).tasks) == tasks


def test_model_card_pipeline_tag_comes_first(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["BertModel"], "model_type": "bert"}))
    (tmp_path / "README.md").write_text("---\nlicense: mit\npipeline_tag: sentence-similarity\n---\n# model\n")
    assert describe("org/m", tmp_path).tasks == ("sentence-similarity",)


def test_faster_whisper_folders_are_left_to_the_speech_backend(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"\0")
    (tmp_path / "vocabulary.txt").write_text("a")
    (tmp_path / "config.json").write_text("{}")
    info = describe("Systran/faster-whisper-base", tmp_path)
    assert info.family == "ctranslate2"


# --- pulling from a fake Hub ---------------------------------------------------------------
@pytest.fixture
def fake_hub(tiny_cache, tmp_path, monkeypatch):
    import shutil

    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    src = tmp_path / "repo"
    shutil.copytree(next((tiny_cache / "models--tiny--vit-classify" / "snapshots").iterdir()), src)
    (src / "pytorch_model.bin").write_bytes(b"\0" * 1000)  # a second copy of the weights: must not be fetched
    hub = FakeHub("acme/vit-tiny", src)
    yield hub
    hub.close()


def test_pull_into_the_cache_then_run_offline(fake_hub, tmp_path):
    from jarvis_desktop.experts.base import RunContext
    from jarvis_desktop.experts.defaults import build_registry

    s = Settings(model_cache=str(tmp_path / "cache"), inference_mode="local")
    result = pull("acme/vit-tiny", s, endpoint=fake_hub.url, progress=False)
    assert result.path.name == FakeHub.SHA and result.tasks == ["image-classification"]
    assert (tmp_path / "cache" / "models--acme--vit-tiny" / "refs" / "main").read_text() == FakeHub.SHA
    assert not any(p.endswith("pytorch_model.bin") for _, p, _ in fake_hub.requests)
    assert [m.model_id for m in list_cached(s)] == ["acme/vit-tiny"]
    from PIL import Image

    Image.new("RGB", (20, 20), "red").save(tmp_path / "red.png")
    reg = build_registry(Settings(model_cache=str(tmp_path / "cache"), inference_mode="local", offline=True))
    out = reg.run("image-classification", "acme/vit-tiny", {"image": str(tmp_path / "red.png")}, RunContext(tmp_path / "o"))
    assert out.data["labels"] and out.where == "local-cpu"


def test_a_dropped_connection_resumes_from_where_it_stopped(fake_hub, tmp_path, monkeypatch):
    import re

    from huggingface_hub import constants

    monkeypatch.setattr(constants, "DOWNLOAD_CHUNK_SIZE", 1024)  # real files span many 10 MB chunks; this one is small
    weights = fake_hub.files["model.safetensors"]
    fake_hub.cut_once.add("model.safetensors")
    result = pull("acme/vit-tiny", Settings(model_cache=str(tmp_path / "cache")), endpoint=fake_hub.url, progress=False)
    assert (result.path / "model.safetensors").read_bytes() == weights
    ranges = [r for m, p, r in fake_hub.requests if m == "GET" and p.endswith("model.safetensors")]
    assert len(ranges) == 2 and ranges[0] is None
    resumed_at = int(re.fullmatch(r"bytes=(\d+)-", ranges[1]).group(1))
    assert len(weights) // 2 - 1024 <= resumed_at <= len(weights) // 2  # nothing fetched twice but the last chunk


def test_a_failed_pull_fetches_only_what_is_missing_next_time(fake_hub, tmp_path):
    s = Settings(model_cache=str(tmp_path / "cache"))
    fake_hub.fail_once.add("model.safetensors")
    with pytest.raises(ExpertError, match="HTTP 500.*Run the same command again"):
        pull("acme/vit-tiny", s, endpoint=fake_hub.url, progress=False)
    done = {p for m, p, _ in fake_hub.requests if m == "GET" and "/resolve/" in p and not p.endswith("model.safetensors")}
    assert done, "the other files should have finished during the failed pull"
    fake_hub.requests.clear()
    pull("acme/vit-tiny", s, endpoint=fake_hub.url, progress=False)
    again = {p for m, p, _ in fake_hub.requests if m == "GET" and "/resolve/" in p}
    assert any(p.endswith("model.safetensors") for p in again)
    assert not (again & done), "files finished by the failed pull were fetched again"


def test_pull_of_an_unknown_model_is_one_sentence(fake_hub, tmp_path):
    with pytest.raises(ExpertError, match="Cannot download 'acme/nothing': it was not found on the Hugging Face Hub"):
        pull("acme/nothing", Settings(model_cache=str(tmp_path / "cache")), endpoint=fake_hub.url, progress=False)


def test_missing_weight_shards_are_noticed(tmp_path):
    from jarvis_desktop.experts.local_cache import missing_weights

    (tmp_path / "config.json").write_text("{}")
    assert "weight files are missing" in missing_weights(tmp_path)
    (tmp_path / "model-00001-of-00002.safetensors").write_bytes(b"\0" * 10)
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))
    assert "1 weight shard(s) are missing, e.g. model-00002-of-00002.safetensors" in missing_weights(tmp_path)
    (tmp_path / "model-00002-of-00002.safetensors").write_bytes(b"\0" * 10)
    assert missing_weights(tmp_path) == ""


def test_registry_order_local_first_then_hosted_then_controller(tmp_path):
    from jarvis_desktop.experts.defaults import build_registry

    names = [b.name for b in build_registry(Settings(model_cache=str(tmp_path)), controller=lambda p: "").backends]
    local = ["shipped", "speech", "transformers", "control", "diffusers", "audio-dsp"]
    assert [n for n in names if n != "speech"] == [n for n in local if n != "speech"] + ["hosted", "controller"]
    hosted_only = [b.name for b in build_registry(Settings(model_cache=str(tmp_path), inference_mode="hosted")).backends]
    assert hosted_only == ["hosted"]
