"""A question asked of a picture, with its answer to be spoken, is put to the step that answers it,
not to the caption the model leans to when it hears speech about a picture. Sentences written for
these tests (in no training or benchmark file)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from jarvis_desktop.planning.extract import read_request
from jarvis_desktop.planning.learned import LABELS
from jarvis_desktop.planning.named_makers import questions_not_captions
from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


def test_a_spoken_question_on_a_photo_is_answered_not_captioned(planner, tmp_path):
    """Before: the photo's caption was read aloud for "what season is it"."""
    check = planner.plan("what season is it in this picture, say it aloud", attach(tmp_path, "park.jpg"))
    assert tasks_of(check) == ["visual-question-answering", "text-to-speech"]
    assert check.plan.tasks[0].args["text"] == "What season is it"
    assert check.plan.tasks[1].dep == [0]


@pytest.mark.parametrize("request_text", [
    "what's in this photo? say it aloud",              # what the picture shows: its caption
    "read me what's printed on this label",            # what it says: its words
    "tell me out loud what the note on the fridge says",
])
def test_asking_what_a_picture_shows_or_says_is_still_its_caption(planner, tmp_path, request_text):
    check = planner.plan(request_text, attach(tmp_path, "photo.jpg"))
    assert tasks_of(check) == ["image-to-text", "text-to-speech"]


NO_QUOTES = read_request("whose stamp is on this letter")


def _views(*texts):
    return [SimpleNamespace(span=SimpleNamespace(text=t)) for t in texts]


def test_the_answering_step_the_model_likes_best_replaces_the_caption():
    """With the model leaning to the caption (0.6) over a question's steps, the likeliest of a
    picture's answers is asked; a caption asked for in words of its own stays."""
    P = np.zeros((2, len(LABELS)))
    P[0, LABELS.index("image-to-text")] = 0.6
    P[0, LABELS.index("document-question-answering")] = 0.2
    P[0, LABELS.index("visual-question-answering")] = 0.1
    P[1, LABELS.index("text-to-speech")] = 0.9
    found = [(0, LABELS.index("image-to-text"), "image-to-text"), (1, LABELS.index("text-to-speech"), "text-to-speech")]
    views = _views("whose stamp is on this letter? ", "read it to me")
    assert [f[2] for f in questions_not_captions(found, P, LABELS, views, ["image"], NO_QUOTES)] == [
        "document-question-answering", "text-to-speech"]
    # no speech asked: the model's reading stands
    assert questions_not_captions(found[:1], P, LABELS, views, ["image"], NO_QUOTES) == found[:1]
    # the caption asked for in its own words
    captioned = _views("whose stamp is on this letter, describe the letter ", "read it to me")
    assert questions_not_captions(found, P, LABELS, captioned, ["image"], NO_QUOTES) == found


def test_a_judgment_asked_in_the_speech_is_made_and_spoken(planner, tmp_path):
    """"..., and tell me out loud if it sounds angry": before, the letter's words were read aloud."""
    check = planner.plan("read the text off letter.jpg and tell me out loud if it sounds angry", attach(tmp_path, "letter.jpg"))
    assert tasks_of(check) == ["image-to-text", "text-classification", "text-to-speech"]
    assert [t.dep for t in check.plan.tasks][1:] == [[0], [1]]


@pytest.mark.parametrize("request_text", [
    "transcribe talk.wav and tell me out loud if you can",     # a courtesy, not a question
    "transcribe talk.wav and read the transcript aloud",
])
def test_speech_of_the_words_read_asks_no_judgment(planner, tmp_path, request_text):
    check = planner.plan(request_text, attach(tmp_path, "talk.wav"))
    assert tasks_of(check) == ["automatic-speech-recognition", "text-to-speech"]


@pytest.mark.parametrize("text, whole", [
    ("what's written on this poster", True), ("what does the label on the jar say", True),
    ("tell me what the sign says", True), ("what's going on in this photo", True), ("describe it", True),
    ("what's the answer written for question two", False), ("what oven temperature does the card say", False),
    ("what season is it in this picture", False), ("whose name is on the form", False),
])
def test_what_asks_for_the_whole_picture(text, whole):
    from jarvis_desktop.planning.named_makers import asks_what_it_shows

    assert asks_what_it_shows(text) is whole


@pytest.mark.parametrize("request_text, spoken", [
    ("the plumber comes at noon tomorrow, say it out loud", "the plumber comes at noon tomorrow"),
    ("Hey kids, the car is leaving in five minutes. Read that aloud", "Hey kids, the car is leaving in five minutes."),
    ("we'll be there by eight, repeat that out loud for me", "we'll be there by eight"),
])
def test_words_stated_then_said_out_loud_are_spoken_as_they_are(planner, request_text, spoken):
    """"dinner is at six, say it out loud": the words themselves, not a chat reply to them."""
    check = planner.plan(request_text)
    assert tasks_of(check) == ["text-to-speech"]
    assert check.plan.tasks[0].args["text"] == spoken


@pytest.mark.parametrize("request_text", [
    "my sister passed her driving test, tell me about it out loud",  # talk about it, not its words
    "what's the tallest mountain in Africa? say it out loud",  # a question: its answer is said
    "I need a name for my new goldfish, say it out loud",  # a wish is a request
])
def test_what_is_asked_or_talked_about_before_speech_is_still_answered(planner, request_text):
    assert tasks_of(planner.plan(request_text)) == ["conversational", "text-to-speech"]
