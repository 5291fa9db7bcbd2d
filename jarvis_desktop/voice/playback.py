"""Playback through ONE output stream that stays open: clips are queued and written back to back.

Opening an output device per sentence costs tens of milliseconds and leaves a gap (and a click)
between sentences; here the stream is opened once, at the first clip, and every later clip (the
next sentence, the next answer) is appended to a queue the stream's callback reads, so sentence
2 starts on the very sample after sentence 1 ends. When nothing has been queued for
``idle_stop_s`` of stream time the callback pauses the stream (it stays open) and the next clip
restarts it: a running idle stream costs little on a sound card, but on an unpaced device (a file)
it would write silence as fast as the CPU allows.

``stop()`` (barge-in) drops every queued clip; the callback writes silence from its next block
(``block_ms``, 20 ms), so speech stops well within 200 ms. What is written can be copied to a
``ReferenceTrack`` (the echo canceller's far-end signal). A device that goes away mid-clip fails
the queued clips with ``AudioDeviceError``; the next clip tries to open the device again.
"""

from __future__ import annotations

import collections
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from .capture import _sd, find_device
from .clock import CaptureClock
from .errors import AudioDeviceError

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Clip:
    """One queued piece of audio (a sentence) and what became of it."""

    samples: Any  # float32 at the stream's rate
    on_start: Callable[[], None] | None = None
    on_end: Callable[["Clip"], None] | None = None
    pos: int = 0
    start_frame: int = -1  # stream frame of its first sample (the written stream's clock)
    end_frame: int = -1  # stream frame after its last sample
    completed: bool = False
    error: str = ""
    done: threading.Event = field(default_factory=threading.Event)


class Player:
    """Queues clips on one open output stream. ``stream_factory`` is sounddevice.OutputStream
    unless a test stands in for a device that cannot exist here."""

    def __init__(
        self,
        device: str | int | None = "",
        *,
        volume: float = 1.0,
        block_ms: int = 20,
        stream_factory: Callable[..., Any] | None = None,
        reference: Any = None,
        idle_stop_s: float = 2.0,
    ):
        self.device_spec = device
        self.volume = volume
        self.block_ms = block_ms
        self.reference = reference  # a ReferenceTrack fed with what is written, or None
        self.idle_stop_s = idle_stop_s
        self._factory = stream_factory
        self._lock = threading.Lock()
        self._start_lock = threading.Lock()
        self._clips: collections.deque[Clip] = collections.deque()
        self._stream = None
        self.rate = 0
        self._running = False
        self._idle = 0
        self.frames_written = 0  # the written stream's clock, in frames since it was opened
        self.streams_opened = 0
        self.error = ""
        self.samples_played = 0  # of the current/last clip
        self._frame_clock = CaptureClock(48000)  # when written frames play (made anew at the stream's rate on open)
        self._events: collections.deque = collections.deque()
        self._events_ready = threading.Condition()
        self._notifier = threading.Thread(target=self._notify_loop, name="player-events", daemon=True)
        self._notifier.start()

    @property
    def playing(self) -> bool:
        with self._lock:
            return bool(self._clips)

    # --- queueing ----------------------------------------------------------------------------
    def enqueue(self, samples, sample_rate: int, on_start: Callable[[], None] | None = None,
                on_end: Callable[[Clip], None] | None = None) -> Clip:
        """Queue mono float samples behind what is playing; returns at once. ``on_start`` runs
        when the first sample is written, ``on_end(clip)`` when the last one is (or the clip was
        stopped or failed); both on the player's event thread. Raises AudioDeviceError when no
        output device can be opened."""
        import numpy as np

        x = np.asarray(samples, dtype=np.float32).reshape(-1)
        if self.volume != 1.0:
            x = np.clip(x * float(self.volume), -1.0, 1.0)
        self._ensure_open(int(sample_rate))
        if int(sample_rate) != self.rate and len(x):
            from ..media import resample

            x = resample(x, int(sample_rate), self.rate).astype(np.float32)
        clip = Clip(np.ascontiguousarray(x), on_start, on_end)
        if len(x) == 0:
            clip.completed = True
            clip.done.set()
            self._post(clip, "end")
            return clip
        with self._lock:
            self._clips.append(clip)
            self._idle = 0
            need_start = not self._running
        if need_start:
            self._restart()
        return clip

    def play(self, samples, sample_rate: int, on_start: Callable[[], None] | None = None,
             should_stop: Callable[[], bool] | None = None) -> bool:
        """Queue a clip and wait for it: True when played to the end, False when stopped.
        ``should_stop`` closes the gap between a caller deciding to play and ``stop()`` arriving
        before the clip was queued."""
        clip = self.enqueue(samples, sample_rate, on_start=on_start)
        if should_stop is not None and should_stop():
            self.stop()
        clip.done.wait()
        if clip.error:
            raise AudioDeviceError(clip.error)
        return clip.completed

    def stop(self) -> None:
        """Silence now and drop every queued clip: safe from any thread, a no-op when idle."""
        with self._lock:
            dropped = list(self._clips)
            self._clips.clear()
        for c in dropped:
            self._end_clip(c, completed=False)

    def close(self) -> None:
        self.stop()
        with self._start_lock:
            s, self._stream = self._stream, None
            self._running = False
            if s is not None:
                self._close(s)
        with self._events_ready:
            self._events.append(None)
            self._events_ready.notify()
        if self._notifier is not threading.current_thread():
            self._notifier.join(2.0)  # its last callbacks run before close returns

    # --- the stream --------------------------------------------------------------------------
    def _ensure_open(self, rate: int) -> None:
        with self._start_lock:
            if self._stream is not None:
                return
            sd = _sd()
            device = find_device(self.device_spec, "output") if self._factory is None else (self.device_spec or None)
            last: Exception | None = None
            for attempt in (rate, None):
                if attempt is None:  # the device refused the voice's rate: use its own
                    try:
                        attempt = int(sd.query_devices(device, "output")["default_samplerate"]) if self._factory is None else 48000
                    except Exception as e:
                        raise AudioDeviceError(f"cannot open the speaker: {e}") from None
                    if attempt == rate:
                        break
                try:
                    self._stream = self._open(attempt, device)
                    self.rate = attempt
                    self._frame_clock = CaptureClock(attempt)
                    self.streams_opened += 1
                    self.frames_written = 0
                    self.error = ""
                    return
                except Exception as e:
                    last = e
                    log.info("speaker refused %s Hz: %s", attempt, e)
            raise AudioDeviceError(f"cannot open the speaker ({last}). Check that an output device is connected.")

    def _restart(self) -> None:
        """Start the (open, paused) stream again; not a reopen."""
        with self._start_lock:
            s = self._stream
            if s is None or self._running:
                return
            try:
                if getattr(s, "active", False) or not getattr(s, "stopped", True):
                    s.stop()  # let a stream that ended itself (CallbackStop) finish first
            except Exception:
                log.debug("stopping the paused output stream failed", exc_info=True)
            self._running = True
            self._frame_clock.reset()  # time passed while paused: the frame count does not say how much
            try:
                s.start()
            except Exception as e:
                self._running = False
                self._fail_all(f"playback failed: {e}")

    def _open(self, rate: int, device):
        sd = _sd()
        factory = self._factory or sd.OutputStream
        kw: dict[str, Any] = {}
        if self._factory is None:
            kw["latency"] = "low"
        return factory(
            samplerate=rate, channels=1, dtype="int16", device=device,
            blocksize=max(64, rate * self.block_ms // 1000), callback=self._callback,
            finished_callback=self._finished, **kw,
        )

    def _callback(self, outdata, frames, time_info, status) -> None:
        import numpy as np

        sd = _sd()
        out = np.zeros(frames, np.float32)
        filled = 0
        pause = False
        start_frame = self.frames_written
        underflow = status is not None and bool(getattr(status, "output_underflow", False))
        with self._lock:
            while filled < frames and self._clips:
                c = self._clips[0]
                if c.pos == 0:
                    c.start_frame = self.frames_written + filled
                    self._post(c, "start")
                n = min(frames - filled, len(c.samples) - c.pos)
                out[filled:filled + n] = c.samples[c.pos:c.pos + n]
                c.pos += n
                filled += n
                self.samples_played = c.pos
                if c.pos >= len(c.samples):
                    c.end_frame = self.frames_written + filled
                    self._clips.popleft()
                    self._end_clip(c, completed=True)
            if filled < frames and not self._clips:
                self._idle += frames - filled
                if self._idle >= self.idle_stop_s * self.rate:
                    self._running = False
                    pause = True
            self.frames_written += frames
        outdata[:, 0] = (out * 32767).astype(np.int16)
        if self.reference is not None:
            self.reference.write(out, self.rate, self._clock(start_frame, underflow))
        if pause:
            raise sd.CallbackStop

    def _clock(self, frame: int, underflow: bool = False) -> float:
        """Monotonic time at which stream frame ``frame`` is handed to the card, from the frame
        count since an anchor (the echo canceller needs a steady far-end clock).

        The same evidence rules as the microphone's clock (clock.py): a callback that runs late
        but within what the card buffers does not move the anchor, since the card plays on
        schedule; re-anchoring there, as an earlier version did after 0.1 s, stamped the rest of
        the answer late, the echo then seemed to come before the speaker played it, and the
        window interrupted its own answer (CI, e3f0db0). An underflow (the card ran dry) or a
        restart after a pause sets the anchor anew."""
        return self._frame_clock.first_sample_time(frame, 0, overflow=underflow)

    def _finished(self) -> None:
        """PortAudio ended the stream: our pause, a close, or the device went away."""
        if self.reference is not None:
            self.reference.paused()  # the echo canceller stops waiting for far-end blocks
        with self._lock:
            lost = self._running
            self._running = False
        if lost:
            self._fail_all("the speaker stopped playing (was it unplugged?)")
            s, self._stream = self._stream, None  # the next clip opens the device again
            if s is not None:
                threading.Thread(target=self._close, args=(s,), daemon=True).start()

    def _fail_all(self, message: str) -> None:
        self.error = message
        log.warning("%s", message)
        with self._lock:
            dropped = list(self._clips)
            self._clips.clear()
        for c in dropped:
            c.error = message
            self._end_clip(c, completed=False)

    def _end_clip(self, c: Clip, completed: bool) -> None:
        if c.done.is_set():
            return
        c.completed = completed
        c.done.set()
        self._post(c, "end")

    # --- callbacks off the audio thread -------------------------------------------------------
    def _post(self, clip: Clip, what: str) -> None:
        if (what == "start" and clip.on_start is None) or (what == "end" and clip.on_end is None):
            return
        with self._events_ready:
            self._events.append((clip, what))
            self._events_ready.notify()

    def _notify_loop(self) -> None:
        while True:
            with self._events_ready:
                self._events_ready.wait_for(lambda: bool(self._events))
                item = self._events.popleft()
            if item is None:
                return
            clip, what = item
            try:
                if what == "start":
                    clip.on_start()
                else:
                    clip.on_end(clip)
            except Exception:
                log.exception("a playback callback failed")

    @staticmethod
    def _close(stream) -> None:
        try:
            stream.abort() if hasattr(stream, "abort") else stream.stop()
            stream.close()
        except Exception:
            log.debug("closing the output stream failed", exc_info=True)
