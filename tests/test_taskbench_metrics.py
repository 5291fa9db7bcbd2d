"""TaskBench metrics on small hand-made gold/prediction pairs whose scores are worked out by hand,
the mapping between our task types and TaskBench's tools, and the benchmark script end to end."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from jarvis_desktop.pipeline.plan import Plan, Task
from jarvis_desktop.planning.taskbench import (
    TOOL_OF_TYPE,
    TOOL_OUTPUT,
    TOOLS,
    TYPE_OF_TOOL,
    attachments_from_text,
    plan_to_taskbench,
    sample_sets,
    score,
)
from jarvis_desktop.task_types import TASK_TYPES

ROOT = Path(__file__).resolve().parents[1]


def node(task: str, *args: str) -> dict:
    return {"task": task, "arguments": list(args)}


def link(s: str, t: str) -> dict:
    return {"source": s, "target": t}


CAPTION_TTS = {
    "task_nodes": [node("Image-to-Text", "example.jpg"), node("Text-to-Speech", "<node-0>")],
    "task_links": [link("Image-to-Text", "Text-to-Speech")],
}


def test_identical_plans_score_100_everywhere():
    s = score([(CAPTION_TTS, CAPTION_TTS, "chain")])
    for m in ("node", "edge", "arg_type", "arg_value"):
        assert s.f1(m) == pytest.approx(100.0)
        assert s.f1(m, "chain") == pytest.approx(100.0)
    assert s.samples == {"overall": 1, "chain": 1}


def test_sets_for_one_plan():
    sets = sample_sets(CAPTION_TTS)
    assert sets["node"] == {"Image-to-Text", "Text-to-Speech"}
    assert sets["edge"] == {"Image-to-Text -> Text-to-Speech"}
    # a literal's kind comes from its extension; a reference's from the source tool's output
    assert sets["arg_type"] == {"Image-to-Text-image", "Text-to-Speech-text"}
    assert sets["arg_value"] == {"Image-to-Text-image-example.jpg", "Text-to-Speech-text-Image-to-Text"}


def test_node_f1_half_right():
    gold = {"task_nodes": [node("Translation", "hi"), node("Summarization", "x")], "task_links": []}
    pred = {"task_nodes": [node("Translation", "hi"), node("Text Generation", "x")], "task_links": []}
    # P = 1/2, R = 1/2
    assert score([(pred, gold, "dag")]).f1("node") == pytest.approx(50.0)


def test_micro_average_over_samples():
    g1 = {"task_nodes": [node("Translation")]}
    g2 = {"task_nodes": [node("Summarization"), node("Conversational"), node("Text Generation")]}
    p1 = {"task_nodes": [node("Translation")]}
    p2 = {"task_nodes": []}
    # tp 1, predicted 1, gold 4: P = 1, R = 1/4, F1 = 2 * 0.25 / 1.25 = 40
    s = score([(p1, g1, "single"), (p2, g2, "chain")])
    assert s.f1("node") == pytest.approx(40.0)
    assert s.f1("node", "single") == pytest.approx(100.0)
    assert s.f1("node", "chain") == pytest.approx(0.0)


def test_tools_outside_the_23_are_ignored_on_both_sides():
    gold = {"task_nodes": [node("Image Enhancement", "example.jpg"), node("Image-to-Text", "<node-0>")],
            "task_links": [link("Image Enhancement", "Image-to-Text")]}
    pred = {"task_nodes": [node("Image-to-Text", "example.jpg"), node("Made Up Tool", "x")], "task_links": []}
    s = score([(pred, gold, "chain")])
    assert s.f1("node") == pytest.approx(100.0)
    assert s.groups["overall"]["edge"].n_gold == 0
    # gold's reference points at a tool outside the list: its kind falls back to text
    assert sample_sets(gold)["arg_type"] == {"Image-to-Text-text"}


def test_edges_from_links_or_from_arguments():
    gold = {"task_nodes": [node("Text-to-Image", "a cat"), node("Image Segmentation", "<node-0>"), node("Depth Estimation", "<node-0>")],
            "task_links": [link("Text-to-Image", "Image Segmentation")]}  # the second link is missing from task_links
    pred = {"task_nodes": gold["task_nodes"],
            "task_links": [link("Text-to-Image", "Image Segmentation"), link("Text-to-Image", "Depth Estimation")]}
    # from task_links: P = 1/2, R = 1 -> 66.67; rebuilt from <node-j>: both sides have both edges
    assert score([(pred, gold, "dag")], links_from="links").f1("edge") == pytest.approx(200 / 3)
    assert score([(pred, gold, "dag")]).f1("edge") == pytest.approx(100.0)  # as TaskBench's evaluate.py reads them


def test_a_node_referring_to_itself_is_no_argument_and_no_edge():
    """Gold counting its nodes from 1: "<node-1>" in the second node means the first, which
    TaskBench's scorer cannot know; it drops the argument, and so do we. A plan that gives the
    caption the picture it made loses nothing for it."""
    gold = {"task_nodes": [node("Text-to-Image", "a red kite"), node("Image-to-Text", "<node-1>")],
            "task_links": [link("Text-to-Image", "Image-to-Text")]}
    sets = sample_sets(gold)
    assert sets["arg_value"] == {"Text-to-Image-text-a red kite"}
    assert sets["edge"] == set()
    pred = {"task_nodes": [node("Text-to-Image", "a red kite"), node("Image-to-Text", "<node-0>")],
            "task_links": [link("Text-to-Image", "Image-to-Text")]}
    assert score([(pred, gold, "chain")]).groups["overall"]["arg_value"].tp == 1


def test_argument_type_and_value_f1():
    gold = {"task_nodes": [node("Visual Question Answering", "example.jpg", "What colour is the car?")]}
    pred = {"task_nodes": [node("Visual Question Answering", "example.jpg", "Which colour is the car?")]}
    s = score([(pred, gold, "single")])
    assert s.f1("arg_type") == pytest.approx(100.0)  # image + text on both sides
    assert s.f1("arg_value") == pytest.approx(50.0)  # the file matches, the question's wording does not


def test_audio_video_and_dict_arguments():
    gold = {"task_nodes": [{"task": "Automatic Speech Recognition", "arguments": {"audio": "talk.wav"}},
                           node("Text-to-Video", "<node-0>")]}
    sets = sample_sets(gold)
    assert sets["arg_type"] == {"Automatic Speech Recognition-audio", "Text-to-Video-text"}


def test_empty_prediction_scores_zero():
    s = score([({"task_nodes": [], "task_links": []}, CAPTION_TTS, "chain")])
    assert s.f1("node") == 0.0 and s.f1("edge") == 0.0


# ---------------------------------------------------------------------------------------------
# the mapping table


def test_every_taskbench_tool_maps_to_one_of_our_types():
    assert len(TOOLS) == 23
    for tool in TOOLS:
        assert TYPE_OF_TOOL[tool] in TASK_TYPES
    for t, tool in TOOL_OF_TYPE.items():
        assert t in TASK_TYPES
        assert tool is None or tool in TOOL_OUTPUT
    assert TYPE_OF_TOOL["Image Editing"] == "image-to-image"


def test_plan_conversion_names_refs_and_edits():
    plan = Plan([
        Task(0, "image-to-image", [], {"image": "/home/u/photo.jpg", "text": "make the car red"}),
        Task(1, "text-classification", [], {"text": "hello"}),  # no TaskBench tool: left out
        Task(2, "image-to-text", [0], {"image": "<GENERATED>-0"}),
        Task(3, "translation", [2, 1], {"text": "<GENERATED>-2", "target_language": "French"}),
        Task(4, "image-to-image", [], {"image": "/home/u/photo.jpg"}),
    ], "offline")
    tb = plan_to_taskbench(plan)
    assert [n["task"] for n in tb["task_nodes"]] == ["Image Editing", "Image-to-Text", "Translation", "Image-to-Image"]
    assert tb["task_nodes"][0]["arguments"] == ["photo.jpg", "make the car red"]
    assert tb["task_nodes"][1]["arguments"] == ["<node-0>"]
    assert tb["task_nodes"][2]["arguments"] == ["<node-1>", "French"]
    assert tb["task_links"] == [link("Image Editing", "Image-to-Text"), link("Image-to-Text", "Translation")]
    assert plan_to_taskbench(None) == {"task_nodes": [], "task_links": []}


def test_files_named_in_a_request_become_attachments():
    atts = attachments_from_text("Compare 'example.jpg' with photo2.PNG and transcribe talk.wav; ignore the 'quote'.")
    assert [(str(a.path), a.kind) for a in atts] == [("example.jpg", "image"), ("photo2.PNG", "image"), ("talk.wav", "audio")]


# ---------------------------------------------------------------------------------------------
# the benchmark script


def _bench_main():
    spec = importlib.util.spec_from_file_location("bench_taskbench", ROOT / "bench" / "taskbench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_taskbench"] = mod
    spec.loader.exec_module(mod)
    return mod.main


def test_bench_script_scores_gold_and_writes_predictions(tmp_path, capsys):
    data = tmp_path / "gold.jsonl"
    rows = [
        {"id": "a", "type": "single", "instruction": "Please transcribe the recording 'talk.wav'.",
         "task_nodes": [node("Automatic Speech Recognition", "talk.wav")], "task_links": []},
        {"id": "b", "type": "chain", "instruction": "Describe example.jpg and then read the description aloud.",
         "task_nodes": CAPTION_TTS["task_nodes"], "task_links": CAPTION_TTS["task_links"]},
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "pred.jsonl"
    assert _bench_main()(["--data", str(data), "--out", str(out), "--planner", "offline"]) == 0
    printed = capsys.readouterr().out
    preds = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["id"] for p in preds] == ["a", "b"]
    assert preds[1]["result"]["task_links"] == CAPTION_TTS["task_links"]
    assert "overall" in printed and "plans/s" in printed and "failures: 0/2" in printed
    overall = next(line for line in printed.splitlines() if line.startswith("overall")).split()
    assert [float(x) for x in overall[2:]] == [100.0, 100.0, 100.0, 100.0]


def test_bench_script_without_gold_only_predicts(tmp_path, capsys):
    data = tmp_path / "plain.jsonl"
    data.write_text(json.dumps({"id": 7, "instruction": "Translate 'good night' into Italian."}) + "\n")
    out = tmp_path / "pred.jsonl"
    assert _bench_main()(["--data", str(data), "--out", str(out)]) == 0
    assert "nothing scored" in capsys.readouterr().out
    pred = json.loads(out.read_text())
    assert pred == {"id": 7, "result": {"task_nodes": [node("Translation", "good night", "Italian")], "task_links": []}}


# ---------------------------------------------------------------------------------------------
# request sets in HuggingGPT's plan form (bench/data/blind/FORMAT.md)

from jarvis_desktop.planning.plan_metrics import PlanScores, exact, plan_sets, spoken_ok  # noqa: E402

CAPTION_SPEAK = [
    {"task": "image-to-text", "id": 0, "dep": [-1], "args": {"image": "a.jpg"}},
    {"task": "text-to-speech", "id": 1, "dep": [0], "args": {"text": "<GENERATED>-0"}},
]


def test_plan_form_sets_use_our_task_names():
    sets = plan_sets(CAPTION_SPEAK)
    assert sets["node"] == {"image-to-text", "text-to-speech"}
    assert sets["edge"] == {"image-to-text -> text-to-speech"}
    assert "text-to-speech-text-image-to-text" in sets["arg_value"]
    assert "image-to-text-image-a.jpg" in sets["arg_value"]


def test_exact_needs_the_same_tasks_and_edges():
    unlinked = [CAPTION_SPEAK[0], {"task": "text-to-speech", "id": 1, "dep": [-1], "args": {"text": "hello"}}]
    assert exact(CAPTION_SPEAK, CAPTION_SPEAK)
    assert not exact(unlinked, CAPTION_SPEAK)  # right tasks, edge missing
    assert not exact(CAPTION_SPEAK + [{"task": "image-to-text", "id": 2, "dep": [-1], "args": {"image": "a.jpg"}}], CAPTION_SPEAK)
    assert spoken_ok(unlinked, CAPTION_SPEAK) is False
    assert spoken_ok(CAPTION_SPEAK, CAPTION_SPEAK) is True
    assert spoken_ok(CAPTION_SPEAK[:1], CAPTION_SPEAK[:1]) is None  # nothing spoken in gold


def test_plan_scores_count_empties_and_chat():
    s = PlanScores()
    s.add([], CAPTION_SPEAK)  # empty where tasks were needed
    s.add(CAPTION_SPEAK, [])  # tasks where chat was right
    s.add([], [])  # chat, right
    assert (s.n, s.exact, s.empty_needed, s.needed, s.extra_on_chat, s.chat) == (3, 1, 1, 1, 1, 2)
    assert s.exact_rate == pytest.approx(100 / 3)


def test_benchmark_script_scores_a_plan_form_file(tmp_path):
    data = tmp_path / "set.jsonl"
    rows = [
        {"id": "x1", "voice": "attached", "request": "Describe this photo and read the description aloud.", "files": ["p.jpg"], "plan": CAPTION_SPEAK},
        {"id": "x2", "voice": "no-model", "request": "hello there", "files": [], "plan": []},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("bench_taskbench_planform", ROOT / "bench" / "taskbench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert mod.main(["--data", str(data), "--out", str(tmp_path / "p.jsonl")]) == 0
    out = buf.getvalue()
    assert "exact plans: " in out and "empty where a task is needed: " in out and "/2" in out
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 2


def test_benchmark_script_gives_a_follow_up_the_previous_answer(tmp_path):
    """A row with ``previous_answer`` is the second turn of a conversation: the planner is given
    that answer, so "read that out loud" speaks it (bench/data/blind/set_f_followups.jsonl)."""
    answer = "The bakery opens at seven and closes at noon on Sundays."
    data = tmp_path / "followups.jsonl"
    row = {"id": "y1", "voice": "spoken-casual", "previous_answer": answer, "request": "ok read that out loud", "files": [],
           "plan": [{"task": "text-to-speech", "id": 0, "dep": [-1], "args": {"text": answer}}]}
    data.write_text(json.dumps(row) + "\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("bench_taskbench_followup", ROOT / "bench" / "taskbench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import io
    from contextlib import redirect_stdout

    with redirect_stdout(io.StringIO()):
        assert mod.main(["--data", str(data), "--out", str(tmp_path / "p.jsonl")]) == 0
    pred = json.loads((tmp_path / "p.jsonl").read_text())["plan"]
    assert pred == row["plan"]


def test_plan_scores_count_follow_ups_on_the_previous_answer():
    from jarvis_desktop.planning.plan_metrics import PlanScores

    answer = "It opens at nine."
    speak = [{"task": "text-to-speech", "id": 0, "dep": [-1], "args": {"text": answer}}]
    own = [{"task": "text-to-speech", "id": 0, "dep": [-1], "args": {"text": "good night"}}]
    s = PlanScores()
    s.add(speak, speak, answer)  # a follow-up, planned on the answer
    s.add(own, speak, answer)  # a follow-up, planned on its own words
    s.add(speak, own, answer)  # a new request, planned on the answer all the same
    s.add(own, own)  # no conversation: not counted
    assert (s.follow_ups_ok, s.follow_ups, s.new_turns_on_it, s.new_turns) == (1, 2, 1, 1)
