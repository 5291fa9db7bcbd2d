"""Words left out: a stretch with no verb after a step, holding only a new quoted text, file or
language ("... to Spanish. Italian too", "caption the first, then the second", "same with the
other one"), asks for the step again on it. Sentences written for these tests (in no training or
benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.pipeline.plan import placeholder
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


def _args(check, task: str, name: str) -> list[str]:
    return [t.args[name] for t in check.plan.tasks if t.task == task]


@pytest.mark.parametrize("request_, languages", [
    ('translate "the shop closes at noon" into Dutch. and Swedish.', ["Dutch", "Swedish"]),
    ("translate 'mind the gap' to portuguese. greek too", ["Portuguese", "Greek"]),
])
def test_a_language_said_alone_after_a_translation_is_one_more(planner, request_, languages):
    check = planner.plan(request_)
    assert tasks_of(check) == ["translation", "translation"]
    assert _args(check, "translation", "target_language") == languages
    assert len(set(_args(check, "translation", "text"))) == 1  # the same words, not the first translation


@pytest.mark.parametrize("request_", [
    "translate 'mind the gap' into French, not English",
    "translate 'obrigado' from Portuguese to English",
])
def test_a_language_in_a_contrast_or_a_source_asks_nothing_more(planner, request_):
    assert tasks_of(planner.plan(request_)) == ["translation"]


@pytest.mark.parametrize("request_, task, texts", [
    ("is 'the train was on time' positive? and 'the seats were filthy'?", "text-classification",
     ["the train was on time", "the seats were filthy"]),
    ("pull out the people and cities in 'Ines drove from Porto to Faro' and also in 'Omar lives in Cairo'",
     "token-classification", ["Ines drove from Porto to Faro", "Omar lives in Cairo"]),
    ('say "the kettle has boiled" out loud, then "tea is ready"', "text-to-speech", ["the kettle has boiled", "tea is ready"]),
])
def test_a_second_quote_after_a_step_gets_the_step_too(planner, request_, task, texts):
    check = planner.plan(request_)
    assert tasks_of(check) == [task, task]
    assert _args(check, task, "text") == texts


def test_the_second_file_pointed_at_without_a_verb(planner, tmp_path):
    files = attach(tmp_path, "kitchen.jpg", "garden.jpg")
    check = planner.plan("caption the first picture, then the second", files)
    assert tasks_of(check) == ["image-to-text", "image-to-text"]
    assert _args(check, "image-to-text", "image") == [str(f.path) for f in files]


def test_this_one_too_reads_the_other_recording(planner, tmp_path):
    files = attach(tmp_path, "yard.wav", "street.wav")
    check = planner.plan("what's making that noise in this recording. and this one too", files)
    assert tasks_of(check) == ["audio-classification", "audio-classification"]
    assert sorted(_args(check, "audio-classification", "audio")) == sorted(str(f.path) for f in files)


def test_the_same_with_another_file_repeats_the_whole_chain(planner, tmp_path):
    # before: the second clause was read as a comparison of the two (sentence similarity)
    files = attach(tmp_path, "lecture_one.txt", "lecture_two.txt")
    check = planner.plan("summarise this and read me the summary, then do the same with the other one", files)
    assert tasks_of(check) == ["summarization", "text-to-speech", "summarization", "text-to-speech"]
    steps = check.plan.tasks
    assert [steps[0].args["text"], steps[2].args["text"]] == [str(f.path) for f in files]
    assert steps[1].args["text"] == placeholder(steps[0].id) and steps[3].args["text"] == placeholder(steps[2].id)


def test_same_with_a_quote_translates_and_speaks_it_too(planner):
    check = planner.plan('translate "where is the pharmacy" into Italian and read it out. same with "I need a doctor"')
    assert tasks_of(check) == ["translation", "text-to-speech", "translation", "text-to-speech"]
    assert _args(check, "translation", "text") == ["where is the pharmacy", "I need a doctor"]
    assert _args(check, "translation", "target_language") == ["Italian", "Italian"]


def test_a_file_pointed_at_last_goes_to_the_copy_not_the_first_step(planner, tmp_path):
    files = attach(tmp_path, "cat_a.jpg", "cat_b.jpg")
    check = planner.plan("what breed is this cat? and the one in the other photo?", files)
    assert tasks_of(check) == ["image-classification", "image-classification"]
    assert sorted(_args(check, "image-classification", "image")) == sorted(str(f.path) for f in files)


@pytest.mark.parametrize("request_, task", [
    ("limerick about a goat. now one about a sheep.", "text-generation"),
    ("paint a harbour at dawn and one with fishing boats", "text-to-image"),
])
def test_one_with_a_description_is_another(planner, request_, task):
    assert tasks_of(planner.plan(request_)) == [task, task]


def test_one_of_the_things_named_is_not_another(planner):
    assert tasks_of(planner.plan("draw a tower. and one of the guards beside it")) == ["text-to-image"]


@pytest.mark.parametrize("request_, file, task, asked", [
    ("how much is the delivery fee on this invoice? and the discount?", "invoice.png", "document-question-answering", "discount"),
    ("is the kitchen light in this photo on? what about the porch light?", "house.jpg", "visual-question-answering", "porch light"),
])
def test_a_thing_alone_after_a_question_is_the_question_again(planner, tmp_path, request_, file, task, asked):
    check = planner.plan(request_, attach(tmp_path, file))
    assert tasks_of(check) == [task, task]
    first, second = _args(check, task, "text")
    assert asked not in first and asked in second


def test_both_answers_read_out_reads_the_second_question_too(planner, tmp_path):
    check = planner.plan("what's the due date on this bill? and the amount? read both answers to me", attach(tmp_path, "bill.png"))
    tasks = tasks_of(check)
    assert tasks.count("document-question-answering") == 2 and tasks.count("text-to-speech") == 2
    asked = {t.id for t in check.plan.tasks if t.task == "document-question-answering"}
    assert {int(t.args["text"].rsplit("-", 1)[1]) for t in check.plan.tasks if t.task == "text-to-speech"} == asked


def test_a_file_named_twice_in_a_correction_is_one_step(planner, tmp_path):
    # the corrected words point at the same file twice ("the other picture, the second one")
    files = attach(tmp_path, "left.jpg", "right.jpg")
    check = planner.plan("caption the first picture. actually wait, the other picture, the second one", files)
    assert tasks_of(check) == ["image-to-text"] and _args(check, "image-to-text", "image") == [str(files[1].path)]


@pytest.mark.parametrize("request_, asked", [
    ('Going by this: "The library opens at 10 and shuts at 6." when does it open? and close?', "close"),
    ('Going by this: "The bakery opens at 6 and the cafe at 8." when does it open? and the cafe?', "cafe"),
])
def test_a_verb_or_a_thing_alone_after_a_question_of_a_passage(planner, request_, asked):
    check = planner.plan(request_)
    assert tasks_of(check) == ["question-answering", "question-answering"]
    first, second = _args(check, "question-answering", "text")
    assert asked not in first and asked in second
    assert len(set(_args(check, "question-answering", "context"))) == 1


@pytest.mark.parametrize("request_, task, most", [
    ("write three riddles, one about clocks and one about rivers", "text-generation", 3),  # one of the three asked
    ("paint a lighthouse, one with a red roof", "text-to-image", 1),  # which lighthouse, not another
])
def test_one_describing_a_thing_asked_is_not_one_more(planner, request_, task, most):
    assert 1 <= tasks_of(planner.plan(request_)).count(task) <= most


@pytest.mark.parametrize("request_", [
    "caption the first photo, the other one's out of focus",
    "caption this photo, then the second paragraph",
])
def test_a_remark_on_the_other_file_or_another_thing_asks_nothing_more(planner, tmp_path, request_):
    assert tasks_of(planner.plan(request_, attach(tmp_path, "pier.jpg", "dunes.jpg"))) == ["image-to-text"]


def test_words_of_a_correction_inside_a_quote_are_quoted_words(planner):
    check = planner.plan("translate 'sorry, I mean it' into Welsh. and 'see you later'")
    assert _args(check, "translation", "text") == ["sorry, I mean it", "see you later"]


def test_the_same_with_a_quote_then_a_command_of_its_own(planner):
    # before: "the same" was read as a comparison of the two texts
    check = planner.plan("translate 'open the window' to Greek, then do the same with 'close the door' and read it aloud")
    assert tasks_of(check) == ["translation", "translation", "text-to-speech"]
    assert _args(check, "translation", "text") == ["open the window", "close the door"]
    assert check.plan.tasks[2].args["text"] == placeholder(check.plan.tasks[1].id)
