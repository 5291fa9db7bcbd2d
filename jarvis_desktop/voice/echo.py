"""The assistant's own voice, removed from the microphone and kept from triggering barge-in.

On open speakers the microphone hears every answer. Two defences:

1. Echo cancellation: WebRTC's AEC3 (the canceller Chrome uses) through ``pywebrtc-audio``, the
   maintained binding that installs from a wheel here (2026; the speexdsp bindings and the older
   webrtc-audio-processing ship no wheel for this Python and need a compiler). Its far-end
   signal is a ``ReferenceTrack``: the Player copies every block it writes there, stamped with
   the monotonic clock; the microphone's blocks carry the same clock, so each microphone block is
   cancelled against what the speaker played at that moment (AEC3 estimates the acoustic delay).
2. A barge-in gate: speech heard while the assistant talks counts as the user only when it is not
   explained by the echo: with AEC, the cancelled signal must keep a good part of the raw energy
   (a user's voice survives cancellation; the echo loses 20-40 dB); without AEC, the microphone
   must not correlate with what is being played. The transcript check (``speaker.EchoGuard``)
   stays as the last line: words that repeat what was said are dropped.
"""

from __future__ import annotations

import collections
import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
MAX_DELAY_S = 0.3  # the longest speaker-to-microphone delay assumed until one is measured
#: A block whose peak correlation with what the speaker played is above this is (mostly) its echo:
#: it teaches the echo's delay and loudness, and a block below it does not sound like the speaker
CLEAR_ECHO_CORR = 0.6
#: How long AEC3 hears the speaker before it cancels rather than mutes: its initial state lasts
#: 2.5 s of strong far-end signal (EchoCanceller3Config.filter.initial_state_seconds)
AEC3_LEARNING_S = 2.5
#: A far-end block with more energy than this is the speaker playing, not silence
FAR_PLAYING = 1e-6


def aec_available() -> bool:
    try:
        import pywebrtc_audio  # noqa: F401
    except ImportError:
        return False
    return True


class ReferenceTrack:
    """What the speaker played, at 16 kHz on the monotonic clock: the far-end signal. Written by
    the playback callback, read by the microphone's consumer; keeps the last ``keep_s`` seconds.

    Blocks that follow on from the previous one (within ``join_s``) are appended sample-exact
    rather than placed by their own timestamp: a resampled block is a sample longer or shorter
    now and then, and a far-end signal with slips is one the echo canceller cannot model."""

    def __init__(self, keep_s: float = 4.0, join_s: float = 0.05):
        self.keep_s = keep_s
        self.join_s = join_s
        self._segments: collections.deque = collections.deque()  # [t0, list of arrays, length]
        self._lock = threading.Lock()
        self._written = threading.Condition(self._lock)
        self._playing = False  # the writer is running: what it has not written yet is coming
        self._resampler = None
        self._rate = 0

    def write(self, samples, rate: int, t: float | None = None) -> None:
        """Samples handed to the device at monotonic time ``t`` (their first sample)."""
        import numpy as np

        from .capture import StreamResampler

        t = time.monotonic() if t is None else t
        x = np.asarray(samples, np.float32).reshape(-1)
        if rate != SAMPLE_RATE:
            if self._rate != rate:
                self._resampler, self._rate = StreamResampler(rate, SAMPLE_RATE), rate
            x = self._resampler(x)
        if not len(x):
            return
        with self._lock:
            seg = self._segments[-1] if self._segments else None
            if seg is not None and abs(seg[0] + seg[2] / SAMPLE_RATE - t) <= self.join_s:
                seg[1].append(x)
                seg[2] += len(x)
            else:
                self._segments.append([t, [x], len(x)])
            while len(self._segments) > 1 and self._segments[1][0] < t - self.keep_s:
                self._segments.popleft()
            first = self._segments[0]  # trim the oldest segment's oldest blocks
            while len(first[1]) > 1 and first[0] + len(first[1][0]) / SAMPLE_RATE < t - self.keep_s:
                first[0] += len(first[1][0]) / SAMPLE_RATE
                first[2] -= len(first[1][0])
                first[1].pop(0)
            self._playing = True
            self._written.notify_all()

    def paused(self) -> None:
        """The writer stopped (the stream paused, closed or failed): nothing more is coming."""
        with self._lock:
            self._playing = False
            self._written.notify_all()

    def wait_for(self, t_end: float, timeout: float = 0.25) -> None:
        """Wait (at most ``timeout``) until what was played up to ``t_end`` has been written.
        A playback callback that runs late writes its block late, while the card plays it on
        schedule from its buffer; the microphone block for that time must not be judged against
        silence that was only not yet written (its echo then looked like a user talking)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._playing and self._segments:
                last = self._segments[-1]
                if last[0] + last[2] / SAMPLE_RATE >= t_end:
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._written.wait(left)

    def read(self, t0: float, n: int):
        """The far-end samples played during [t0, t0 + n / 16000) (silence where nothing was)."""
        import numpy as np

        out = np.zeros(n, np.float32)
        t1 = t0 + n / SAMPLE_RATE
        with self._lock:
            segs = [(s[0], list(s[1]), s[2]) for s in self._segments
                    if s[0] < t1 and s[0] + s[2] / SAMPLE_RATE > t0]
        for st, parts, _ in segs:
            a = int(round((st - t0) * SAMPLE_RATE))  # where the segment starts in ``out``
            for x in parts:
                lo, hi = max(0, a), min(n, a + len(x))
                if hi > lo:
                    out[lo:hi] = x[lo - a:hi - a]
                a += len(x)
                if a >= n:
                    break
        return out


#: AEC3 works on 10 ms frames; pywebrtc-audio fed a block that is not a whole number of them
#: (the microphone's 512 samples) returns the block with its last partial frame's worth of output
#: missing: 128 of every 512 samples came back as silence, a quarter of the user's voice
FRAME = SAMPLE_RATE // 100
#: How far behind its input AEC3's output runs (measured: 128 samples for any block size)
AEC3_LATENCY = 128


class FramedAec:
    """AEC3 fed whole 10 ms frames: what is left of a block waits for the next one, and the output
    runs a constant ``latency`` behind the input (one frame of waiting plus AEC3's own)."""

    def __init__(self, processor: Any):
        import numpy as np

        self.processor = processor
        self.latency = FRAME + AEC3_LATENCY
        self._mic = np.zeros(0, np.float32)
        self._far = np.zeros(0, np.float32)
        self._out = np.zeros(FRAME, np.float32)  # the frame of waiting, so a block is always ready

    @property
    def stream_delay_ms(self) -> int:
        return self.processor.stream_delay_ms

    @stream_delay_ms.setter
    def stream_delay_ms(self, ms: int) -> None:
        self.processor.stream_delay_ms = ms

    def process(self, x, far):
        """The echo-cancelled microphone, as many samples as ``x`` has, ``latency`` behind it."""
        import numpy as np

        mic = np.concatenate([self._mic, np.asarray(x, np.float32)])
        ref = np.concatenate([self._far, np.asarray(far, np.float32)])
        n = len(mic) // FRAME * FRAME
        if n:
            self._out = np.concatenate([self._out, np.asarray(self.processor.process(mic[:n], ref[:n]), np.float32)])
        self._mic, self._far = mic[n:], ref[n:]
        out, self._out = self._out[: len(x)], self._out[len(x):]
        return out


@dataclass
class _Stats:
    raw: float
    clean: float
    corr: float
    before: float  # the raw energy of what ``clean`` was cancelled from (as late as AEC3's output)


class EchoCanceller:
    """Cancels the reference from each microphone block (AEC3 when installed) and judges
    whether speech heard now is the user or the assistant's own voice.

    ``use_aec=False`` (or no pywebrtc-audio) keeps the microphone signal as it is and gates
    barge-in by correlation with the reference only."""

    def __init__(self, reference: ReferenceTrack, *, use_aec: bool = True, keep_ratio_db: float = -25.0,
                 max_corr: float = 0.4, window_blocks: int = 6):
        self.reference = reference
        self.keep_ratio_db = keep_ratio_db
        self.max_corr = max_corr
        # AEC3 models echo that comes after the far-end signal, never before (the microphone's
        # timestamps must not run late: see clock.py); the delay itself is measured from the
        # correlation and handed to AEC3 as ``stream_delay_ms``.
        self._stats: collections.deque[_Stats] = collections.deque(maxlen=window_blocks)
        self._raw_hist: collections.deque = collections.deque(maxlen=160)  # ~5 s of raw energies: the noise floor
        self._far_hist: collections.deque = collections.deque(maxlen=24)  # ~0.75 s of far blocks
        self._far_energy: collections.deque = collections.deque(maxlen=24)  # their mean squares
        self._path: collections.deque = collections.deque(maxlen=64)  # ~2 s of per-block correlations
        self._lags: collections.deque = collections.deque(maxlen=32)  # measured echo delays (s)
        self._gains: collections.deque = collections.deque(maxlen=15)  # latest estimates of the echo's gain
        self._loud_run = 0  # consecutive blocks far louder than the echo explains
        self._far_heard = 0  # samples AEC3 has cancelled while the speaker played
        self.dtd_margin = 8.0  # 9 dB above the expected echo
        #: ... and 10 dB above the room's noise: when the card ran dry and playback resumed, the
        #: echo window can hold next to nothing, and a faint echo barely above the noise then
        #: looked "far louder than the echo" (a self-interruption in CI-like stalls)
        self.dtd_noise_margin = 10.0
        #: ... or 6 dB above it when the block does not sound like the speaker either (peak
        #: correlation below CLEAR_ECHO_CORR). Echo alone that loud correlated 0.85 or more in every block of
        #: 20 replies (bench/voice_latency.py --only 45, 30 and 200 ms delay), the onset of a
        #: user's "Stop" over a loud stretch of the reply 0.3-0.4: energy alone saw it a block later
        self.dtd_uncorrelated_margin = 4.0
        self._aec: Any = None
        if use_aec and aec_available():
            from pywebrtc_audio import AudioProcessor

            self._aec = FramedAec(AudioProcessor(sample_rate=SAMPLE_RATE, echo_cancellation=True))
        elif use_aec:
            log.info("pywebrtc-audio is not installed: barge-in is gated by correlation only")
        self.engine = "webrtc-aec3" if self._aec is not None else "correlation-gate"
        # the microphone as heard, held back as long as AEC3's output is: the two are handed on
        # block by block, one or the other, and must join without a jump in time
        self._raw_delay = None

    def process(self, samples, t: float | None):
        """The microphone block with the echo removed. ``t``: monotonic time of its first sample
        (blocks without a time are passed through)."""
        import numpy as np

        x = np.asarray(samples, np.float32)
        if t is None or t <= 0:
            return x
        self.reference.wait_for(t + len(x) / SAMPLE_RATE)
        far = self.reference.read(t, len(x))
        far_e = float(np.mean(np.square(far, dtype=np.float64)))
        self._far_hist.append(far)
        self._far_energy.append(far_e)
        clean = self._aec.process(x, far) if self._aec is not None else x
        heard = self._delayed(x)
        if far_e > FAR_PLAYING:
            self._far_heard += len(x)
        raw_e = float(np.mean(np.square(x, dtype=np.float64)))
        corr = self._correlation(x) if raw_e > 1e-9 and max(self._far_energy) > 1e-8 else 0.0
        far_win = self._far_window_energy()  # after the correlation, which may have measured the delay
        self._stats.append(_Stats(raw_e, float(np.mean(np.square(clean, dtype=np.float64))), corr,
                                  float(np.mean(np.square(heard, dtype=np.float64)))))
        self._raw_hist.append(raw_e)
        gain = self.echo_gain()
        expected = (gain or 0.0) * far_win  # the echo energy the speaker explains
        loud = (gain is not None and far_win > FAR_PLAYING
                and (raw_e > self.dtd_margin * expected
                     or raw_e > self.dtd_uncorrelated_margin * expected and corr < CLEAR_ECHO_CORR)
                and raw_e > self.dtd_noise_margin * self.noise_floor())
        self._loud_run = self._loud_run + 1 if loud else 0
        # the speaker's sound can have reached the microphone: evidence of the echo path, unless
        # the user's voice drowns it (a block far louder than the echo correlates poorly with the
        # speaker; counted, a user talking over an answer made the path look lost, and the echo
        # of the next answer then passed for the user)
        if far_win > 1e-8 and raw_e > 1e-9 and not loud:
            self._path.append(corr)
        if corr > CLEAR_ECHO_CORR and far_win > 1e-5:  # echo alone: learn how loud the speaker is at the mic
            self._gains.append(raw_e / far_win)
        # AEC3 also suppresses a user who talks while no echo reaches the microphone (headphones,
        # a quiet speaker) until it has learned the echo path; only trust its output once the
        # microphone has been seen to hear the speaker.
        # And with nothing played lately (the speaker silent for longer than its echo lasts)
        # there is nothing to cancel: AEC3 still in double-talk after a barge-in distorted the
        # words that followed ("What time is it in Tokyo?" came back as "... in tow, kiddo?").
        if not (self.echo_path_heard() and self.far_active()):
            return heard
        return heard if self._aec_learning() and self._voice_over_echo(raw_e, corr, gain) else clean

    @property
    def latency(self) -> int:
        """Samples the microphone signal handed on runs behind the one that came in (AEC3 needs
        whole 10 ms frames, and has its own delay): 18 ms with AEC3, none without."""
        return self._aec.latency if self._aec is not None else 0

    def _delayed(self, x):
        """``x`` held back by AEC3's latency (no delay without AEC3)."""
        import numpy as np

        if self._aec is None:
            return x
        if self._raw_delay is None:
            self._raw_delay = np.zeros(self._aec.latency, np.float32)
        joined = np.concatenate([self._raw_delay, x])
        self._raw_delay = joined[len(x):]
        return joined[: len(x)]

    def resume(self) -> None:
        """A new microphone stream in the same room (hands-free switched off and on again). What
        was learned about the room is kept: AEC3's filter, the echo's delay and loudness. Started
        afresh, AEC3 mutes the microphone for the first 2.5 s of the next answer, the user's words
        included (bench/voice_latency.py --only 6 --warm: second parts said over an answer's start,
        78/108 words heard against 50/108). What the old stream heard is dropped."""
        for history in (self._stats, self._raw_hist, self._far_hist, self._far_energy, self._path):
            history.clear()
        self._loud_run = 0

    def _aec_learning(self) -> bool:
        """AEC3 is still in its first seconds of hearing the speaker, when it mutes the whole
        microphone while anything plays, a voice included."""
        return self._aec is not None and self._far_heard < AEC3_LEARNING_S * SAMPLE_RATE

    def _voice_over_echo(self, raw_e: float, corr: float, gain: float | None) -> bool:
        """Whether the microphone holds a voice besides the echo: double talk (the test that stops
        the answer), or, before the echo's loudness is known, a block above the room's noise that
        does not sound like the speaker. (Single blocks over the echo passed on as well kept more
        of the user's words, but the echo's loud syllables then twice became a request.)"""
        return self.user_over_echo() or (gain is None and corr < CLEAR_ECHO_CORR
                                         and raw_e > self.dtd_noise_margin * self.noise_floor())

    def echo_gain(self) -> float | None:
        """The speaker's loudness at the microphone (echo energy / far-end energy): the median of
        its last estimates, known from the third. A user who goes on talking just as an answer
        starts is in the first blocks that correlate with it: taken alone (or weighted into a
        running mean) such a block made the echo look 2 to 12 times louder than it was, and the
        user's next words then passed for echo."""
        if len(self._gains) < 3:
            return None
        return sorted(self._gains)[len(self._gains) // 2]

    def echo_delay(self) -> float | None:
        """How long after the far-end signal its echo reaches the microphone (median of the
        clear correlations so far; None until one was seen). A laptop's speakers: tens of ms;
        a Bluetooth speaker or a long output buffer: 150-300 ms."""
        return sorted(self._lags)[len(self._lags) // 2] if self._lags else None

    def _delay_blocks(self) -> int:
        """The echo delay in whole microphone blocks (the longest assumed while none is known)."""
        n = len(self._far_hist[-1]) if self._far_hist else 512
        return int((self.echo_delay() or MAX_DELAY_S) * SAMPLE_RATE // n)

    def _far_window_energy(self) -> float:
        """Far-end energy of what the microphone can be hearing now: the blocks played one echo
        delay ago and the ~100 ms after them (the room smears the echo). Measured over the last
        blocks instead, a speaker with a long delay made the echo after a pause in the speech
        look like a user talking over it."""
        energy = list(self._far_energy)
        k = self._delay_blocks()
        window = energy[max(0, len(energy) - k - 4): len(energy) - k]
        return sum(window) / len(window) if window else 0.0

    def user_over_echo(self, blocks: int = 2) -> bool:
        """Double-talk: for the last ``blocks`` blocks the raw microphone has been far louder than
        the echo the speaker can explain (its learned gain times what it played). AEC3 holds back
        a voice that starts over the echo for a while; this sees it at once. Two blocks (64 ms),
        not three: with three, a user's "Stop" stopped speech 241 ms after its onset (the soft
        "s" is no louder than the echo, so the run starts at the vowel); with two, 177-209 ms,
        and the echo alone still never barged in (bench/voice_latency.py --only 45, 20 replies,
        30 and 200 ms echo delay). A block also counts at 6 dB over the echo when it does not
        correlate with the speaker (``dtd_uncorrelated_margin``): 176-178 ms in sentence 1."""
        return self._loud_run >= blocks

    def echo_path_heard(self) -> bool:
        """Whether the microphone has recently (about 2 s) picked up what the speaker played."""
        if len(self._path) < 8:  # too early to tell: assume the speaker is heard (the safe side)
            return True
        import statistics

        return statistics.median(self._path) > self.max_corr

    def _correlation(self, x) -> float:
        """Peak normalised cross-correlation of the block with the last ~0.75 s of reference
        (the echo arrives after a delay the gate does not know)."""
        import numpy as np

        far = np.concatenate(list(self._far_hist))
        if len(far) < len(x):
            return 0.0
        n = 1 << int(math.ceil(math.log2(len(far) + len(x))))
        c = np.fft.irfft(np.fft.rfft(far, n) * np.conj(np.fft.rfft(x, n)), n)[: len(far) - len(x) + 1]
        energy = np.concatenate(([0.0], np.cumsum(np.square(far, dtype=np.float64))))
        win = energy[len(x):] - energy[: len(far) - len(x) + 1]  # far-end energy under each lag
        ok = win > max(1e-9, 0.05 * float(np.mean(win)))  # lags where the speaker was silent say nothing
        if not ok.any():
            return 0.0
        denom = np.sqrt(win[ok] * float(np.sum(np.square(x))))
        ncc = np.abs(c[ok]) / denom
        k = int(np.nonzero(ok)[0][int(np.argmax(ncc))])
        best = float(np.max(ncc))
        if best > CLEAR_ECHO_CORR:  # a clear echo: note how long after the far-end signal it arrives
            self._lags.append((len(far) - len(x) - k) / SAMPLE_RATE)
            if self._aec is not None and len(self._lags) >= 8:
                delay_ms = int(round(1000 * sorted(self._lags)[len(self._lags) // 2]))
                if abs(delay_ms - self._aec.stream_delay_ms) >= 8:
                    self._aec.stream_delay_ms = delay_ms  # AEC3 cancels well only once told the delay
        return best

    def far_active(self) -> bool:
        """Whether the speaker played something recently enough for its echo to be heard now."""
        return any(e > FAR_PLAYING for e in list(self._far_energy)[-(self._delay_blocks() + (self._stats.maxlen or 6)):])

    def noise_floor(self) -> float:
        """The room's energy when nobody speaks: the quietest tenth of the last ~5 s of blocks."""
        e = sorted(self._raw_hist)
        return e[len(e) // 10] if e else 0.0

    def echo_explains_speech(self) -> bool:
        """True when what the microphone heard over the last blocks is the assistant's own voice
        (so it must not interrupt the answer).

        Only blocks that stand above the room's noise are evidence either way: at the end of a
        sentence the echo fades into the noise, and those quiet blocks neither correlate with the
        speaker nor cancel (noise is not echo); counted as votes, they made the tail of the
        assistant's own sentence look like a user talking (CI, 601929b). "Above" is the double-talk
        detector's 10 dB (``dtd_noise_margin``): at 6 dB, the faint echo of a word as playback
        resumed after the card ran dry (uncorrelated, AEC3 still settling) passed for a user
        talking over the answer (CI, stop 44). Nothing above the noise means nobody is talking
        over the answer."""
        if not self._stats or not self.far_active():
            return False
        import statistics

        if len(self._path) < 8:
            return True  # the speaker has only just started: too early to tell the user from echo
        if not self.echo_path_heard():
            return False
        floor = self.noise_floor()
        heard = [s for s in self._stats if s.raw > self.dtd_noise_margin * floor]
        if not heard:
            return True
        if statistics.median(s.corr for s in heard) > self.max_corr:
            return True  # the microphone hears mostly what is being played
        if self._aec is not None:  # what is left after cancellation is far below what came in
            raw = sum(s.before for s in heard)  # the same stretch of sound as the cancelled blocks
            clean = sum(s.clean for s in heard)
            return raw <= 1e-10 or 10 * math.log10(max(clean, 1e-12) / raw) < self.keep_ratio_db
        return False

    def describe(self) -> str:
        """The gate's state in one line, for the debug log of a barge-in decision (a self-interruption
        is rare and timing-bound: this line is what tells which evidence misled it)."""
        blocks = " ".join(f"[{s.raw:.1e} {s.clean:.1e} {s.corr:.2f}]" for s in self._stats)
        far = " ".join(f"{e:.0e}" for e in list(self._far_energy)[-12:])
        return (f"echo delay {self.echo_delay()}, gain {self.echo_gain()}, noise {self.noise_floor():.1e}, "
                f"path heard {self.echo_path_heard()}, far active {self.far_active()}, "
                f"far window {self._far_window_energy():.1e}, loud run {self._loud_run}; "
                f"blocks [raw clean corr] {blocks}; far energy {far}")
