"""Talk around the task: a question about what the assistant can do, small talk or a chore no
model does sits beside a real request; the real request is still planned, the talk adds nothing.
Sentences written for these tests (in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


@pytest.mark.parametrize("request_text, task, text", [
    ("what sort of things can you do? paint me a lighthouse in a storm", "text-to-image", "lighthouse"),
    ("what else could you do? anyway read 'dinner is at seven' out loud", "text-to-speech", "dinner is at seven"),
])
def test_a_question_about_abilities_beside_a_request_keeps_the_request(planner, request_text, task, text):
    check = planner.plan(request_text)
    assert tasks_of(check) == [task]
    assert text in check.plan.tasks[0].args["text"]


@pytest.mark.parametrize("request_text", [
    "what kinds of stuff can you do",
    "which languages can you translate into?",
    "can you make pictures too?",
])
def test_a_question_about_abilities_alone_asks_for_no_step(planner, request_text):
    check = planner.plan(request_text)
    assert check.ok and check.plan is not None and tasks_of(check) == []


def test_just_curious_after_a_question_about_abilities_asks_for_nothing(planner):
    check = planner.plan("are you able to turn text into speech? just curious")
    assert check.ok and tasks_of(check) == []


def test_an_apology_that_says_what_the_file_is_withdraws_no_language(planner, tmp_path):
    check = planner.plan("could you put this into italian? sorry, it's a scan of my lease", attach(tmp_path, "lease.png"))
    assert tasks_of(check) == ["image-to-text", "translation"]
    assert check.plan.tasks[1].args["target_language"] == "Italian"


def test_an_apology_saying_who_it_is_for_keeps_the_language(planner):
    check = planner.plan("translate 'buona notte' into German? sorry, it's for my aunt")
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["target_language"] == "German"


def test_a_negation_inside_quoted_words_declines_nothing(planner):
    check = planner.plan("translate this into German: 'please don't translate the product names'")
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["text"] == "please don't translate the product names"


@pytest.mark.parametrize("request_text", [
    "ngl that video u made was kinda mid",
    "lol the song you wrote last night was so good",
])
def test_an_opinion_of_what_was_made_asks_for_nothing(planner, request_text):
    check = planner.plan(request_text)
    assert check.ok and tasks_of(check) == []


def test_a_request_for_a_thing_that_did_something_still_makes_it(planner):
    check = planner.plan("a poem about a cat that got lost")
    assert tasks_of(check) == ["text-generation"]


@pytest.mark.parametrize("request_text, files, task", [
    # an errand beside a step adds no step
    ("separate the two voices in this clip, then put some music on", ["duet.wav"], "audio-to-audio"),
    ("how many coins are in the till in this photo? then order more change from the bank", ["till.jpg"], "object-detection"),
    ("summarize this and email me the summary", ["minutes.txt"], "summarization"),  # an errand naming a result drops nothing
    # an apology for one's English asks for no translation
    ("sorry my english. what instrument is playing in this clip", ["street_band.wav"], "audio-classification"),
    # the time now is not asked of the transcript; the date of a thing given still is
    ("can u write out this lecture pls. also what time is it rn", ["lecture_9.m4a"], "automatic-speech-recognition"),
    ("what's the date on the invoice", ["invoice_77.png"], "document-question-answering"),
])
def test_talk_beside_a_step_leaves_that_step_alone(planner, tmp_path, request_text, files, task):
    check = planner.plan(request_text, attach(tmp_path, *files))
    assert tasks_of(check) == [task]


def test_no_answer_is_made_to_be_spoken_when_nothing_is_to_be_spoken(planner):
    check = planner.plan("what's the longest river in Africa? my uncle always says the Congo")
    assert check.ok and tasks_of(check) == []


def test_a_question_to_the_assistant_about_itself_is_not_asked_of_a_quoted_word(planner):
    check = planner.plan("hey, what's your name? do I call you 'jarvis' or what")
    assert check.ok and tasks_of(check) == []


def test_a_question_whether_it_knows_a_language_asks_for_nothing(planner):
    check = planner.plan("Bonjour! Do you speak french? which languages you are knowing?")
    assert check.ok and tasks_of(check) == []


@pytest.mark.parametrize("request_text, task", [
    ("translate 'what day is it' into Italian", "translation"),           # the question is the words to translate
    ("are you ok? translate 'see you soon' into Dutch", "translation"),   # a question to the assistant beside a command
    ("post a drawing of a lighthouse", "text-to-image"),                  # an errand of a thing to be made
    ("the summary was great, read it out to my dad", "text-to-speech"),   # an opinion, then a command
])
def test_talk_look_alikes_keep_their_step(planner, request_text, task):
    assert task in tasks_of(planner.plan(request_text))


def test_the_time_asked_of_a_photo_alone_is_asked_of_it(planner, tmp_path):
    check = planner.plan("what time is it?", attach(tmp_path, "station_clock.jpg"))
    assert tasks_of(check) == ["visual-question-answering"]


def test_a_correction_by_a_noun_replaces_the_thing_not_the_language(planner):
    check = planner.plan("write a story in French, sorry, a fable")
    text = next(t for t in check.plan.tasks if t.task == "text-generation").args["text"].lower()
    assert "fable" in text and "story" not in text and "french" in text


def test_speech_words_inside_quoted_words_ask_for_no_speech(planner):
    check = planner.plan("put 'please don't read this aloud' into German")
    assert tasks_of(check) == ["translation"]
