"""``jarvis listen``: a hands-free conversation in the terminal.

The microphone is read on its own thread for the whole conversation, so the user can talk over
the assistant (barge-in) while an answer is still being written or spoken. Each utterance is
recognised (speculatively from the first pause), checked against what the assistant just said
(self-echo), and sent to ``assistant.ask``; the answer's tokens are printed and spoken sentence by
sentence as they stream.
"""

from __future__ import annotations

import functools
import inspect
import logging
import queue
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TextIO

from ..cancel import CancelToken
from .continuation import EndedTurn, TurnContinuation
from .errors import AudioDeviceError, VoiceError

log = logging.getLogger(__name__)

#: Silence after which the utterance so far is recognised and judged (end of turn by meaning).
#: Short on purpose: recognition takes about 0.3 s on a small CPU, so starting it two blocks into
#: a pause instead of five ends a finished turn about 0.1-0.2 s sooner; the turn still waits
#: TurnDetector.min_gap_ms of silence. A start that speech then overruns costs only CPU time. On
#: the held-out turns (bench/voice_latency.py --only 2) 64, 96 and 160 ms cut the same 6 of 30.
PAUSE_MS = 64
INTERRUPTED_NOTE = "(I interrupted your previous answer.)"
_GOODBYE = re.compile(r"^\W*(stop listening|goodbye|good bye|bye( bye)?|exit|quit)\W*$", re.I)


def listen_loop(
    assistant,
    settings,
    *,
    mic=None,
    player=None,
    transcriber=None,
    synthesizer=None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stop: threading.Event | None = None,
    max_turns: int | None = None,
    session_id: str | None = None,
    on_event: Callable[[Any], None] | None = None,
    on_speaker_event: Callable[[Any], None] | None = None,
    speak: bool | None = None,
) -> int:
    """Listen, answer, speak, until ``stop`` is set, the user says "goodbye", ``max_turns``
    requests were answered, or the microphone fails. Returns an exit status (0 ok, 1 device error).

    ``assistant.ask(text, files, on_event=...)`` must return an object with ``.answer``. The audio
    parts default to the configured devices and models; pass them to use others. ``on_event`` sees
    the pipeline's events, ``on_speaker_event`` the speaker's (SpeakerEvent)."""
    from .capture import Microphone
    from .echo import EchoCanceller, ReferenceTrack
    from .listener import Recognizer, VoiceInput
    from .playback import Player
    from .speaker import StreamingSpeaker
    from .tts import Synthesizer
    from .turn import TurnDetector, TurnTaker
    from .vad import Endpointer

    out = out or sys.stdout
    err = err or sys.stderr
    stop = stop or threading.Event()
    speak = settings.tts if speak is None else speak

    def note(msg: str) -> None:
        print(msg, file=err, flush=True)

    if mic is None:  # no microphone: say so before spending seconds loading models
        from .capture import find_device

        try:
            find_device(settings.input_device, "input")
        except AudioDeviceError as e:
            note(f"jarvis: {e}")
            return 1
    if transcriber is None:
        from .asr import Transcriber

        transcriber = Transcriber(settings)
    note("jarvis: loading speech models...")
    try:
        transcriber.load()
    except VoiceError as e:
        note(f"jarvis: {e}")
        return 1
    speaker = None
    echo = None
    if speak:
        synthesizer = synthesizer or Synthesizer.from_settings(settings, volume=1.0)
        try:
            synthesizer.load()
            synthesizer.synthesize("Ready.")  # warm: the first answer's first sentence is not slower
        except VoiceError as e:
            note(f"jarvis: {e}; answers will be spoken with espeak-ng")
        reference = ReferenceTrack()
        player = player or Player(settings.output_device, volume=settings.volume)  # volume applied here only
        if getattr(player, "reference", False) is None:
            player.reference = reference  # what is played is cancelled from the microphone
            echo = EchoCanceller(reference)
        speaker = StreamingSpeaker(synthesizer, player, on_event=on_speaker_event)
    detector = TurnDetector(max_wait_ms=settings.silence_ms)
    detector.load()

    inbox: queue.Queue = queue.Queue()
    recognizer = Recognizer(transcriber, keep_dir=Path(settings.data_path) / "recordings")
    continuation = TurnContinuation(settings.silence_ms)

    def on_speech_start(pos: int) -> None:
        if continuation.speech_started(pos) is not None:
            # most likely the same request going on after a pause: hold its answer now (the
            # request itself is cancelled by the loop below)
            if speaker is not None:
                speaker.interrupt()
            return
        if speaker is not None and speaker.speaking and speaker.interrupt():
            note("jarvis: (interrupted)")

    mic = mic or Microphone(settings.input_device)
    turns_by_meaning = TurnTaker(recognizer, detector, lambda s, e, ms: vin.end_turn(s, e, ms))
    vin = VoiceInput(
        mic,
        mode="hands-free",
        endpointer=Endpointer(silence_ms=settings.silence_ms, tail_ms=PAUSE_MS),
        on_speech_start=on_speech_start,
        on_pause=turns_by_meaning.on_pause,
        on_utterance=lambda u: inbox.put(("utterance", continuation.ended(u))),
        on_error=lambda m: inbox.put(("error", m)),
        on_notice=lambda m: inbox.put(("notice", m)),
        echo=echo,
    )
    try:
        vin.start()
    except AudioDeviceError as e:
        note(f"jarvis: {e}")
        return 1
    note("jarvis: listening. Speak a request; say \"goodbye\" to stop. Ctrl+C quits.")
    params = inspect.signature(assistant.ask).parameters
    takes_interrupted, takes_cancel = "interrupted" in params, "cancel" in params
    turns = 0
    status = 0
    last: _Request | None = None  # the latest request sent (a continuation joins it)

    def settle(req: _Request) -> None:
        """Wait for ``req``'s answer to end, then log its recording and count the turn."""
        nonlocal session_id, turns
        if req.settled:
            return
        req.thread.join()
        req.settled = True
        session_id = getattr(req.result, "session_id", None) or session_id  # one conversation, one session
        _link_recording(assistant, req.result, req.rec)
        turns += not req.cancel.cancelled

    try:
        while not stop.is_set():
            if last is not None and not last.settled:
                if continuation.continued(last.turn.seq):  # the user went on: this request is not whole
                    last.cancel.cancel()
                elif not last.thread.is_alive():
                    settle(last)
                    if max_turns is not None and turns >= max_turns:
                        break
            try:
                kind, item = inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            if kind == "notice":
                note(f"jarvis: {item}")
                continue
            if kind == "error":
                note(f"jarvis: {item}")
                status = 1
                if not getattr(mic, "active", False):
                    break
                continue
            utterance = item.utterance
            if last is not None and continuation.take(last.turn.seq):
                # the user went on after the turn was judged complete: one request of both parts
                last.cancel.cancel()
                if speaker is not None:
                    speaker.interrupt()
                settle(last)
                if speaker is not None:
                    speaker.consume_interrupted()  # not an interruption: the request went on
                utterance = continuation.join(last.turn.utterance, utterance)
                note("jarvis: (you went on: both parts are one request)")
            elif last is not None:
                settle(last)  # one request at a time, in the order they were spoken
            rec = recognizer.recognize(utterance)
            if rec.empty:
                note("jarvis: (no speech heard)")
                continue
            if not rec.ok:
                note(f"jarvis: {rec.error}")
                continue
            text = rec.text.strip()
            if speaker is not None and speaker.echo.is_echo(text):
                note(f"jarvis: (ignored my own voice: \"{text}\")")
                continue
            print(f"You: {text}", file=out, flush=True)
            if _GOODBYE.match(text):
                break
            interrupted = speaker.consume_interrupted() if speaker is not None else False
            req = _Request(EndedTurn(item.seq, utterance), rec, CancelToken())
            if continuation.continued(item.seq):  # the user went on before the request began
                req.cancel.cancel()
            req.start(functools.partial(_ask, assistant, text, speaker, out, on_event, session_id, interrupted,
                                        takes_interrupted, req.cancel, takes_cancel))
            last = req
    except KeyboardInterrupt:
        pass
    finally:
        vin.stop()
        if last is not None and not last.settled:
            if stop.is_set():
                last.cancel.cancel()
            settle(last)
        recognizer.close()
        if speaker is not None:
            if not stop.is_set():
                speaker.wait(timeout=60)
            speaker.close()
    return status


@dataclass
class _Request:
    """One request sent to the assistant, answered on its own thread so the microphone loop can
    still hear the user go on (and stop the answer when they do)."""

    turn: EndedTurn  # the utterance it was heard from (joined with what followed, if it went on)
    rec: Any  # listener.Recognition
    cancel: CancelToken
    thread: Any = None
    result: Any = None
    settled: bool = False  # its recording is linked and the turn counted

    def start(self, ask: Callable[[], Any]) -> None:
        self.thread = threading.Thread(target=self._run, args=(ask,), name="jarvis-request", daemon=True)
        self.thread.start()

    def _run(self, ask: Callable[[], Any]) -> None:
        try:
            self.result = ask()
        except Exception:
            log.exception("request failed")


def _link_recording(assistant, result, rec) -> None:
    """Note the utterance's WAV in the session log, beside the request it became."""
    store = getattr(assistant, "store", None)
    sid = getattr(result, "session_id", "")
    if store is None or not sid or rec.audio_path is None or not hasattr(store, "add_recording"):
        return
    try:
        store.add_recording(sid, str(rec.audio_path), request_id=getattr(result, "request_id", ""),
                            text=rec.text, seconds=getattr(rec.transcript, "duration", 0.0) or 0.0)
    except Exception:  # the conversation goes on; the file itself is kept either way
        log.exception("cannot link the recording to the session")


def _retune(speaker, changes: dict[str, Any]) -> None:
    """A request changed the voice ("speak slower"): its own answer is already spoken the new way."""
    if "speech_rate" in changes and hasattr(speaker.synthesizer, "rate"):
        speaker.synthesizer.rate = changes["speech_rate"]
    if "volume" in changes and hasattr(speaker.player, "volume"):
        speaker.player.volume = changes["volume"]


def _ask(assistant, text, speaker, out, on_event, session_id, interrupted: bool, takes_interrupted: bool,
         cancel: CancelToken | None = None, takes_cancel: bool = False):
    """Send one request and stream its answer to ``out`` and the speaker. Once ``cancel`` is set
    the answer is not wanted: it is not spoken, and the assistant stops (when it takes one)."""
    streamed = []
    stopped = cancel or CancelToken()

    settings = getattr(assistant, "settings", None)

    def listen(e) -> None:
        kind = type(e).__name__
        if kind == "SettingsChanged" and speaker is not None:
            _retune(speaker, e.changes)
        elif kind == "SettingsChanged" and e.changes.get("tts"):
            out.write("(this conversation started without a voice: answers are spoken from the next `jarvis listen`) ")
        if kind == "AnswerToken":
            streamed.append(e.text)
            out.write(e.text)
            out.flush()
            if speaker is not None and not stopped.cancelled and getattr(settings, "tts", True):
                speaker.feed(e.text)
        if on_event is not None:
            on_event(e)

    if stopped.cancelled:
        return None
    if speaker is not None:
        speaker.begin()
        if stopped.cancelled:  # stopped while it began: keep it quiet
            speaker.interrupt()
    request = text
    kw: dict[str, Any] = {"on_event": listen}
    if session_id:
        kw["session_id"] = session_id
    if takes_cancel:
        kw["cancel"] = stopped
    if interrupted:
        if takes_interrupted:
            kw["interrupted"] = True
        else:
            request = f"{INTERRUPTED_NOTE} {text}"
    out.write("Jarvis: ")
    out.flush()
    try:
        result = assistant.ask(request, [], **kw)
    except Exception as e:  # the conversation goes on after a failed request
        log.exception("request failed")
        print(f"\njarvis: the request failed: {e}", file=out, flush=True)
        return None
    answer = getattr(result, "answer", "") or ""
    if not streamed and not stopped.cancelled:
        out.write(answer)
    out.write("\n")
    out.flush()
    if speaker is not None and not stopped.cancelled:
        if streamed:
            speaker.finish()
        elif answer:
            speaker.say(answer)
    return result
