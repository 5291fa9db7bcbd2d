"""Words given, turned into a new form of writing ("convert agenda.txt into a checklist"): a
writing step made from them, where the classifier, seeing a form it never saw, planned nothing or
the recording's transcription alone. Sentences written for these tests."""

from __future__ import annotations

import pytest

from jarvis_desktop.pipeline.plan import placeholder
from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


def test_a_text_file_turned_into_a_new_form_is_written_from_it(planner, tmp_path):
    files = attach(tmp_path, "agenda.txt")
    check = planner.plan("convert agenda.txt into a checklist", files)
    assert tasks_of(check) == ["text-generation"]
    assert check.plan.tasks[0].args["text"] == str(files[0].path)


def test_a_recording_turned_into_a_new_form_is_written_from_its_words(planner, tmp_path):
    check = planner.plan("turn lecture.mp3 into a study guide", attach(tmp_path, "lecture.mp3"))
    assert tasks_of(check) == ["automatic-speech-recognition", "text-generation"]
    words, guide = check.plan.tasks
    assert guide.args["text"] == placeholder(words.id)


@pytest.mark.parametrize("request_text, file, tasks", [
    ("turn lecture.mp3 into a text transcript", "lecture.mp3", ["automatic-speech-recognition"]),  # the step's own result
    ("convert agenda.txt into an audio file", "agenda.txt", ["text-to-speech"]),  # a sound, not a writing
    ("turn agenda.txt into a short video", "agenda.txt", ["text-to-video"]),
])
def test_a_new_form_that_is_no_writing_adds_no_writing_step(planner, tmp_path, request_text, file, tasks):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, file))) == tasks
