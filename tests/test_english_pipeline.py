"""The shared spaCy pipeline: one copy for the planner and the voice turn detector, loaded without
dragging torch in (thinc probes for it), while torch stays importable afterwards."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_loading_spacy_does_not_import_torch_and_torch_still_imports_after():
    code = (
        "import sys\n"
        "from jarvis_desktop.english import load_english\n"
        "nlp, why = load_english()\n"
        "assert nlp is not None, why\n"
        "print('parsed', [t.dep_ for t in nlp('describe this photo and read it to me')][:2])\n"
        "print('torch loaded by spaCy:', 'torch' in sys.modules)\n"
        "import torch, thinc.compat\n"
        "print('torch after:', torch.tensor([1, 2]).sum().item())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert out.returncode == 0, out.stderr
    assert "torch loaded by spaCy: False" in out.stdout
    assert "torch after: 3" in out.stdout


def test_planner_and_turn_detector_share_one_pipeline():
    from jarvis_desktop.english import load_english
    from jarvis_desktop.planning.segment import load_nlp
    from jarvis_desktop.voice.turn import _load_parser

    assert load_nlp()[0] is _load_parser() is load_english()[0] is not None
