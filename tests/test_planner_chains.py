"""Longer chains: a clause that names an earlier result ("the transcript") asks for something done
to it, not for that result again; two results made once each are what "the two ..." compares;
"both the original and the translation" asks for a step on each. Sentences written for these
tests (in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def _step(check, task: str, nth: int = 0):
    return [t for t in check.plan.tasks if t.task == task][nth]


def test_a_clause_naming_the_transcript_asks_for_a_comparison_with_it(planner, tmp_path):
    check = planner.plan("get the words out of this recording and see whether the transcript matches 'two litres of milk'",
                         attach(tmp_path, "shopping.wav"))
    assert sorted(tasks_of(check)) == ["automatic-speech-recognition", "sentence-similarity"]
    asr, sim = _step(check, "automatic-speech-recognition"), _step(check, "sentence-similarity")
    assert f"<GENERATED>-{asr.id}" in (sim.args["text"], sim.args["text2"])
    assert "two litres of milk" in (sim.args["text"], sim.args["text2"])


def test_the_two_results_of_a_step_made_once_each_are_compared(planner):
    check = planner.plan('Shorten each of these and then tell me how alike the two shortened versions are. '
                         'First: "The bakery on Elm Street will open an hour later on Mondays from now on, because of staff shortages." '
                         'Second: "Because it is short of staff, the Elm Street bakery is moving its Monday opening back by one hour."')
    assert sorted(tasks_of(check)) == ["sentence-similarity", "summarization", "summarization"]
    shortened = {f"<GENERATED>-{t.id}" for t in check.plan.tasks if t.task == "summarization"}
    sim = _step(check, "sentence-similarity")
    assert {sim.args["text"], sim.args["text2"]} == shortened


def test_both_the_original_and_the_translation_are_read_aloud(planner):
    check = planner.plan("put 'the last bus leaves at midnight' into Italian and then read both the original and the Italian version out loud")
    assert sorted(tasks_of(check)) == ["text-to-speech", "text-to-speech", "translation"]
    spoken = {t.args["text"] for t in check.plan.tasks if t.task == "text-to-speech"}
    assert spoken == {"the last bus leaves at midnight", f"<GENERATED>-{_step(check, 'translation').id}"}


def test_both_the_original_photo_and_the_edited_one_are_described(planner, tmp_path):
    check = planner.plan("make this picture look like a pencil drawing, then describe both the original and the new picture",
                         attach(tmp_path, "harbour.jpg"))
    assert sorted(tasks_of(check)) == ["image-to-image", "image-to-text", "image-to-text"]
    read = {t.args["image"] for t in check.plan.tasks if t.task == "image-to-text"}
    assert read == {str(tmp_path / "harbour.jpg"), f"<GENERATED>-{_step(check, 'image-to-image').id}"}


@pytest.mark.parametrize("request_text", [
    "translate 'see you at the station' into French and read the translation aloud",  # one thing named
    "caption both of these photos",                                                   # two files, as before
])
def test_one_step_each_only_where_two_things_are_joined(planner, tmp_path, request_text):
    files = attach(tmp_path, "a.jpg", "b.jpg") if "photos" in request_text else []
    check = planner.plan(request_text, files)
    speech = [t for t in check.plan.tasks if t.task == "text-to-speech"]
    captions = [t for t in check.plan.tasks if t.task == "image-to-text"]
    assert len(speech) == (1 if "aloud" in request_text else 0)
    assert len(captions) == (2 if files else 0)


def test_a_second_question_about_a_bill_gets_its_own_answer(planner, tmp_path):
    check = planner.plan("what's the total on this bill? and who is it addressed to?", attach(tmp_path, "bill.png"))
    assert tasks_of(check) == ["document-question-answering", "document-question-answering"]
    assert [t.args["text"] for t in check.plan.tasks] == ["What's the total?", "Who is it addressed to?"]
    assert {t.args["image"] for t in check.plan.tasks} == {str(tmp_path / "bill.png")}


def test_two_questions_on_one_passage_both_read_the_passage(planner):
    passage = "The pool is open from 7 to 10 and the sauna from 9 to 9."
    check = planner.plan(f'"{passage}" When does the pool open? And when does the sauna close?')
    assert tasks_of(check) == ["question-answering", "question-answering"]
    assert [t.args["context"] for t in check.plan.tasks] == [passage, passage]
    assert check.plan.tasks[1].args["text"] == "When does the sauna close?"


@pytest.mark.parametrize("request_text, expected", [
    ("what's the total on this receipt? can you tell me?", ["document-question-answering"]),  # asked of the assistant
    ("what's the total on this receipt? read it to me.", ["document-question-answering", "text-to-speech"]),
    ("what's the total on this receipt? should I ask for a refund?", ["document-question-answering"]),  # advice
])
def test_a_request_after_a_question_is_not_a_second_question(planner, tmp_path, request_text, expected):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, "receipt.png"))) == expected


def test_what_was_judged_is_spoken_when_it_is_pointed_at_again(planner):
    check = planner.plan("write a slogan for my bakery, tell me if it is catchy and then say it out loud")
    assert tasks_of(check) == ["text-generation", "text-classification", "text-to-speech"]
    assert check.plan.tasks[2].args["text"] == "<GENERATED>-0"  # the slogan, not the verdict on it


@pytest.mark.parametrize("request_text", [
    'is this positive: "the soup was cold again"? read the result aloud',   # the verdict named
    'what is the tone of "the soup was cold again"? say it out loud',       # the question's answer
])
def test_a_verdict_asked_for_is_what_is_spoken(planner, request_text):
    check = planner.plan(request_text)
    assert tasks_of(check) == ["text-classification", "text-to-speech"]
    assert check.plan.tasks[1].args["text"] == "<GENERATED>-0"


@pytest.mark.parametrize("request_text", ["please print that", "send that to my accountant please"])
def test_a_chore_on_the_file_pointed_at_with_that_needs_no_model(planner, tmp_path, request_text):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, "invoice_march.png"))) == []


def test_after_a_yes_or_no_question_on_a_text_it_is_the_text_that_is_read(planner, tmp_path):
    check = planner.plan("is this letter friendly or rude? and can you read it aloud for me?", attach(tmp_path, "letter.txt"))
    assert tasks_of(check) == ["text-classification", "text-to-speech"]
    assert check.plan.tasks[1].args["text"] == str(tmp_path / "letter.txt")
