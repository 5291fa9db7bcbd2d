"""Whether the offline planner plans a request the same when it is said with the forms of talk
around it: a greeting and the assistant's name, a hesitation, "okay so", a stumble over its
first words, thanks at the end. A person at a desktop talks that way, and none of it changes
what they ask, so the plan (its tasks and links) should not move.

For each request of our own check sets, the plain request and each of its talked forms are
planned; a form is kept when its plan has the same tasks and links as the plain one. Also shown:
how many plans of each form are exactly right against the gold plan.

    .venv/bin/python bench/talk_invariance.py [--data FILE.jsonl ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from taskbench import request_attachments  # noqa: E402

DEFAULT_SETS = ["bench/data/dev_requests_check.jsonl", "bench/data/dev_requests_spoken.jsonl"]


def _stumbled(request: str) -> str:
    """The first two words said, then said again: "can you, can you draw ..."."""
    words = request.split()
    return f"{words[0]} {words[1]}, {request}" if len(words) > 3 else request


#: The forms of talk, each a function of the plain request (lower-cased first letter, as said).
FORMS = {
    "hey jarvis, ...": lambda r: f"hey jarvis, {r}",
    "um, ...": lambda r: f"um, {r}",
    "okay so, uh, ...": lambda r: f"okay so, uh, {r}",
    "hi there! ...": lambda r: f"hi there! {r}",
    "stumble": _stumbled,
    "..., thanks jarvis": lambda r: f"{r} thanks jarvis" if r.rstrip().endswith(("?", "!", ".")) else f"{r}, thanks jarvis",
}


def _shape(plan: list[dict]) -> list[tuple[str, tuple]]:
    return [(t["task"], tuple(t["dep"])) for t in plan]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="*", default=DEFAULT_SETS)
    args = ap.parse_args(argv)
    from jarvis_desktop.planning.offline import OfflinePlanner
    from jarvis_desktop.planning.plan_metrics import exact as exactly_right

    rows = [json.loads(line) for f in args.data for line in (ROOT / f).read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if not r.get("previous_answer")]  # a second turn is said after an answer, not opened
    planner = OfflinePlanner()

    def planned(text: str, row: dict) -> list[dict]:
        check = planner.plan(text, request_attachments(row))
        return check.plan.to_json() if check.ok and check.plan else []

    kept = {name: 0 for name in FORMS}
    exact = {name: 0 for name in ["plain", *FORMS]}
    for row in rows:
        plain = row["request"][:1].lower() + row["request"][1:]
        base = planned(plain, row)
        exact["plain"] += exactly_right(base, row["plan"] or [])
        for name, form in FORMS.items():
            said = planned(form(plain), row)
            kept[name] += _shape(said) == _shape(base)
            exact[name] += exactly_right(said, row["plan"] or [])
    n = len(rows)
    print(f"{n} requests from {', '.join(Path(f).name for f in args.data)}")
    print(f"{'said as':22} {'plan kept':>10} {'exact':>8}")
    print(f"{'plain':22} {'':>10} {exact['plain']:>4}/{n}")
    for name in FORMS:
        print(f"{name:22} {kept[name]:>6}/{n} {exact[name]:>4}/{n}")
    total = sum(kept.values())
    print(f"all forms: {total}/{n * len(FORMS)} plans kept ({100.0 * total / (n * len(FORMS)):.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
