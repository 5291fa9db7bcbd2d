"""Counted things: "two sonnets about the sea" is two writing steps, each for one sonnet; a number
inside what a picture shows is not a count of pictures. Sentences written for these tests (in no
training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


def _texts(check) -> list[str]:
    return [t.args["text"] for t in check.plan.tasks]


def test_a_count_of_writings_is_that_many_steps_each_for_one(planner):
    check = planner.plan("two sonnets about the sea")
    assert tasks_of(check) == ["text-generation"] * 2
    assert all("a sonnet about the sea" in t.lower() and "two" not in t.lower() for t in _texts(check))
    assert not any(t.dep for t in check.plan.tasks)


def test_a_count_of_pictures_after_a_verb(planner):
    check = planner.plan("sketch three logo ideas for a coffee cart")
    assert tasks_of(check) == ["text-to-image"] * 3
    assert len(set(_texts(check))) == 1 and "coffee cart" in _texts(check)[0] and "three" not in _texts(check)[0]


def test_a_couple_of(planner):
    check = planner.plan("write a couple of limericks about a lazy walrus")
    assert tasks_of(check) == ["text-generation"] * 2
    assert "couple" not in _texts(check)[0] and "walrus" in _texts(check)[0]


@pytest.mark.parametrize("request_text", [
    "draw two horses running on a beach",       # what the picture shows
    "make an image of four apples in a bowl",   # inside the description
])
def test_a_number_in_what_a_picture_shows_is_one_picture(planner, request_text):
    check = planner.plan(request_text)
    assert tasks_of(check) == ["text-to-image"]


@pytest.mark.parametrize("request_text,task", [
    ("animate a 5 second clip of fireflies over a pond", "text-to-video"),   # a length
    ("generate a three minute video of a campfire", "text-to-video"),
])
def test_a_number_that_measures_the_thing_is_one_thing(planner, request_text, task):
    check = planner.plan(request_text)
    assert tasks_of(check) == [task]


def test_parts_of_one_text_are_one_text(planner):
    check = planner.plan("write three paragraphs about the history of tea")
    assert tasks_of(check) == ["text-generation"]


def test_them_after_copies_is_each_copy(planner):
    # before: only the last riddle was spoken
    check = planner.plan("write two riddles about the moon and read them out loud")
    assert tasks_of(check) == ["text-generation", "text-generation", "text-to-speech", "text-to-speech"]
    assert [t.args["text"] for t in check.plan.tasks[2:]] == ["<GENERATED>-0", "<GENERATED>-1"]


def test_one_copy_named_is_that_copy_alone(planner):
    check = planner.plan("write two riddles about the moon and read the second one out loud")
    assert tasks_of(check) == ["text-generation", "text-generation", "text-to-speech"]
    assert check.plan.tasks[2].args["text"] == "<GENERATED>-1"


@pytest.mark.parametrize("request_text, made", [
    ("paint a windmill at dawn, then another one, and describe each", ["a windmill at dawn"] * 2),
    ("sketch a tram in the rain. one more in the snow. caption both", ["a tram in the rain", "a tram in the snow"]),
])
def test_each_picture_asked_again_is_read_once_each(planner, request_text, made):
    """"draw a fox, then another, and describe each": both pictures described, not the last alone."""
    check = planner.plan(request_text)
    assert tasks_of(check) == ["text-to-image", "text-to-image", "image-to-text", "image-to-text"]
    assert [t.args["text"] for t in check.plan.tasks[:2]] == made
    assert [t.args["image"] for t in check.plan.tasks[2:]] == ["<GENERATED>-0", "<GENERATED>-1"]


def test_them_after_pictures_counted_is_each_picture(planner):
    """"draw two ... and describe them": copies made by one step, read once each whatever their kind."""
    check = planner.plan("create two posters of a jazz night and describe them")
    assert tasks_of(check) == ["text-to-image", "text-to-image", "image-to-text", "image-to-text"]
    assert [t.args["image"] for t in check.plan.tasks[2:]] == ["<GENERATED>-0", "<GENERATED>-1"]
