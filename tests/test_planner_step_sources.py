"""What each step of a plan works on when several steps touch one picture: the picture itself, a
map made of it, an edit of it, or one of two files named by a word of its name. Every sentence
was written for these tests (none is in the training requests or the benchmark sets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvis_desktop.pipeline.plan import placeholder
from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def _inputs(check) -> list[str]:
    """Each step's picture: a file's name, or the placeholder of the step whose image it reads."""
    return [Path(v).name if (v := t.args.get("image", "")).startswith("/") else v for t in check.plan.tasks]


@pytest.mark.parametrize("request_text, tasks", [
    # a map asked by its name beside a plainer step: the map is planned too
    ("edge map of this pls, and what breed is the dog on the jetty", ["canny-control", "image-classification"]),
    ("skeleton pose pls + caption", ["openpose-control", "image-to-text"]),
    # ... and a question about the scene reads the photo, not the map
    ("straight line map of the pier, and how many boats are moored there", ["mlsd-control", "object-detection"]),
])
def test_a_map_named_beside_another_step_is_planned_and_the_other_step_reads_the_photo(planner, tmp_path, request_text, tasks):
    check = planner.plan(request_text, attach(tmp_path, "lake.jpg"))
    assert tasks_of(check) == tasks
    assert _inputs(check) == ["lake.jpg", "lake.jpg"]


def test_words_said_of_the_picture_ask_for_no_map(planner, tmp_path):
    """"the edges are blurry": the edges are the photo's, not an edge map asked for."""
    check = planner.plan("the edges in this photo are blurry, can you sharpen it up", attach(tmp_path, "lake.jpg"))
    assert not any(t.task.endswith("-control") for t in check.plan.tasks)


def test_a_caption_of_the_photo_after_a_depth_map_reads_the_photo(planner, tmp_path):
    check = planner.plan("make a depth map of this picture and then describe the photo for me", attach(tmp_path, "lake.jpg"))
    assert tasks_of(check) == ["depth-estimation", "image-to-text"]
    assert _inputs(check) == ["lake.jpg", "lake.jpg"]


@pytest.mark.parametrize("request_text, first", [
    ("make a depth map of this picture and caption it", "depth-estimation"),
    ("cut the boat out, then describe the cut-out", "image-segmentation"),
    ("pull the pose out of this shot and then describe the pose", "openpose-control"),
])
def test_a_step_that_points_at_the_map_reads_the_map(planner, tmp_path, request_text, first):
    check = planner.plan(request_text, attach(tmp_path, "lake.jpg"))
    assert tasks_of(check) == [first, "image-to-text"]
    assert _inputs(check)[1] == placeholder(check.plan.tasks[0].id)


@pytest.mark.parametrize("request_text, edit", [
    ("caption this photo, make it look like a pencil sketch, then describe the sketch version too", 1),
    ("turn it into a comic panel, describe the panel you made, and also describe the real photo", 0),
])
def test_a_caption_asked_of_the_edit_and_of_the_photo_is_two_captions(planner, tmp_path, request_text, edit):
    check = planner.plan(request_text, attach(tmp_path, "lake.jpg"))
    tasks = tasks_of(check)
    assert tasks.count("image-to-text") == 2 and tasks[edit] == "image-to-image"
    read = sorted(v for t, v in zip(check.plan.tasks, _inputs(check)) if t.task == "image-to-text")
    assert read == sorted(["lake.jpg", placeholder(check.plan.tasks[edit].id)])


def test_a_second_word_about_the_same_photo_is_one_caption(planner, tmp_path):
    """"describe this photo and also describe the colours": one picture, one caption step."""
    check = planner.plan("describe this photo and also describe the colours", attach(tmp_path, "lake.jpg"))
    assert tasks_of(check).count("image-to-text") == 1


@pytest.mark.parametrize("request_text, read", [
    ("describe the winter photo", "winter_beach.jpg"),
    ("how many people are in the winter one?", "winter_beach.jpg"),
    ("what is the weather like in the summer photo?", "summer_beach.jpg"),
])
def test_one_of_two_files_is_pointed_at_by_a_word_of_its_name(planner, tmp_path, request_text, read):
    check = planner.plan(request_text, attach(tmp_path, "summer_beach.jpg", "winter_beach.jpg"))
    assert _inputs(check) == [read]


def test_a_word_of_a_file_name_used_otherwise_points_at_no_file(planner, tmp_path):
    """"after the photo ...": a preposition, not the after_*.jpg file."""
    check = planner.plan("after the photo is captioned, read the caption aloud", attach(tmp_path, "before_cut.jpg", "after_cut.jpg"))
    assert "after_cut.jpg" not in _inputs(check)


@pytest.mark.parametrize("request_text, tasks", [
    # reading a picture's words to work on them is not speaking them
    ("read my landlord's note and tell me if the tone is rude", ["image-to-text", "text-classification"]),
    ("read the text on this flyer, translate it into English, and then tell me when the concert starts",
     ["image-to-text", "translation", "question-answering"]),
])
def test_reading_a_picture_to_work_on_its_words_asks_for_no_speech(planner, tmp_path, request_text, tasks):
    check = planner.plan(request_text, attach(tmp_path, "card.jpg"))
    assert tasks_of(check) == tasks


@pytest.mark.parametrize("request_text", [
    "read the writing on this postcard to me",
    "read the writing on this postcard out loud and translate it into Spanish",
    # a listener or a way of speaking named: heard, even with other work asked
    "read the postcard to my grandad and tell me if the tone is warm",
    "read the postcard softly and tell me if the tone is warm",
])
def test_reading_a_picture_to_someone_still_speaks_it(planner, tmp_path, request_text):
    check = planner.plan(request_text, attach(tmp_path, "card.jpg"))
    assert "text-to-speech" in tasks_of(check)


def _deps(check) -> list[list[int]]:
    return [t.dep for t in check.plan.tasks]


def test_two_things_drawn_in_two_commands_are_two_pictures(planner):
    check = planner.plan("sketch a sunflower and then sketch a cactus")
    assert tasks_of(check) == ["text-to-image", "text-to-image"]
    assert [t.args["text"] for t in check.plan.tasks] == ["a sunflower", "a cactus"]


def test_a_question_about_your_picture_asks_about_the_picture_made(planner):
    """"your painting" is the one just asked for, not a question about the assistant."""
    check = planner.plan("paint a bowl of fruit. how many apples are in your painting?")
    assert tasks_of(check) == ["text-to-image", "object-detection"]
    assert _deps(check) == [[], [0]]


@pytest.mark.parametrize("request_text, name", [
    ("make this look like a charcoal drawing, then describe the photo as I took it", "lake.jpg"),
    ("take the hiss out, then tell me what bird is singing in the audio as I sent it", "dawn.wav"),
])
def test_the_file_as_the_user_gave_it_is_read_after_a_change(planner, tmp_path, request_text, name):
    check = planner.plan(request_text, attach(tmp_path, name))
    assert len(check.plan.tasks) == 2
    read = check.plan.tasks[1].args.get("image") or check.plan.tasks[1].args.get("audio")
    assert Path(read).name == name and check.plan.tasks[1].dep == []


@pytest.mark.parametrize("request_text, prompt", [
    ("write a short thank-you note for my neighbour, and also make a picture of a bunch of tulips to go with it", "a bunch of tulips"),
    ('tell me the mood of this message: "We won the cup!!" and can you also paint me a stadium at night', "a stadium at night"),
])
def test_a_picture_with_a_subject_of_its_own_reads_no_earlier_text(planner, request_text, prompt):
    check = planner.plan(request_text)
    assert [t.task for t in check.plan.tasks][1] == "text-to-image"
    assert check.plan.tasks[1].dep == [] and check.plan.tasks[1].args["text"] == prompt


def test_a_picture_to_go_with_a_text_and_nothing_else_is_drawn_from_it(planner):
    check = planner.plan("write a haiku about rain, then make a picture to go with it")
    assert tasks_of(check) == ["text-generation", "text-to-image"]
    assert check.plan.tasks[1].args["text"] == placeholder(check.plan.tasks[0].id)


@pytest.mark.parametrize("request_text", [
    "what's your favourite video game?",
    "was your last poem about love?",
])
def test_a_question_about_the_assistant_asks_for_nothing_made(planner, request_text):
    """Nothing was asked to be made before it: "your poem" is not a picture or text to make."""
    assert planner.plan(request_text).plan.tasks == []


@pytest.mark.parametrize("request_text", [
    "caption this and pose a question about it",
    "pose: warrior two. caption: yoga class",
    "explain the sketch on this whiteboard, and what does the arrow mean?",
])
def test_a_map_word_that_asks_for_no_map_plans_none(planner, tmp_path, request_text):
    check = planner.plan(request_text, attach(tmp_path, "lake.jpg"))
    assert not any(t.task.endswith("-control") for t in check.plan.tasks)


@pytest.mark.parametrize("request_text, tasks, deps", [
    # a pose taken from a picture made first reads that picture
    ("generate a photo of a sprinter at the start line, and then use the sprinter's pose from that image "
     "to make an astronaut in the same position", ["text-to-image", "openpose-control", "openpose-text-to-image"], [[], [0], [1]]),
    # a map of a picture drawn first is made of that picture, and is no edit of it
    ("draw a cottage in a meadow, then make a depth map of it, then use the depth map to make a snowy version",
     ["text-to-image", "depth-control", "depth-text-to-image"], [[], [0], [1]]),
    ("draw a windmill on a hill, then make an edge map of it, then use the edges to make a neon version",
     ["text-to-image", "canny-control", "canny-text-to-image"], [[], [0], [1]]),
    # a picture made, then turned into another scene or painted again differently, is edited
    ("make a picture of a sailboat at sea, then turn it into a stormy night scene", ["text-to-image", "image-to-image"], [[], [0]]),
    ("paint a lighthouse, then paint it again in a storm", ["text-to-image", "image-to-image"], [[], [0]]),
])
def test_a_picture_made_first_is_the_one_later_steps_work_on(planner, request_text, tasks, deps):
    check = planner.plan(request_text)
    assert tasks_of(check) == tasks
    assert _deps(check) == deps
