"""When a captured sample was heard, or a written one handed to the speaker, on the monotonic
clock (what echo cancellation aligns by). The Player uses it with nothing buffered: a frame cannot
be handed over before its callback runs, as a sample cannot be captured after.

A capture callback runs *after* its samples arrived: on time, a few milliseconds late, or, when the
process is busy (the GIL held by a model, a stalled thread), a few hundred milliseconds late and
then several times in a row to catch up with what the card buffered. So a single callback's time
is only an upper bound for its samples, and a late one says nothing about the card's clock.

``CaptureClock`` keeps an anchor on the sample count and moves it only on evidence:
- earlier at once, when a callback runs before the anchor says its samples were complete (the
  anchor was set by a late callback);
- to the callback's time at once when the card reports an input overflow (samples were lost:
  the count no longer says when the rest were heard);
- later, when every callback over a whole second ran late (samples lost without a report, or
  the card's clock runs slower than the computer's).

Re-anchoring on one late callback, as an earlier version did, stamped every sample after a
190 ms stall 190 ms late, so the microphone seemed to hear the assistant's voice before it was
played and the echo canceller, which only models echo that follows the far-end signal, let it
through as barge-in.
"""

from __future__ import annotations

import time

EARLY_TOLERANCE_S = 0.005  # callback-time jitter below this does not move the anchor
DRIFT_WINDOW_S = 1.0  # how long every callback must run late before the anchor moves later
DRIFT_LIMIT_S = 0.05  # ...and by how much at least


class CaptureClock:
    """Monotonic time of captured samples, from their count since an anchor."""

    def __init__(self, rate: float):
        self.rate = float(rate)
        self._anchor: tuple[float, int] | None = None  # (time, sample index)
        self._window_start = 0  # sample index where the current lateness window began
        self._late_min = float("inf")  # least lateness seen in the window

    def reset(self) -> None:
        self._anchor = None

    def first_sample_time(self, position: int, buffered: int, now: float | None = None,
                          overflow: bool = False) -> float:
        """Time of sample ``position``, the first of ``buffered`` samples that a callback
        running at ``now`` has just received (the last of them arrived by ``now``); ``overflow``:
        the card dropped samples before these."""
        latest = (time.monotonic() if now is None else now) - buffered / self.rate
        if self._anchor is None or overflow:
            return self._set(latest, position)
        t = self._anchor[0] + (position - self._anchor[1]) / self.rate
        late = latest - t  # how long after the sample clock this callback ran
        if late < -EARLY_TOLERANCE_S:  # samples cannot arrive before they are captured
            return self._set(latest, position)
        self._late_min = min(self._late_min, late)
        if position - self._window_start >= DRIFT_WINDOW_S * self.rate:
            if self._late_min > DRIFT_LIMIT_S:  # late all along: samples lost, or a slow card clock
                t += self._late_min
                self._anchor = (self._anchor[0] + self._late_min, self._anchor[1])
            self._window_start, self._late_min = position, float("inf")
        return t

    def _set(self, t: float, position: int) -> float:
        self._anchor = (t, position)
        self._window_start, self._late_min = position, float("inf")
        return t
