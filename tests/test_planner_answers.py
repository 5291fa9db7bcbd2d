"""Questions to be answered from something given: a clause that commands an answer gets an
answering step, and a question that was spoken is never its own passage. Sentences written for
these tests (in no training or benchmark file)."""

from __future__ import annotations

from jarvis_desktop.pipeline.plan import placeholder
from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


def test_a_recorded_question_is_answered_from_the_page_and_the_answer_spoken(tmp_path):
    # before: the plan read the page, transcribed the question and spoke the question back
    check = OfflinePlanner().plan("answer the question in the recording from what the page says, out loud",
                                  attach(tmp_path, "page.jpg", "question.m4a"))
    assert sorted(tasks_of(check)) == sorted(["automatic-speech-recognition", "image-to-text", "question-answering", "text-to-speech"])
    by_task = {t.task: t for t in check.plan.tasks}
    qa = by_task["question-answering"]
    assert qa.args["text"] == placeholder(by_task["automatic-speech-recognition"].id)
    assert qa.args["context"] == placeholder(by_task["image-to-text"].id)
    assert by_task["text-to-speech"].args["text"] == placeholder(qa.id)


def test_a_recorded_question_is_answered_from_the_notes_not_from_itself(tmp_path):
    files = attach(tmp_path, "notes.txt", "ask.wav")
    check = OfflinePlanner().plan("answer the question I recorded using these notes", files)
    assert tasks_of(check) == ["automatic-speech-recognition", "question-answering"]
    asr, qa = check.plan.tasks
    assert qa.args["text"] == placeholder(asr.id)
    assert qa.args["context"] == str(files[0].path)


def test_the_passage_of_a_recorded_question_is_the_text_file_its_clause_names(tmp_path):
    files = attach(tmp_path, "complaint.txt", "faq.txt", "voicemail.mp3")
    check = OfflinePlanner().plan("first, rewrite complaint.txt so it sounds polite; second, answer the question in "
                                  "voicemail.mp3 using faq.txt", files)
    qa = next(t for t in check.plan.tasks if t.task == "question-answering")
    assert qa.args["context"] == str(files[1].path)


def test_answering_an_email_is_a_reply_not_a_question_answered(tmp_path):
    check = OfflinePlanner().plan("answer this email for me, politely", attach(tmp_path, "email.txt"))
    assert "question-answering" not in tasks_of(check)
    assert tasks_of(check)  # a reply is written
