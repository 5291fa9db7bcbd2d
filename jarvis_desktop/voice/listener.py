"""Utterances from the microphone: push-to-talk and hands-free, and their recognition.

``VoiceInput`` reads the microphone on its own thread and hands each block to the active source:
``PushToTalk`` cuts exactly the samples between press and release (device positions, so no block
is lost or duplicated whatever thread presses); ``HandsFree`` lets the VAD endpointer find the
utterance. Callbacks report speech start (barge-in), pauses (speculative recognition), utterances
and device errors.

``Recognizer`` turns an utterance into a request: it keeps every utterance's audio as a WAV (the
audio of a failed recognition can be retried), starts recognising as soon as speech pauses and
reuses that result when the pause turns out to be the end, and reports empty or noise-only
utterances as such.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .asr import LIVE_BEAM_SIZE
from .errors import AudioDeviceError, EmptyUtterance, VoiceError
from .vad import Endpointer, SpeechPaused, SpeechResumed, SpeechStarted, UtteranceEnded

log = logging.getLogger(__name__)
SAMPLE_RATE = 16000
#: Speech the endpointer hears start within this of where double talk showed the user is theirs
USER_OVER_ECHO_S = 1.0


@dataclass
class Utterance:
    audio: Any  # float32 mono, 16 kHz
    start: int  # device position of the first sample
    end: int  # device position after the last sample
    reason: str  # push-to-talk | silence | max-length | flush | device-lost
    speech_start: int | None = None  # where the VAD heard speech begin and end (hands-free only)
    speech_end: int | None = None

    @property
    def duration(self) -> float:
        return len(self.audio) / SAMPLE_RATE


class PushToTalk:
    """press() ... release(): the utterance is every sample the device delivered in between.

    Positions come from the microphone's sample counter at the moment of the call (or ``at``), so
    the cut does not depend on how far the reading thread lags behind."""

    def __init__(self, mic, *, preroll_s: float = 0.0, max_s: float = 600.0):
        self.mic = mic
        self.preroll = int(preroll_s * SAMPLE_RATE)
        self.max_samples = int(max_s * SAMPLE_RATE)
        self._lock = threading.Lock()
        self._start: int | None = None
        self._end: int | None = None
        self._parts: list = []
        self._got = 0  # samples in _parts[:_counted]
        self._counted = 0
        self._history: list = []  # recent blocks, for a pre-roll

    @property
    def pressed(self) -> bool:
        return self._start is not None and self._end is None

    def press(self, at: int | None = None) -> int:
        with self._lock:
            self._start = max(0, (self.mic.position if at is None else at) - self.preroll)
            self._end = None
            self._parts = []
            self._got = self._counted = 0
            return self._start

    def release(self, at: int | None = None) -> int | None:
        with self._lock:
            if self._start is None:
                return None
            self._end = self.mic.position if at is None else at
            return self._end

    def feed(self, block) -> list:
        """Take one Block; return [SpeechStarted] at the first block of a press and [Utterance]
        once the block past the release point has been read."""
        import numpy as np

        events: list = []
        b0, b1 = block.position, block.position + len(block.samples)
        self._history.append(block)
        while self._history and self._history[0].position + len(self._history[0].samples) < b0 - self.preroll - 1:
            self._history.pop(0)
        with self._lock:
            start, end = self._start, self._end
            if start is None:
                return events
            if not self._parts:
                # first block since the press: take what is already read from ``start`` on
                for h in self._history:
                    h0, h1 = h.position, h.position + len(h.samples)
                    lo, hi = max(h0, start), min(h1, end if end is not None else h1)
                    if hi > lo:
                        self._parts.append(h.samples[lo - h0:hi - h0])
                if self._parts:
                    events.append(SpeechStarted(start))
            else:
                lo, hi = max(b0, start), min(b1, end if end is not None else b1)
                if hi > lo:
                    self._parts.append(block.samples[lo - b0:hi - b0])
            got = sum(len(p) for p in self._parts[self._counted:]) + self._got  # running total: O(1) a block
            self._got, self._counted = got, len(self._parts)
            if end is None and got >= self.max_samples:
                end = self._end = start + got
            if end is not None and b1 >= end:
                audio = np.concatenate(self._parts) if self._parts else np.zeros(0, np.float32)
                events.append(Utterance(audio, start, start + len(audio), "push-to-talk"))
                self._start = self._end = None
                self._parts = []
                self._got = self._counted = 0
        return events

    def flush(self) -> Utterance | None:
        """The device stopped: what was captured so far."""
        import numpy as np

        with self._lock:
            if self._start is None or not self._parts:
                self._start = self._end = None
                return None
            audio = np.concatenate(self._parts)
            u = Utterance(audio, self._start, self._start + len(audio), "device-lost")
            self._start = self._end = None
            self._parts = []
            self._got = self._counted = 0
            return u


class HandsFree:
    """Voice activity decides: wraps an Endpointer and reports its events as utterances."""

    def __init__(self, endpointer: Endpointer | None = None, *, silence_ms: int = 600):
        self.endpointer = endpointer or Endpointer(silence_ms=silence_ms)

    def feed(self, block) -> list:
        out = []
        for ev in self.endpointer.feed(block.samples, block.position):
            if isinstance(ev, UtteranceEnded):
                out.append(Utterance(ev.audio, ev.start, ev.end, ev.reason, ev.speech_start, ev.speech_end))
            else:
                out.append(ev)
        return out

    def flush(self) -> Utterance | None:
        ev = self.endpointer.flush()
        return Utterance(ev.audio, ev.start, ev.end, "device-lost") if ev else None


class VoiceInput:
    """Reads a Microphone on a thread and routes blocks to push-to-talk or hands-free.

    Callbacks run on the reading thread, so they must be quick (hand work to another thread)."""

    def __init__(
        self,
        mic,
        *,
        mode: str = "hands-free",
        silence_ms: int = 600,
        endpointer: Endpointer | None = None,
        on_speech_start: Callable[[int], None] | None = None,
        on_pause: Callable[[SpeechPaused], None] | None = None,
        on_resume: Callable[[int], None] | None = None,
        on_utterance: Callable[[Utterance], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        on_block: Callable[[Any], None] | None = None,
        echo: Any = None,
        on_notice: Callable[[str], None] | None = None,
        silent_notice_s: float = 5.0,
    ):
        if mode not in ("hands-free", "push-to-talk"):
            raise ValueError("mode must be hands-free or push-to-talk")
        self.mic = mic
        self.mode = mode
        self.hands_free = HandsFree(endpointer, silence_ms=silence_ms)
        self.ptt = PushToTalk(mic)
        self.on_speech_start = on_speech_start
        self.on_pause = on_pause
        self.on_resume = on_resume
        self.on_utterance = on_utterance
        self.on_error = on_error
        self.on_block = on_block
        self.echo = echo  # an echo.EchoCanceller: cancels the speaker and gates barge-in
        self.on_notice = on_notice
        self.silent_notice_s = silent_notice_s
        self.echo_rejected = 0  # speech starts that were the assistant's own voice
        self.echo_dropped = 0  # utterances that were its own voice from start to end
        self._barge_pending = False
        self._echo_only = False  # the current utterance began as echo and never showed the user
        self._raw_vad = None
        self._dt_fired = False
        self._user_over_echo_at: int | None = None  # where double talk last showed the user's voice
        self._silent_samples = 0
        self.error = ""
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # push-to-talk, from any thread (a key or button handler)
    def press(self, at: int | None = None) -> int:
        return self.ptt.press(at)

    def release(self, at: int | None = None) -> int | None:
        return self.ptt.release(at)

    def end_turn(self, start: int, end: int, after_ms: int = 0) -> None:
        """The turn paused at ``start..end`` is judged over: end it after ``after_ms`` of silence
        (hands-free only; from any thread)."""
        self.hands_free.endpointer.end_turn(start, end, after_ms)

    def start(self) -> "VoiceInput":
        self._stopping.clear()
        self.mic.start()
        self._thread = threading.Thread(target=self._run, name="voice-input", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stopping.set()
        self.mic.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """Still reading the microphone (False once stopped, or when the device went away)."""
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        source = self.hands_free if self.mode == "hands-free" else self.ptt
        try:
            for block in self.mic.blocks():
                if self._stopping.is_set():
                    break
                if self.echo is not None:
                    from .capture import Block

                    raw = block
                    block = Block(self.echo.process(block.samples, block.time), block.position, block.time)
                    self._double_talk(raw)
                if self.on_block is not None:
                    self.on_block(block)
                self._watch_silence(block)
                for ev in source.feed(block):
                    self._dispatch(ev)
                if self._barge_pending:
                    self._recheck_barge_in(block)
        except AudioDeviceError as e:
            self.error = str(e)
            rest = source.flush()  # nothing lost: what was heard before the device went away
            if rest is not None and len(rest.audio):
                self._dispatch(rest)
            self._report()
        except Exception as e:  # a bug in a callback must not silently end listening
            log.exception("voice input failed")
            self.error = f"voice input stopped: {type(e).__name__}: {e}"
            self._report()

    def _report(self) -> None:
        if self.on_error is not None:
            self.on_error(self.error)
        else:
            log.error("voice input stopped: %s", self.error)

    def _watch_silence(self, block) -> None:
        """Say once when the microphone has delivered nothing but digital silence for a while (a
        muted or disconnected input often looks like this), while listening goes on."""
        import numpy as np

        if self._silent_samples < 0:
            return
        if float(np.max(np.abs(block.samples), initial=0.0)) > 1e-4:
            self._silent_samples = -1  # it hears something: never say it
            return
        self._silent_samples += len(block.samples)
        if self._silent_samples >= self.silent_notice_s * SAMPLE_RATE:
            self._silent_samples = -1
            msg = (f"the microphone has delivered only silence for {self.silent_notice_s:.0f} s: is it muted, "
                   "or is another input device meant? (input_device in the settings)")
            if self.on_notice is not None:
                self.on_notice(msg)
            else:
                log.warning("%s", msg)

    def _double_talk(self, raw) -> None:
        """While the speaker plays: the user's voice over the echo (raw signal far louder than the
        echo explains, and Silero hears speech in it) is a barge-in, without waiting for the
        cancelled signal, which AEC3 holds back at the start of double talk."""
        if self.mode != "hands-free" or self.on_speech_start is None or not self.echo.far_active():
            self._dt_fired = False
            return
        if self._raw_vad is None:
            from .vad import SileroVad

            self._raw_vad = SileroVad()
        prob = self._raw_vad(raw.samples)
        if not self._dt_fired and prob >= 0.5 and self.echo.user_over_echo():
            self._dt_fired = True
            self._user_over_echo_at = raw.position
            self._barge_pending = self._echo_only = False
            log.debug("barge-in: the user over the echo; %s", self.echo.describe())
            self.on_speech_start(raw.position)

    def _recheck_barge_in(self, block) -> None:
        """Speech that started as echo: barge in once the user's own voice shows through."""
        ep = self.hands_free.endpointer
        if not ep.in_speech:
            self._barge_pending = False
        elif ep.last_prob >= ep.threshold and not self.echo.echo_explains_speech():
            self._barge_pending = self._echo_only = False
            log.debug("barge-in: speech that began as echo is the user now (vad %.2f); %s", ep.last_prob, self.echo.describe())
            if self.on_speech_start:
                self.on_speech_start(ep.speech_start)  # where the speech began, not where it was cleared

    def _user_shown_over_echo(self, position: int) -> bool:
        """Whether speech that starts at ``position`` is the voice the double-talk detector has just
        heard over the echo. AEC3 holds such a voice back, so the endpointer hears it start a few
        blocks after the detector did, while the echo still dominates the gate's window; judged
        again there, it was taken for echo and the user's words were dropped (a request
        going on after a pause over its first answer: the answer stopped, and what the user went on
        to say was lost)."""
        at = self._user_over_echo_at
        return at is not None and abs(position - at) <= USER_OVER_ECHO_S * SAMPLE_RATE

    def _dispatch(self, ev) -> None:
        if isinstance(ev, SpeechStarted):
            if (self.echo is not None and self.mode == "hands-free"
                    and not self._user_shown_over_echo(ev.position) and self.echo.echo_explains_speech()):
                self.echo_rejected += 1  # the assistant's own voice: no barge-in
                self._barge_pending = self._echo_only = True
                log.debug("speech start explained by echo: no barge-in")
                return
            self._echo_only = False
            if self.on_speech_start:
                log.debug("barge-in: speech began; %s", self.echo.describe() if self.echo is not None else "no echo canceller")
                self.on_speech_start(ev.position)
        elif isinstance(ev, SpeechPaused):
            if self.on_pause:
                self.on_pause(ev)
        elif isinstance(ev, SpeechResumed):
            if self.on_resume:
                self.on_resume(ev.position)
        elif isinstance(ev, Utterance):
            if self._echo_only and ev.reason not in ("flush", "device-lost"):
                # the gate heard only the assistant's own voice from its start to its end: not a
                # request (recognised, the echo's residue came back as "Thank you very much.")
                self._echo_only = False
                self.echo_dropped += 1
                log.debug("an utterance that was only the assistant's own voice: dropped")
                return
            if self.on_utterance:
                self.on_utterance(ev)


@dataclass
class Recognition:
    """The outcome of recognising one utterance."""

    text: str = ""
    error: str = ""  # set when nothing usable was recognised; the message to show
    empty: bool = False  # silence or noise only
    audio_path: Path | None = None  # the utterance as a WAV (always kept when a folder is set)
    transcript: Any = None
    speculative: bool = False  # the result came from recognition started at the pause
    seconds: float = 0.0  # wait from the end of the utterance to the text

    @property
    def ok(self) -> bool:
        return bool(self.text) and not self.error


class Recognizer:
    """Transcribes utterances on a worker thread, speculatively from the first pause."""

    def __init__(self, transcriber, *, keep_dir: Path | None = None, min_speech_s: float = 0.25,
                 beam_size: int | None = None):
        self.transcriber = transcriber
        self.beam_size = beam_size or LIVE_BEAM_SIZE
        self.keep_dir = Path(keep_dir) if keep_dir else None
        self.min_speech_s = min_speech_s
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="asr")
        self._spec: tuple[int, int, concurrent.futures.Future] | None = None
        self._lock = threading.Lock()

    def speculate(self, paused: SpeechPaused, on_result: Callable[[SpeechPaused, Any], None] | None = None) -> None:
        """Start recognising the utterance as it stands at a pause. ``on_result(paused,
        transcript or None)`` runs on the recognition thread when it is done (the turn detector
        judges the partial text there)."""
        fut = self._pool.submit(self._transcribe, paused.audio)
        with self._lock:
            if self._spec is not None:
                self._spec[2].cancel()
            self._spec = (paused.start, paused.end, fut)
        if on_result is not None:
            def done(f, paused=paused):
                if f.cancelled():
                    return
                try:
                    transcript = f.result()
                except Exception:  # nothing recognised yet: the silence decides
                    transcript = None
                try:
                    on_result(paused, transcript)
                except Exception:
                    log.exception("judging a partial transcript failed")

            fut.add_done_callback(done)

    def recognize(self, utt: Utterance) -> Recognition:
        """The text of an utterance (its audio is kept first, so a failure loses nothing)."""
        return self._recognize(utt, self._keep(utt))

    def retry(self, path: str | Path) -> Recognition:
        """Recognise a kept recording again (after a failure, or with another model)."""
        from ..media import MediaError, load_audio

        try:
            audio = load_audio(path)
        except MediaError as e:
            return Recognition(error=str(e), audio_path=Path(path))
        return self._recognize(Utterance(audio, -1, -1, "retry"), Path(path), live=False)

    def _recognize(self, utt: Utterance, path: Path | None, live: bool = True) -> Recognition:
        t0 = time.perf_counter()
        with self._lock:
            spec, self._spec = self._spec, None
        speculative = spec is not None and (spec[0], spec[1]) == (utt.start, utt.end) and not spec[2].cancelled()
        if utt.duration < self.min_speech_s:
            return Recognition(error="too short to be a request", empty=True, audio_path=path,
                               seconds=time.perf_counter() - t0)
        fut = spec[2] if speculative else self._pool.submit(self._transcribe, utt.audio, live)
        try:
            transcript = fut.result()
        except EmptyUtterance as e:
            return Recognition(error=str(e), empty=True, audio_path=path, seconds=time.perf_counter() - t0)
        except (VoiceError, RuntimeError, OSError, ValueError) as e:
            where = f" The recording is kept at {path}; retry with: jarvis ask --audio {path}" if path else ""
            return Recognition(error=f"speech recognition failed: {e}.{where}", audio_path=path,
                               seconds=time.perf_counter() - t0)
        return Recognition(text=transcript.text, audio_path=path, transcript=transcript, speculative=speculative,
                           seconds=time.perf_counter() - t0)

    def _transcribe(self, audio, live: bool = True):
        """A live turn: the narrow beam and the last word's probability (latency counts). A retry
        of a kept recording: the transcriber's own, wider beam (accuracy counts)."""
        if not live:
            return self.transcriber.transcribe(audio)
        return self.transcriber.transcribe(audio, beam_size=self.beam_size, last_word=True)

    def _keep(self, utt: Utterance) -> Path | None:
        if self.keep_dir is None or len(utt.audio) == 0:
            return None
        import soundfile as sf

        try:
            self.keep_dir.mkdir(parents=True, exist_ok=True)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = self.keep_dir / f"utterance-{stamp}-{utt.start}.wav"
            sf.write(str(path), utt.audio, SAMPLE_RATE, subtype="PCM_16")
            return path
        except OSError as e:
            log.warning("cannot keep the recording: %s", e)
            return None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
