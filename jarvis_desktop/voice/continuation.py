"""A turn ended by meaning stays open for the rest of the configured silence.

The turn detector ends a finished-sounding sentence after a short gap, so the answer can start
about 0.3 s after the user stops. But people also pause after a complete clause and go on ("What
time is it ... in Sydney right now?", "Open my calendar ... for next Tuesday"): nothing in the
words before the pause tells that pause from the end of the turn. Before turns ended by meaning,
any pause shorter than the configured silence (``silence_ms``) kept the request whole; this keeps
that promise: speech that starts within ``silence_ms`` of a turn the detector ended early
continues the same request. The answer begun for the first part is stopped, and both parts are
recognised together as one request.

Both sides of the microphone thread use it: ``ended`` and ``speech_started`` are called on the
reading thread (in order), ``continued`` and ``take`` on the thread that sends requests.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from .capture import SAMPLE_RATE
from .listener import Utterance

#: The end reason of a turn the detector ended from what was said (vad.UtteranceEnded.reason)
BY_MEANING = "turn-complete"


@dataclass(frozen=True)
class EndedTurn:
    """An utterance as the microphone thread saw it end, numbered in order."""

    seq: int
    utterance: Utterance


class TurnContinuation:
    """Tells when new speech continues the turn before it. ``window_ms``: the configured silence,
    the longest pause inside one request."""

    def __init__(self, window_ms: int):
        self.window_ms = window_ms
        self._lock = threading.Lock()
        self._seq = 0
        self._last: EndedTurn | None = None
        self._continued: set[int] = set()

    def ended(self, utterance: Utterance) -> EndedTurn:
        """An utterance ended (microphone thread): number it, remember it as the last turn."""
        with self._lock:
            self._seq += 1
            self._last = EndedTurn(self._seq, utterance)
            return self._last

    def speech_started(self, position: int) -> int | None:
        """Speech began at device sample ``position`` (microphone thread). Returns the number of
        the turn it continues (one ended by meaning, less than the window ago), or None."""
        with self._lock:
            last = self._last
            if last is None or last.utterance.reason != BY_MEANING or last.seq in self._continued:
                return None
            gap = position - last.utterance.end
            if not 0 <= gap <= self.window_ms * SAMPLE_RATE // 1000:
                return None
            self._continued.add(last.seq)
            return last.seq

    def continued(self, seq: int) -> bool:
        """Whether speech began within the window after turn ``seq`` (its request is not whole)."""
        with self._lock:
            return seq in self._continued

    def take(self, seq: int) -> bool:
        """Like ``continued``, but true once: the caller joins turn ``seq`` with what followed."""
        with self._lock:
            if seq not in self._continued:
                return False
            self._continued.discard(seq)
            return True

    @staticmethod
    def join(first: Utterance, rest: Utterance, margin_ms: int = 32) -> Utterance:
        """One utterance of both parts: the first cut ``margin_ms`` after its last speech (Whisper
        tiny mishears the words after a long pause more often), the rest whole. The rest keeps
        its pre-roll: over the echo of an answer, WebRTC AEC3 holds a voice back for a while, so
        the VAD can hear its start half a second late, and that start is in the pre-roll."""
        import numpy as np

        a = np.asarray(first.audio, np.float32)
        if first.speech_end is not None:
            a = a[: max(0, first.speech_end - first.start + margin_ms * SAMPLE_RATE // 1000)]
        audio = np.concatenate([a, np.asarray(rest.audio, np.float32)])
        return Utterance(audio, first.start, rest.end, rest.reason, first.speech_start, rest.speech_end)
