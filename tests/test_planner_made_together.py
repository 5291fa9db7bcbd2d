"""Several new things asked for in one breath ("a poem about autumn and a painting of falling
leaves"): a step makes each, from its own words, side by side. Sentences written for these tests
(in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


@pytest.mark.parametrize("request_text, made", [
    ("I want a limerick about my cat and a painting of her asleep on the piano",
     {"text-generation": "limerick", "text-to-image": "piano"}),
    ("could you give me a logo for my ice cream van and a slogan to paint under it",
     {"text-to-image": "ice cream van", "text-generation": "slogan"}),
    ("for the school fair I'd love a bright poster, and a short, cheerful blurb for the newsletter",
     {"text-to-image": "poster", "text-generation": "blurb"}),
    ("make us a cartoon picture of a fox in a scarf and also a short animated clip of him skating",
     {"text-to-image": "fox", "text-to-video": "skating"}),
    ("I need a funny poem and a silly drawing for my friend's farewell card", {"text-generation": "poem", "text-to-image": "farewell card"}),
])
def test_each_thing_asked_for_together_is_made_from_its_own_words(planner, request_text, made):
    plan = planner.plan(request_text, []).plan
    assert sorted(t.task for t in plan.tasks) == sorted(made)
    for t in plan.tasks:
        assert "<GENERATED>" not in t.args["text"]  # side by side: neither is made from the other
        assert made[t.task] in t.args["text"].lower()
    others = {t.task: t.args["text"].lower() for t in plan.tasks}
    for task, word in made.items():  # each prompt holds its own thing, not the other's
        assert all(word not in text for other, text in others.items() if other != task)


@pytest.mark.parametrize("request_text, tasks", [
    ("draw a picture of a girl reading a story under a tree", ["text-to-image"]),  # the story is in the picture
    ("write a poem about the painting my grandmother made", ["text-generation"]),  # the painting is there already
    ("I'd love a picture of a puppy and a kitten", ["text-to-image"]),  # two things in one picture
    ("draw a picture of an inkwell and a letter", ["text-to-image"]),  # the letter is in the picture
])
def test_one_thing_with_others_in_its_words_is_one_step(planner, request_text, tasks):
    assert tasks_of(planner.plan(request_text, [])) == tasks


@pytest.mark.parametrize("request_text", [
    "we love limericks and watercolours",  # liked, not asked for
    "my nephew made a comic and a song for school",  # made already, by someone else
    "do you like stories and paintings?",  # a question to the assistant
    "I want to make a flyer and a video for our bake sale, any advice?",  # what the user means to do
    "should I make a poster and a clip for the launch party?",  # advice asked
])
def test_things_talked_about_are_not_made(planner, request_text):
    assert len(tasks_of(planner.plan(request_text, []))) <= 1


def test_works_recommended_are_not_made(planner):
    assert "text-to-video" not in tasks_of(planner.plan("give me a poem and a film to watch on a rainy sunday", []))


def test_two_things_of_one_kind_asked_with_another_are_both_made(planner):
    plan = planner.plan("make me a logo, a motto and a poster for our chess club", []).plan
    assert sorted(t.task for t in plan.tasks) == ["text-generation", "text-to-image", "text-to-image"]
