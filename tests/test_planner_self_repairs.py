"""Corrections made while speaking ("paint a horse, no wait, a zebra") and what a request says not
to do ("without reading it out", "not a picture, just a clip") are planned as meant. Sentences
written for these tests (in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.self_repairs import as_meant
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


def _arg(check, task: str, name: str) -> str:
    return next(str(t.args[name]) for t in check.plan.tasks if t.task == task)


# --- corrections ------------------------------------------------------------------------------


def test_a_corrected_thing_to_draw_is_drawn_as_corrected(planner):
    # before: one picture of "a horse in a meadow, no wait, a zebra in a meadow"
    check = planner.plan("paint a horse in a meadow, no wait, a zebra in a meadow")
    assert tasks_of(check) == ["text-to-image"]
    prompt = _arg(check, "text-to-image", "text")
    assert "zebra" in prompt and "horse" not in prompt and "wait" not in prompt
    assert "correction" in check.corrected and "horse" in check.corrected  # the user sees what was read


def test_a_corrected_language_is_the_one_translated_into(planner, tmp_path):
    files = attach(tmp_path, "minutes.txt")
    check = planner.plan("put these minutes into Portuguese er no into Greek and then read them to me", files)
    assert tasks_of(check) == ["translation", "text-to-speech"]
    assert _arg(check, "translation", "target_language") == "Greek"


def test_a_corrected_file_is_the_one_read(planner, tmp_path):
    files = attach(tmp_path, "kitchen.jpg", "garage.jpg")
    check = planner.plan("Caption kitchen.jpg please. Oops, I meant garage.jpg.", files)
    assert tasks_of(check) == ["image-to-text"]
    assert _arg(check, "image-to-text", "image").endswith("garage.jpg")


def test_a_corrected_command_replaces_the_first(planner, tmp_path):
    files = attach(tmp_path, "lecture_notes.txt")
    check = planner.plan("Summarise my lecture notes. Hang on, I meant translate them into Italian.", files)
    assert tasks_of(check) == ["translation"]
    assert _arg(check, "translation", "target_language") == "Italian"


def test_a_corrected_kind_of_output_keeps_its_description(planner):
    # "a video ... no no, a picture, not a video": the picture of the rocket, not of "a picture"
    check = planner.plan("a video of a rocket lifting off at dawn. no no, a picture, not a video.")
    assert tasks_of(check) == ["text-to-image"]
    assert "rocket" in _arg(check, "text-to-image", "text")


def test_a_spoken_correction_without_punctuation(planner):
    check = planner.plan("um make me a video of a paper plane uh no wait a picture of a paper plane")
    assert tasks_of(check) == ["text-to-image"]


def test_a_question_corrected_into_a_command(planner):
    check = planner.plan('Is this tweet sarcastic? "Great, another Monday in Leeds with Tom and Priya." '
                         'Hold on, rather list the names and places in it.')
    assert tasks_of(check) == ["token-classification"]
    assert "Leeds" in _arg(check, "token-classification", "text")


def test_a_corrected_quotation_is_the_one_spoken(planner):
    check = planner.plan('Say "see you at noon" out loud. Sorry, make that "see you at one".')
    assert tasks_of(check) == ["text-to-speech"]
    assert _arg(check, "text-to-speech", "text") == "see you at one"


def test_a_question_corrected_by_another_question(planner, tmp_path):
    files = attach(tmp_path, "lease.png")
    check = planner.plan("How much is the deposit on this? Correction: when is it due?", files)
    assert tasks_of(check) == ["document-question-answering"]
    question = _arg(check, "document-question-answering", "text").lower()
    assert "due" in question and "deposit" not in question


def test_never_mind_withdraws_the_step_just_asked(planner, tmp_path):
    # before: "never mind" put the whole request aside for later
    files = attach(tmp_path, "terrace.jpg")
    check = planner.plan("caption this photo and count the people in it, oh never mind that, just the caption", files)
    assert tasks_of(check) == ["image-to-text"]


# --- what not to do ---------------------------------------------------------------------------


@pytest.mark.parametrize("request_text, files, expected", [
    ("summarise budget.txt without reading it out loud, the baby is asleep", ["budget.txt"], ["summarization"]),
    ("just tell me what's in this picture instead of translating the caption again", ["holiday.jpg"], ["image-to-text"]),
    ("Not a video, just a picture of a fox asleep in the snow.", [], ["text-to-image"]),  # before: a video of the fox
    ("skip the summary this time just translate the chapter into Polish", ["chapter.txt"], ["translation"]),
    # a step asked before and withdrawn by name
    ("transcribe the standup and read it back to me, actually scratch the reading part", ["standup.wav"], ["automatic-speech-recognition"]),
])
def test_a_step_said_not_to_be_done_is_not_planned(planner, tmp_path, request_text, files, expected):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, *files))) == expected


# --- the same words where nothing is corrected or declined --------------------------------------


def test_no_and_without_inside_a_description_stay(planner):
    check = planner.plan("draw a lighthouse with no light, and a boat without sails")
    prompts = " ".join(t.args["text"] for t in check.plan.tasks)
    assert set(tasks_of(check)) == {"text-to-image"} and "no light" in prompts and "without sails" in prompts


def test_a_quoted_correction_is_translated_as_said(planner):
    check = planner.plan('translate "no wait, come back, I meant the other bus" into French')
    assert tasks_of(check) == ["translation"]
    assert "no wait" in _arg(check, "translation", "text")


def test_actually_for_emphasis_corrects_nothing(planner, tmp_path):
    files = attach(tmp_path, "porch.jpg")
    check = planner.plan("can you actually caption this photo and read the caption to me", files)
    assert tasks_of(check) == ["image-to-text", "text-to-speech"]


@pytest.mark.parametrize("request_text", [
    "I mean it, describe this one properly",
    "I'm sorry to ask again, but describe this one",
    "write a poem about never giving up, not even once",
])
def test_look_alikes_are_read_as_said(request_text):
    meant = as_meant(request_text)
    assert not meant.corrections
    assert meant.note() is None


def test_the_rewrite_keeps_what_the_correction_repeats():
    meant = as_meant("draw a goat standing on a roof no wait make that a sheep standing on a roof")
    assert meant.text == "draw a sheep standing on a roof"
    assert [(c.withdrawn, c.meant) for c in meant.corrections] == [("a goat", "a sheep")]


@pytest.mark.parametrize("request_, task, meant", [
    ("sketch a yellow submarine under the sea, no wait, make it green", "text-to-image", "a green submarine under the sea"),
    ("write a gloomy song about winter, actually make it upbeat", "text-generation", "write an upbeat song about winter"),
    ("could you paint a picture of a wooden boat no wait make it blue a blue boat on a lake", "text-to-image",
     "a blue boat on a lake"),
])
def test_make_it_with_a_property_changes_the_thing_asked_for(planner, request_, task, meant):
    check = planner.plan(request_)
    assert [t.task for t in check.plan.tasks] == [task]
    assert check.plan.tasks[0].args["text"].lower() == meant


def test_make_it_with_a_language_is_the_language_not_a_property(planner):
    check = planner.plan("translate 'see you soon' into Italian, no wait, make it German")
    assert [(t.task, t.args["text"], t.args["target_language"]) for t in check.plan.tasks] == [
        ("translation", "see you soon", "German")]


@pytest.mark.parametrize("request_text", [
    "caption the first screenshot. sorry, no, the second one",
    "transcribe the first clip, sorry I mean the second",
    "transcribe the first voicemail, sorry I mean the second",
])
def test_a_file_corrected_by_its_place_is_the_one_worked_on(planner, tmp_path, request_text):
    """Before: the first request planned nothing (the command, which the tagger took for a noun,
    was withdrawn with the file), the second worked on the first file."""
    kind = "image" if "screenshot" in request_text else "audio"
    files = attach(tmp_path, *(("a.wav", "b.wav") if kind == "audio" else ("a.jpg", "b.jpg")))
    check = planner.plan(request_text, files)
    assert len(check.plan.tasks) == 1, tasks_of(check)
    assert check.plan.tasks[0].args[kind] == str(files[1].path)


def test_make_it_with_a_property_finds_a_thing_the_tagger_misread(planner):
    """ "paint my horse Rocket": the name taken for the object (or a subject) left the colour in
    the wrong place, or in the place of the whole thing."""
    check = planner.plan("paint my horse Rocket, no wait make it white")
    assert tasks_of(check) == ["text-to-image"]
    prompt = _arg(check, "text-to-image", "text")
    assert "white horse Rocket" in prompt, prompt


def test_an_ordinal_inside_a_thing_to_draw_is_no_file(planner):
    """ "the last light of dusk" is a correction of what to paint, not a file pointed at."""
    check = planner.plan("paint a lake at dawn, no wait, the last light of dusk")
    prompt = _arg(check, "text-to-image", "text")
    assert "wait" not in prompt and "dusk" in prompt and "dawn" not in prompt, prompt
