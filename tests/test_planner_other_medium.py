"""A step the model reads for a medium the request does not have, done on the medium it has:
"clean this pic up" with only a picture given is the picture's cleaning, not a recording to
denoise that is missing. Sentences written for these tests (in no training or benchmark file)."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_desktop.planning.extract import Span, read_request
from jarvis_desktop.planning.learned import LABELS
from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.other_medium import SAME_ON_OTHER_MEDIUM, on_medium_given
from planner_helpers import attach, tasks_of


def test_cleaning_asked_of_a_picture_cleans_the_picture(tmp_path):
    check = OfflinePlanner().plan("can u clean this pic up a bit", attach(tmp_path, "pic.jpg"))
    assert tasks_of(check) == ["image-to-image"]
    assert check.plan.tasks[0].args["image"].endswith("pic.jpg")


def test_transcribing_a_scanned_page_reads_its_text(tmp_path):
    check = OfflinePlanner().plan("transcribe this page for me please", attach(tmp_path, "page.png"))
    assert tasks_of(check) == ["image-to-text"]


def test_a_recording_asked_for_with_only_a_photo_given_is_still_asked_for(tmp_path):
    check = OfflinePlanner().plan("transcribe the interview recording", attach(tmp_path, "desk.jpg"))
    assert check.plan.tasks == [] and check.missing == ["a recording"]


def test_a_recording_given_keeps_its_own_step(tmp_path):
    check = OfflinePlanner().plan("clean up this voice memo, there's wind noise", attach(tmp_path, "memo.wav"))
    assert tasks_of(check) == ["audio-to-audio"]


def _found(label: str, P: np.ndarray, given: list[str], also: tuple[str, ...] = ()) -> list[str]:
    text = "make it sound nicer"
    reading = read_request(text)
    found = [(0, LABELS.index(label), label)] + [(0, LABELS.index(a), a) for a in also]
    out = on_medium_given(found, P, LABELS, 0.15, [Span(text, 0, len(text))], reading, [], given, {})
    return [f[2] for f in out]


def _row(**scores: float) -> np.ndarray:
    P = np.full((1, len(LABELS)), 0.001)
    for label, p in scores.items():
        P[0, LABELS.index(label.replace("_", "-"))] = p
    return P


def test_each_sound_step_has_its_picture_step_and_back():
    for a, b in SAME_ON_OTHER_MEDIUM.items():
        assert SAME_ON_OTHER_MEDIUM[b] == a and a in LABELS and b in LABELS


def test_the_same_operation_on_the_medium_given_unless_another_step_is_likelier():
    assert _found("audio-to-audio", _row(audio_to_audio=0.9), ["image"]) == ["image-to-image"]
    # the model's likeliest step that reads what is there, when it is fairly sure of it
    assert _found("audio-to-audio", _row(audio_to_audio=0.4, image_segmentation=0.2), ["image"]) == ["image-segmentation"]
    assert _found("audio-to-audio", _row(audio_to_audio=0.4, image_segmentation=0.1), ["image"]) == ["image-to-image"]


def test_a_sound_made_or_given_keeps_the_sound_step():
    P = _row(audio_to_audio=0.9)
    assert _found("audio-to-audio", P, ["image", "audio"]) == ["audio-to-audio"]
    assert _found("audio-to-audio", P, ["image"], also=("text-to-speech",)) == ["audio-to-audio", "text-to-speech"]
    # nothing of the other medium either: the step stays, and the linker says what is missing
    assert _found("audio-to-audio", P, []) == ["audio-to-audio"]


def test_a_question_on_a_document_given_as_text_is_answered_from_the_text(tmp_path):
    """"this document" names a text file as well as a scan: with letter.txt given, the planner asked
    for a photo and ran nothing."""
    files = attach(tmp_path, "letter.txt")
    check = OfflinePlanner().plan("who wrote this document?", files)
    assert tasks_of(check) == ["question-answering"] and not check.missing
    assert check.plan.tasks[0].args["context"] == str(files[0].path)
    about = OfflinePlanner().plan("what is this document about", files)  # what it is about: its summary
    assert tasks_of(about) == ["summarization"]
    scan = OfflinePlanner().plan("what is this document about", attach(tmp_path, "scan.png"))
    assert tasks_of(scan) == ["document-question-answering"]


@pytest.mark.parametrize("request_text", ["turn the heat down to 19 degrees", "turn the kitchen lights on please", "dim the screen"])
def test_a_change_of_no_picture_that_names_none_is_no_picture_to_make(request_text):
    """A device to switch or turn ("turn the kitchen lights on") read as a picture's change, with no
    picture anywhere: not a picture to make from the words, since the model reads none there (before,
    text-to-image drew "Turn the kitchen lights on"). Nothing points at a file either, so the user
    is not told to attach one: the chat answers."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == [] and not check.missing
    assert not any("attach" in note for note in check.plan.notes)


@pytest.mark.parametrize("request_text", ["paint a fox in the snow, in the style of an old woodcut",
                                          "make it look like a rainy evening in paris"])
def test_a_picture_change_with_a_picture_to_make_in_its_words_is_still_made(request_text):
    assert tasks_of(OfflinePlanner().plan(request_text, [])) == ["text-to-image"]
