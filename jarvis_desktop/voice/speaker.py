"""Speaking an answer while it is still being written.

Tokens from the response stage go into a ``SentenceSplitter``; each complete sentence is queued for
synthesis on one thread and played on another, so sentence 2 is synthesised while sentence 1 plays
and the first sentence is heard long before the answer is complete. ``interrupt()`` (barge-in)
stops playback at once and drops every pending sentence, including those of the rest of the
answer still streaming in. ``EchoGuard`` remembers what was spoken so a microphone that hears the
speaker does not turn the assistant's own words into a new request.
"""

from __future__ import annotations

import difflib
import logging
import queue
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

log = logging.getLogger(__name__)

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "eg", "ie", "fig",
    "no", "approx", "inc", "ltd", "co", "u.s", "a.m", "p.m", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec",
}
_END = re.compile(r"([.!?…]+[\"')\]]*)(\s+)")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.\- ]+)+[\\/]([\w.\-]+\.\w{1,5})")
_URL = re.compile(r"https?://\S+")
#: A shell command in an answer ("jarvis models pull org/name"): shown on screen, too long to hear.
_COMMAND = re.compile(r"`?\bjarvis (?:models|sessions) \w+(?: (?!\s)[^\s,;`]*[^\s.,;`])*`?")
#: Words that open a phrase (prepositions, conjunctions, articles): a first piece can end before
#: one of them and still sound whole.
_LEAD = re.compile(r"\s(?:on|in|at|with|and|but|for|to|from|by|as|that|which|while|because|or|into|"
                   r"about|after|before|using|so|of|a|an|the|this|these|those|my|your|its|their|our)\s", re.I)


def speakable(text: str) -> str:
    """What a text should sound like: markdown marks removed, file paths reduced to the file's
    name, links named rather than spelled out, and commands (such as the pull command of a missing
    model) pointed to on screen rather than read out."""
    t = _COMMAND.sub("the command shown on screen", text)
    t = _URL.sub("a link", t)
    t = _PATH.sub(lambda m: m.group(1), t)
    t = re.sub(r"```.*?```", " ", t, flags=re.S)
    t = re.sub(r"[*_`#>|]+", " ", t)
    t = re.sub(r"^\s*(?:[-•]|\d+[.)])\s+", "", t, flags=re.M)
    return re.sub(r"\s+", " ", t).strip()


def trim_trailing_silence(samples, rate: int, keep_ms: int = 40, floor: float = 0.01):
    """``samples`` without the silence a voice puts after a phrase, but ``keep_ms`` of it: a piece
    cut mid-sentence then flows into the next one like words within a sentence (piper ends every
    piece as if it were a sentence, with about 150-200 ms of silence)."""
    import numpy as np

    loud = np.flatnonzero(np.abs(samples) > floor)
    if len(loud) == 0:
        return samples
    return samples[: min(len(samples), int(loud[-1]) + 1 + rate * keep_ms // 1000)]


class SentenceSplitter:
    """Cuts a token stream into sentences as soon as each one is certainly complete: an end mark
    followed by white space (so '3.14' and 'e.g. this' stay whole), or a line break."""

    def __init__(self, max_chars: int = 240, quick_first: bool = True):
        self.max_chars = max_chars
        # The first piece is what the user waits for: cut it at its first clause break (a comma
        # after a few words) so its synthesis is short; later pieces are whole sentences.
        self.quick_first = quick_first
        self._buf = ""

    def feed(self, token: str) -> list[str]:
        self._buf += token
        out: list[str] = []
        while True:
            cut = self._find_cut()
            if cut is None:
                break
            sentence, self._buf = self._buf[:cut], self._buf[cut:]
            if sentence.strip():
                out.append(sentence.strip())
                self.quick_first = False
        return out

    def flush(self) -> list[str]:
        rest, self._buf = self._buf.strip(), ""
        return [rest] if rest else []

    def _find_cut(self) -> int | None:
        buf = self._buf
        end = self._sentence_end(buf)
        if self.quick_first:
            lead = self._lead_cut(buf, end)
            if lead is not None:
                return lead
        if end is not None:
            return end
        if len(buf) > self.max_chars:  # a run-on sentence: cut at the last comma or space
            at = max(buf.rfind(", ", 0, self.max_chars), buf.rfind("; ", 0, self.max_chars))
            if at <= 0:
                at = buf.rfind(" ", 0, self.max_chars)
            return at + 1 if at > 0 else self.max_chars
        return None

    @staticmethod
    def _sentence_end(buf: str) -> int | None:
        """Where the first complete sentence (or line) ends, or None."""
        nl = buf.find("\n")
        for m in _END.finditer(buf):
            if nl != -1 and nl < m.start():
                break
            word = re.findall(r"[\w.]+$", buf[: m.start(1) + 1].rstrip(".!?…\"')]"))
            prev = word[0].lower() if word else ""
            if m.group(1) == "." and (prev in _ABBREVIATIONS or len(prev) == 1 and prev.isalpha()):
                continue  # "Dr. Smith", "J. Doe"
            return m.end()
        return nl + 1 if nl != -1 else None

    @staticmethod
    def _lead_cut(buf: str, end: int | None) -> int | None:
        """The first piece is what the user waits for, and synthesis time follows its length: end
        it early, even inside a finished first sentence. At its first clause break (a comma after
        a few words) when there is one, else before the first phrase word or article after three
        words; the rest of the sentence follows on the same stream. A sentence too short to
        leave two words after the cut stays whole."""
        limit = len(buf) if end is None else end
        sentence = buf[:limit]

        def enough_left(at: int) -> bool:
            return end is None or len(re.findall(r"\w+", sentence[at:])) >= 2

        m = re.search(r"[,;:]\s", sentence[24:])
        if m and enough_left(24 + m.end()):
            return 24 + m.end()
        for m in re.finditer(r"\s(?=\S)", sentence):
            before = sentence[: m.start()].split()
            if len(before) >= 3 and _LEAD.match(sentence, m.start()) and not _LEAD.match(f" {before[-1]} "):
                return m.start() + 1 if enough_left(m.start() + 1) else None  # not "of | the"
        return None


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


@dataclass
class EchoGuard:
    """Remembers what the assistant said; ``is_echo`` says whether a transcript is (mostly) that."""

    window_s: float = 20.0
    min_overlap: float = 0.7
    _spoken: list[tuple[float, list[str]]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def said(self, text: str, at: float | None = None) -> None:
        with self._lock:
            self._spoken.append((time.monotonic() if at is None else at, _words(text)))

    def is_echo(self, transcript: str, now: float | None = None) -> bool:
        heard = _words(transcript)
        if not heard:
            return False
        now = time.monotonic() if now is None else now
        with self._lock:
            self._spoken = [(t, w) for t, w in self._spoken if now - t <= self.window_s]
            recent = [w for _, w in self._spoken]
        said = [w for ws in recent for w in ws]
        if not said:
            return False
        m = difflib.SequenceMatcher(a=heard, b=said, autojunk=False)
        matched = sum(b.size for b in m.get_matching_blocks())
        return matched / len(heard) >= self.min_overlap


@dataclass
class SpeakerEvent:
    kind: str  # queued | synthesized | playing | played | stopped | dropped | failed | idle
    index: int  # sentence number within the answer (0-based); -1 for idle
    text: str
    answer: int  # which answer (increases with begin())


class StreamingSpeaker:
    """feed(token)... finish() speaks an answer sentence by sentence as it streams.

    ``synthesize(text) -> (samples, rate)`` and ``play(samples, rate, on_start, should_stop) -> bool``
    / ``stop()`` come from a Synthesizer and a Player; ``on_event`` sees every SpeakerEvent (on the
    speaker's threads), which is how the UI and tests follow what is happening."""

    def __init__(self, synthesizer, player, *, on_event: Callable[[SpeakerEvent], None] | None = None,
                 echo: EchoGuard | None = None):
        self.synthesizer = synthesizer
        self.player = player
        self._listener = on_event
        self.echo = echo or EchoGuard()
        self.events: list[SpeakerEvent] = []
        self.error = ""
        self._splitter = SentenceSplitter()
        self._gen = 0  # bumped by begin() and interrupt(): older work is dropped
        self._answer = 0
        self._index = 0
        self._finished = False
        self._muted = False  # after a barge-in, the rest of that answer is not spoken
        self.interrupted = False  # the last answer was cut off by the user
        self._text_q: queue.Queue = queue.Queue()
        self._audio_q: queue.Queue = queue.Queue(maxsize=2)  # synthesise at most 2 ahead
        self._pending = 0
        self._cond = threading.Condition()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._synth_loop, name="speaker-synth", daemon=True),
            threading.Thread(target=self._play_loop, name="speaker-play", daemon=True),
        ]
        for t in self._threads:
            t.start()

    # --- feeding ------------------------------------------------------------------------------
    def begin(self) -> None:
        """Start a new answer (implicit on the first feed after finish(); after interrupt() the
        rest of the interrupted answer is ignored until begin())."""
        with self._cond:
            self._finished = False
            self._answer += 1
            self._index = 0
            self._muted = False
            self._splitter = SentenceSplitter()

    def feed(self, token: str) -> None:
        if self._finished:
            self.begin()
        if self._muted:
            return
        for s in self._splitter.feed(token):
            self._enqueue(s)

    def finish(self) -> None:
        """The answer is complete: speak what is left in the splitter."""
        if not self._muted:
            for s in self._splitter.flush():
                self._enqueue(s)
        self._splitter = SentenceSplitter()
        self._finished = True

    def say(self, text: str) -> None:
        """Speak a whole text (split into sentences)."""
        self.begin()
        self.feed(text)
        self.finish()

    def _enqueue(self, sentence: str) -> None:
        text = speakable(sentence)
        if not re.search(r"\w", text):
            return
        with self._cond:
            idx, gen, ans = self._index, self._gen, self._answer
            self._index += 1
            self._pending += 1
        self._emit("queued", idx, text, ans)
        self._text_q.put((gen, ans, idx, text))

    # --- barge-in ----------------------------------------------------------------------------
    def interrupt(self) -> bool:
        """Stop speaking now and drop every pending sentence of this answer. True when something
        was being spoken or waiting to be."""
        with self._cond:
            busy = self._pending > 0
            self._gen += 1
            self._muted = True
            if busy:
                self.interrupted = True
        self.player.stop()
        self._splitter = SentenceSplitter()
        return busy

    def consume_interrupted(self) -> bool:
        """Whether the last answer was interrupted (and forget it): the next request notes it."""
        with self._cond:
            was, self.interrupted = self.interrupted, False
        return was

    @property
    def speaking(self) -> bool:
        with self._cond:
            return self._pending > 0

    def wait(self, timeout: float | None = None) -> bool:
        """Block until everything queued has been spoken (or dropped). False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        self.interrupt()
        self._closed = True
        self._text_q.put(None)
        if hasattr(self.player, "close"):
            self.player.close()

    # --- threads ------------------------------------------------------------------------------
    def _done_one(self) -> None:
        with self._cond:
            self._pending -= 1
            if self._pending == 0:
                self._cond.notify_all()
                idle = True
            else:
                idle = False
        if idle:
            self._emit("idle", -1, "", self._answer)

    def _synth_loop(self) -> None:
        while True:
            item = self._text_q.get()
            if item is None:
                self._audio_q.put(None)
                return
            gen, ans, idx, text = item
            if gen != self._gen:
                self._emit("dropped", idx, text, ans)
                self._done_one()
                continue
            try:
                samples, rate = self.synthesizer.synthesize(text)
            except Exception as e:
                self.error = str(e)
                log.warning("cannot synthesise a sentence: %s", e)
                self._emit("failed", idx, text, ans)
                self._done_one()
                continue
            if not re.search(r"[.!?…,;:][\"')\]]*$", text):  # a piece cut mid-sentence: no full pause after it
                samples = trim_trailing_silence(samples, rate)
            self._emit("synthesized", idx, text, ans)
            self._audio_q.put((gen, ans, idx, text, samples, rate))

    def _play_loop(self) -> None:
        while True:
            item = self._audio_q.get()
            if item is None:
                return
            gen, ans, idx, text, samples, rate = item
            if gen != self._gen:
                self._emit("dropped", idx, text, ans)
                self._done_one()
                continue

            def started(idx=idx, text=text, ans=ans):
                self.echo.said(text)
                self._emit("playing", idx, text, ans)

            if hasattr(self.player, "enqueue"):  # one open stream: queue it behind what plays
                self._queue_clip(gen, ans, idx, text, samples, rate, started)
                continue
            try:
                done = self.player.play(samples, rate, on_start=started, should_stop=lambda g=gen: g != self._gen)
            except Exception as e:  # no speaker: the answer is still on screen
                self.error = str(e)
                log.warning("cannot play speech: %s", e)
                self._emit("failed", idx, text, ans)
                done = None
            if done is True:
                self.echo.said(text)  # refresh: the echo window counts from the end of playback
                self._emit("played", idx, text, ans)
            elif done is False:
                self._emit("stopped", idx, text, ans)
            self._done_one()

    def _queue_clip(self, gen, ans, idx, text, samples, rate, started) -> None:
        """Hand a sentence to the player's open stream without waiting for the one before it to
        end, so sentences follow each other on the next sample (no gap, no reopen)."""

        def ended(clip, idx=idx, text=text, ans=ans):
            if clip.completed:
                self.echo.said(text)  # refresh: the echo window counts from the end of playback
                self._emit("played", idx, text, ans)
            elif clip.error:
                self.error = clip.error
                self._emit("failed", idx, text, ans)
            elif clip.start_frame < 0 and clip.pos == 0:  # cleared from the queue before a sample played
                self._emit("dropped", idx, text, ans)
            else:
                self._emit("stopped", idx, text, ans)
            self._done_one()

        if gen != self._gen:
            self._emit("dropped", idx, text, ans)
            self._done_one()
            return
        try:
            self.player.enqueue(samples, rate, on_start=started, on_end=ended)
        except Exception as e:  # no speaker: the answer is still on screen
            self.error = str(e)
            log.warning("cannot play speech: %s", e)
            self._emit("failed", idx, text, ans)
            self._done_one()
            return
        if gen != self._gen:  # interrupted while queueing: stop() may have run just before
            self.player.stop()

    def _emit(self, kind: str, idx: int, text: str, ans: int) -> None:
        ev = SpeakerEvent(kind, idx, text, ans)
        self.events.append(ev)
        if self._listener is not None:
            try:
                self._listener(ev)
            except Exception:
                log.exception("speaker event listener failed")


class EventSpeaker(StreamingSpeaker):
    """A StreamingSpeaker built from the settings that listens to pipeline events: AnswerToken
    text is fed as it streams, AnswerDone finishes the answer (and speaks it whole when no token
    was streamed)."""

    def __init__(self, settings, *, player=None, synthesizer=None, **kw: Any):
        from .playback import Player
        from .tts import Synthesizer

        # the volume setting is applied once, at playback (a Player given here should carry it)
        synthesizer = synthesizer or Synthesizer.from_settings(settings, volume=1.0)
        player = player or Player(settings.output_device, volume=settings.volume)
        super().__init__(synthesizer, player, **kw)
        self._streamed: set[str] = set()

    def on_event(self, event) -> None:  # noqa: D401 - a pipeline listener
        kind = type(event).__name__
        rid = getattr(event, "request_id", "")
        if kind == "RequestStarted":
            self.begin()
        elif kind == "AnswerToken":
            self._streamed.add(rid)
            self.feed(event.text)
        elif kind == "AnswerDone":
            if rid in self._streamed:
                self.finish()
            else:
                self.say(event.text)
