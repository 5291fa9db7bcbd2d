"""Requests wrapped in what the user tells: what they or others already did ("my sister turned it
into a cartoon last week"), what they will do themselves ("I'll translate it into Greek myself
later"), what someone will want some other time, what they do not want ("I don't need a new
picture"), the conditions of their own plans ("if the scan comes out crooked I'll sharpen it
myself"). Those words name steps, but only what is asked now is planned; what is asked in spite
of such words ("don't forget to read it out", "can't you just translate it?") still is.
Sentences written for these tests (in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.told_only import told_words
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


@pytest.mark.parametrize("request_text, names, tasks", [
    # done already, by someone else or by the user
    ("my sister turned this into a cartoon last week, that's not what I want. what's in the photo?", ("photo.jpg",),
     ["image-to-text"]),
    ("my brother already removed the noise from this track. what genre is it?", ("song.mp3",), ["audio-classification"]),
    ("my colleague translated the brochure into French and I summarized it, we're all set now", (), []),
    ("my teacher read the poem aloud in class yesterday. Can you translate 'the wind carries the last leaves home' into Spanish?",
     (), ["translation"]),
    # to be done later, by the user or by someone else
    ("transcribe this please, I'll translate it into Greek myself later", ("interview.wav",), ["automatic-speech-recognition"]),
    ("My dad will want it read out loud at some point, but for now just translate 'good morning everyone' into Italian", (),
     ["translation"]),
    ("transcribe this; my sister is going to translate it into Polish", ("call.wav",), ["automatic-speech-recognition"]),
    ("summarize this; at some point I'd like it in Italian, but not today", ("notes.txt",), ["summarization"]),
    ("summarize this. Anna usually translates these for me", ("notes.txt",), ["summarization"]),
    ("transcribe this, it was already translated last month", ("call.wav",), ["automatic-speech-recognition"]),
    # not wanted
    ("transcribe this. No translation, please.", ("call.wav",), ["automatic-speech-recognition"]),
    ("I don't need a new picture, just make this photo look like an oil painting", ("cat.jpg",), ["image-to-image"]),
    ("I don't want another summary, just tell me if this review is positive: 'The hotel was clean but the staff ignored us all week.'",
     (), ["text-classification"]),
    ("nobody needs to hear this out loud, just fix the grammar: 'me and him goes to the market yesterday'", (),
     ["text2text-generation"]),
    ("next week I'll give you the recording to transcribe, for now just say 'testing one two'", (), ["text-to-speech"]),
    # what the user says by saying it, or reports that someone says
    ("I wanted to say thank you for yesterday's summary, it helped a lot", (), []),
    ("my dad used to get his letters read aloud by a machine. I don't need anything, just wanted to share.", (), []),
    ("my cousin keeps saying you can draw and translate, is that true?", (), []),
    ("my wife says there are 5 ducks and I say 6, how many ducks are in this photo?", ("ducks.jpg",), ["object-detection"]),
    # a result told made before
    ("thanks, the caption you wrote yesterday was spot on, see you", (), []),
    ("Priya already sent the translation. just tell me if this email is positive: 'We loved the venue and will book again.'", (),
     ["text-classification"]),
    # put off, or waved away without a verb of wanting ("spare me", "never mind the ...", "can wait")
    ("spare me the caption, just tell me how many cyclists are in this shot", ("race.jpg",), ["object-detection"]),
    ("never mind the transcript, what kind of sound is this?", ("noise.wav",), ["audio-classification"]),
    ("the translation can wait till Friday, give me a summary of the minutes first", ("minutes.txt",), ["summarization"]),
    ("I may want it read aloud later on, for the moment just translate 'see you at the station' into German", (),
     ["translation"]),
    ("sum up these minutes, I might need them in Dutch later", ("minutes.txt",), ["summarization"]),
    # ... said after the step asked, not taking it back
    ("shorten these minutes, never mind the Dutch version", ("minutes.txt",), ["summarization"]),
    ("put the minutes into Dutch, spare me the summary", ("minutes.txt",), ["translation"]),
    ("transcribe this and read the transcript back to me, never mind the reading", ("memo.wav",), ["automatic-speech-recognition"]),
    ("never mind, that caption was fine", ("race.jpg",), []),
    # an aside in brackets that only states
    ("I did the Spanish version myself (my Spanish is decent). is this review happy or unhappy: 'La cena fue fria y tardaron una hora.'",
     (), ["text-classification"]),
])
def test_steps_only_told_about_are_not_planned(planner, tmp_path, request_text, names, tasks):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, *names))) == tasks


def test_the_thing_asked_keeps_its_own_words(planner):
    check = planner.plan("My dad will want it read out loud at some point, but for now just translate 'good morning everyone' into Italian", [])
    assert check.plan.tasks[0].args == {"text": "good morning everyone", "target_language": "Italian"}


def test_a_step_told_done_badly_and_asked_again_by_do_it_is_planned(planner):
    check = planner.plan("my cousin translated this into English badly, can you do it properly? 'Je voudrais un cafe, s il vous plait'", [])
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["text"] == "Je voudrais un cafe, s il vous plait"


@pytest.mark.parametrize("request_text, names, tasks", [
    ("don't forget to read the summary out loud: summarize 'The bakery on Elm Street will close for renovations in June and "
     "reopen in August with a bigger kitchen.'", (), ["summarization", "text-to-speech"]),
    ("can't you just translate 'buenos dias, amigos' into English?", (), ["translation"]),
    ("transcribe what my boss said in this voicemail", ("voicemail.mp3",), ["automatic-speech-recognition"]),
    ("I couldn't understand it at all, so transcribe it for me", ("lecture.mp3",), ["automatic-speech-recognition"]),
    ("no need for a long caption, a short one is fine", ("beach.jpg",), ["image-to-text"]),
    ("the last assistant I used transcribed it wrong, so could you transcribe it again?", ("clip.wav",),
     ["automatic-speech-recognition"]),
    ("if the recording is too noisy I'll record it again, but for now transcribe it", ("memo.wav",),
     ["automatic-speech-recognition"]),
    # what someone was told to do, a manner ("as if"), "don't just", a thing that "will need", "of myself",
    # a condition on the assistant's own result, a question after a told step, a fragment before a comma
    ("my professor told us to summarize this chapter", ("notes.txt",), ["summarization"]),
    ("rewrite this as if a robot were saying it and read it out loud", ("notes.txt",), ["text2text-generation", "text-to-speech"]),
    ("don't just summarize it, translate it into Portuguese too", ("notes.txt",), ["summarization", "translation"]),
    ("the leaflet will need translating into Dutch: 'Open every day from nine to five'", (), ["translation"]),
    ("describe this picture of myself at the lake", ("selfie.jpg",), ["image-to-text"]),
    ("if the summary is short enough, read it out to me", ("notes.txt",), ["summarization", "text-to-speech"]),
    ("my aunt already captioned it, but what's in it?", ("garden.jpg",), ["image-to-text"]),
    ("summary of this lecture please, I wasn't there", ("lecture.mp3",), ["automatic-speech-recognition", "summarization"]),
    ("I'll listen to it later, transcribe it now", ("memo.wav",), ["automatic-speech-recognition"]),
    # a request after "never mind" with no verb of its own, a wish with "later" that asks, an aside that asks
    ("never mind, a caption for this shot please", ("race.jpg",), ["image-to-text"]),
    ("would you mind captioning this shot?", ("race.jpg",), ["image-to-text"]),
    ("I'd like it in Dutch later today, but summarize the minutes first", ("minutes.txt",), ["summarization", "translation"]),
    ("sum up these minutes (and put them into Spanish)", ("minutes.txt",), ["summarization", "translation"]),
])
def test_steps_asked_beside_such_words_are_still_planned(planner, tmp_path, request_text, names, tasks):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, *names))) == tasks


def _told_words(text: str, quoted: list[tuple[int, int]] | None = None) -> list[str]:
    offsets = told_words(text, tuple(quoted or ())).tokens
    import re
    return [m.group() for m in re.finditer(r"\S+", text) if m.start() in offsets]


def test_who_does_a_thing_and_when_decides_what_is_told():
    assert "summarized" in _told_words("my coworker summarized the minutes, now I need the dates in them")
    assert "need" not in _told_words("my coworker summarized the minutes, now I need the dates in them")
    assert "translate" in _told_words("I will translate it myself afterwards")
    assert "read" in _told_words("Grandma will want it read out later")
    assert _told_words("translate what my aunt wrote on this card") == []
    assert _told_words("tell me whether this review is positive") == []
    assert "read" not in _told_words("don't forget to read it out loud")


def test_quoted_words_are_never_told():
    text = "translate this: 'Maria will visit the Lyon office tomorrow'"
    start = text.index("'")
    assert _told_words(text, [(start, len(text))]) == []


def test_a_question_of_a_file_after_every_step_was_told_still_gets_a_step(planner, tmp_path):
    check = planner.plan("my niece already ran this through a cartoon filter, so no filters please. what colour is the car?",
                         attach(tmp_path, "car.jpg"))
    assert tasks_of(check) == ["visual-question-answering"]


@pytest.mark.parametrize("request_text, name, tasks", [
    # the question shares its clause with the told step: it is read without the telling
    ("if this photo is too dark I'll brighten it myself, what's in it?", "garden.jpg", ["image-to-text"]),
    ("my daughter already transcribed this song, what kind of music is it?", "song.mp3", ["audio-classification"]),
])
def test_a_question_in_the_clause_of_a_told_step_is_planned_on_its_own_words(planner, tmp_path, request_text, name, tasks):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, name))) == tasks
