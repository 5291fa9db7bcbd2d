"""A thin adapter between the window and the voice package (capture, VAD, ASR, TTS, playback).

The voice layer may be missing pieces, or the machine may have no sound card. Every import and
device call happens here, behind try/except, so the window only learns "available or not, and
why" (the mic button is disabled with that reason as its tooltip) and never crashes because of
sound. Capture, recognition and synthesis run on worker threads; results come back as signals.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from .workers import run_job

log = logging.getLogger(__name__)


def check_voice(settings: Any) -> tuple[bool, str]:
    """(True, "") when speech input can work here; else (False, a reason for the user). Slow-ish
    (imports sounddevice and lists devices): call it on a worker thread."""
    try:
        from ..voice import asr, capture  # noqa: F401
        from ..voice.capture import find_device
        from ..voice.errors import VoiceError
    except ImportError as e:
        return False, f"Speech input is not installed ({e.name or e})."
    try:
        find_device(settings.input_device, "input")
    except VoiceError as e:
        return False, f"Speech input is unavailable: {e}"
    except Exception as e:  # PortAudio oddities
        return False, f"Speech input is unavailable: {e}"
    try:
        asr.Transcriber(settings).resolved  # noqa: B018 - resolving the model raises when it is missing
    except Exception as e:
        return False, f"No speech recognition model: {e}"
    return True, ""


def check_speaker(settings: Any) -> str:
    """"" when spoken answers can be played here; else the reason. Call it on a worker thread."""
    try:
        from ..voice.capture import find_device
        from ..voice.errors import VoiceError
        from ..voice.speaker import EventSpeaker  # noqa: F401
    except ImportError as e:
        return f"Spoken answers are not installed ({e.name or e})."
    try:
        find_device(settings.output_device, "output")
    except VoiceError as e:
        return f"Spoken answers are off: {e}"
    except Exception as e:
        return f"Spoken answers are off: {e}"
    return ""


class VoiceBridge(QObject):
    """Microphone (push-to-talk and hands-free), spoken answers, and playing audio files."""

    availability = Signal(bool, str)
    level = Signal(float)
    listening_changed = Signal(bool)
    transcribing = Signal(bool)
    transcribed = Signal(str)
    #: hands-free: the user went on talking soon after a turn that was judged finished (the
    #: request sent for it is not whole: stop it), then the whole request, both parts as one
    went_on = Signal()
    continued = Signal(str)
    voice_error = Signal(str)
    speaking_changed = Signal(bool)
    playback_state = Signal(str, bool, str)  # path, playing, error

    def __init__(self, settings: Any, parent: QObject | None = None):
        super().__init__(parent)
        self.settings = settings
        self.available: bool | None = None  # None: not checked yet
        self.reason = "Checking the microphone…"
        self.mode = ""  # "" | push | hands-free
        self._stop = threading.Event()
        self._transcriber: Any = None
        self._speaker: Any = None
        self._speaker_lock = threading.Lock()
        self._reference: Any = None  # echo.ReferenceTrack, shared by the speaker and hands-free
        self._echo: Any = None  # echo.EchoCanceller: what it learned of the room outlives a hands-free session
        self._player: Any = None
        self._playing_path = ""
        self._closed = False
        self._last_turn: Any = None  # continuation.EndedTurn: the last hands-free request heard
        #: sounddevice.InputStream / OutputStream unless a test stands in for a sound card
        self.stream_factory: Callable[..., Any] | None = None
        self.output_stream_factory: Callable[..., Any] | None = None
        self.speech_out: str | None = None  # None: not checked; "": works; else why not
        self._last_error = ""

    # -- availability -------------------------------------------------------------------------
    def check(self) -> None:
        settings = self.settings

        def work() -> tuple[tuple[bool, str], str]:
            return check_voice(settings), check_speaker(settings)

        def checked(result: tuple[tuple[bool, str], str]) -> None:
            self.speech_out = result[1]
            self.set_availability(result[0])

        run_job(work, checked, lambda m: self.set_availability((False, m)), name="voice-check", context=self)

    def set_availability(self, result: tuple[bool, str]) -> None:
        self.available, self.reason = result
        self.availability.emit(self.available, self.reason)

    # -- listening ----------------------------------------------------------------------------
    @property
    def listening(self) -> bool:
        return bool(self.mode)

    def start_listening(self, mode: str = "push") -> bool:
        """Open the microphone. ``push``: record until ``stop_listening``; ``hands-free``: every
        utterance (ended by silence) becomes a request until stopped."""
        if self.listening or not self.available or self._closed:
            return False
        self.mode = mode
        self._stop.clear()
        self.listening_changed.emit(True)
        run_job(self._capture, lambda _r: self._ended(), self._capture_failed, name="capture", context=self)
        return True

    def stop_listening(self) -> None:
        """Push-to-talk released (or hands-free switched off): the recording so far is transcribed."""
        self._stop.set()

    def _ended(self) -> None:
        self.mode = ""
        self.level.emit(0.0)
        self.listening_changed.emit(False)

    def _capture_failed(self, message: str) -> None:
        self._ended()
        self.voice_error.emit(message)

    def _asr(self) -> Any:
        if self._transcriber is None:
            from ..voice.asr import Transcriber

            self._transcriber = Transcriber(self.settings)
        return self._transcriber

    def _capture(self) -> None:
        """Worker thread: read blocks until stopped; transcribe what was said."""
        import numpy as np

        from ..voice.capture import Microphone
        from ..voice.errors import EmptyUtterance

        mic = Microphone(self.settings.input_device, on_level=self.level.emit, stream_factory=self.stream_factory)
        if self.mode == "hands-free":
            self._capture_hands_free(mic)
            return
        blocks: list[Any] = []
        with mic:
            while not self._stop.is_set():
                try:
                    block = mic.read(timeout=0.1)
                except TimeoutError:
                    continue
                if block is None:
                    break
                blocks.append(block.samples)
        if blocks:
            self._transcribe(np.concatenate(blocks), EmptyUtterance, quiet=False)

    def _capture_hands_free(self, mic: Any) -> None:
        """Hands-free, as in ``jarvis listen``: the assistant's own voice is cancelled from the
        microphone (WebRTC AEC3 against what the speaker plays) and a speech start the echo
        explains does not interrupt the answer; the turn ends when what was said is finished
        (silence_ms is only the upper bound)."""
        from ..voice.continuation import TurnContinuation
        from ..voice.conversation import PAUSE_MS
        from ..voice.errors import AudioDeviceError
        from ..voice.listener import Recognizer, VoiceInput
        from ..voice.turn import TurnDetector, TurnTaker
        from ..voice.vad import Endpointer

        endpointer = Endpointer(silence_ms=self.settings.silence_ms, tail_ms=PAUSE_MS)
        detector = TurnDetector(max_wait_ms=self.settings.silence_ms)
        detector.load()  # the parser loads now, not during the user's first pause
        recognizer = Recognizer(self._asr())
        taker = TurnTaker(recognizer, detector, endpointer.end_turn)
        continuation = TurnContinuation(self.settings.silence_ms)
        self._last_turn = None

        def barge_in(position: int) -> None:
            if continuation.speech_started(position) is not None:
                log.debug("the user went on after a pause (microphone sample %d): the request is not whole", position)
                self.stop_speaking()
                self.went_on.emit()
                return
            if self.speaking:
                log.debug("the user talks over the answer (microphone sample %d): stop speaking", position)
                self.stop_speaking()

        vin = VoiceInput(
            mic, mode="hands-free", endpointer=endpointer, on_speech_start=barge_in, on_pause=taker.on_pause,
            on_utterance=lambda u: self._recognized(recognizer, u, continuation), on_error=lambda _m: None,
            on_notice=lambda m: self.voice_error.emit(m[:1].upper() + m[1:]),
            echo=self.echo_canceller(),
        )
        vin.start()
        try:
            while not self._stop.wait(0.1) and vin.running:
                pass
        finally:
            vin.stop()
            if not vin.error:  # switched off: what was said so far still counts (a lost device flushed it)
                rest = vin.hands_free.flush()
                if rest is not None and len(rest.audio):
                    self._recognized(recognizer, rest)
            recognizer.close()
        if vin.error:
            raise AudioDeviceError(vin.error)

    def echo_canceller(self) -> Any:
        """The hands-free microphone's echo canceller, kept until the settings (perhaps the sound
        devices) change: switching hands-free off and on again does not start its learning over
        (it mutes the start of the next answer while it learns, a user talking over it included)."""
        from ..voice.echo import EchoCanceller

        if self._echo is None:
            self._echo = EchoCanceller(self.echo_reference())
        else:
            self._echo.resume()
        return self._echo

    def echo_reference(self) -> Any:
        """What the speaker plays, for the echo canceller (one track for the bridge's lifetime)."""
        if self._reference is None:
            from ..voice.echo import ReferenceTrack

            self._reference = ReferenceTrack()
        return self._reference

    def _transcribe(self, audio: Any, empty: type, quiet: bool) -> None:
        if self._closed:  # the window is closing: nobody is waiting for these words
            return
        self.transcribing.emit(True)
        try:
            text = self._asr().transcribe(audio).text
        except empty as e:
            if not quiet:
                self.voice_error.emit(f"I did not hear anything ({e}).")
            return
        except Exception as e:
            self.voice_error.emit(f"Speech recognition failed: {e}")
            return
        finally:
            self.transcribing.emit(False)
        self._heard(text)

    def _recognized(self, recognizer: Any, ended: Any, continuation: Any = None) -> None:
        """Hands-free (on the microphone thread): the recognition started at the last pause is
        reused when it covers the same audio (recognising the utterance again would only make the
        reply later). Speech that went on after a turn judged finished is recognised together with
        that turn, as one request."""
        from ..voice.continuation import EndedTurn

        if self._closed:
            return
        utterance, joined = ended, False
        turn = continuation.ended(ended) if continuation is not None else None
        first = self._last_turn
        if turn is not None and first is not None and continuation.take(first.seq):
            utterance, joined = continuation.join(first.utterance, ended), True
        self.transcribing.emit(True)
        try:
            rec = recognizer.recognize(utterance)
        finally:
            self.transcribing.emit(False)
        if rec.error:
            if not rec.empty:  # silence and noise stay quiet in hands-free mode
                self.voice_error.emit(rec.error[:1].upper() + rec.error[1:])
            return
        if turn is not None:
            self._last_turn = EndedTurn(turn.seq, utterance)
        if joined:
            log.debug("the request went on: %r", rec.text)
            self.continued.emit(rec.text)
        else:
            self._heard(rec.text)

    def _heard(self, text: str) -> None:
        speaker = self._speaker
        if speaker is not None and speaker.echo.is_echo(text):
            log.info("ignored my own voice: %r", text)
            return
        log.debug("heard %r%s", text, " while speaking" if self.speaking else "")
        self.transcribed.emit(text)

    # -- speaking answers ---------------------------------------------------------------------
    def answer_listener(self) -> Callable[[Any], None] | None:
        """A pipeline listener that speaks the answer as it streams (None when TTS is off).
        Runs on the request's worker thread; the speaker is built there on first use."""
        if not self.settings.tts or self._closed:
            return None
        if self.speech_out and self.output_stream_factory is None:
            return None  # no speaker here: do not synthesise speech nobody can hear

        def listen(event: Any) -> None:
            kind = type(event).__name__
            if kind == "SettingsChanged":  # "speak slower": this very answer is spoken the new way
                self._drop_speaker()
            if kind not in ("RequestStarted", "AnswerToken", "AnswerDone") or not self.settings.tts:
                return
            speaker = self._get_speaker()
            if speaker is not None:
                speaker.on_event(event)

        return listen

    def _get_speaker(self) -> Any:
        with self._speaker_lock:
            if self._speaker is None and not self._closed:
                try:
                    from ..voice.playback import Player
                    from ..voice.speaker import EventSpeaker

                    player = Player(self.settings.output_device, volume=self.settings.volume,
                                    stream_factory=self.output_stream_factory, reference=self.echo_reference())
                    self._speaker = EventSpeaker(self.settings, player=player, on_event=self._speaker_event)
                except Exception as e:
                    log.warning("spoken answers unavailable: %s", e)
                    self.voice_error.emit(f"Spoken answers are unavailable: {e}")
                    self.speech_out = str(e) or type(e).__name__
            return self._speaker

    def _speaker_event(self, e: Any) -> None:
        if e.kind == "playing":
            self.speaking_changed.emit(True)
        elif e.kind == "idle":
            self.speaking_changed.emit(False)
        elif e.kind == "failed" and self._speaker is not None and self._speaker.error:
            if self._speaker.error != self._last_error:  # once, not for every sentence
                self._last_error = self._speaker.error
                self.voice_error.emit(f"Cannot speak the answer: {self._speaker.error}")

    @property
    def speaking(self) -> bool:
        s = self._speaker
        return bool(s is not None and s.speaking)

    def stop_speaking(self) -> bool:
        s = self._speaker
        return bool(s.interrupt()) if s is not None else False

    # -- playing audio files ------------------------------------------------------------------
    def unavailable_reason(self) -> str:
        return ""

    def is_playing(self, path: str) -> bool:
        return self._playing_path == path

    def play(self, path: str, on_state: Callable[..., None] | None = None) -> None:
        """Play a sound file on the output device; ``on_state(playing, error)`` on the GUI thread."""
        self.stop()
        self._playing_path = path
        if on_state:
            on_state(True)

        def work() -> None:
            import soundfile as sf

            from ..voice.playback import Player

            samples, rate = sf.read(path, dtype="float32", always_2d=True)
            if self._player is None:
                self._player = Player(self.settings.output_device, volume=self.settings.volume,
                                      stream_factory=self.output_stream_factory)
            self._player.play(samples.mean(axis=1), rate)

        def finished(error: str = "") -> None:
            if self._playing_path == path:
                self._playing_path = ""
            if on_state:
                on_state(False, error)
            if error:
                self.voice_error.emit(f"Cannot play {path.rsplit('/', 1)[-1]}: {error}")

        run_job(work, lambda _r: finished(), finished, name="play", context=self)

    def stop(self) -> None:
        """Stop a playing file (not the spoken answer: see ``stop_speaking``)."""
        if self._player is not None:
            self._player.stop()

    def update_settings(self, settings: Any) -> None:
        """New settings: the next answer is spoken (and the next recording heard) with them."""
        self.settings = settings
        self._transcriber = None
        self._echo = None  # the devices may have changed: the room is learned again
        if self._player is not None:
            self._player.close()
        self._player = None
        self._drop_speaker()
        self.check()

    def _drop_speaker(self) -> None:
        """The next answer builds its speaker again, with the settings as they are then."""
        with self._speaker_lock:
            s, self._speaker = self._speaker, None
        if s is not None:
            s.close()

    # -- shutdown -----------------------------------------------------------------------------
    def close(self) -> None:
        """Stop everything; the speaker's threads end (the window joins the worker threads)."""
        self._closed = True
        self._stop.set()
        self.stop()
        if self._player is not None:
            self._player.close()  # its output stream stays open between files until now
        with self._speaker_lock:
            s, self._speaker = self._speaker, None
        if s is not None:
            s.close()
            for t in getattr(s, "_threads", []):
                t.join(2.0)
