"""Cleaning what people type and what programs return before anything stores or shows it.

A request arrives from a terminal argument (undecodable bytes become lone surrogates), stdin, a
JSON body (``"\\ud800"`` is valid JSON), or a paste into the window (terminal escapes, NULs). SQLite
and UTF-8 output refuse lone surrogates outright, and control bytes garble logs and terminals, so
every face cleans the text first: :func:`clean_text` for words, :func:`shown` for file names,
which must stay usable as paths and so are only escaped when displayed.
"""

from __future__ import annotations

import re

#: ANSI/VT escape sequences (colours, cursor moves) pasted from a terminal.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
#: Control characters other than tab and newline (C0, DEL, C1).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Surrogates that are not bytes escaped by Python's ``surrogateescape`` (U+DC80..U+DCFF).
_STRAY_SURROGATES = re.compile(r"[\ud800-\udc7f\udd00-\udfff]")
_SURROGATES = re.compile(r"[\ud800-\udfff]")
_PAIRS = re.compile(r"[\ud800-\udbff][\udc00-\udfff]")


def fix_surrogates(text: str) -> str:
    """Text that encodes as UTF-8: paired surrogates joined, bytes that a terminal argument could
    not decode (``surrogateescape``) decoded again (as U+FFFD where they are not UTF-8)."""
    if not _SURROGATES.search(text):
        return text
    text = _PAIRS.sub(lambda m: m.group().encode("utf-16", "surrogatepass").decode("utf-16"), text)  # one character
    text = _STRAY_SURROGATES.sub("\ufffd", text)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def clean_text(text: str | None) -> str:
    """A request's words as they can be stored and shown: valid UTF-8, no terminal escapes, no
    control bytes (tab and newline kept, CR LF made LF)."""
    if not text:
        return ""
    text = fix_surrogates(str(text))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ESCAPES.sub("", text)
    return _CONTROLS.sub("", text)


def shown(name: str | object) -> str:
    """A file name fit for one line of a terminal or a message: control characters and undecodable
    bytes written as escapes (``a\\nb.wav``, ``\\xff.png``), everything else as it is."""
    text = str(name)
    if not (_CONTROLS.search(text) or _SURROGATES.search(text) or "\n" in text or "\t" in text):
        return text
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        elif ch in "\n\t" or _CONTROLS.match(ch):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def escape_names(message: str, names: list[str]) -> str:
    """``message`` with every raw occurrence of the given file names (full path or base name)
    replaced by its :func:`shown` form, so an error about ``a\\nb.wav`` stays one line."""
    import os

    for name in sorted({n for raw in names for n in (raw, os.path.basename(raw)) if n}, key=len, reverse=True):
        safe = shown(name)
        if safe != name:
            message = message.replace(name, safe)
    return fix_surrogates(message)


def one_line(text: object, limit: int = 200) -> str:
    """``text`` (often an exception) on one line of at most ``limit`` characters, so a long or
    multi-line message quoted inside another stays readable."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[:limit - 1] + "…"
