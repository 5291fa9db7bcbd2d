"""Requests that say what the user is dealing with before what they want: what language a thing
they received is in ("my cousin sent me a postcard in Portuguese"), what a thing's words are ("the
parking sign says '...'"), "what does it say?" of a picture. Those words describe the material;
only what is asked is planned, and a language the material is in is never the one to translate
into. Sentences written for these tests (in no training or
benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


@pytest.mark.parametrize("request_text, name", [
    ("my cousin sent me a postcard in Portuguese, what does it say?", "postcard.jpg"),
    ("Henrik left a voicemail in Danish, I need it in English", "henrik.m4a"),
])
def test_the_language_a_received_thing_is_in_is_not_the_target(planner, tmp_path, request_text, name):
    check = planner.plan(request_text, attach(tmp_path, name))
    translations = [t for t in check.plan.tasks if t.task == "translation"]
    assert len(translations) == 1
    assert translations[0].args.get("target_language") in (None, "English")


def test_a_thing_asked_for_in_a_language_keeps_it_as_the_target(planner):
    check = planner.plan("write a short thank-you note in Portuguese for my neighbour", [])
    assert any(t.args.get("target_language") == "Portuguese" for t in check.plan.tasks if t.task == "translation")


@pytest.mark.parametrize("request_text, tasks", [
    ("the bakery window says 'closed until the 14th', is that before the holiday?", ["question-answering"]),
    ("the warning label says 'do not mix with bleach', read it out for my dad", ["text-to-speech"]),
])
def test_the_words_a_thing_says_are_material_not_speech(planner, request_text, tasks):
    assert tasks_of(planner.plan(request_text, [])) == tasks


def test_a_question_beside_what_a_sign_says_does_not_speak_the_sign(planner):
    check = planner.plan('the bus stop sign says "route 9 suspended", can I still take the 9 tonight?', [])
    assert "text-to-speech" not in tasks_of(check)


@pytest.mark.parametrize("request_text, name, reads", [
    ("found this in my late uncle's desk, what does the note say?", "desk_note.jpg", True),
    ("what's it say on this parking ticket", "ticket.png", True),
    ("what does the menu say about gluten?", "menu.jpg", False),
    ("what does this bill say the due date is", "bill.png", False),
])
def test_what_a_picture_says_is_its_words_read_off(planner, tmp_path, request_text, name, reads):
    tasks = tasks_of(planner.plan(request_text, attach(tmp_path, name)))
    assert len(tasks) == 1
    if reads:
        assert tasks == ["image-to-text"]
    else:
        assert tasks[0] in ("visual-question-answering", "document-question-answering")


@pytest.mark.parametrize("request_text, count", [
    ("would you mind coming up with a few slogans for my lemonade stand?", None),
    ("two headlines for a blog post about foxes living in cities", 2),
    ("a handful of mottos for our book club", None),
])
def test_a_piece_of_writing_named_as_new_is_written(planner, request_text, count):
    tasks = tasks_of(planner.plan(request_text, []))
    assert tasks and set(tasks) == {"text-generation"}
    if count:
        assert len(tasks) == count


def test_writings_named_as_new_and_spoken_are_written_then_spoken(planner):
    check = planner.plan("come up with two mottos for my chess club and read them out", [])
    assert tasks_of(check) == ["text-generation", "text-generation", "text-to-speech", "text-to-speech"]


@pytest.mark.parametrize("request_text", ["my slogan is way too long", "this limerick cracked me up, thanks",
                                          "a couple of my tweets got deleted"])
def test_a_writing_talked_about_is_not_written_again(planner, request_text):
    assert tasks_of(planner.plan(request_text, [])) == []


@pytest.mark.parametrize("request_text, names, tasks", [
    # look-alikes: the rules above must leave these as they are
    ("caption this photo (i want it read out loud too)", ("photo.jpg",), ["image-to-text", "text-to-speech"]),
    ("the note says call mom, please read it out loud", ("note.txt",), ["text-to-speech"]),
    ("summarize the notes, all three are from today", ("a.txt", "b.txt", "c.txt"), ["summarization"] * 3),
    ("what does the receipt say I paid?", ("receipt.jpg",), ["document-question-answering"]),
    ("i posted 3 tweets today", (), []),
    ("some slogans are just too long", (), []),
])
def test_look_alikes_keep_their_plans(planner, tmp_path, request_text, names, tasks):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, *names))) == tasks


def test_a_language_wanted_for_a_thing_to_send_is_still_the_target(planner, tmp_path):
    check = planner.plan("I got asked to send this letter in Spanish, can you translate it", attach(tmp_path, "letter.txt"))
    assert [t.args.get("target_language") for t in check.plan.tasks if t.task == "translation"] == ["Spanish"]


def test_words_of_speech_that_only_tell_ask_for_no_speech(planner):
    """"My contract says: '...'" is what a paper holds, the words before it a mood; neither asks for
    anything spoken, and the question is answered from the quoted passage."""
    check = planner.plan('I am so done with this job and I want out. My contract says: "Either party may end this agreement '
                         'with four weeks notice." How much notice do I have to give?', [])
    assert tasks_of(check) == ["question-answering"]
    assert check.plan.tasks[0].args["context"] == "Either party may end this agreement with four weeks notice."


@pytest.mark.parametrize("request_text, language", [
    ('my manager only speaks french and I need to send him this: "the invoice went out this morning"', "French"),
    ("My grandpa only speaks Portuguese and he keeps asking me what the letter from the bank says. "
     "This is it: 'Your card will expire next month. A new card is on its way.'", "Portuguese"),
])
def test_the_language_someone_speaks_is_the_one_words_for_them_go_into(planner, request_text, language):
    check = planner.plan(request_text, [])
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args.get("target_language") == language


@pytest.mark.parametrize("request_text, names, first", [
    ("can you put this in German, as speech? 'the keys are under the mat'", [], "translation"),
    ("I want the main points of these notes over my headphones while I run", ["lecture_notes.txt"], "summarization"),
])
def test_sound_named_as_the_form_of_the_result_speaks_it(planner, tmp_path, request_text, names, first):
    check = planner.plan(request_text, attach(tmp_path, *names))
    assert tasks_of(check) == [first, "text-to-speech"]
    assert check.plan.tasks[1].args["text"] == "<GENERATED>-0"


@pytest.mark.parametrize("request_text, name", [
    ("what is said in the audio?", "clip.wav"),
    ("turn this speech into text", "memo.m4a"),
    ("I recorded the seminar and saved it as an audio file named seminar.wav. could you transcribe it?", "seminar.wav"),
    ("my interview is in an audio file, please write out what was said", "interview.wav"),
])
def test_a_recording_named_by_its_sound_is_not_speech_asked(planner, tmp_path, request_text, name):
    assert "text-to-speech" not in tasks_of(planner.plan(request_text, attach(tmp_path, name)))


@pytest.mark.parametrize("request_text", [
    "the bass on my speakers keeps buzzing, how can I stop it",  # a statement and a question about the device
    "write a short paragraph about breathing in speech",  # speech is the topic
    "draw a picture of a fox wearing headphones",  # what the picture shows
])
def test_sound_talked_about_is_not_an_answer_to_speak(planner, request_text):
    assert "text-to-speech" not in tasks_of(planner.plan(request_text, []))


def test_words_someone_already_translated_are_not_translated_again(planner):
    check = planner.plan("my cousin speaks Italian and already translated this for me: 'ti voglio bene'", [])
    assert "translation" not in tasks_of(check)
