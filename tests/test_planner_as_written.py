"""Requests as the speech recogniser hands them over: the assistant's name, greetings, hesitation
sounds, words said twice while finding one's feet and quotation marks said aloud are forms of
talk, not part of what is asked. Sentences written for these tests (in no training or benchmark
file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.as_written import as_written
from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.step_words import prompt_text
from planner_helpers import tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


@pytest.mark.parametrize("said, written", [
    ("hey jarvis, paint a lighthouse at dusk", "paint a lighthouse at dusk"),
    ("ok computer summarise my notes", "summarise my notes"),
    ("hi there! could you caption this", "could you caption this"),
    ("could you, could you read the the letter", "could you read the letter"),
    ("put a, uh, a scarf on the snowman", "put a scarf on the snowman"),
    ("a cabin in a, in an empty valley", "a cabin in an empty valley"),
    ("say quote the bus is here end quote", 'say "the bus is here"'),
    ("write open quote slow down close quote on a sign", 'write "slow down" on a sign'),
    ("paint a cat uh actually a fox", "paint a cat uh actually a fox"),  # self_repairs reads the pause
    ("summarise the report, thanks jarvis", "summarise the report"),
    ("hey jarvis, so many birds here, count them", "so many birds here, count them"),
    ("um, okay jarvis, so basically i need a poem about frogs", "i need a poem about frogs"),
    ("my question is what is it made of and can you say it", "my question is: what is it made of? and can you say it"),
    ("describe the chart please and thank you", "describe the chart"),
    ("caption this photo, cheers mate", "caption this photo"),
    ("is this text rude it says get out of my way you slowpoke", 'is this text rude it says "get out of my way you slowpoke"'),
    ("the line reads we was late again today, fix it", 'the line reads "we was late again today", fix it'),
])
def test_forms_of_talk_come_off(said, written):
    assert as_written(said) == written


@pytest.mark.parametrize("said", [
    "hello",  # small talk stays small talk
    "hey jarvis",
    "look at this photo and tell me what it shows",  # "look" is the request
    "like a river at night, paint that",  # "like" as comparison
    "draw a very very tall giraffe",  # said twice on purpose
    "write a note that says thank you",  # the thanks is the note
    "so tired today, write me a lullaby",
    'say "um, hello hello, is this on"',  # quoted words are the user's own
    "translate bora bora beach into french",
    "describe this photo uh and read it to me",  # a pause inside the request: the planner was trained on them
    "the photo is blurry, it says something about a sale",  # no text named: "it" is the photo
    "this note is from my aunt, read out what it says and then list the names in it",  # what it says: no passage
    "my message says hi",  # too short to be a passage
    "draw Jarvis in a top hat",  # the name as what is asked about
    "write a note that says, thanks",
    "ok.jpg caption it",  # a file's name, a word with a hyphen
    "Well-lit kitchen, draw it",
    "say ha ha ha ha",  # words of content said again on purpose
    "New York New York is my favourite song, sing it",
    "translate these lyrics into French: let it be, let it be, let it be, whisper words of wisdom",  # pasted text
    "summarise this email:\n\nHi team,\n\nthe launch moved to May.  thanks",
    "say 'quote me unquote'",
    "read me the quote, end quote",
    "you know the drill, caption this",
    "say uh-oh out loud",
    # talk that calls no one: the planner was trained on requests that open so (the steps' words drop it)
    "okay so basically i need a poem about frogs",
    "so um you know is this message rude",
    "umm, erm, can you draw a kite",
    "uh, hey there are two dogs here, count them",
])
def test_content_that_looks_like_talk_stays(said):
    assert as_written(said) == said


@pytest.mark.parametrize("said, task, text", [
    # a greeting and the assistant's name do not make a request small talk
    ("hey jarvis, draw a green tractor in a field", "text-to-image", "a green tractor in a field"),
    # a quotation said aloud is spoken, without its "quote ... end quote"
    ("jarvis say quote dinner is at eight end quote", "text-to-speech", "dinner is at eight"),
    # hesitations and restarts stay out of the prompt
    ("um so like can you, can you uh make a picture of a a red balloon over the sea", "text-to-image", "a red balloon over the sea"),
])
def test_talk_is_not_planned_nor_put_in_the_steps_words(planner, said, task, text):
    check = planner.plan(said)
    assert tasks_of(check) == [task]
    assert check.plan.tasks[0].args["text"] == text


def test_a_text_that_reads_something_is_not_read_aloud(planner):
    check = planner.plan("correct the spelling in this, the line reads me and her is going too the park")
    assert "text-to-speech" not in tasks_of(check)
    assert tasks_of(check) == ["text2text-generation"]


def test_words_to_translate_said_inline_before_a_please(planner):
    check = planner.plan("could you translate where can i buy a ticket into italian please")
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["text"].lower() == "where can i buy a ticket"
    assert check.plan.tasks[0].args["target_language"] == "Italian"


def test_the_sentence_to_turn_into_a_language(planner):
    check = planner.plan("turn the sentence the shop closes at noon into dutch")
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["text"].lower() == "the shop closes at noon"


def test_a_passage_said_after_it_says_is_the_text_judged(planner):
    check = planner.plan("the comment says this update ruined my favourite app completely, is it negative")
    assert tasks_of(check) == ["text-classification"]
    assert check.plan.tasks[0].args["text"] == "this update ruined my favourite app completely"


@pytest.mark.parametrize("words, prompt", [
    ("okay so basically write a limerick about socks", "Write a limerick about socks"),
    ("um, could you write a limerick about socks", "Write a limerick about socks"),
    ("hey can you write a limerick about socks", "Write a limerick about socks"),
    ("yo, compose a limerick about socks", "Compose a limerick about socks"),  # a greeting before a command
    ("hello, tell the team the meeting moved", "Tell the team the meeting moved"),
    ("Hi mum, I'll be home late", "Hi mum, I'll be home late"),  # a greeting to someone else is the message
    ("hello world in python, write it", "Hello world in python, write it"),
    ("well, write a limerick", "Write a limerick"),
    ("well water tastes odd, write about it", "Well water tastes odd, write about it"),
])
def test_talk_that_calls_no_one_stays_out_of_a_steps_words(words, prompt):
    assert prompt_text(words) == prompt
