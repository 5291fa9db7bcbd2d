"""Whether a controller's answer can be shown: a broken endpoint answers ``null``, an empty string,
a JSON plan or a stream of NUL bytes, and none of that may become the user's answer.

The answer streams, so :class:`AnswerGate` holds its first characters back until they are clearly
prose; anything that starts like data is held whole and judged at the end. A rejected answer was
never shown, and the deterministic composer answers instead.
"""

from __future__ import annotations

import json
from typing import Callable

from ..textclean import clean_text

#: Characters of prose seen before the held start of an answer is let through.
OPEN_AFTER = 24
_EMPTY_WORDS = {"null", "none", "nil", "undefined", "nan", "[]", "{}", '""', "''", "n/a"}
_DATA_STARTS = ("[", "{", "```", "null", "none", "undefined", '"')


def _strip_fence(text: str) -> str:
    t = text.strip()
    if t.startswith("```"):
        t = t[3:]
        t = t[t.find("\n") + 1:] if "\n" in t else t.lstrip("json")
        t = t.rsplit("```", 1)[0]
    return t.strip()


def unusable_reason(text: str) -> str:
    """Why ``text`` is no answer (empty, a bare null, JSON data such as a plan, unreadable bytes),
    or "" when it reads as an answer."""
    t = text.strip()
    if not t:
        return "an empty reply"
    if t.lower().strip(".") in _EMPTY_WORDS:
        return f"only '{t[:20]}'"
    bad = sum(1 for c in t if c == "\ufffd")
    if bad > max(3, len(t) // 4):
        return "unreadable bytes"
    body = _strip_fence(t)
    if body[:1] in "[{":
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        if value is not None or '"task"' in body or '"args"' in body:
            plan_like = '"task"' in body or (isinstance(value, list) and all(isinstance(v, dict) for v in value))
            return "a JSON plan instead of an answer" if plan_like else "JSON data instead of an answer"
    if body[:1] == '"':
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        if isinstance(value, str):
            return unusable_reason(value)
    return ""


class AnswerGate:
    """Passes a streamed answer on to ``emit`` once its start reads as prose; keeps the text it has
    seen (cleaned of control bytes) so the caller can judge the whole at the end."""

    def __init__(self, emit: Callable[[str], None]):
        self.emit = emit
        self.held: list[str] = []
        self.pieces: list[str] = []
        self.open = False
        self.hold_all = False

    def __call__(self, piece: str) -> None:
        piece = clean_text(piece)
        if not piece:
            return
        self.pieces.append(piece)
        if self.open:
            self.emit(piece)
            return
        self.held.append(piece)
        if self.hold_all:
            return
        head = "".join(self.held).lstrip()
        if head[:1] in ("[", "{", "`", '"') or (len(head) >= OPEN_AFTER and head.lower().startswith(_DATA_STARTS)):
            self.hold_all = True  # starts like data: judged whole at the end
        elif len(head) >= OPEN_AFTER:
            self._release()

    def _release(self) -> None:
        self.open = True
        held, self.held = "".join(self.held), []
        if held:
            self.emit(held.lstrip())

    @property
    def text(self) -> str:
        return "".join(self.pieces).strip()

    def finish(self) -> str:
        """The reason the whole answer is unusable ("" when it is fine, and then all of it has
        been passed on)."""
        reason = "" if self.open else unusable_reason(self.text)
        if not reason and not self.open:
            self._release()
        return reason
