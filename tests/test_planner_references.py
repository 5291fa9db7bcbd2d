"""Files pointed at in words instead of by name ("the second photo", "the boarding pass"), and the
plans that depend on them. Every sentence here was written for this test."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvis_desktop.media import Attachment, kind_of
from jarvis_desktop.pipeline.plan import placeholder
from jarvis_desktop.planning.extract import read_request
from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.references import file_references


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def attach(tmp_path: Path, *names: str) -> list[Attachment]:
    out = []
    for n in names:
        p = tmp_path / n
        p.write_bytes(b"x")
        out.append(Attachment(p, kind_of(n)))
    return out


def pointed(text: str, files: list[Attachment]) -> list[tuple[str, str]]:
    """(the words, the file they point at) for each reference found."""
    return [(text[s.start:s.end], s.text) for s in file_references(read_request(text), files)]


def test_ordinals_point_at_files_of_the_kind_they_name(tmp_path):
    files = attach(tmp_path, "a.wav", "x.jpg", "b.wav", "y.jpg")
    assert pointed("clean the second recording and caption the first photo", files) == [
        ("the second recording", "b.wav"), ("the first photo", "x.jpg")]
    assert pointed("what's in the last pic?", files) == [("the last pic", "y.jpg")]


def test_the_other_one_is_clear_only_between_two(tmp_path):
    assert pointed("caption the other one", attach(tmp_path, "p.jpg", "q.jpg")) == [("the other one", "q.jpg")]
    assert pointed("caption the other one", attach(tmp_path, "p.jpg", "q.jpg", "r.jpg")) == []


def test_ordinals_that_count_something_else_are_not_files(tmp_path):
    files = attach(tmp_path, "p.jpg", "q.jpg")
    assert pointed("the first step is to caption it; the second question is harder", files) == []


def test_the_words_of_a_files_name_point_at_it(tmp_path):
    files = attach(tmp_path, "boarding_pass.png", "hotel-booking.png", "IMG_2041.jpg")
    assert pointed("the gate from the boarding pass and the time on the hotel booking", files) == [
        ("boarding pass", "boarding_pass.png"), ("hotel booking", "hotel-booking.png")]
    assert pointed("what's in this image?", files) == []  # "img" says nothing about which file


def test_a_word_two_files_share_points_at_neither(tmp_path):
    assert pointed("is the kid smiling?", attach(tmp_path, "kid1.jpg", "kid2.jpg")) == []


def test_one_file_needs_no_pointing_at(tmp_path):
    assert pointed("the first photo, caption it", attach(tmp_path, "garden.jpg")) == []


def test_each_step_reads_the_file_pointed_at(planner, tmp_path):
    files = attach(tmp_path, "street.jpg", "cafe.jpg", "order.m4a")
    check = planner.plan("caption the second photo and transcribe the recording", files)
    assert check.ok, check.errors
    by_task = {t.task: t for t in check.plan.tasks}
    assert by_task["image-to-text"].args["image"] == str(files[1].path)
    assert by_task["automatic-speech-recognition"].args["audio"] == str(files[2].path)


@pytest.mark.xfail(strict=True, reason="since the classifier reads clauses in context (MiniLM, stop 27) 'the voice memo "
                   "has my question about the second photo' scores as transcription only (0.98) and the question "
                   "about the photo falls to 0.08: a caption is planned instead of an answer")
def test_a_question_recorded_about_the_photo_pointed_at_is_answered_from_its_transcript(planner, tmp_path):
    files = attach(tmp_path, "ask.wav", "hall.jpg", "yard.jpg")
    check = planner.plan("the voice memo has my question about the second photo, answer it please", files)
    assert check.ok, check.errors
    asr, vqa = check.plan.tasks
    assert (asr.task, vqa.task) == ("automatic-speech-recognition", "visual-question-answering")
    assert vqa.args["image"] == str(files[2].path) and vqa.args["text"] == placeholder(asr.id)


def test_a_text_file_named_in_words_is_read_as_it_is(planner, tmp_path):
    files = attach(tmp_path, "poster.jpg", "speech_draft.txt")
    check = planner.plan("describe the poster, and then make the speech draft sound more formal", files)
    assert check.ok, check.errors
    caption, rewrite = check.plan.tasks
    assert caption.task == "image-to-text" and rewrite.task == "text2text-generation"
    assert rewrite.args["text"] == str(files[1].path)


def test_a_step_asked_again_for_a_file_in_a_clause_of_its_own(planner, tmp_path):
    files = attach(tmp_path, "crowd.jpg", "car_park.jpg")
    check = planner.plan("Could you count the people in crowd.jpg, and then tell me how many cars are in car_park.jpg?", files)
    assert check.ok, check.errors
    assert [t.task for t in check.plan.tasks] == ["object-detection"] * 2
    assert [t.args["image"] for t in check.plan.tasks] == [str(f.path) for f in files]


def test_a_recording_cleaned_then_transcribed_is_transcribed_clean(planner, tmp_path):
    files = attach(tmp_path, "panel_talk.wav")
    check = planner.plan("remove the hum, then transcribe panel_talk.wav", files)
    assert check.ok, check.errors
    clean, words = check.plan.tasks
    assert (clean.task, words.task) == ("audio-to-audio", "automatic-speech-recognition")
    assert words.args["audio"] == placeholder(clean.id)


def test_terse_ordinals_without_an_article_point_at_files_when_a_file_noun_follows(tmp_path):
    files = attach(tmp_path, "dawn.jpg", "dusk.jpg", "song.wav")
    assert pointed("second pic, count the birds", files) == [("second pic", "dusk.jpg")]
    assert pointed("my first photo is blurry", files) == [("my first photo", "dawn.jpg")]
    # adverbs that number the steps, and "other" without an article, point at nothing
    assert pointed("first, caption them; second, make other pictures like them", files) == []


def test_a_topic_named_before_its_command_is_the_file_the_command_reads(tmp_path, planner):
    files = attach(tmp_path, "street.jpg", "crowd.jpg")
    check = planner.plan("turn the first photo into a watercolor; second photo, cut out the people", files)
    assert [t.task for t in check.plan.tasks] == ["image-to-image", "image-segmentation"]
    assert check.plan.tasks[0].args["image"] == str(files[0].path)
    assert check.plan.tasks[1].args["image"] == str(files[1].path)


def test_a_pronoun_after_a_made_picture_points_at_it_not_at_the_clause_file(tmp_path, planner):
    files = attach(tmp_path, "room.jpg")
    check = planner.plan("depth of room.jpg -> underwater palace -> describe it", files)
    tasks = [t.task for t in check.plan.tasks]
    assert tasks == ["depth-control", "depth-text-to-image", "image-to-text"]
    assert check.plan.tasks[0].args["image"] == str(files[0].path)
    assert check.plan.tasks[2].args["image"] == placeholder(check.plan.tasks[1].id)
