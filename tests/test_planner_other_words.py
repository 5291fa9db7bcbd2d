"""Steps said in other words than their task's name: a control map asked for by what the new picture
keeps of a photo ("keep how near or far everything is"), a text cut to a length ("trim it to a
sentence"), speech asked for by how the result will be heard ("something I can play for the baby",
"through the speaker"); and look-alikes that stay what they are. Every sentence was written for
these tests (none is in the training requests or the benchmark sets)."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_desktop.planning.learned import MODEL_FILE
from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.stepmodel import Bag, StepModel, map_centroids, train
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def _chain(check) -> list[tuple[str, list[int]]]:
    return [(t.task, t.dep) for t in check.plan.tasks]


@pytest.mark.parametrize("text, photo, kind", [
    ("keep exactly how she is standing and turn her into a robot", "girl.jpg", "openpose"),
    ("keep how near or far everything is in this and make it a spaceship cabin", "room.jpg", "depth"),
    ("keep where the sky and road are in this but make it a desert", "street.jpg", "seg"),
    ("keep the surface shape of this statue and make it out of gold", "statue.jpg", "normal"),
])
def test_what_a_new_picture_keeps_of_a_photo_chooses_its_control_map(planner, tmp_path, text, photo, kind):
    check = planner.plan(text, attach(tmp_path, photo))
    assert _chain(check) == [(f"{kind}-control", []), (f"{kind}-text-to-image", [0])]


@pytest.mark.parametrize("text", [
    "Describe this photo, and then make from it a painting in the style of Monet",  # nothing of it kept: a restyle
    "make this photo look like a watercolour",
])
def test_a_picture_made_from_a_photo_without_keeping_anything_is_an_edit(planner, tmp_path, text):
    assert "image-to-image" in tasks_of(planner.plan(text, attach(tmp_path, "photo.jpg")))
    assert not any(t.endswith("-control") for t in tasks_of(planner.plan(text, attach(tmp_path, "photo.jpg"))))


def test_the_shipped_model_knows_each_control_map_by_its_requests():
    model = StepModel.load(MODEL_FILE)
    assert model.maps == ["canny", "depth", "hed", "mlsd", "normal", "openpose", "seg"]
    assert model.map_centroids is not None and model.map_centroids.shape == (7, 384)
    assert np.allclose(np.linalg.norm(model.map_centroids, axis=1), 1.0, atol=1e-5)


def test_map_centroids_are_the_mean_request_vector_of_each_map_and_survive_saving(tmp_path):
    """A toy set with known vectors: two requests for a pose, one for depth, one with no map."""
    def bag(vec, label, kind):
        return Bag([(["w:keep"], np.array([0.0, 0.0] + vec, dtype=np.float32))], {label}, 1.0, "", kind)

    bags = [bag([1, 0, 0], "guided", "openpose"), bag([0.8, 0.6, 0], "guided", "openpose"),
            bag([0, 0, 1], "guided", "depth"), bag([0, 1, 0], "text-to-image", None)]
    maps, C = map_centroids(bags, 3)
    assert maps == ["depth", "openpose"]
    assert np.allclose(C[0], [0, 0, 1]) and np.allclose(C[1], np.array([0.9, 0.3, 0]) / np.linalg.norm([0.9, 0.3, 0]))
    model = train(bags, ["guided", "text-to-image"], steps=5, context_dims=3)
    model.save(tmp_path / "m.npz")
    loaded = StepModel.load(tmp_path / "m.npz")
    assert loaded.maps == maps and np.allclose(loaded.map_centroids, C)
    assert loaded.nearest_map(np.array([0.1, 0.0, 0.99], dtype=np.float32)) == "depth"
    assert loaded.nearest_map(np.array([0.0, 0.0, 0.0], dtype=np.float32)) is None


@pytest.mark.parametrize("text, files, chain", [
    ("describe this chart, then squeeze that description down to one line", ["chart.png"],
     [("image-to-text", []), ("summarization", [0])]),
    ("bring this down to three bullets", ["notes.txt"], [("summarization", [])]),
    ("type this up and pare it down to the essentials", ["talk.wav"],
     [("automatic-speech-recognition", []), ("summarization", [0])]),
    ("Write a short blurb for a walking boot. Next, condense the blurb into one tweet-length line. Then translate that line into Dutch.",
     [], [("text-generation", []), ("summarization", [0]), ("translation", [1])]),
])
def test_a_text_cut_to_a_length_is_summarised(planner, tmp_path, text, files, chain):
    assert _chain(planner.plan(text, attach(tmp_path, *files))) == chain


@pytest.mark.parametrize("text, files", [
    ("turn that into a bullet list", []),  # a form, no length
    ("describe this photo in one sentence", ["photo.jpg"]),  # the caption's own length
])
def test_a_form_or_the_length_of_a_caption_asks_for_no_summary(planner, tmp_path, text, files):
    check = planner.plan(text, attach(tmp_path, *files))
    assert "summarization" not in [t.task for t in check.plan.tasks] if check.plan else True


@pytest.mark.parametrize("text, files, chain", [
    ("write a lullaby about the sea and make it something I can play for the baby", [],
     [("text-generation", []), ("text-to-speech", [0])]),
    ("give me the gist of this as something I can listen to while I jog", ["notes.txt"],
     [("summarization", []), ("text-to-speech", [0])]),
    ("what is in this picture? tell me through the speaker", ["photo.jpg"],
     [("image-to-text", []), ("text-to-speech", [0])]),
    ("summarize this, I want it in my ears on the drive", ["memo.txt"],
     [("summarization", []), ("text-to-speech", [0])]),
    ("work out what this letter says and pipe it into my earbuds", ["letter.jpg"],
     [("image-to-text", []), ("text-to-speech", [0])]),
])
def test_speech_asked_for_by_how_it_will_be_heard_is_spoken(planner, tmp_path, text, files, chain):
    assert _chain(planner.plan(text, attach(tmp_path, *files))) == chain


@pytest.mark.parametrize("text", [
    "write a song I can play on guitar about my dog",  # the listener plays it: a song to write
    "is this something you can hear?",
])
def test_a_thing_the_listener_plays_or_a_question_asks_for_no_speech(planner, tmp_path, text):
    check = planner.plan(text, [])
    assert "text-to-speech" not in ([t.task for t in check.plan.tasks] if check.plan else [])
