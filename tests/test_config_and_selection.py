"""Settings (TOML file, environment, secrets) and model selection over the shipped catalog."""

import pytest

from jarvis_desktop.config import Settings, SettingsError, load_settings, save_settings
from jarvis_desktop.experts.catalog import Catalog, CatalogModel, load_catalog
from jarvis_desktop.experts.defaults import build_registry
from jarvis_desktop.pipeline.plan import Task
from jarvis_desktop.pipeline.selector import ModelSelector, parse_choice
from jarvis_desktop.task_types import TASK_TYPES


def test_toml_then_environment(tmp_path):
    f = tmp_path / "settings.toml"
    f.write_text('llm_model = "from-file"\ncandidates = 3\ninference_mode = "local"\ndevice = "cpu"\n')
    s = load_settings(f, env={"JARVIS_LLM_MODEL": "from-env", "OPENAI_API_KEY": "sk-x", "JARVIS_OFFLINE": "1",
                              "AZURE_OPENAI_ENDPOINT": "https://a.openai.azure.com"})
    assert s.llm_model == "from-env" and s.candidates == 3 and s.inference_mode == "local"
    assert s.offline is True and s.api_key == "sk-x" and s.azure_endpoint.startswith("https://a.")
    assert s.redacted()["api_key"] == "***"
    assert not s.hosted_allowed


def test_bad_settings_are_refused_with_a_message(tmp_path):
    f = tmp_path / "settings.toml"
    f.write_text('inference_mode = "cloudy"\n')
    with pytest.raises(SettingsError, match="inference_mode"):
        load_settings(f, env={})
    f.write_text("this is = = not toml")
    with pytest.raises(SettingsError, match="cannot read settings"):
        load_settings(f, env={})


def test_save_never_writes_secrets(tmp_path):
    f = tmp_path / "settings.toml"
    save_settings(Settings(api_key="sk-secret", llm_model="gpt-x", silence_ms=500), f)
    text = f.read_text()
    assert "sk-secret" not in text and "gpt-x" in text
    assert load_settings(f, env={}).silence_ms == 500


def test_device_auto_resolves_to_cpu_here():
    assert Settings(device="auto").resolved_device() in ("cpu", "cuda", "mps")
    assert Settings(device="cpu").resolved_device() == "cpu"


def test_shipped_catalog_covers_every_task_type():
    cat = load_catalog(Settings())
    for task in TASK_TYPES:
        assert cat.for_task(task), f"no catalog model for {task}"
    downloads = [m.downloads for m in cat.for_task("text-classification")]
    assert downloads == sorted(downloads, reverse=True)


@pytest.fixture(scope="module")
def selector_parts():
    s = Settings(offline=True, candidates=5)
    return s, load_catalog(s), build_registry(s)


def test_local_models_come_first_and_skip_the_controller(selector_parts):
    s, cat, reg = selector_parts
    sel = ModelSelector(cat, reg, s, controller=None)
    cands = sel.candidates("sentence-similarity")
    assert len(cands) == 5
    assert cands[0].local and cands[0].id == "sentence-transformers/all-MiniLM-L6-v2"
    choice = sel.choose(Task(0, "sentence-similarity", [], {"text": "a", "text2": "b"}), "compare")
    assert choice.model_id == cands[0].id and "only local" in choice.reason


def test_missing_model_is_still_chosen_with_a_reason(tmp_path):
    s = Settings(offline=True, model_cache=str(tmp_path), inference_mode="local")
    cat = load_catalog(s)
    sel = ModelSelector(cat, build_registry(s), s)
    choice = sel.choose(Task(0, "text-to-video", [], {"text": "a cat"}), "make a video")
    # nothing cached and no hosted inference: the curated default to download, flagged as absent
    assert choice.where is None
    assert choice.model_id == "ali-vilab/text-to-video-ms-1.7b" and "not on this machine" in choice.reason
    assert "suggested download" in choice.reason


def test_parse_choice_strict_and_fallback():
    ids = ["facebook/detr-resnet-50", "facebook/detr-resnet-101"]
    assert parse_choice('{"id": "facebook/detr-resnet-101", "reason": "more accurate"}', ids) == ("facebook/detr-resnet-101", "more accurate")
    mid, why = parse_choice("I would pick facebook/detr-resnet-50 because it is fast", ids)
    assert mid == "facebook/detr-resnet-50"
    assert parse_choice("no idea", ids) == (None, "")


def test_catalog_roundtrip(tmp_path):
    c = Catalog([CatalogModel("a/b", "summarization", 10, 1, ["t"], "mit", "desc")])
    c.save(tmp_path / "c.jsonl")
    again = Catalog.load(tmp_path / "c.jsonl")
    assert again.get("a/b").description == "desc"
    (tmp_path / "bad.jsonl").write_text('{"id": "x/y", "task": "summarization"}\nnot json\n')
    assert len(Catalog.load(tmp_path / "bad.jsonl")) == 1
