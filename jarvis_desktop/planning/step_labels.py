"""The step classifier's labels that stand for more than one of our task types, and what kind of
thing each label reads and makes (a picture, a sound, words)."""

from __future__ import annotations

from ..task_types import TASK_TYPES

#: An image-to-image step with a text instruction (TaskBench's "Image Editing"), a control map
#: alone, and a generation guided by a control map (the map and the matching generator).
EDIT, CONTROL, GUIDED = "image-editing", "control", "guided"
#: Steps that make a new picture (not a map or a mask of one)
IMAGE_MAKERS = {"text-to-image", "image-to-image", EDIT, GUIDED}
#: The steps that make a medium from words alone, by the kind they make (text-to-image, -speech, -video)
TEXT_MAKERS = {spec.output: name for name, spec in TASK_TYPES.items() if spec.inputs == ("text",) and spec.output != "text"}


def media_output(label: str) -> str | None:
    """The kind of thing a step makes: image, audio, video or text."""
    if label in (EDIT, GUIDED):
        return "image"
    spec = TASK_TYPES.get(label)
    return spec.output if spec else None


def media_input(label: str) -> str | None:
    """The kind of file a step reads (image, audio or video), or None for a step on words."""
    if label in (EDIT, CONTROL, GUIDED):
        return "image"
    spec = TASK_TYPES.get(label)
    kinds = [n for n in spec.inputs if n in ("image", "audio", "video")] if spec else []
    return kinds[0] if kinds else None
