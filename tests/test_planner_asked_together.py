"""Several things asked in one breath: two or three questions in one sentence, a list of results
under one verb, two versions named together; and look-alikes whose "and" is inside one ask. Every
sentence was written for these tests (none is in the training requests or the benchmark sets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.segment import segment
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def _images(check) -> list[str]:
    return [Path(t.args["image"]).name for t in check.plan.tasks]


def _questions(check) -> list[str]:
    return [t.args["text"].rstrip("?") for t in check.plan.tasks if "text" in t.args]


def test_a_second_question_joined_by_and_is_cut_from_the_first():
    text = "what colour is the boat and where is it moored?"
    seg = segment(text, [], commands=True)
    assert [c.text.strip() for c in seg.clauses] == ["what colour is the boat", "and where is it moored?"]
    assert seg.questions == {text.index("and where")}


@pytest.mark.parametrize("text", [
    "is there a dog and a ball on the grass?",  # one question about two things
    "tell me who and when",  # question words without a verb of their own
    "what time is it and can you set an alarm",  # the second is asked of the assistant, not a question of the file
])
def test_an_and_inside_one_question_cuts_no_second_question(text):
    assert segment(text, [], commands=True).questions == set()


def test_two_questions_about_one_photo_are_two_answers_each_with_its_question(planner, tmp_path):
    check = planner.plan("what colour is the boat and where is it moored?", attach(tmp_path, "harbour.jpg"))
    assert tasks_of(check) == ["visual-question-answering", "visual-question-answering"]
    assert _questions(check) == ["What colour is the boat", "Where is it moored"]
    assert _images(check) == ["harbour.jpg", "harbour.jpg"]


def test_a_question_beside_a_label_asked_of_the_same_photo_is_answered(planner, tmp_path):
    """"what kind of bird" is a label; "is it sitting on a branch" a question of the photo."""
    check = planner.plan("what kind of bird is this and is it sitting on a branch?", attach(tmp_path, "harbour.jpg"))
    assert tasks_of(check) == ["image-classification", "visual-question-answering"]
    assert _questions(check) == ["Is it sitting on a branch"]


def test_three_questions_about_a_letter_separated_by_commas_are_three_answers(planner, tmp_path):
    check = planner.plan("who signed this letter, what date is on it, and where was it sent from?", attach(tmp_path, "letter.png"))
    assert tasks_of(check) == ["document-question-answering"] * 3
    assert _questions(check) == ["Who signed this letter", "What date is on it", "Where was it sent from"]


def test_one_question_about_two_things_stays_one_answer(planner, tmp_path):
    check = planner.plan("is there a dog and a ball on the grass?", attach(tmp_path, "harbour.jpg"))
    assert tasks_of(check) == ["visual-question-answering"]


def test_results_listed_under_one_verb_are_each_a_step_on_the_photo(planner, tmp_path):
    check = planner.plan("I want the caption, the depth map and the objects in it", attach(tmp_path, "harbour.jpg"))
    assert tasks_of(check) == ["image-to-text", "depth-estimation", "object-detection"]
    assert _images(check) == ["harbour.jpg"] * 3  # each reads the photo, not the map listed before it


def test_two_maps_listed_together_each_read_the_photo(planner, tmp_path):
    check = planner.plan("pose skeleton and depth map of this please", attach(tmp_path, "harbour.jpg"))
    assert tasks_of(check) == ["openpose-control", "depth-estimation"]
    assert _images(check) == ["harbour.jpg", "harbour.jpg"]


@pytest.mark.parametrize("request_text, files, tasks", [
    ("find the ducks and their ducklings in this shot", ["harbour.jpg"], ["object-detection"]),  # one search
    ("draw a fox and an owl in the snow", [], ["text-to-image"]),  # one picture of both
])
def test_a_list_inside_one_ask_stays_one_step(planner, tmp_path, request_text, files, tasks):
    check = planner.plan(request_text, attach(tmp_path, *files))
    assert tasks_of(check) == tasks


def test_two_versions_named_together_are_two_translations(planner):
    check = planner.plan('I want a Dutch and a Polish version of "the shop closes at noon"', [])
    assert tasks_of(check) == ["translation", "translation"]
    assert [t.args["target_language"] for t in check.plan.tasks] == ["Dutch", "Polish"]


def test_questions_asked_together_of_a_recording_are_each_answered_from_its_transcript(planner, tmp_path):
    check = planner.plan("what is the talk about and which book does she recommend?", attach(tmp_path, "lecture.mp3"))
    assert tasks_of(check) == ["automatic-speech-recognition", "question-answering", "question-answering"]
    transcript = f"<GENERATED>-{check.plan.tasks[0].id}"
    assert [t.args["context"] for t in check.plan.tasks[1:]] == [transcript, transcript]
    assert [t.args["text"].rstrip("?") for t in check.plan.tasks[1:]] == ["What is the talk about", "Which book does she recommend"]


def test_a_question_answerer_placed_before_the_questions_answers_the_first_of_them(planner, tmp_path):
    """"Here's my parking ticket." holds no question; the two after it are answered one each."""
    check = planner.plan("Here's my parking ticket. What's the fine, and where do I pay it?", attach(tmp_path, "ticket.jpg"))
    assert tasks_of(check) == ["document-question-answering", "document-question-answering"]
    assert _questions(check) == ["What's the fine", "Where do I pay it"]


def test_what_a_cleaning_takes_out_is_one_step(planner, tmp_path):
    check = planner.plan("split the drums and the vocals", attach(tmp_path, "band.wav"))
    assert tasks_of(check) == ["audio-to-audio"]
