"""Voice activity: the Silero VAD model that faster-whisper ships (ONNX), run block by block, and
an endpointer that turns its per-block speech probabilities into utterance start and end.

faster-whisper waits 2 s of silence before it splits speech; a conversation needs an answer sooner,
so the end of an utterance is declared after ``silence_ms`` (default 600 ms). Speech must last
``min_speech_ms`` before it counts, so a click or a cough does not start an utterance (or interrupt
the assistant). The audio kept for an utterance starts ``preroll_ms`` before the detected start,
because Silero needs a few blocks to be sure and the first consonant would otherwise be clipped.
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass, field
from typing import Any

BLOCK = 512
SAMPLE_RATE = 16000
_CONTEXT = 64  # samples of the previous block the model sees with each block

_session = None
_session_lock = threading.Lock()


def _vad_session():
    """One ONNX session for the process; each SileroVad keeps its own recurrent state."""
    global _session
    with _session_lock:
        if _session is None:
            from faster_whisper.vad import get_vad_model

            _session = get_vad_model().session
        return _session


class SileroVad:
    """Speech probability of consecutive 512-sample blocks of 16 kHz audio (stateful)."""

    def __init__(self):
        self.session = _vad_session()
        self.reset()

    def reset(self) -> None:
        import numpy as np

        self._h = np.zeros((1, 1, 128), np.float32)
        self._c = np.zeros((1, 1, 128), np.float32)
        self._context = np.zeros(_CONTEXT, np.float32)

    def __call__(self, block) -> float:
        import numpy as np

        x = np.asarray(block, dtype=np.float32).reshape(-1)
        if len(x) != BLOCK:
            raise ValueError(f"Silero VAD takes blocks of {BLOCK} samples, got {len(x)}")
        inp = np.concatenate([self._context, x])[None, :]
        prob, self._h, self._c = self.session.run(None, {"input": inp, "h": self._h, "c": self._c})
        self._context = x[-_CONTEXT:].copy()
        return float(np.asarray(prob).reshape(-1)[0])


@dataclass
class SpeechStarted:
    """Speech began (``position`` is its first sample). Used for barge-in."""

    position: int


@dataclass
class SpeechPaused:
    """Speech has been silent for ``tail_ms``: the utterance so far is final unless speech resumes.
    Lets a caller start recognising early (speculatively) instead of idling through the silence."""

    audio: Any
    start: int
    end: int


@dataclass
class SpeechResumed:
    position: int


@dataclass
class UtteranceEnded:
    audio: Any  # float32 16 kHz, from pre-roll to ``tail_ms`` after the last speech
    start: int  # position of the first sample of ``audio``
    end: int  # position after the last sample of ``audio``
    speech_start: int  # where the VAD heard speech begin
    speech_end: int  # where the VAD heard the last speech
    reason: str = "silence"  # silence | turn-complete | max-length | flush


@dataclass
class Endpointer:
    """Feeds blocks through Silero VAD and reports SpeechStarted / SpeechPaused / SpeechResumed /
    UtteranceEnded. Not thread-safe: one consumer feeds it."""

    silence_ms: int = 600
    threshold: float = 0.5
    neg_threshold: float = 0.35
    min_speech_ms: int = 96
    preroll_ms: int = 500
    tail_ms: int = 200
    max_utterance_s: float = 600.0
    vad: Any = None
    _ring: collections.deque = field(init=False, repr=False)

    def __post_init__(self):
        self.vad = self.vad or SileroVad()
        self._ring = collections.deque(maxlen=max(1, self.preroll_ms * SAMPLE_RATE // 1000 // BLOCK))
        self.reset()

    def reset(self) -> None:
        self.in_speech = False
        self.speech_start = 0
        self._run = 0  # consecutive speech blocks while idle
        self._blocks: list[tuple[int, Any]] = []  # (position, samples) of the current utterance
        self._last_speech_end = 0
        self._silent = 0  # samples of silence since the last speech
        self._paused = False
        self._turn_request: tuple[int, int, int] | None = None
        self._ring.clear()
        self.vad.reset()
        self.last_prob = 0.0

    def end_turn(self, start: int, end: int, after_ms: int = 0) -> None:
        """The speaker has (probably) finished the utterance paused at ``start..end``: end it once
        its silence reaches ``after_ms`` instead of ``silence_ms``. Safe from any thread (the turn
        detector calls it when speculative recognition finishes); ignored if speech resumed."""
        self._turn_request = (start, end, after_ms)

    def feed(self, samples, position: int) -> list:
        """Process one 512-sample block that starts at ``position``; return the events it caused."""
        prob = self.vad(samples)
        self.last_prob = prob
        events: list = []
        end = position + len(samples)
        if not self.in_speech:
            self._ring.append((position, samples))
            self._run = self._run + 1 if prob >= self.threshold else 0
            if self._run * BLOCK * 1000 >= self.min_speech_ms * SAMPLE_RATE:
                self.in_speech = True
                self._blocks = list(self._ring)
                self._ring.clear()
                speech_start = position - (self._run - 1) * BLOCK
                self.speech_start = speech_start  # where the current utterance began (public: barge-in reports it)
                self._last_speech_end = end
                self._silent = 0
                self._paused = False
                events.append(SpeechStarted(speech_start))
            return events
        self._blocks.append((position, samples))
        if prob >= self.neg_threshold and not (self._silent and prob < self.threshold):
            # speech (hysteresis: after silence began, only a confident block counts as resumed)
            if self._paused:
                events.append(SpeechResumed(position))
            self._paused = False
            self._silent = 0
            self._last_speech_end = end
        else:
            self._silent += len(samples)
        if not self._paused and self._silent * 1000 >= self.tail_ms * SAMPLE_RATE:
            self._paused = True
            audio, s, e = self._cut()
            events.append(SpeechPaused(audio, s, e))
        total = end - self._blocks[0][0]
        request = self._turn_request
        if request is not None and not self._paused:
            self._turn_request = request = None  # speech resumed: that judgement is stale
        if self._silent * 1000 >= self.silence_ms * SAMPLE_RATE:
            events.append(self._finish("silence"))
        elif request is not None and self._silent * 1000 >= request[2] * SAMPLE_RATE and self._span() == request[:2]:
            events.append(self._finish("turn-complete"))
        elif total >= self.max_utterance_s * SAMPLE_RATE:
            events.append(self._finish("max-length"))
        return events

    def flush(self) -> UtteranceEnded | None:
        """End the current utterance now (the stream ended or the user stopped listening)."""
        return self._finish("flush") if self.in_speech else None

    def _span(self) -> tuple[int, int]:
        start = self._blocks[0][0]
        stop = self._last_speech_end + self.tail_ms * SAMPLE_RATE // 1000
        return start, start + min(max(0, stop - start), sum(len(b) for _, b in self._blocks))

    def _cut(self):
        """The utterance audio: from the first kept block to ``tail_ms`` after the last speech."""
        import numpy as np

        start = self._blocks[0][0]
        stop = self._last_speech_end + self.tail_ms * SAMPLE_RATE // 1000
        audio = np.concatenate([b for _, b in self._blocks])
        audio = audio[: max(0, stop - start)]
        return audio, start, start + len(audio)

    def _finish(self, reason: str) -> UtteranceEnded:
        audio, s, e = self._cut()
        ev = UtteranceEnded(audio, s, e, self.speech_start, self._last_speech_end, reason)
        self.in_speech = False
        self._turn_request = None
        self._blocks = []
        self._run = 0
        self._paused = False
        self._silent = 0
        return ev
