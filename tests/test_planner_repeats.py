"""Another of the same: "another one in blue", "one more about snow", "a second one of a dog" ask
for a second thing of the kind just made, with its own description. Sentences written for these
tests (in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.repeats import asks_again
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


def _texts(check, task: str) -> list[str]:
    return [t.args["text"] for t in check.plan.tasks if t.task == task]


def _made_twice(check, task: str) -> list[str]:
    """The plan is two steps of ``task``; their texts."""
    assert tasks_of(check) == [task, task]
    return _texts(check, task)


def test_another_one_with_a_difference_is_a_second_picture(planner):
    # before: one picture of "a green bicycle, and another one in red"
    check = planner.plan("sketch a green bicycle, and another one in red")
    first, second = _made_twice(check, "text-to-image")
    assert "green bicycle" in first and "red" not in first
    assert "bicycle" in second and "red" in second and "green" not in second


def test_another_of_something_else_draws_that(planner):
    check = planner.plan("create an image of a whale in the ocean, then another of an octopus")
    first, second = _made_twice(check, "text-to-image")
    assert "whale" in first and "octopus" not in first
    assert "octopus" in second and "whale" not in second
    assert not any(t.refs() for t in check.plan.tasks)  # the second is not drawn from the first


def test_one_more_piece_of_writing_is_written_from_its_own_words(planner):
    # before: one text generation about both, or a second one written from the first
    check = planner.plan("write a limerick about a grumpy goat, then one more about a lazy cow")
    first, second = _made_twice(check, "text-generation")
    assert "goat" in first and "cow" not in first
    assert "limerick" in second and "cow" in second and "goat" not in second
    assert not any(t.refs() for t in check.plan.tasks)


def test_a_second_one_without_a_comma(planner):
    check = planner.plan("make a video of a paper boat on a river and a second one of a kite in the wind")
    assert tasks_of(check) == ["text-to-video", "text-to-video"]
    assert ["kite" in t for t in _texts(check, "text-to-video")] == [False, True]


def test_the_second_piece_is_spoken_when_asked(planner):
    check = planner.plan("write a riddle about the moon and another about the sun, then read the second one aloud")
    tasks = tasks_of(check)
    assert tasks.count("text-generation") == 2 and tasks[-1] == "text-to-speech"


@pytest.mark.parametrize("text", [
    "and another one in blue", ", then another of a dragon", "now one more about the sea", "plus a second one with a hat",
    "then paint another one in watercolour", "and another one", ". then another, please!", "one more",
])
def test_asks_again(text):
    assert asks_again(text)


@pytest.mark.parametrize("text", [
    "and another language", "another photo of my dog", "a second opinion please", "one more time",
    "then another thing: caption it", "another question",
])
def test_does_not_ask_again(text):
    assert not asks_again(text)


def test_another_file_is_not_another_picture(planner, tmp_path):
    # "another" naming a second file, not a second thing to make
    check = planner.plan("describe this photo and another of my garden", attach(tmp_path, "porch.jpg", "garden.jpg"))
    assert "text-to-image" not in tasks_of(check)


def test_another_translation_in_a_second_language(planner, tmp_path):
    # the cut at "another one" must not lose the second language
    files = attach(tmp_path, "menu.txt")
    check = planner.plan("translate this into Italian, and another one in Dutch", files)
    assert tasks_of(check) == ["translation", "translation"]
    assert [t.args["target_language"] for t in check.plan.tasks] == ["Italian", "Dutch"]
    assert all(t.args["text"] == str(files[0].path) for t in check.plan.tasks)


def test_speech_is_not_asked_again_with_the_words_another_one(planner):
    check = planner.plan("say happy birthday in a warm voice, and another one in a whisper")
    spoken = [t.args["text"].lower() for t in check.plan.tasks if t.task == "text-to-speech"]
    assert spoken and not any("another" in s for s in spoken)


def test_one_more_translation_reads_the_file_not_the_first_translation(planner, tmp_path):
    files = attach(tmp_path, "speech.txt")
    check = planner.plan("put speech.txt into Swedish. one more in Czech please.", files)
    assert [t.args.get("target_language") for t in check.plan.tasks] == ["Swedish", "Czech"]
    assert not any(t.refs() for t in check.plan.tasks)


def test_another_in_the_same_style_is_written_anew(planner):
    check = planner.plan("write a tongue twister about a snake, then another in the same style about a bee")
    assert tasks_of(check) == ["text-generation", "text-generation"]
    assert not any(t.refs() for t in check.plan.tasks)
    assert "bee" in _texts(check, "text-generation")[1]


def test_a_third_one_after_a_sentence_without_a_verb(planner):
    check = planner.plan("Make a short clip of rain on a window. Another of snow on a roof, and one more over a frozen lake.")
    assert tasks_of(check) == ["text-to-video"] * 3
    assert [("snow" in t, "lake" in t) for t in _texts(check, "text-to-video")] == [(False, False), (True, False), (False, True)]


def test_it_after_a_made_picture_is_what_the_picture_shows(planner):
    # before: a video of "it too", a poem "about it"
    check = planner.plan("make an image of a snowy owl, then a short video of it too")
    assert tasks_of(check) == ["text-to-image", "text-to-video"]
    assert "snowy owl" in _texts(check, "text-to-video")[0]
    check = planner.plan("paint a lighthouse in a storm and then write a poem about it")
    assert tasks_of(check) == ["text-to-image", "text-generation"]
    assert "lighthouse" in _texts(check, "text-generation")[0]


def test_a_description_of_its_own_is_kept(planner):
    check = planner.plan("draw a fox in the snow, then write a poem about the winter sea")
    assert "winter sea" in _texts(check, "text-generation")[0] and "fox" not in _texts(check, "text-generation")[0]


# --- stop 42: the kind named again, a comparison, steps in between, counts -------------------

def test_another_naming_the_kind_keeps_the_first_description(planner):
    # before: one picture, or a second one of "an image at midnight" with no desert in it
    check = planner.plan("generate a picture of a desert at noon, and then another picture at midnight")
    first, second = _made_twice(check, "text-to-image")
    assert "desert" in second and "midnight" in second and "noon" not in second and "noon" in first


def test_another_of_a_thing_named_before_is_that_thing_again(planner):
    check = planner.plan("write a lullaby for my nephew, and another lullaby, this time for my niece")
    first, second = _made_twice(check, "text-generation")
    assert "nephew" in first and "niece" not in first
    assert "lullaby" in second and "niece" in second and "nephew" not in second


@pytest.mark.parametrize("again, compared", [("one more, funnier", "funnier"), ("another one, but shorter", "shorter")])
def test_one_more_with_a_comparison(planner, again, compared):
    """"one more, sadder", "another one, but sadder": the comparison goes before the thing."""
    check = planner.plan(f"compose a limerick about a sleepy owl. {again}")
    first, second = _made_twice(check, "text-generation")
    assert compared not in first and f"{compared} limerick" in second and "owl" in second


def test_another_after_steps_on_the_first_gets_those_steps_too(planner):
    check = planner.plan("write a haiku about the harbour and read it aloud, then another about the lighthouse and read that one too")
    assert tasks_of(check) == ["text-generation", "text-to-speech", "text-generation", "text-to-speech"]
    speech = [t for t in check.plan.tasks if t.task == "text-to-speech"]
    assert [t.args["text"] for t in speech] == ["<GENERATED>-0", "<GENERATED>-2"]
    assert "lighthouse" in check.plan.tasks[2].args["text"] and "harbour" not in check.plan.tasks[2].args["text"]


def test_another_translation_into_a_second_language(planner):
    check = planner.plan("translate 'see you at the station at nine' into Spanish, then do another translation into Polish")
    assert tasks_of(check) == ["translation", "translation"]
    assert [t.args["target_language"] for t in check.plan.tasks] == ["Spanish", "Polish"]
    assert all(t.args["text"] == "see you at the station at nine" for t in check.plan.tasks)


def test_an_ordinal_inside_the_description_is_no_file(planner):
    # "the first frost" describes the second poem; it points at no file
    check = planner.plan("write a poem about winter, and another about the first frost")
    first, second = _made_twice(check, "text-generation")
    assert "first frost" in second


def test_do_another_in_a_new_medium_is_a_new_picture_not_an_edit(planner):
    check = planner.plan("make a picture of a heron standing in a pond, then do another one in charcoal")
    first, second = _made_twice(check, "text-to-image")
    assert "heron" in second and "charcoal" in second


def test_a_preamble_before_a_colon_does_not_make_the_command_a_pasted_text(planner, tmp_path):
    # before: the picture's prompt was "describe this photo please", read from after the colon
    check = planner.plan("Draw a windmill at dusk. Oh and one last thing: describe this photo for me please.",
                         attach(tmp_path, "garden.jpg"))
    assert "image-to-text" in tasks_of(check)
    drawn = _texts(check, "text-to-image")
    assert drawn and "windmill" in drawn[0] and "describe" not in drawn[0]


@pytest.mark.parametrize("request_text, prompt", [
    ("sketch a lighthouse on a cliff. then another", "a lighthouse on a cliff"),
    ("write a haiku about autumn rain. one more please", "Write a haiku about autumn rain."),
    ("paint a red kite over the dunes, and another one", "a red kite over the dunes"),
])
def test_another_with_nothing_said_of_it_is_a_copy_of_the_thing_made(planner, request_text, prompt):
    """"draw a fox. then another": a second fox (the executor runs each copy with its own seed)."""
    check = planner.plan(request_text)
    task = "text-generation" if "haiku" in request_text else "text-to-image"
    assert _made_twice(check, task) == [prompt, prompt]


def test_a_bare_another_after_a_translation_asks_for_no_second_one(planner):
    """A second translation is into another language; with none named there is nothing to add."""
    check = planner.plan("translate 'see you at the station' into Italian. another one please")
    assert tasks_of(check) == ["translation"]


@pytest.mark.parametrize("request_text, language", [
    ("translate 'the lift is broken' into Polish. Polish please.", "Polish"),  # named again
    ("translate 'guten Abend' to English. German.", "English"),  # said alone: maybe the one it is in
])
def test_a_language_named_again_or_said_alone_is_no_second_translation(planner, request_text, language):
    check = planner.plan(request_text)
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["target_language"] == language


def test_one_more_with_nothing_said_copies_the_nearest_thing_made(planner):
    check = planner.plan("paint a green tractor, then another one at night. one more please")
    first, second, third = _texts(check, "text-to-image")
    assert "night" not in first and "night" in second and third == second
