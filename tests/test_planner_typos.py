"""Requests typed in a hurry: a word one edit away from a word the planner knows is read as that
word. Every sentence here was written for this test."""

from __future__ import annotations

import pytest

from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.typos import Speller, one_edit


def test_one_edit_covers_drops_additions_changes_and_swaps():
    near = one_edit("caption")
    assert {"capton", "captiion", "captoin", "captiom"} <= near
    assert "caption" not in near and "cpation" not in one_edit("capiton")


def test_an_unknown_word_is_read_as_its_only_known_neighbour():
    speller = Speller({"summarize", "transcribe", "tone", "town"})
    assert speller.correct("sumarize") == "summarize"
    assert speller.correct("transcibe") == "transcribe"
    assert speller.correct("summarize") is None  # known already
    assert speller.correct("tonw") is None  # too short to tell tone from town


def test_a_word_with_two_known_neighbours_is_left_alone():
    assert Speller({"caption", "captain"}).correct("captin") is None


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def test_a_mistyped_step_word_still_asks_for_its_step(planner):
    """No training request spells it so: without the speller this was a rewrite, not a summary."""
    check = planner.plan("summmarize this: 'The roof repair will take three weeks and the hall stays closed until then.'")
    assert check.ok, check.errors
    assert [t.task for t in check.plan.tasks] == ["summarization"]
