"""A request that points back at the conversation ("read that out loud", "translate it into
French") works on the assistant's last answer, not on its own words. Sentences written for these
tests (in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.follow_ups import refers_back
from planner_helpers import tasks_of

ANSWER = "The receipt's total is 42.80 euros, paid by card on the 3rd of March."


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


@pytest.mark.parametrize("request_text, task", [
    ("can you read that to me out loud", "text-to-speech"),
    ("put it into Italian please", "translation"),
    ("say your last answer again", "text-to-speech"),
    ("summarise what you just said", "summarization"),
    ("make that simpler", "text2text-generation"),
    ("and now in Portuguese please", "translation"),  # a language alone: the last answer, in it
])
def test_a_step_that_points_back_reads_the_last_answer(planner, request_text, task):
    """Before, the step read its own command ("Can you read that to me out loud" was spoken)."""
    check = planner.plan(request_text, [], ANSWER)
    assert tasks_of(check) == [task]
    assert check.plan.tasks[0].args["text"] == ANSWER


def test_words_of_its_own_are_worked_on_whatever_was_said_before(planner):
    check = planner.plan("say 'sleep tight' out loud", [], ANSWER)
    assert tasks_of(check) == ["text-to-speech"] and check.plan.tasks[0].args["text"] == "sleep tight"
    check = planner.plan("translate good evening into Spanish", [], ANSWER)
    assert check.plan.tasks[0].args["text"] != ANSWER


def test_with_no_conversation_the_request_is_planned_as_before(planner):
    check = planner.plan("can you read that to me out loud", [])
    assert tasks_of(check) == ["text-to-speech"] and check.plan.tasks[0].args["text"] != ANSWER


@pytest.mark.parametrize("text, back", [
    ("read that out loud", True), ("translate it into French", True), ("repeat your previous reply", True),
    ("make this clearer", True), ("is that positive or negative", True), ("narrate that", True), ("make it more polite", True),
    ("say it is raining out loud", False), ("say that it is late", False),  # "it" as a clause's own subject, "that" as a conjunction
    ("summarize this article", False), ("translate that sentence into French", False), ("say hello", False),
])
def test_what_points_back(text, back):
    assert refers_back(text) is back


def test_a_picture_of_what_points_back_is_a_picture_of_the_last_answer(planner):
    """"draw that for me" after a description: before, the picture's prompt was "that"."""
    check = planner.plan("could you draw that for me", [], ANSWER)
    assert tasks_of(check) == ["text-to-image"] and check.plan.tasks[0].args["text"] == ANSWER
    check = planner.plan("draw a lighthouse at dawn", [], ANSWER)
    assert check.plan.tasks[0].args["text"] == "a lighthouse at dawn"


def test_writing_about_what_points_back_is_given_the_last_answer(planner):
    check = planner.plan("write a limerick about it", [], ANSWER)
    assert tasks_of(check) == ["text-generation"]
    prompt = check.plan.tasks[0].args["text"]
    assert prompt.startswith("Write a limerick about it") and prompt.endswith(ANSWER)


def test_a_language_with_words_to_put_into_it_is_not_a_follow_up(planner):
    check = planner.plan("how do you say good luck in Portuguese", [], ANSWER)
    assert check.plan.tasks[0].args["text"] != ANSWER


@pytest.mark.parametrize("request_text, own", [
    ("say it is snowing outside out loud", "it is snowing outside"),
    ("translate it is too hot today into German", "It is too hot today"),
])
def test_it_as_the_subject_of_the_words_given_is_no_follow_up(planner, request_text, own):
    """ "say it is snowing outside": the words to speak, whatever was said before."""
    check = planner.plan(request_text, [], ANSWER)
    assert check.plan.tasks[0].args["text"] == own


def test_a_result_named_with_nothing_making_it_is_the_last_answer(planner):
    """ "give me the short version" after an answer: the short version of that answer."""
    check = planner.plan("give me the short version", [], ANSWER)
    assert tasks_of(check) == ["summarization"] and check.plan.tasks[0].args["text"] == ANSWER


@pytest.mark.parametrize("request_text", [
    "please say the answer aloud",            # was taken for "turn your voice on" before the planner saw it
    "could you read your reply out loud again",
    "put your last answer into Dutch",
])
def test_the_answer_named_before_there_is_one_is_left_to_the_chat(planner, request_text):
    """With no answer yet, "read your reply out loud" has nothing to read: before, it spoke its own
    words ("your reply again"). The chat answers it; the note says why."""
    check = planner.plan(request_text, [])
    assert check.ok and tasks_of(check) == []
    assert any("earlier answer" in n for n in check.plan.notes)
    check = planner.plan(request_text, [], ANSWER)
    assert check.plan.tasks and check.plan.tasks[0].args["text"] == ANSWER


def test_the_answer_named_beside_words_of_its_own_works_on_those_words(planner):
    """"..., tell me the answer out loud, <a sentence>": the answer of this request, on its words."""
    check = planner.plan("is this message friendly or rude, tell me the answer out loud, "
                         "you never call and you never write", [])
    assert tasks_of(check) == ["text-classification", "text-to-speech"]
    assert "never call" in check.plan.tasks[0].args["text"]


@pytest.mark.parametrize("request_text, task", [
    ("find the people you mentioned", "token-classification"),   # below the model's bar: its likeliest step on words
    ("pick out the dates you mentioned", "token-classification"),
    ("draw what you just explained", "text-to-image"),            # read as a picture's caption: no picture is there
    ("how upbeat is the mood of that", "text-classification"),    # the mood of a sound, read from the words
])
def test_a_follow_up_the_model_is_unsure_of_works_on_the_answer(planner, request_text, task):
    """Short follow-ups the model barely knows ran no step or read their own words; the last
    answer is the material, as an attached text would be."""
    check = planner.plan(request_text, [], ANSWER)
    assert tasks_of(check) == [task] and check.plan.tasks[0].args["text"] == ANSWER


def test_a_follow_up_guess_needs_a_language_to_translate(planner):
    """The model's faint 'translation' for "how does that come across" is no translation of the answer."""
    assert "translation" not in tasks_of(planner.plan("how does that come across, friendly or cold", [], ANSWER))


def test_a_file_given_in_a_conversation_is_what_the_step_works_on(planner, tmp_path):
    from planner_helpers import attach

    photo = attach(tmp_path, "harbour.jpg")
    check = planner.plan("what's in that?", photo, ANSWER)
    assert check.plan.tasks and all(ANSWER not in str(t.args) for t in check.plan.tasks)


@pytest.mark.parametrize("request_text", [
    "draw a lighthouse in a storm and then turn it into a pencil sketch",   # "it": the picture made here
    "write a limerick about frogs and read it aloud",
    "what's the capital of chile? say it out loud",
    "translate good night into Italian",
])
def test_a_new_request_is_planned_the_same_in_a_conversation(planner, request_text):
    """What a request makes or holds is what its pointers mean; the last answer changes nothing."""
    alone = planner.plan(request_text, []).plan.to_json()
    assert alone and planner.plan(request_text, [], ANSWER).plan.to_json() == alone


@pytest.mark.parametrize("request_text", ["can you do that for pictures too?", "could you do the same with videos?"])
def test_asking_whether_it_works_for_other_things_is_a_question_not_a_step(planner, request_text):
    """In a conversation, "do that" points back, but the request names no task: the chat answers
    (before, a picture was drawn of "that for pictures too?")."""
    assert tasks_of(planner.plan(request_text, [], ANSWER)) == []


@pytest.mark.parametrize("request_text, own", [
    # speech run on without punctuation: the words after the pointer are what it means
    ("summarize this for me okay so the bakery on main street is closing next month because the rent went up", "bakery"),
    ("read this out for me the bins go out on tuesday night not wednesday", "bins"),
])
def test_words_run_on_after_the_pointer_are_its_words_not_the_last_answer(planner, request_text, own):
    check = planner.plan(request_text, [], ANSWER)
    assert check.plan.tasks and own in check.plan.tasks[0].args["text"]


@pytest.mark.parametrize("request_text", ["read that out loud, I'm cooking", "shorten it please, it has to fit in a text"])
def test_a_reason_after_a_comma_still_points_back(planner, request_text):
    check = planner.plan(request_text, [], ANSWER)
    assert check.plan.tasks and check.plan.tasks[0].args["text"] == ANSWER


def test_quoted_words_are_what_a_later_pointer_means(planner):
    check = planner.plan("Say out loud: 'the gate code is 4471'. Then translate that into Dutch.", [], ANSWER)
    assert all(ANSWER not in str(t.args) for t in check.plan.tasks)


@pytest.mark.parametrize("request_text", ["did you keep that anywhere", "did you save that anywhere"])
def test_a_question_to_the_assistant_about_itself_is_no_step_on_the_answer(planner, request_text):
    """ "did you keep that anywhere" asks about the assistant: the chat answers (before, in a
    conversation, the model's faint likeliest step wrote about the last answer)."""
    assert tasks_of(planner.plan(request_text, [], ANSWER)) == []
