"""Plan parsing and repair on malformed and adversarial controller outputs.

Each case is a real failure shape (prose around JSON, fences, the JARVIS demo bugs, cycles...).
None may raise; each must be repaired into the expected plan or rejected with a clear error.
"""

import json
from pathlib import Path

import pytest

from jarvis_desktop.media import Attachment
from jarvis_desktop.pipeline.plan import MAX_TASKS, PLAN_JSON_SCHEMA, Plan, parse_plan, validate_plan

ATT = [
    Attachment(Path("/home/u/photo.jpg"), "image"),
    Attachment(Path("/home/u/talk.wav"), "audio"),
    Attachment(Path("/home/u/notes.txt"), "text"),
]
GOOD = [
    {"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "photo.jpg"}},
    {"task": "text-to-speech", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}},
]
GOOD_JSON = json.dumps(GOOD)
EXPECTED = [("image-to-text", 0, [], {"image": "/home/u/photo.jpg"}), ("text-to-speech", 1, [0], {"text": "<GENERATED>-0"})]


def shape(plan: Plan):
    return [(t.task, t.id, t.dep, t.args) for t in plan.tasks]


# (name, controller output) pairs that must repair into EXPECTED
REPAIRABLE = [
    ("plain", GOOD_JSON),
    ("prose before", "Sure! Here is the plan you asked for:\n" + GOOD_JSON),
    ("prose after", GOOD_JSON + "\nLet me know if you need anything else."),
    ("prose both sides", "Plan: " + GOOD_JSON + " Done."),
    ("json fence", "```json\n" + GOOD_JSON + "\n```"),
    ("bare fence", "```\n" + GOOD_JSON + "\n```"),
    ("fence with prose", "I think this works:\n```json\n" + GOOD_JSON + "\n```\nThe first task captions."),
    ("unterminated fence", "```json\n" + GOOD_JSON),
    ("trailing commas", GOOD_JSON.replace("}}", "},}").replace("]", ",]").replace("[-1,]", "[-1]")),
    ("single quotes", GOOD_JSON.replace('"', "'")),
    ("GENERATED-0 bug", GOOD_JSON.replace("<GENERATED>-0", "<GENERATED-0>")),
    ("lower-case generated", GOOD_JSON.replace("<GENERATED>-0", "<generated>-0")),
    ("missing opening bracket", GOOD_JSON[1:]),
    ("missing closing bracket", GOOD_JSON[:-1]),
    ("wrapped in tasks object", json.dumps({"tasks": GOOD})),
    ("wrapped in plan object", json.dumps({"plan": GOOD})),
    ("string ids", GOOD_JSON.replace('"id": 0', '"id": "0"').replace('"id": 1', '"id": "1"')),
    ("dep disagrees with placeholder", GOOD_JSON.replace('"dep": [0]', '"dep": [-1]')),
    ("dep as int", GOOD_JSON.replace('"dep": [0]', '"dep": 0')),
    ("dep on missing task dropped", GOOD_JSON.replace('"dep": [0]', '"dep": [0, 7]')),
    ("task alias", GOOD_JSON.replace("image-to-text", "image captioning")),
    ("task with underscores", GOOD_JSON.replace("text-to-speech", "Text_To_Speech")),
    ("one-item list arg", GOOD_JSON.replace('"photo.jpg"', '["photo.jpg"]')),
    ("odd arg name for a file", GOOD_JSON.replace('{"image": "photo.jpg"}', '{"img": "photo.jpg"}')),
    ("full path of attachment", GOOD_JSON.replace("photo.jpg", "/home/u/photo.jpg")),
    ("quoted file name", GOOD_JSON.replace('"photo.jpg"', "\"'photo.jpg'\"")),
    ("python True/None noise", GOOD_JSON[:-1] + ', {"task": "image-to-text", "id": 2, "dep": [-1], "args": {"image": "photo.jpg"}, "extra": None}]'),
]


@pytest.mark.parametrize("name,text", REPAIRABLE, ids=[n for n, _ in REPAIRABLE])
def test_repairable_outputs(name, text):
    check = parse_plan(text, ATT)
    assert check.ok, (name, check.errors)
    got = shape(check.plan)
    assert got[:2] == EXPECTED, name


def test_repairs_are_reported():
    check = parse_plan("```json\n" + GOOD_JSON.replace("<GENERATED>-0", "<GENERATED-0>") + "\n```", ATT)
    assert check.ok
    assert any("code fence" in r for r in check.repairs)
    assert any("placeholder" in r for r in check.repairs)


# (name, controller output, a phrase the error must contain)
INVALID = [
    ("empty reply", "", "empty"),
    ("no json", "I'm sorry, I can't help with that.", "no JSON"),
    ("unknown task", '[{"task": "time-travel", "id": 0, "dep": [-1], "args": {"text": "hi"}}]', "unknown task type"),
    ("cycle", json.dumps([
        {"task": "summarization", "id": 0, "dep": [1], "args": {"text": "<GENERATED>-1"}},
        {"task": "translation", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}},
    ]), "cycle"),
    ("self reference", '[{"task": "summarization", "id": 0, "dep": [0], "args": {"text": "<GENERATED>-0"}}]', "its own output"),
    ("placeholder to missing task", '[{"task": "summarization", "id": 0, "dep": [-1], "args": {"text": "<GENERATED>-4"}}]', "does not exist"),
    ("file not attached", '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "secret.jpg"}}]', "not a file you attached"),
    ("path outside user files", '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "/etc/passwd.png"}}]', "not a file you attached"),
    ("wrong media kind", '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "talk.wav"}}]', "needs image"),
    ("generated kind mismatch", json.dumps([
        {"task": "automatic-speech-recognition", "id": 0, "dep": [-1], "args": {"audio": "talk.wav"}},
        {"task": "image-to-text", "id": 1, "dep": [0], "args": {"image": "<GENERATED>-0"}},
    ]), "produces text"),
    ("missing argument", '[{"task": "visual-question-answering", "id": 0, "dep": [-1], "args": {"image": "photo.jpg"}}]', "missing argument"),
    ("two resources in one arg", '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": ["photo.jpg", "photo.jpg"]}}]', "one resource per argument"),
    ("duplicate ids", json.dumps([GOOD[0], GOOD[0]]), "used twice"),
    ("negative id", '[{"task": "image-to-text", "id": -3, "dep": [-1], "args": {"image": "photo.jpg"}}]', "non-negative"),
    ("args not an object", '[{"task": "image-to-text", "id": 0, "dep": [-1], "args": "photo.jpg"}]', "args must be an object"),
    ("list of numbers", '[1, 2]', "not a task object"),
    ("object without tasks", '{"answer": 42}', "no list of tasks"),
    ("huge plan", json.dumps([{"task": "summarization", "id": i, "dep": [-1], "args": {"text": "x"}} for i in range(500)]), "at most"),
    ("arg the task does not take", '[{"task": "text-to-speech", "id": 0, "dep": [-1], "args": {"image": "photo.jpg", "text": "hi"}}]', "takes text"),
    ("hallucinated audio file in text arg", '[{"task": "summarization", "id": 0, "dep": [-1], "args": {"text": "lecture.mp3"}}]', "did not attach"),
]


@pytest.mark.parametrize("name,text,phrase", INVALID, ids=[n for n, _, _ in INVALID])
def test_invalid_outputs_get_clear_errors(name, text, phrase):
    check = parse_plan(text, ATT)
    assert not check.ok, name
    assert check.plan is None
    assert any(phrase.lower() in e.lower() for e in check.errors), (name, check.errors)


def test_at_least_thirty_shapes_are_covered():
    assert len(REPAIRABLE) + len(INVALID) >= 30


def test_empty_list_is_a_valid_empty_plan():
    check = parse_plan("[]", ATT)
    assert check.ok and not check.plan


def test_text_attachment_and_placeholders_inside_text():
    text = json.dumps([
        {"task": "summarization", "id": 0, "dep": [-1], "args": {"text": "notes.txt"}},
        {"task": "translation", "id": 1, "dep": [], "args": {"text": "Summary: <GENERATED>-0", "target_language": "French"}},
    ])
    check = parse_plan(text, ATT)
    assert check.ok, check.errors
    t0, t1 = check.plan.tasks
    assert t0.args["text"] == "/home/u/notes.txt"
    assert t1.dep == [0] and t1.args["target_language"] == "French"


def test_independent_tasks_stay_parallel_and_order_is_topological():
    text = json.dumps([
        {"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "photo.jpg"}},
        {"task": "automatic-speech-recognition", "id": 1, "dep": [-1], "args": {"audio": "talk.wav"}},
        {"task": "summarization", "id": 2, "dep": [0, 1], "args": {"text": "<GENERATED>-0 <GENERATED>-1"}},
    ])
    check = parse_plan(text, ATT)
    assert check.ok
    assert check.plan.tasks[0].dep == [] and check.plan.tasks[1].dep == []
    order = check.plan.topological_order()
    assert order.index(2) > order.index(0) and order.index(2) > order.index(1)


def test_roundtrip_and_schema():
    check = parse_plan(GOOD_JSON, ATT)
    again = validate_plan(check.plan.to_json(), ATT)
    assert again.ok and shape(again.plan) == shape(check.plan)
    assert PLAN_JSON_SCHEMA["maxItems"] == MAX_TASKS
    assert "image-to-text" in PLAN_JSON_SCHEMA["items"]["properties"]["task"]["enum"]


def test_non_string_input_does_not_crash():
    for junk in (None, 42, "\x00\x01", "[" * 5000, "{" * 3000 + "}"):
        check = parse_plan(junk, ATT)  # type: ignore[arg-type]
        assert check.plan is None or isinstance(check.plan, Plan)


def test_a_csv_table_is_read_by_tabular_classification_only():
    table = [Attachment(Path("/home/u/sales.csv"), "text")]
    ok = parse_plan(json.dumps([{"task": "tabular-classification", "id": 0, "dep": [-1], "args": {"image": "sales.csv"}}]), table)
    assert ok.ok, ok.errors
    assert ok.plan.tasks[0].args["image"] == "/home/u/sales.csv"
    wrong = parse_plan(json.dumps([{"task": "image-classification", "id": 0, "dep": [-1], "args": {"image": "sales.csv"}}]), table)
    assert not wrong.ok and any("needs image" in e for e in wrong.errors)
