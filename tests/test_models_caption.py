"""Caption versus read-the-text: image-to-text is two jobs. A caption request is never handed to
OCR; with only OCR on the machine the answer says what is missing, gives the pull command and still
reports the text it found, labelled as such. A read-the-text request still uses OCR."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.tiny_models import build, captioner
from jarvis_desktop.config import Settings
from jarvis_desktop.experts.catalog import load_catalog
from jarvis_desktop.experts.defaults import build_registry
from jarvis_desktop.experts.image_need import CAPTION, READ, image_to_text_need
from jarvis_desktop.experts.shipped import OCR_ID
from jarvis_desktop.pipeline.plan import Task
from jarvis_desktop.pipeline.selector import ModelSelector

BLIP = "Salesforce/blip-image-captioning-base"


@pytest.mark.parametrize("request_text,need", [
    ("Describe this picture", CAPTION),
    ("What is in this photo?", CAPTION),
    ("caption this image", CAPTION),
    ("What do you see here?", CAPTION),
    ("Tell me what is in the attached file.", CAPTION),
    ("Please describe this image and read the answer aloud", CAPTION),
    ("What does this picture say?", READ),
    ("What does the sign say?", READ),
    ("Read the text in this image", READ),
    ("what's written on the whiteboard", READ),
    ("OCR this scan", READ),
    ("", CAPTION),
])
def test_the_need_comes_from_the_wording(request_text, need):
    assert image_to_text_need(request_text) == need


def test_the_planners_argument_wins():
    assert image_to_text_need("Describe this picture", {"need": "read"}) == READ
    assert image_to_text_need("What does it say?", {"need": "caption"}) == CAPTION


@pytest.fixture
def ocr_only(tmp_path) -> Settings:
    return Settings(offline=True, model_cache=str(tmp_path / "empty_cache"), inference_mode="local", planner="offline",
                    data_dir=str(tmp_path / "data"))


def test_a_caption_request_is_not_handed_to_ocr(ocr_only):
    sel = ModelSelector(load_catalog(ocr_only), build_registry(ocr_only), ocr_only)
    task = Task(0, "image-to-text", [], {"image": "x.png"})
    caption = sel.choose(task, "Describe this picture")
    assert caption.model_id == BLIP and caption.where is None and caption.need == CAPTION
    assert caption.fallback == OCR_ID and "OCR only reads text" in caption.reason
    assert OCR_ID not in caption.candidates
    read = sel.choose(task, "What does this picture say?")
    assert read.model_id == OCR_ID and read.where == "local-cpu" and read.need == READ


def test_a_cached_captioner_is_chosen_for_captions_and_ocr_for_reading(tmp_path):
    cache = tmp_path / "cache"
    build(cache, {"tiny/blip": captioner}, work=tmp_path / "build")
    s = Settings(offline=True, model_cache=str(cache), inference_mode="local")
    sel = ModelSelector(load_catalog(s), build_registry(s), s)
    task = Task(0, "image-to-text", [], {"image": "x.png"})
    assert sel.choose(task, "describe the photo").model_id == "tiny/blip"
    assert sel.choose(task, "read the text on the photo").model_id == OCR_ID


def _sign(path: Path) -> Path:
    from PIL import Image, ImageDraw, ImageFont

    im = Image.new("RGB", (520, 120), "white")
    ImageDraw.Draw(im).text((20, 30), "EXIT ONLY", fill="black", font=ImageFont.load_default(size=44))
    im.save(path)
    return path


def _ask(settings: Settings, text: str, image: Path):
    from jarvis_desktop.pipeline.assistant import Assistant

    assistant = Assistant(settings)
    try:
        return assistant.ask(text, [image])
    finally:
        assistant.close()


def test_with_only_ocr_a_caption_request_answers_honestly(ocr_only, tmp_path, jarvis_env):
    result = _ask(ocr_only, "Describe this picture", _sign(tmp_path / "sign.png"))
    assert [t.task for t in result.plan.tasks] == ["image-to-text"]
    choice = result.choices[0]
    assert choice.model_id == BLIP and choice.fallback == OCR_ID
    answer = result.answer
    assert "No image-captioning model is on this computer" in answer
    assert f"jarvis models pull {BLIP}" in answer
    assert "Text found in the image by OCR (not a description)" in answer and "EXIT ONLY" in answer
    r = result.results[0]  # OCR did run, and its text says what it is (for speech and later steps too)
    assert r.status == "done" and r.model_id == OCR_ID and r.output.data["missing_model"] == BLIP
    assert r.output.text.startswith("No image-captioning model is on this computer")


def test_with_only_ocr_a_caption_of_a_photo_without_text_says_so(ocr_only, tmp_path, jarvis_env):
    from PIL import Image

    Image.new("RGB", (64, 64), (30, 120, 40)).save(tmp_path / "grass.png")
    answer = _ask(ocr_only, "What is in this photo?", tmp_path / "grass.png").answer
    assert f"jarvis models pull {BLIP}" in answer and "no text that OCR could read" in answer


def test_a_read_the_text_request_still_uses_ocr(ocr_only, tmp_path, jarvis_env):
    result = _ask(ocr_only, "What does this sign say?", _sign(tmp_path / "sign.png"))
    r = result.results[0]
    assert result.choices[0].model_id == OCR_ID and r.status == "done" and r.model_id == OCR_ID
    assert "EXIT ONLY" in result.answer and "captioning" not in result.answer


def test_any_missing_model_names_itself_and_how_to_get_it(ocr_only, tmp_path, jarvis_env):
    from jarvis_desktop.experts.base import RunContext
    from jarvis_desktop.pipeline.selector import run_choice

    sel = ModelSelector(load_catalog(ocr_only), build_registry(ocr_only), ocr_only)
    task = Task(0, "summarization", [], {"text": "a long text"})
    choice = sel.choose(task, "summarise this")
    assert choice.model_id == "google/flan-t5-small" and choice.where is None and "suggested download" in choice.reason
    with pytest.raises(Exception) as e:
        run_choice(sel.registry, task, choice, {"text": "a long text"}, RunContext(tmp_path / "o", settings=ocr_only))
    msg = str(e.value)
    assert "jarvis models pull google/flan-t5-small" in msg and "jarvis models import" in msg


def test_a_plans_need_argument_survives_validation_and_steers_selection(ocr_only, tmp_path):
    from PIL import Image

    from jarvis_desktop.media import check_attachment
    from jarvis_desktop.pipeline.plan import validate_plan

    Image.new("RGB", (8, 8)).save(tmp_path / "p.png")
    att = check_attachment(tmp_path / "p.png")
    check = validate_plan([{"task": "image-to-text", "id": 0, "dep": [-1],
                            "args": {"image": str(att.path), "need": "read"}}], [att])
    assert check.ok and check.plan.tasks[0].args["need"] == "read"
    sel = ModelSelector(load_catalog(ocr_only), build_registry(ocr_only), ocr_only)
    assert sel.choose(check.plan.tasks[0], "Describe this picture").model_id == OCR_ID
