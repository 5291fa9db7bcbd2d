"""Helpers shared by the planner tests: attachments written to a temporary folder, a plan's tasks."""

from __future__ import annotations

from pathlib import Path

from jarvis_desktop.media import Attachment


def attach(tmp_path: Path, *names: str) -> list[Attachment]:
    kinds = {".jpg": "image", ".png": "image", ".wav": "audio", ".mp3": "audio", ".m4a": "audio", ".txt": "text", ".csv": "text"}
    out = []
    for n in names:
        p = tmp_path / n
        p.write_bytes(b"x")
        out.append(Attachment(p, kinds[p.suffix]))
    return out


def tasks_of(check) -> list[str]:
    assert check.ok, check.errors
    return [t.task for t in check.plan.tasks]
