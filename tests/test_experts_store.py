"""Model management (list, remove, curated defaults, what a pull would fetch) and reading the
cache layout: which task types a cached model serves, from its files alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
