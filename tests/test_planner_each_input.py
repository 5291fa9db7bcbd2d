"""Steps asked once per input: each file, each language, each quoted text, each result of a step
made per file; and two inputs compared, each read first. Sentences written for these tests (in no
training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.pipeline.plan import placeholder
from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def test_a_step_asked_for_each_file_is_made_once_per_file_and_both_results_are_compared(planner, tmp_path):
    files = attach(tmp_path, "monday.wav", "friday.wav")
    check = planner.plan("write down what both voicemails say and tell me if they say the same thing", files)
    assert tasks_of(check) == ["automatic-speech-recognition"] * 2 + ["sentence-similarity"]
    a, b, same = check.plan.tasks
    assert {a.args["audio"], b.args["audio"]} == {str(f.path) for f in files}
    assert {same.args["text"], same.args["text2"]} == {placeholder(a.id), placeholder(b.id)}


def test_each_result_of_a_step_made_per_file_goes_on_to_its_own_next_step(planner, tmp_path):
    check = planner.plan("Please transcribe the two interviews, then translate each transcript into German.",
                         attach(tmp_path, "ana.wav", "luis.wav"))
    assert tasks_of(check) == ["automatic-speech-recognition"] * 2 + ["translation"] * 2
    asr, translations = check.plan.tasks[:2], check.plan.tasks[2:]
    assert sorted(t.args["text"] for t in translations) == sorted(placeholder(t.id) for t in asr)
    assert all(t.args["target_language"] == "German" for t in translations)


@pytest.mark.parametrize("request_text", [
    "caption the snapshot, find out what the noise in the clip is, and say both out loud",
    "Would you describe my photo and write down the voice note, then read each of them to me?",
])
def test_speaking_both_results_of_different_steps_speaks_each_one(planner, tmp_path, request_text):
    """Two unrelated steps (a photo and a recording), then "say both": one text-to-speech per
    result, not only the last one's."""
    check = planner.plan(request_text, attach(tmp_path, "porch.jpg", "clip.wav"))
    tasks = check.plan.tasks
    makers = [t for t in tasks if t.task != "text-to-speech"]
    speakers = [t for t in tasks if t.task == "text-to-speech"]
    assert len(makers) == 2 and len(speakers) == 2, tasks_of(check)
    assert sorted(t.args["text"] for t in speakers) == sorted(placeholder(t.id) for t in makers)


def test_a_result_already_read_by_a_later_step_is_not_spoken_again(planner, tmp_path):
    check = planner.plan("transcribe both calls, sum up each transcript and read all of the summaries aloud",
                         attach(tmp_path, "call1.wav", "call2.wav"))
    assert tasks_of(check) == ["automatic-speech-recognition"] * 2 + ["summarization"] * 2 + ["text-to-speech"] * 2
    summaries = [placeholder(t.id) for t in check.plan.tasks if t.task == "summarization"]
    assert sorted(t.args["text"] for t in check.plan.tasks if t.task == "text-to-speech") == sorted(summaries)


def test_each_table_file_is_classified_once(planner, tmp_path):
    files = attach(tmp_path, "store_north.csv", "store_south.csv")
    check = planner.plan("which of these shops will hit target? run the prediction on each sheet", files)
    assert tasks_of(check) == ["tabular-classification"] * 2
    assert {t.args["image"] for t in check.plan.tasks} == {str(f.path) for f in files}


def test_once_each_said_in_a_clause_of_its_own(planner, tmp_path):
    """ "both" after the step, in words the parser sets apart, still asks for it once per file."""
    files = attach(tmp_path, "left_mic.wav", "right_mic.wav")
    check = planner.plan("clean up the hiss. both tracks", files)
    assert tasks_of(check) == ["audio-to-audio"] * 2
    assert {t.args["audio"] for t in check.plan.tasks} == {str(f.path) for f in files}


@pytest.mark.parametrize("text, languages", [
    ("translate 'see you at the station' to Dutch, Polish and Greek", ["Dutch", "Polish", "Greek"]),
    ('I need "Mind the gap" in Portuguese for the Lisbon sign and in Japanese for the Osaka one', ["Portuguese", "Japanese"]),
])
def test_a_translation_into_several_languages_is_one_step_per_language(planner, text, languages):
    check = planner.plan(text)
    assert tasks_of(check) == ["translation"] * len(languages)
    assert [t.args["target_language"] for t in check.plan.tasks] == languages
    assert len({t.args["text"] for t in check.plan.tasks}) == 1


def test_a_translation_from_one_language_into_another_is_one_step(planner):
    check = planner.plan("put 'buenos dias a todos' from Spanish into English")
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["target_language"] == "English"


def test_each_quoted_text_gets_its_own_step(planner):
    check = planner.plan('is each of these upbeat or gloomy? "Rain again, of course." and "Best concert of my life!"')
    assert tasks_of(check) == ["text-classification"] * 2
    assert [t.args["text"] for t in check.plan.tasks] == ["Rain again, of course.", "Best concert of my life!"]


@pytest.mark.parametrize("text, names, task", [
    ("what species? heron_1.jpg heron_2.jpg", ["heron_1.jpg", "heron_2.jpg"], "image-classification"),
    ("tone check on memo_a.txt and memo_b.txt", ["memo_a.txt", "memo_b.txt"], "text-classification"),
    ("forecast whether stock_q3.csv and stock_q4.csv rows go up", ["stock_q3.csv", "stock_q4.csv"], "tabular-classification"),
])
def test_files_named_together_with_a_step_get_one_step_each(planner, tmp_path, text, names, task):
    files = attach(tmp_path, *names)
    check = planner.plan(text, files)
    assert tasks_of(check) == [task] * len(names)
    assert [next(iter(t.args.values())) for t in check.plan.tasks] == [str(f.path) for f in files]


def test_each_photo_edited_in_its_own_words_keeps_its_own_instruction(planner, tmp_path):
    files = attach(tmp_path, "porch.jpg", "garden.jpg")
    check = planner.plan("Make porch.jpg look like a snowy evening, and give garden.jpg a pastel cartoon style.", files)
    assert tasks_of(check) == ["image-to-image"] * 2
    porch, garden = check.plan.tasks
    assert porch.args["image"] == str(files[0].path) and "snowy" in porch.args["text"] and "pastel" not in porch.args["text"]
    assert garden.args["image"] == str(files[1].path) and "pastel" in garden.args["text"] and "snowy" not in garden.args["text"]
    assert not garden.args["text"].lower().startswith("and")


def test_two_text_files_compared_are_both_read(planner, tmp_path):
    files = attach(tmp_path, "slogan_a.txt", "slogan_b.txt")
    check = planner.plan("compare slogan_a.txt and slogan_b.txt", files)
    assert tasks_of(check) == ["sentence-similarity"]
    assert {check.plan.tasks[0].args["text"], check.plan.tasks[0].args["text2"]} == {str(f.path) for f in files}


def test_two_quoted_texts_compared_stay_one_comparison(planner):
    check = planner.plan("do 'the meeting moved to noon' and 'we meet at twelve now' both mean the same?")
    assert tasks_of(check) == ["sentence-similarity"]


def test_each_file_the_request_talks_about_gets_a_step(planner, tmp_path):
    files = attach(tmp_path, "garden.jpg", "song.wav")
    check = planner.plan("what kind of flower is in this photo, and the recording, what kind of bird is that", files)
    assert sorted(tasks_of(check)) == ["audio-classification", "image-classification"]
    # ... but not a file the user says to leave alone
    check = planner.plan("ignore the photo and just transcribe the recording", files)
    assert tasks_of(check) == ["automatic-speech-recognition"]


@pytest.mark.parametrize("request_text,names,readers", [
    ("Do these two scanned letters say the same thing?", ["a.png", "b.png"], ["image-to-text", "image-to-text"]),
    ("Is what I said in the voice memo the same as what my sticky note says?", ["note.jpg", "memo.wav"],
     ["automatic-speech-recognition", "image-to-text"]),
])
def test_a_comparison_of_two_files_reads_each_of_them(planner, tmp_path, request_text, names, readers):
    files = attach(tmp_path, *names)
    check = planner.plan(request_text, files)
    tasks = tasks_of(check)
    assert sorted(tasks) == sorted(readers + ["sentence-similarity"]), tasks
    same = check.plan.tasks[-1]
    read = {t.args.get("image") or t.args.get("audio"): placeholder(t.id) for t in check.plan.tasks[:-1]}
    assert set(read) == {str(f.path) for f in files}
    assert {same.args["text"], same.args["text2"]} == set(read.values())


def test_one_file_of_several_asked_for_alone_gets_one_step(planner, tmp_path):
    check = planner.plan("sharpen the second photo", attach(tmp_path, "one.jpg", "two.jpg"))
    assert len(check.plan.tasks) == 1
