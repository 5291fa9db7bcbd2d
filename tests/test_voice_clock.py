"""The capture clock: when each microphone sample was heard, which the echo canceller aligns the
speaker's signal by. Callback times are fed in explicitly, so each case is exact."""

from __future__ import annotations

import pytest

from jarvis_desktop.voice.clock import CaptureClock

RATE = 16000
BLOCK = 512
STEP = BLOCK / RATE


def feed(clock, callbacks):
    """``callbacks``: (time the callback ran, samples it brought); returns each block's stamp."""
    pos, stamps = 0, []
    for now, n in callbacks:
        stamps.append(clock.first_sample_time(pos, n, now=now))
        pos += n
    return stamps


def test_on_time_callbacks_follow_the_sample_count():
    stamps = feed(CaptureClock(RATE), [(100.0 + (i + 1) * STEP, BLOCK) for i in range(50)])
    assert stamps == pytest.approx([100.0 + i * STEP for i in range(50)], abs=1e-9)


def test_a_stalled_callback_that_catches_up_does_not_shift_the_samples():
    # on time for 10 blocks, then the thread stalls 190 ms and the card's buffered blocks arrive
    # back to back: those samples were heard on time, only handed over late
    calls = [(100.0 + (i + 1) * STEP, BLOCK) for i in range(10)]
    stall_end = 100.0 + 11 * STEP + 0.19
    behind = int(0.19 / STEP) + 1
    calls += [(stall_end + j * 0.001, BLOCK) for j in range(behind)]
    calls += [(100.0 + (i + 1) * STEP, BLOCK) for i in range(10 + behind, 60)]
    stamps = feed(CaptureClock(RATE), calls)
    assert stamps == pytest.approx([100.0 + i * STEP for i in range(len(calls))], abs=1e-6)


def test_a_late_first_callback_is_corrected_by_the_next_on_time_one():
    calls = [(100.0 + STEP + 0.08, BLOCK)] + [(100.0 + (i + 1) * STEP, BLOCK) for i in range(1, 20)]
    stamps = feed(CaptureClock(RATE), calls)
    assert stamps[0] == pytest.approx(100.08)  # all it could know then
    assert stamps[5:] == pytest.approx([100.0 + i * STEP for i in range(5, 20)], abs=1e-6)


def test_samples_lost_in_an_overflow_move_the_clock_after_a_second_of_late_callbacks():
    # 300 ms of samples never arrive: every later callback is 300 ms "late" by the count
    calls = [(100.0 + (i + 1) * STEP, BLOCK) for i in range(20)]
    calls += [(100.0 + 0.3 + (i + 1) * STEP, BLOCK) for i in range(20, 100)]
    stamps = feed(CaptureClock(RATE), calls)
    assert stamps[-1] == pytest.approx(100.3 + 99 * STEP, abs=1e-3)
    assert stamps[25] < 100.3 + 25 * STEP  # one late-looking callback alone is not enough


def test_an_overflow_reported_by_the_card_moves_the_clock_at_once():
    calls = [(100.0 + (i + 1) * STEP, BLOCK) for i in range(20)]
    clock = CaptureClock(RATE)
    stamps = feed(clock, calls)
    # 300 ms of samples were lost; the next callback says so
    t = clock.first_sample_time(20 * BLOCK, BLOCK, now=100.0 + 0.3 + 21 * STEP, overflow=True)
    assert t == pytest.approx(100.3 + 20 * STEP)
    assert clock.first_sample_time(21 * BLOCK, BLOCK, now=100.0 + 0.3 + 22 * STEP) == pytest.approx(100.3 + 21 * STEP)
    assert stamps[-1] == pytest.approx(100.0 + 19 * STEP)
