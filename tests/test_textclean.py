"""one_line: a long or multi-line message (often an exception) quoted inside another message."""

from __future__ import annotations

from jarvis_desktop.textclean import one_line


def test_one_line_joins_lines_and_cuts_long_messages():
    assert one_line("Traceback:\n  file  x\n\tboom") == "Traceback: file x boom"
    long = one_line(ValueError("x" * 500), 240)
    assert len(long) == 240 and long.endswith("…")
    assert one_line(OSError("disk full")) == "disk full"
