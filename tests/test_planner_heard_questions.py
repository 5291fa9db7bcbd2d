"""Asking about what is inside a file: a question about what a recording says is answered from its
transcript, asked directly, after a lead-in or indirectly ("tell me when ..."); "the original" after
a change is the text before it; a message to be heard that does not exist yet is written first;
sending or keeping a file as it is asks no model. Sentences written for these tests (in no training
or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.heard_questions import content_question, indirect_question
from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.segment import segment
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def _tokens(text: str) -> list:
    return segment(text, [], True, commands=True).tokens


@pytest.mark.parametrize("request_text, name", [
    ("transcribe the voicemail from the garage and tell me when the car will be ready", "garage.m4a"),
    ("she speaks so fast, what's the address of the new office?", "office.m4a"),
    ("can you work out from this recording who is bringing the cake?", "party.wav"),
    ("which platform does the announcer say the train leaves from?", "station.mp3"),
])
def test_a_question_about_a_recording_is_answered_from_its_transcript(planner, tmp_path, request_text, name):
    check = planner.plan(request_text, attach(tmp_path, name))
    assert sorted(tasks_of(check)) == ["automatic-speech-recognition", "question-answering"]
    asr = next(t for t in check.plan.tasks if t.task == "automatic-speech-recognition")
    qa = next(t for t in check.plan.tasks if t.task == "question-answering")
    assert qa.args["context"] == f"<GENERATED>-{asr.id}"


def test_a_question_after_the_recording_is_cleaned_reads_the_clean_transcript(planner, tmp_path):
    check = planner.plan("take the traffic noise out of this, write it down, and tell me which exit we should take",
                         attach(tmp_path, "directions.m4a"))
    assert tasks_of(check) == ["audio-to-audio", "automatic-speech-recognition", "question-answering"]
    assert check.plan.tasks[2].args["context"] == "<GENERATED>-1"


@pytest.mark.parametrize("request_text", [
    "write this down and tell me what she said",   # the words themselves
    "what is this about?",                         # what the recording is
    "does my sister sound upset in this one?",     # how the voice comes across
    "no idea what that noise is, I need to know who to call",  # advice, not something said
])
def test_questions_that_are_not_about_something_said_get_no_answering_step(planner, tmp_path, request_text):
    assert "question-answering" not in tasks_of(planner.plan(request_text, attach(tmp_path, "clip.wav")))


@pytest.mark.parametrize("text, question", [
    ("tell me when the shop opens", "when"),
    ("find out from the call where we are meeting", "where"),
    ("I wonder whether the parcel arrived", "whether"),
    ("send me the photo where we are on the beach", None),   # a relative clause
    ("I can't tell if he is joking", None),                   # a doubt stated, not asked
    ("I need to know who to ask", None),                      # advice
])
def test_a_question_put_indirectly_is_found_by_its_grammar(text, question):
    toks = _tokens(text)
    k = indirect_question(toks)
    assert (toks[k].lower if k is not None else None) == question


def test_a_question_after_a_lead_in_is_a_question():
    assert content_question(_tokens("ugh, the line was terrible, when do they deliver?"))
    assert not content_question(_tokens("ugh, the line was terrible"))


def test_the_original_after_a_translation_of_a_picture_is_the_text_read_off_it(planner, tmp_path):
    check = planner.plan("copy the words off this poster, put them into Italian, then read me the original out loud",
                         attach(tmp_path, "poster.jpg"))
    assert tasks_of(check) == ["image-to-text", "translation", "text-to-speech"]
    assert check.plan.tasks[2].args["text"] == "<GENERATED>-0"
    plain = planner.plan("copy the words off this poster, put them into Italian, then read it out loud", attach(tmp_path, "poster.jpg"))
    assert plain.plan.tasks[2].args["text"] == "<GENERATED>-1"


@pytest.mark.parametrize("request_text", [
    "record a short get-well message for my colleague in your voice",
    "I want an audio good-luck wish for my brother's exam",
])
def test_a_message_to_be_heard_that_does_not_exist_is_written_first(planner, request_text):
    check = planner.plan(request_text, [])
    assert tasks_of(check) == ["text-generation", "text-to-speech"]
    assert check.plan.tasks[1].args["text"] == "<GENERATED>-0"


def test_a_message_whose_words_are_given_is_only_spoken(planner):
    assert tasks_of(planner.plan("I need a voice note saying 'running ten minutes late'", [])) == ["text-to-speech"]


@pytest.mark.parametrize("request_text, name", [
    ("forward this to my landlord please", "leak.jpg"),
    ("save it in my documents folder", "song.mp3"),
    ("share this with my mum please, she will love the colours", "beach.jpg"),
    ("forward it to the whole team please", "notes.txt"),
])
def test_sending_or_keeping_a_file_asks_no_model(planner, tmp_path, request_text, name):
    check = planner.plan(request_text, attach(tmp_path, name))
    assert check.plan is None or not check.plan.tasks


def test_keeping_a_file_as_something_new_still_makes_it(planner, tmp_path):
    assert tasks_of(planner.plan("save it as a pencil sketch", attach(tmp_path, "cat.jpg")))


def test_a_question_after_a_document_is_translated_reads_the_translation(planner, tmp_path):
    check = planner.plan("put this leaflet from the council into English, then tell me which bins go out on Monday",
                         attach(tmp_path, "leaflet.jpg"))
    assert tasks_of(check) == ["image-to-text", "translation", "question-answering"]
    assert check.plan.tasks[2].args["context"] == "<GENERATED>-1"
    scene = planner.plan("put the shop sign in this picture into English, then tell me what colour the van outside is",
                         attach(tmp_path, "street.jpg"))
    assert "question-answering" not in tasks_of(scene)  # a question of the scene, not of the words


@pytest.mark.parametrize("request_text, name", [
    ("send it to me in Portuguese", "letter.jpg"),
    ("share this as plain text", "memo.m4a"),
    ("save it without the hiss", "memo.m4a"),
    ("forward these two in English", "note1.jpg"),
])
def test_sending_a_file_in_another_form_still_makes_that_form(planner, tmp_path, request_text, name):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, name)))


def test_a_chore_followed_by_another_step_keeps_the_step(planner, tmp_path):
    assert "text-to-speech" in tasks_of(planner.plan("open this and read it out", attach(tmp_path, "scan.jpg")))


@pytest.mark.parametrize("request_text", [
    "what do you reckon?",                        # to the assistant
    "ask him when the boiler man is coming",      # a question to put to someone
    "what are the exact words in it?",            # the transcript itself
])
def test_questions_not_answered_from_the_recording(planner, tmp_path, request_text):
    assert "question-answering" not in tasks_of(planner.plan(request_text, attach(tmp_path, "voicemail.m4a")))


def test_a_question_dictated_without_its_mark_is_still_a_question(planner, tmp_path):
    tasks = tasks_of(planner.plan("when does the coach leave", attach(tmp_path, "trip.m4a")))
    assert tasks == ["automatic-speech-recognition", "question-answering"]


def test_words_given_after_a_colon_are_spoken_not_written(planner):
    assert tasks_of(planner.plan("make an audio reminder: feed the cat", [])) == ["text-to-speech"]


def test_an_audio_description_of_a_picture_reads_the_picture(planner, tmp_path):
    tasks = tasks_of(planner.plan("I'd like an audio description of this picture", attach(tmp_path, "view.jpg")))
    assert "text-generation" not in tasks and "text-to-speech" in tasks


@pytest.mark.parametrize("request_text", [
    "who is the woman speaking in this one?",   # the voice, not something said
    "what's the bitrate of this file?",         # the file itself
    "tell him when the bus leaves",             # a message to pass on
    "what day is it today",                     # asked of the assistant
])
def test_more_questions_not_answered_from_the_recording(planner, tmp_path, request_text):
    assert "question-answering" not in tasks_of(planner.plan(request_text, attach(tmp_path, "clip.m4a")))


def test_a_question_about_a_recording_with_two_attached_keeps_both_transcripts(planner, tmp_path):
    tasks = tasks_of(planner.plan("when is the match according to these two", attach(tmp_path, "a.m4a", "b.m4a")))
    assert tasks.count("automatic-speech-recognition") == 2


def test_the_original_after_a_chain_of_rewrites_is_the_first_text(planner, tmp_path):
    check = planner.plan("read the flyer, translate it into English, shorten it and read me the original", attach(tmp_path, "flyer.jpg"))
    speech = next(t for t in check.plan.tasks if t.task == "text-to-speech")
    reader = next(t for t in check.plan.tasks if t.task == "image-to-text")
    assert speech.args["text"] == f"<GENERATED>-{reader.id}"


@pytest.mark.parametrize("request_text, name, empty", [
    ("print these two in colour", "a.jpg", True),        # a printer's setting: still a chore
    ("save it, when does it expire", "permit.jpg", False),  # a question beside the chore
    ("share it with a short poem", "sunset.jpg", False),    # something made to go with it
])
def test_chores_beside_questions_and_additions(planner, tmp_path, request_text, name, empty):
    names = (name, "b.jpg") if request_text.startswith("print these") else (name,)
    check = planner.plan(request_text, attach(tmp_path, *names))
    assert (check.plan is None or not check.plan.tasks) == empty


def test_a_message_about_a_picture_reads_the_picture(planner, tmp_path):
    tasks = tasks_of(planner.plan("make a voice message for dad about this picture", attach(tmp_path, "garden.jpg")))
    assert "text-generation" not in tasks


def test_words_given_after_a_dash_are_spoken_not_written(planner):
    assert tasks_of(planner.plan("make a voice note - call the vet", [])) == ["text-to-speech"]


def test_the_question_asked_indirectly_is_given_to_the_answering_step_as_a_question(planner, tmp_path):
    check = planner.plan("transcribe the voicemail from the garage and tell me when the car will be ready", attach(tmp_path, "garage.m4a"))
    qa = next(t for t in check.plan.tasks if t.task == "question-answering")
    assert qa.args["text"] == "When the car will be ready?"
    check = planner.plan("put this leaflet from the council into English, then tell me by which day the bins go out",
                         attach(tmp_path, "leaflet.jpg"))
    qa = next(t for t in check.plan.tasks if t.task == "question-answering")
    assert qa.args["text"] == "By which day the bins go out?"
