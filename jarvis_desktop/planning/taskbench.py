"""TaskBench (Hugging Face tools domain): our task types <-> its tool names, plan conversion, metrics.

TaskBench scores planning as sets of strings per sample, micro-averaged over samples: tool names
(node F1), (source tool, target tool) pairs (edge F1), ``tool-kind`` (argument-type F1) and
``tool-kind-value`` (argument-value F1). Tool names outside its 23 tools are ignored on both sides,
because its gold plans (written by GPT-4) sometimes invent names such as "Image Enhancement".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..media import Attachment, kind_of
from ..pipeline.plan import Plan, placeholder_ids
from ..task_types import TASK_TYPES

#: The one table between our task types and TaskBench's tools: our type -> (tool, its output kind).
#: image-to-image is "Image-to-Image" without a text instruction and "Image Editing" with one.
#: Types TaskBench has no tool for (text classification, the ControlNet family) map to None.
TOOL_OF_TYPE: dict[str, str | None] = {
    "token-classification": "Token Classification",
    "translation": "Translation",
    "summarization": "Summarization",
    "question-answering": "Question Answering",
    "conversational": "Conversational",
    "text-generation": "Text Generation",
    "text2text-generation": "Text Generation",
    "sentence-similarity": "Sentence Similarity",
    "tabular-classification": "Tabular Classification",
    "object-detection": "Object Detection",
    "image-classification": "Image Classification",
    "image-to-image": "Image-to-Image",
    "image-to-text": "Image-to-Text",
    "text-to-image": "Text-to-Image",
    "text-to-video": "Text-to-Video",
    "visual-question-answering": "Visual Question Answering",
    "document-question-answering": "Document Question Answering",
    "image-segmentation": "Image Segmentation",
    "depth-estimation": "Depth Estimation",
    "text-to-speech": "Text-to-Speech",
    "automatic-speech-recognition": "Automatic Speech Recognition",
    "audio-to-audio": "Audio-to-Audio",
    "audio-classification": "Audio Classification",
    "text-classification": None,
}
EDIT_TOOL = "Image Editing"

#: TaskBench's 23 tools and the kind of output each gives (its tool_desc.json; Sentence Similarity
#: lists none, a score, which we count as text).
TOOL_OUTPUT: dict[str, str] = {
    "Token Classification": "text", "Translation": "text", "Summarization": "text", "Question Answering": "text",
    "Conversational": "text", "Text Generation": "text", "Sentence Similarity": "text", "Tabular Classification": "text",
    "Object Detection": "text", "Image Classification": "text", "Image-to-Image": "image", "Image-to-Text": "text",
    "Text-to-Image": "image", "Text-to-Video": "video", "Visual Question Answering": "text",
    "Document Question Answering": "text", "Image Segmentation": "image", "Depth Estimation": "image",
    "Text-to-Speech": "audio", "Automatic Speech Recognition": "text", "Audio-to-Audio": "audio",
    "Audio Classification": "text", "Image Editing": "image",
}
TOOLS = tuple(TOOL_OUTPUT)

#: Each tool back to our type (the inverse of TOOL_OF_TYPE, one type per tool).
TYPE_OF_TOOL: dict[str, str] = {tool: t for t, tool in TOOL_OF_TYPE.items() if tool and t != "text2text-generation"}
TYPE_OF_TOOL[EDIT_TOOL] = "image-to-image"

NODE_REF_RE = re.compile(r"<node-(\d+)>")
#: Argument order in TaskBench plans: the media input first, then texts, then options.
_ARG_ORDER = ("image", "audio", "video", "context", "text", "text2", "source_language", "target_language")


def tool_of(task: str, args: dict[str, str] | None = None) -> str | None:
    """TaskBench's tool for one of our tasks (Image Editing when an image task has an instruction)."""
    if task == "image-to-image" and args and args.get("text"):
        return EDIT_TOOL
    return TOOL_OF_TYPE.get(task)


def plan_to_taskbench(plan: Plan | None) -> dict[str, list[dict[str, Any]]]:
    """Our plan in TaskBench's form: nodes in plan order, ``<node-j>`` for task j's output.

    Tasks with no TaskBench tool are left out and references to them dropped, so the edges
    only join tools TaskBench knows.
    """
    if plan is None:
        return {"task_nodes": [], "task_links": []}
    order = [t for t in plan.tasks if tool_of(t.task, t.args)]
    index = {t.id: i for i, t in enumerate(order)}
    names = [tool_of(t.task, t.args) or "" for t in order]
    nodes: list[dict[str, Any]] = []
    links: list[dict[str, str]] = []
    for t in order:
        name = tool_of(t.task, t.args)
        arguments: list[str] = []
        for key in sorted(t.args, key=lambda k: _ARG_ORDER.index(k) if k in _ARG_ORDER else len(_ARG_ORDER)):
            value = t.args[key]
            if key == "source_language":
                continue
            ids = placeholder_ids(value)
            if ids:
                refs = [f"<node-{index[i]}>" for i in ids if i in index]
                if not refs:
                    continue
                value = refs[0] if len(refs) == 1 else ", ".join(refs)
                for i in ids:
                    if i in index:
                        links.append({"source": names[index[i]], "target": name})
            elif kind_of(value) is not None and Path(value).name:
                value = Path(value).name if not value.startswith(("http://", "https://")) else value
            arguments.append(value)
        nodes.append({"task": name, "arguments": arguments})
    unique = {(l["source"], l["target"]): l for l in links if l["source"]}
    return {"task_nodes": nodes, "task_links": list(unique.values())}


def attachments_from_text(text: str) -> list[Attachment]:
    """Benchmark adapter: files a TaskBench request names, as if the user had attached them.

    TaskBench requests mention 'example.jpg' without giving a file; the app would refuse to plan
    on a file nobody attached, so the benchmark (not the validator) pretends they were attached.
    """
    from .extract import read_request

    seen: dict[str, Attachment] = {}
    for f in read_request(text).files:
        k = kind_of(f.text)
        if k and f.text.lower() not in seen:
            seen[f.text.lower()] = Attachment(Path(f.text), k)
    return list(seen.values())


# --------------------------------------------------------------------------------------------
# metrics


def content_kind(value: str) -> str:
    """image, audio, video or text, by the file extension a literal argument carries."""
    k = kind_of(str(value).strip().strip("'\""))
    return k if k in ("image", "audio", "video") else "text"


def _args(node: dict[str, Any]) -> list[Any]:
    a = node.get("arguments", [])
    if isinstance(a, dict):
        return list(a.values())
    return a if isinstance(a, list) else [a]


def sample_sets(sample: dict[str, Any], links_from: str = "args") -> dict[str, set[str]]:
    """The four string sets TaskBench compares for one plan (gold or predicted).

    ``links_from='args'`` builds edges from the ``<node-j>`` arguments, as TaskBench's own scorer
    (``evaluate.py``) does for tools that pass resources to each other, the Hugging Face domain
    whose GPT-4 figures the issue quotes; ``'links'`` takes them from ``task_links`` instead.
    A node's reference to itself is left out, as that scorer leaves it out: some gold plans count
    their nodes from 1 ("<node-1>" in the second node meaning the first), and such an argument
    names no input a plan could give.
    """
    nodes = [n for n in sample.get("task_nodes", []) if isinstance(n, dict)]
    names = [str(n.get("task", "")) for n in nodes]
    out: dict[str, set[str]] = {"node": set(), "edge": set(), "arg_type": set(), "arg_value": set()}
    out["node"] = {n for n in names if n in TOOL_OUTPUT}
    if links_from == "links":
        for link in sample.get("task_links", []) or []:
            if isinstance(link, dict):
                s, t = str(link.get("source", "")), str(link.get("target", ""))
                if s in TOOL_OUTPUT and t in TOOL_OUTPUT:
                    out["edge"].add(f"{s} -> {t}")
    for own, (name, node) in enumerate(zip(names, nodes)):
        if name not in TOOL_OUTPUT:
            continue
        for arg in _args(node):
            if isinstance(arg, (dict, list)):
                continue
            arg = str(arg)
            refs = [int(j) for j in NODE_REF_RE.findall(arg)]
            if refs and all(j == own for j in refs):
                continue
            if refs:
                for j in (j for j in refs if j != own):
                    src = names[j] if 0 <= j < len(names) else ""
                    kind = TOOL_OUTPUT.get(src, "text")
                    out["arg_type"].add(f"{name}-{kind}")
                    out["arg_value"].add(f"{name}-{kind}-{src}")
                    if links_from == "args" and src in TOOL_OUTPUT:
                        out["edge"].add(f"{src} -> {name}")
            else:
                kind = content_kind(arg)
                out["arg_type"].add(f"{name}-{kind}")
                out["arg_value"].add(f"{name}-{kind}-{arg.strip()}")
    return out


@dataclass
class Counts:
    """True positives and set sizes, summed over samples (micro averaging)."""

    tp: int = 0
    n_pred: int = 0
    n_gold: int = 0

    def add(self, pred: set[str], gold: set[str]) -> None:
        self.tp += len(pred & gold)
        self.n_pred += len(pred)
        self.n_gold += len(gold)

    @property
    def f1(self) -> float:
        """Micro F1 in percent; 0 when there is nothing to compare."""
        p = self.tp / self.n_pred if self.n_pred else 0.0
        r = self.tp / self.n_gold if self.n_gold else 0.0
        return 100.0 * 2 * p * r / (p + r) if p + r else 0.0


METRICS = ("node", "edge", "arg_type", "arg_value")


@dataclass
class Scores:
    """F1 per metric, overall and per sample type (single, chain, dag)."""

    groups: dict[str, dict[str, Counts]] = field(default_factory=dict)
    samples: dict[str, int] = field(default_factory=dict)

    def add(self, pred: dict[str, Any], gold: dict[str, Any], kind: str = "", links_from: str = "args") -> None:
        p, g = sample_sets(pred, links_from), sample_sets(gold, links_from)
        for group in ("overall", kind) if kind else ("overall",):
            counts = self.groups.setdefault(group, {m: Counts() for m in METRICS})
            for m in METRICS:
                counts[m].add(p[m], g[m])
            self.samples[group] = self.samples.get(group, 0) + 1

    def f1(self, metric: str, group: str = "overall") -> float:
        return self.groups[group][metric].f1 if group in self.groups else 0.0


def score(pairs: Iterable[tuple[dict[str, Any], dict[str, Any], str]], links_from: str = "args") -> Scores:
    """Score (prediction, gold, sample type) triples as TaskBench does."""
    s = Scores()
    for pred, gold, kind in pairs:
        s.add(pred, gold, kind, links_from)
    return s
