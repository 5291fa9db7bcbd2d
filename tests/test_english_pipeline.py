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


# Words that the ruler's exceptions are about (contractions, "gonna", "y'all", "there is", "gets",
# a run of spaces), and ordinary requests.
_SENTENCES = [
    "caption this photo and read it to me",
    "gonna need y'all to transcribe it, ain't that easy",
    "let's see: there is a dog in it and he gets the ball, c'mon",
    "nothin' much  \n  just summarise notes.txt, gotta go",
    "Is the stove on? If so, tell me whether anything is burning.",
]


def test_the_indexed_attribute_ruler_sets_what_spacys_own_ruler_sets():
    """The pipeline's ruler is replaced by one that finds its matches by index; every token must
    come out with the same part of speech, tag, morphology and lemma as with spaCy's own."""
    import spacy

    from jarvis_desktop.english import load_english, spacy_package

    ours, why = load_english()
    assert ours is not None, why
    assert "attribute_ruler" not in ours.pipe_names  # replaced
    stock = spacy.load(spacy_package(), exclude=["ner"])
    assert "attribute_ruler" in stock.pipe_names
    for text in _SENTENCES:
        want = [(t.pos_, t.tag_, t.dep_, str(t.morph), t.lemma_) for t in stock(text)]
        assert [(t.pos_, t.tag_, t.dep_, str(t.morph), t.lemma_) for t in ours(text)] == want, text


def test_a_ruler_with_patterns_it_cannot_index_is_left_as_spacy_made_it():
    import spacy

    from jarvis_desktop.english_attributes import use_indexed_ruler

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "big", "OP": "+"}]], {"POS": "ADJ"})
    assert use_indexed_ruler(nlp) is False
    assert nlp.pipe_names == ["attribute_ruler"]
    assert use_indexed_ruler(spacy.blank("en")) is False  # no ruler at all
    plain = spacy.blank("en")
    plain.add_pipe("attribute_ruler").add([[{"LOWER": "cat"}], [{"TAG": "NN"}]], {"POS": "NOUN"})
    assert use_indexed_ruler(plain) is True
    assert [t.pos_ for t in plain("a cat")] == ["", "NOUN"]
