"""The experts whose real weights ship in installed packages: OCR, spaCy NER, MiniLM similarity.

These load real models (a few seconds each on 2 cores), once per module through one registry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import ExpertError, RunContext
from jarvis_desktop.experts.defaults import build_registry
from jarvis_desktop.experts.shipped import MINILM_ID, NER_ID, OCR_ID, ShippedBackend


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("JARVIS_SHIPPED_DIR", str(tmp_path_factory.mktemp("shipped")))
    cache = tmp_path_factory.mktemp("model_cache")
    yield build_registry(Settings(offline=True, model_cache=str(cache), inference_mode="local"))
    mp.undo()


@pytest.fixture
def ctx(tmp_path):
    return RunContext(tmp_path / "out")


def _text_image(path: Path, lines: list[str]) -> Path:
    from PIL import Image, ImageDraw, ImageFont

    im = Image.new("RGB", (520, 60 + 60 * len(lines)), "white")
    d = ImageDraw.Draw(im)
    for i, line in enumerate(lines):
        d.text((20, 20 + 60 * i), line, fill="black", font=ImageFont.load_default(size=36))
    im.save(path)
    return path


def test_shipped_models_are_offered_for_their_tasks(registry):
    assert OCR_ID in registry.local_models("image-to-text")
    assert NER_ID in registry.local_models("token-classification")
    assert MINILM_ID in registry.local_models("sentence-similarity")
    assert registry.find("image-to-text", OCR_ID).where == "local-cpu"


def test_ocr_reads_two_lines_in_order(registry, ctx, tmp_path):
    img = _text_image(tmp_path / "note.png", ["Meeting at noon", "Room 42"])
    out = registry.run("image-to-text", OCR_ID, {"image": str(img)}, ctx)
    assert out.text.splitlines() == ["Meeting at noon", "Room 42"]
    assert len(out.data["lines"]) == 2 and len(out.data["lines"][0]["box"]) == 4
    assert out.where == "local-cpu" and out.model_id == OCR_ID


def test_ocr_blank_image_says_no_text(registry, ctx, tmp_path):
    from PIL import Image

    Image.new("RGB", (200, 100), "white").save(tmp_path / "blank.png")
    out = registry.run("image-to-text", OCR_ID, {"image": str(tmp_path / "blank.png")}, ctx)
    assert "no text" in out.text and out.data["lines"] == []


def test_ocr_corrupt_image_is_a_clear_error(registry, ctx, tmp_path):
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n not really a png")
    with pytest.raises(ExpertError, match=r"image-to-text: broken\.png: not a readable image"):
        registry.run("image-to-text", OCR_ID, {"image": str(bad)}, ctx)


def test_ner_finds_people_places_and_dates(registry, ctx):
    out = registry.run("token-classification", NER_ID, {"text": "Barack Obama visited Paris on Monday."}, ctx)
    labels = {e["word"]: e["entity"] for e in out.data["entities"]}
    assert labels.get("Barack Obama") == "PERSON" and labels.get("Paris") == "GPE"
    assert "Monday" in labels
    assert "Barack Obama (PERSON)" in out.text


def test_ner_empty_text_is_refused(registry, ctx):
    with pytest.raises(ExpertError, match="non-empty"):
        registry.run("token-classification", NER_ID, {"text": "   "}, ctx)


def test_similarity_ranks_related_sentences_higher(registry, ctx):
    near = registry.run("sentence-similarity", MINILM_ID, {"text": "a dog", "text2": "a puppy"}, ctx)
    far = registry.run("sentence-similarity", MINILM_ID, {"text": "a dog", "text2": "stock market prices"}, ctx)
    assert -1.0 <= far.data["similarity"] < near.data["similarity"] <= 1.0
    assert near.data["similarity"] - far.data["similarity"] > 0.2
    assert "Similarity" in near.text


def test_similarity_of_lines_and_missing_second_text(registry, ctx):
    out = registry.run("sentence-similarity", MINILM_ID, {"text": "cat\nkitten\ncar engine"}, ctx)
    assert len(out.data["similarity"]) == 2 and out.data["similarity"][0] > out.data["similarity"][1]
    with pytest.raises(ExpertError, match="two texts"):
        registry.run("sentence-similarity", MINILM_ID, {"text": "only one"}, ctx)


def test_shipped_models_stay_warm_between_tasks(registry, ctx):
    cache = registry.model_cache
    loads = cache.loads
    registry.run("token-classification", NER_ID, {"text": "Ada Lovelace lived in London."}, ctx)
    registry.run("token-classification", NER_ID, {"text": "Alan Turing lived in Manchester."}, ctx)
    assert NER_ID in cache.keys()
    assert cache.loads - loads <= 1


def test_local_mode_off_offers_no_shipped_models():
    b = ShippedBackend(Settings(inference_mode="hosted"))
    assert b.models("image-to-text") == [] and b.where("image-to-text", OCR_ID) is None
