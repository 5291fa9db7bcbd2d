"""Which job an image-to-text task is: a caption ("what is in this picture") or reading the text in
it ("what does it say"). HuggingGPT uses one task name for both; the models are different (BLIP
writes captions, OCR reads text), so selection must not hand a caption request to OCR.

The need comes from the task's optional ``need`` argument when the planner gave one, else from the
request's wording. With no sign either way it is a caption, as in HuggingGPT.
"""

from __future__ import annotations

import re
from typing import Any

CAPTION = "caption"
READ = "read"

_ARG_WORDS = {"caption": CAPTION, "describe": CAPTION, "description": CAPTION,
              "read": READ, "ocr": READ, "text": READ, "read-text": READ}

#: "read it aloud", "read the answer out": speaking, not reading text in the image.
_READ_ALOUD = re.compile(r"\bread\b[^.?!;]{0,40}?\b(aloud|out loud|out|to me|back)\b")
_READ_SIGNS = re.compile(
    r"\b(what (does|do|did) (it|they|(this|that|the|these|those)( [\w-]+){0,3}) say|what('s| is| was) written|ocr|"
    r"read(s|ing)?|transcribe|extract|copy (out|down)|the (text|words|writing|letters|numbers)|text (in|on|of|from)|"
    r"handwriting|handwritten|written|says|printed|spell(ed|s)? out)\b")
_CAPTION_SIGNS = re.compile(
    r"\b(describe|description|caption|what('s| is| are)? (in|on) (it|this|that|the|these)|what do you see|"
    r"what can you see|tell me about|what('s| is) (this|that|it)\b(?! (say|read))|depict\w*|show(s|ing)?|"
    r"looks? like|scene|who is in|what happens)\b")


def image_to_text_need(request: str, args: dict[str, Any] | None = None) -> str:
    """``caption`` or ``read`` for an image-to-text task of ``request``."""
    arg = str((args or {}).get("need") or "").strip().lower()
    if arg in _ARG_WORDS:
        return _ARG_WORDS[arg]
    text = _READ_ALOUD.sub(" ", (request or "").lower())
    reads = bool(_READ_SIGNS.search(text))
    captions = bool(_CAPTION_SIGNS.search(text))
    if reads and not captions:
        return READ
    return CAPTION


def is_text_reader(model_id: str) -> bool:
    """Models that read text in images rather than describe them (OCR, TrOCR, manga-ocr...)."""
    return "ocr" in model_id.lower()
