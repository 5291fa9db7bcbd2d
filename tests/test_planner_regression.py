"""The learned planner's figures on a small frozen set of our own requests do not drop below the
floors recorded here. bench/data/dev_requests_check.jsonl was written for this check and is never
used to train the planner (training reads dev_requests_train.jsonl). A benchmark file, not a timing."""

from __future__ import annotations

import json
from pathlib import Path

from jarvis_desktop.media import Attachment, kind_of
from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.plan_metrics import PlanScores

ROOT = Path(__file__).resolve().parents[1]
CHECK_SET = ROOT / "bench" / "data" / "dev_requests_check.jsonl"
TRAIN_SET = ROOT / "bench" / "data" / "dev_requests_train.jsonl"
SPOKEN_SET = ROOT / "bench" / "data" / "dev_requests_spoken.jsonl"
FOLLOW_UP_SET = ROOT / "bench" / "data" / "dev_follow_ups.jsonl"
AGAIN_SET = ROOT / "bench" / "data" / "dev_again.jsonl"
REPAIRS_SET = ROOT / "bench" / "data" / "dev_repairs.jsonl"
ORDER_SET = ROOT / "bench" / "data" / "dev_order.jsonl"
MORE_SET = ROOT / "bench" / "data" / "dev_more.jsonl"
DICTATED_SET = ROOT / "bench" / "data" / "dev_dictated.jsonl"
ELLIPSIS_SET = ROOT / "bench" / "data" / "dev_ellipsis.jsonl"
TURNS_SET = ROOT / "bench" / "data" / "dev_turns.jsonl"
FILES_SET = ROOT / "bench" / "data" / "dev_files.jsonl"
CONTEXT_SET = ROOT / "bench" / "data" / "dev_context.jsonl"
CONTEXT_SET_2 = ROOT / "bench" / "data" / "dev_context_2.jsonl"
NEEDS_SET = ROOT / "bench" / "data" / "dev_needs.jsonl"
NEEDS_MORE_SET = ROOT / "bench" / "data" / "dev_needs_more.jsonl"
INSIDE_SET = ROOT / "bench" / "data" / "dev_inside.jsonl"
CHAINS_SET = ROOT / "bench" / "data" / "dev_chains.jsonl"
CHAINS_MORE_SET = ROOT / "bench" / "data" / "dev_chains_more.jsonl"
TALK_SET = ROOT / "bench" / "data" / "dev_talk.jsonl"
TALK_MORE_SET = ROOT / "bench" / "data" / "dev_talk_more.jsonl"
BREATH_SET = ROOT / "bench" / "data" / "dev_breath.jsonl"
WORDS_SET = ROOT / "bench" / "data" / "dev_words.jsonl"

#: Recorded when the floor was set: 37/41 exact (90.2%), 2 empty, node F1 94.6, edge F1 95.2, spoken 5/5.
FLOOR = {"exact_rate": 85.0, "empty_needed": 2, "node_f1": 90.0, "edge_f1": 90.0, "spoken_ok": 5}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_check_set_is_not_training_data():
    train = {r["request"].strip().lower() for r in _rows(TRAIN_SET)}
    held = _rows(CHECK_SET) + _rows(SPOKEN_SET) + _rows(FOLLOW_UP_SET) + _rows(AGAIN_SET) + _rows(REPAIRS_SET) + _rows(ORDER_SET)
    assert not [r["request"] for r in held if r["request"].strip().lower() in train]


def _scores(path: Path) -> PlanScores:
    """The offline planner's figures on a request set (its files named, not read)."""
    planner = OfflinePlanner()
    s = PlanScores()
    for row in _rows(path):
        atts = [Attachment(Path(f), kind_of(f)) for f in row["files"] if kind_of(f)]
        check = planner.plan(row["request"], atts)
        s.add(check.plan.to_json() if check.ok and check.plan else [], row["plan"])
    return s


def test_figures_on_the_frozen_check_set_stay_above_their_floor():
    s = _scores(CHECK_SET)
    got = {"exact_rate": s.exact_rate, "empty_needed": s.empty_needed, "node_f1": s.f1("node"),
           "edge_f1": s.f1("edge"), "spoken_ok": s.spoken_ok}
    assert s.n == 41
    assert got["exact_rate"] >= FLOOR["exact_rate"], got
    assert got["empty_needed"] <= FLOOR["empty_needed"], got
    assert got["node_f1"] >= FLOOR["node_f1"], got
    assert got["edge_f1"] >= FLOOR["edge_f1"], got
    assert got["spoken_ok"] >= FLOOR["spoken_ok"], got


def test_follow_ups_on_the_frozen_set_keep_working_on_the_last_answer():
    """Second turns of ours (dev_follow_ups.jsonl, each with the assistant's previous answer):
    recorded 30/38 follow-ups on that answer and 0/2 new requests wrongly on it (33/40 exact)."""
    planner = OfflinePlanner()
    s = PlanScores()
    for row in _rows(FOLLOW_UP_SET):
        check = planner.plan(row["request"], [], row["previous_answer"])
        s.add(check.plan.to_json() if check.ok and check.plan else [], row["plan"], row["previous_answer"])
    assert (s.follow_ups, s.new_turns) == (38, 2)
    assert s.follow_ups_ok >= 28 and s.new_turns_on_it == 0, (s.follow_ups_ok, s.new_turns_on_it)


def test_requests_for_another_one_stay_above_their_floor():
    """"Draw a fox, and another one in the snow" (dev_again.jsonl, 30 requests by an author who had
    not seen the planner, then read while building planning/repeats.py): recorded 21/30 exact, edge
    F1 83.3 (8/30 before repeats were planned), 24/30 with the kind named again and the steps
    between (stop 42)."""
    s = _scores(AGAIN_SET)
    assert s.n == 30
    assert s.exact_rate >= 73.0 and s.f1("edge") >= 80.0, (s.exact_rate, s.f1("edge"))


def test_more_of_the_same_stays_above_its_floor():
    """"Another image but in winter", "one more, sadder", "two limericks about cats" and look-alikes
    (dev_more.jsonl, 40 requests by an author who had not seen the planner, scored 17/40 blind, then
    read while building planning/counts.py and widening repeats.py): recorded 31/40 exact, edge F1 75.0."""
    s = _scores(MORE_SET)
    assert s.n == 40
    assert s.exact_rate >= 72.5 and s.f1("edge") >= 70.0, (s.exact_rate, s.f1("edge"))


def test_requests_as_dictated_stay_above_their_floor():
    """"hey jarvis, um, can you, can you draw ...", "say quote ... end quote", "is this spam, it says
    ..." (dev_dictated.jsonl, 40 requests by an author who had not seen the planner, scored 36/40
    exact and arg-value F1 47.9 blind, then read while building planning/as_written.py): recorded
    38/40 exact, arg-value F1 62.7. The arguments are the point here: the talk kept out of them."""
    s = _scores(DICTATED_SET)
    assert s.n == 40
    assert s.exact_rate >= 90.0 and s.f1("arg_value") >= 58.0, (s.exact_rate, s.f1("arg_value"))


def test_words_left_out_stay_above_their_floor():
    """"To Japanese. and Korean.", "caption the first one, then the second", "same with the other
    one", "the total on this receipt? and the tax?" (dev_ellipsis.jsonl, 40 requests by an author
    who had not seen the planner, scored 14/40 blind, then read while building planning/gaps.py):
    recorded 35/40 exact here (36/40 in bench/taskbench.py, which writes the files), edge F1 94.1."""
    s = _scores(ELLIPSIS_SET)
    assert s.n == 40
    assert s.exact_rate >= 80.0 and s.f1("edge") >= 90.0, (s.exact_rate, s.f1("edge"))


def test_steps_said_out_of_order_or_corrected_stay_above_their_floor():
    """"X, but first Y", "once it's transcribed, summarise it", "no wait, make it red", "scratch
    that" (dev_turns.jsonl, 40 requests by an author who had not seen the planner, scored 33/40
    blind, then read where they failed): recorded 34/40 exact here (36/40 in bench/taskbench.py),
    edge F1 90.2."""
    s = _scores(TURNS_SET)
    assert s.n == 40
    assert s.exact_rate >= 80.0 and s.f1("edge") >= 85.0, (s.exact_rate, s.f1("edge"))


def test_requests_over_several_files_stay_above_their_floor():
    """"caption the vacation pics", "how many people in the last two?", "the rest ill do later",
    "put these three into a zip" (dev_files.jsonl, 40 requests by an author who had not seen the
    planner, scored 28/40 blind, then read while building planning/plural_refs.py and
    asked_again.py): recorded 40/40 exact here, edge F1 100, arg-value F1 84.2."""
    s = _scores(FILES_SET)
    assert s.n == 40
    assert s.exact_rate >= 90.0 and s.f1("edge") >= 95.0 and s.empty_needed == 0, (s.exact_rate, s.f1("edge"), s.empty_needed)


def test_requests_wrapped_in_what_the_user_tells_stay_above_their_floor():
    """"My colleague wrote a caption for it and it was awful ... how many people are in it", "I will
    translate it into Polish myself afterwards", "he'll want it read out at some point, but not right
    now" (dev_context.jsonl, 40 requests by an author who had not seen the planner, scored 25/40
    blind, then read while building planning/told_only.py): recorded 37/40 exact here, edge F1
    100."""
    s = _scores(CONTEXT_SET)
    assert s.n == 40
    assert s.exact_rate >= 85.0 and s.f1("edge") >= 90.0 and s.empty_needed == 0, (s.exact_rate, s.f1("edge"), s.empty_needed)
    s = _scores(CONTEXT_SET_2)  # a second author, scored 28/40 before it was read: recorded 36/40 here
    assert s.n == 40
    assert s.exact_rate >= 85.0 and s.empty_needed == 0, (s.exact_rate, s.empty_needed)


def test_requests_that_state_a_need_stay_above_their_floor():
    """"I can't make out a word of what this guy is saying", "my German is rusty, what does this letter
    want from me?" (dev_needs.jsonl, 40 requests by an author who had not seen the planner, scored
    31/40 before it was read): recorded 31/40 exact here, 2 empty where a step was needed, no step
    planned for chat."""
    s = _scores(NEEDS_SET)
    assert s.n == 40
    assert s.exact_rate >= 75.0 and s.empty_needed <= 2 and s.extra_on_chat == 0, (s.exact_rate, s.empty_needed, s.extra_on_chat)
    s = _scores(NEEDS_MORE_SET)  # three more authors (298 requests), 205/298 before they were read: recorded 217/298 here, 12 empty
    assert s.n == 298
    assert s.exact_rate >= 70.0 and s.empty_needed <= 14, (s.exact_rate, s.empty_needed)


def test_questions_about_what_is_inside_a_file_stay_above_their_floor():
    """Questions about what a recording or a translated document says, "the original", messages to
    be heard, file chores (dev_inside.jsonl, 60 requests by an author who had not seen the planner,
    43/60 before they were read, then read while building planning/heard_questions.py): recorded
    54/60 exact, 2 empty where a task was needed, none planned for chat."""
    s = _scores(INSIDE_SET)
    assert s.n == 60
    assert s.exact_rate >= 85.0 and s.empty_needed <= 3 and s.extra_on_chat == 0, (s.exact_rate, s.empty_needed, s.extra_on_chat)


def test_longer_chains_stay_above_their_floor():
    """Three or more steps, a result read by two later steps, two results combined, results named
    by what they are (dev_chains.jsonl, 60 requests by an author who had not seen the planner, 44/60
    before they were read as bench/taskbench.py plans them; dev_chains_more.jsonl, 356 by three
    more, 270/356 before). Planned here as the app plans them (a file named but not attached is
    asked for, so that plan is empty): recorded 38/60 exact with 5 empty, and 238/356 with 29."""
    s = _scores(CHAINS_SET)
    assert s.n == 60
    assert s.exact_rate >= 60.0 and s.empty_needed <= 6, (s.exact_rate, s.empty_needed)
    s = _scores(CHAINS_MORE_SET)
    assert s.n == 356
    assert s.exact_rate >= 63.0 and s.empty_needed <= 32, (s.exact_rate, s.empty_needed)


def test_talk_around_the_task_stays_above_its_floor():
    """Greetings, apologies, opinions of earlier results, questions about the assistant, errands
    and the time beside real steps, and pure talk (dev_talk.jsonl, 60 requests, and
    dev_talk_more.jsonl, 150, by two authors who had not seen the planner; 49/60 and 120/150 with 4
    and 8 chat requests given a step before they were read). Recorded as the app plans them: 55/60
    with 0 of 15 chat requests given a step, 133/150 with 2 of 36."""
    s = _scores(TALK_SET)
    assert s.n == 60
    assert s.exact_rate >= 85.0 and s.extra_on_chat <= 1 and s.empty_needed == 0, (s.exact_rate, s.extra_on_chat, s.empty_needed)
    s = _scores(TALK_MORE_SET)
    assert s.n == 150
    assert s.exact_rate >= 84.0 and s.extra_on_chat <= 4 and s.empty_needed <= 1, (s.exact_rate, s.extra_on_chat, s.empty_needed)


def test_several_asks_in_one_breath_stay_above_their_floor():
    """Two or three questions in one sentence, results listed under one verb, versions named
    together, and look-alikes whose "and" is inside one ask (dev_breath.jsonl, 120 requests by an
    author who had not seen the planner; 88/120 before they were read). Recorded as the app plans
    them: 102/120 with none empty and no chat request given a step."""
    s = _scores(BREATH_SET)
    assert s.n == 120
    assert s.exact_rate >= 82.0 and s.empty_needed == 0 and s.extra_on_chat == 0, (s.exact_rate, s.empty_needed, s.extra_on_chat)


def test_steps_said_in_other_words_stay_above_their_floor():
    """Tasks said in other words than their names: a length for a summary, a kept pose or depth for
    a control map, how a result will be heard for speech (dev_words.jsonl, 237 requests by two
    authors who had not seen the planner; as the app plans them, files named but not attached ask
    for the file: 106/237 exact and 8 spoken answers linked before they were read). Recorded:
    117/237 exact, 16 spoken answers linked, 13 chat requests given a step."""
    s = _scores(WORDS_SET)
    assert s.n == 237
    assert s.exact_rate >= 47.0 and s.spoken_ok >= 14 and s.extra_on_chat <= 13, (s.exact_rate, s.spoken_ok, s.extra_on_chat)


def test_corrections_and_declined_steps_stay_above_their_floor():
    """"Draw a cat, no wait, a dog", "skip the summary, just translate it" and look-alikes
    (dev_repairs.jsonl, 40 requests by an author who had not seen the planner, then read while
    building planning/self_repairs.py and unwanted.py): recorded 39/40 exact, arg-value F1 above
    80 (25/40 before corrections were read)."""
    s = _scores(REPAIRS_SET)
    assert s.n == 40
    assert s.exact_rate >= 90.0 and s.f1("edge") >= 80.0, (s.exact_rate, s.f1("edge"))


def test_steps_said_out_of_order_stay_above_their_floor():
    """"Before you summarise it, translate it", "... shorten them first" (dev_order.jsonl, 30
    requests by an author who had not seen the planner, then read while building
    planning/time_order.py): recorded 29/30 exact, edge F1 98.0 (15/30 before)."""
    s = _scores(ORDER_SET)
    assert s.n == 30
    assert s.exact_rate >= 90.0 and s.f1("edge") >= 90.0, (s.exact_rate, s.f1("edge"))
