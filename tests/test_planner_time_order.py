"""Steps said out of the order they run in ("before you summarise it, translate it", "summarise
it after you translate it", "..., but before that fix its grammar") run in the order meant.
Sentences written for these tests (in no training or benchmark file)."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.time_order import in_time_order
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner():
    return OfflinePlanner()


def _chain(check) -> list[tuple[str, list[int]]]:
    return [(t.task, sorted(t.refs())) for t in check.plan.tasks]


@pytest.mark.parametrize("request_text", [
    "before you summarise this report, translate it into German",
    "summarise the report after you translate it into German",
    "Before shortening it, put this report into plain German.",
])
def test_a_step_said_second_that_runs_first(planner, tmp_path, request_text):
    # before: summarised, then the summary translated
    check = planner.plan(request_text, attach(tmp_path, "report.txt"))
    assert _chain(check) == [("translation", []), ("summarization", [0])]


def test_but_before_that(planner, tmp_path):
    check = planner.plan("translate my essay into Spanish, but before that fix its grammar", attach(tmp_path, "essay.txt"))
    assert _chain(check) == [("text2text-generation", []), ("translation", [0])]


@pytest.mark.parametrize("request_text", [
    "Could you put these minutes into Italian? Shorten them first, please.",
    "shorten minutes.txt to a few lines, and translate it into Italian first",
    "Please summarise the minutes, but before you do that, translate them into Italian.",
    "give me the gist of these minutes once you've put them into Italian",
])
def test_a_step_that_runs_first_said_last(planner, tmp_path, request_text):
    check = planner.plan(request_text, attach(tmp_path, "minutes.txt"))
    first = "summarization" if "Shorten them first" in request_text else "translation"
    second = "translation" if first == "summarization" else "summarization"
    assert _chain(check) == [(first, []), (second, [0])]
    assert check.plan.tasks[0].args["text"].endswith("minutes.txt")  # the step moved first reads the file the other named


def test_a_statement_between_is_not_a_step_to_move(planner, tmp_path):
    check = planner.plan("Could you find the names in this letter? It's in Czech, so translate it into English before anything else.",
                         attach(tmp_path, "letter.txt"))
    assert _chain(check) == [("translation", []), ("token-classification", [0])]


@pytest.mark.parametrize("request_text, files, expected", [
    ("fix the grammar of this before I post it", ["post.txt"], ["text2text-generation"]),  # the user's own doing
    ("describe the photo I took after the storm", ["storm.jpg"], ["image-to-text"]),
    ("First of all, thank you! Secondly, caption this photo please.", ["porch.jpg"], ["image-to-text"]),
])
def test_before_and_after_that_order_no_step(planner, tmp_path, request_text, files, expected):
    assert tasks_of(planner.plan(request_text, attach(tmp_path, *files))) == expected


def test_the_rewrite_moves_only_the_clause_said_out_of_order():
    assert in_time_order("Transcribe this and summarise it after you translate it.") == "Transcribe this and translate it, then summarise it."
    assert in_time_order("do you keep my recordings after you transcribe them?") == "do you keep my recordings after you transcribe them?"


def test_a_file_worked_from_goes_to_the_step_moved_first(planner, tmp_path):
    # before: the cut-out read the photo, not the edited picture ("from a.jpg" is no direct object)
    files = attach(tmp_path, "harbour.jpg")
    check = planner.plan("cut the boats out of harbour.jpg after you've made it look like a pencil drawing", files)
    assert tasks_of(check) == ["image-to-image", "image-segmentation"]
    edit, cut = check.plan.tasks
    assert edit.args["image"] == str(files[0].path) and cut.args["image"] == f"<GENERATED>-{edit.id}"


def test_after_a_gerund_before_the_quoted_words_runs_first(planner):
    # the quoted words after the colon are no step said after it: "..., after X-ing it" runs X first
    check = planner.plan("tell me if this is spam, after translating it into English: 'Ganaste un premio, haz clic aquí'")
    assert _chain(check) == [("translation", []), ("text-classification", [0])]
