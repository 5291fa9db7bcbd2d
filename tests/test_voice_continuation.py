"""TurnContinuation: which speech continues the turn before it (no audio models needed)."""

from __future__ import annotations

import numpy as np

from jarvis_desktop.voice.continuation import BY_MEANING, TurnContinuation
from jarvis_desktop.voice.listener import Utterance

SR = 16000


def utt(start_s: float, end_s: float, reason: str = BY_MEANING, value: float = 0.1) -> Utterance:
    n = int((end_s - start_s) * SR)
    return Utterance(np.full(n, value, np.float32), int(start_s * SR), int(end_s * SR), reason)


def test_speech_within_the_window_after_a_turn_ended_by_meaning_continues_it():
    c = TurnContinuation(window_ms=1200)
    first = c.ended(utt(0.0, 1.5))
    assert not c.continued(first.seq)
    assert c.speech_started(int(2.0 * SR)) == first.seq  # 0.5 s later: the same request goes on
    assert c.continued(first.seq)
    assert c.speech_started(int(2.1 * SR)) is None  # counted once
    c.ended(utt(2.0, 3.0, reason="silence"))  # the rest of the request
    assert c.take(first.seq) and not c.take(first.seq)  # joined once, not again


def test_a_late_start_or_a_turn_ended_by_silence_is_a_new_request():
    c = TurnContinuation(window_ms=1200)
    first = c.ended(utt(0.0, 1.5))
    assert c.speech_started(int(2.8 * SR)) is None  # 1.3 s after: beyond the configured silence
    assert not c.continued(first.seq)
    second = c.ended(utt(3.0, 4.0, reason="silence"))  # the whole silence was waited out already
    assert c.speech_started(int(4.2 * SR)) is None
    assert not c.continued(second.seq)


def test_only_the_latest_turn_can_be_continued():
    c = TurnContinuation(window_ms=1200)
    first = c.ended(utt(0.0, 1.0))
    second = c.ended(utt(1.2, 2.0, reason="flush"))
    assert c.speech_started(int(2.3 * SR)) is None  # the latest did not end by meaning
    assert not c.continued(first.seq) and not c.continued(second.seq)


def test_join_keeps_both_parts_in_order_and_cuts_the_first_parts_tail():
    a = Utterance(np.full(SR, 0.1, np.float32), 0, SR, BY_MEANING, speech_start=1600, speech_end=SR - 3200)
    b = Utterance(np.full(SR, 0.2, np.float32), 2 * SR, 3 * SR, "silence", speech_start=2 * SR + 8000, speech_end=3 * SR)
    whole = TurnContinuation.join(a, b, margin_ms=32)
    assert len(whole.audio) == (SR - 3200 + 512) + SR  # the rest keeps its pre-roll (a late VAD start)
    assert whole.audio[0] == np.float32(0.1) and whole.audio[-1] == np.float32(0.2)
    assert (whole.start, whole.end, whole.reason) == (a.start, b.end, "silence")
    assert (whole.speech_start, whole.speech_end) == (1600, 3 * SR)
    # without speech bounds (push-to-talk) the audio is kept whole
    plain = TurnContinuation.join(utt(0.0, 1.0), utt(1.5, 2.0))
    assert len(plain.audio) == int(1.5 * SR)
