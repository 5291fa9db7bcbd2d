"""Copies of one making step get a seed each, so each run makes a different thing.

"Two limericks about cats" or "draw 3 logo ideas" plan the same step more than once with the same
words. A diffusion model seeded alike draws the same picture again, and greedy decoding writes the
same poem, so the second copy of a step gets seed 1, the third seed 2 (the first keeps the default),
unless the plan gave a seed itself.
"""

from __future__ import annotations

import json
from collections import Counter

from .plan import Plan

#: Steps whose output depends on a seed (a sampler or a diffusion model's noise)
SEEDED_TASKS = frozenset({"text-to-image", "text-to-video", "text-generation"})


def variant_seeds(plan: Plan) -> dict[int, int]:
    """Task id -> seed for every repeat of an earlier step with the same task and arguments."""
    seen: Counter[tuple[str, str]] = Counter()
    seeds: dict[int, int] = {}
    for t in plan.tasks:
        if t.task not in SEEDED_TASKS or "seed" in t.args:
            continue
        key = (t.task, json.dumps(t.args, sort_keys=True, default=str))
        if seen[key]:
            seeds[t.id] = seen[key]
        seen[key] += 1
    return seeds
