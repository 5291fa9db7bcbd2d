"""Microphone capture with sounddevice: 16 kHz mono float32 blocks, a level meter, a pre-roll.

The device is opened as 16-bit integer PCM, the format every sound card offers (and the one a
file-backed test device's raw file holds); blocks are handed on as float32 in [-1, 1).

PortAudio calls ``_callback`` on its own thread with each block; the block is copied into a bounded
queue that one consumer (an utterance source) reads. The callback never blocks: when the consumer
falls behind for longer than ``queue_seconds`` the newest blocks are dropped and counted, so a
stalled consumer cannot eat all memory. Every block carries its position (samples since the stream
started) so a caller can cut out an exact span.

A device that refuses 16 kHz is opened at its own default rate and resampled here. Device problems
(no microphone, a name that matches none, the device disappearing mid-recording) become
``AudioDeviceError`` with a message that says what to do.
"""

from __future__ import annotations

import collections
import logging
import math
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from .clock import CaptureClock
from .errors import AudioDeviceError

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
BLOCK = 512  # 32 ms at 16 kHz: the frame Silero VAD takes


def _sd():
    """Import sounddevice, turning a missing PortAudio into a clear message."""
    try:
        import sounddevice
    except OSError as e:  # raised when the PortAudio shared library is missing
        raise AudioDeviceError(
            f"sound is unavailable: {e}. On Debian/Ubuntu: sudo apt-get install libportaudio2"
        ) from None
    return sounddevice


@dataclass(frozen=True)
class AudioDevice:
    index: int
    name: str
    inputs: int
    outputs: int
    default_rate: float
    is_default_input: bool = False
    is_default_output: bool = False


def list_devices() -> list[AudioDevice]:
    sd = _sd()
    try:
        devices = sd.query_devices()
        default_in, default_out = sd.default.device
    except Exception as e:
        raise AudioDeviceError(f"cannot list sound devices: {e}") from None
    return [
        AudioDevice(i, d["name"], d["max_input_channels"], d["max_output_channels"], d["default_samplerate"],
                    i == default_in, i == default_out)
        for i, d in enumerate(devices)
    ]


def find_device(spec: str | int | None, kind: str = "input") -> int | None:
    """The device index for a setting: '' -> the system default (None), a number -> that index,
    text -> the first device whose name contains it (case-insensitive). Raises AudioDeviceError
    when nothing fits, naming the devices there are."""
    key = "inputs" if kind == "input" else "outputs"
    devices = [d for d in list_devices() if getattr(d, key) > 0]
    what = "microphone" if kind == "input" else "speaker or headphones"
    if not devices:
        raise AudioDeviceError(
            f"no {what} found. Plug one in (or enable it in the system's sound settings) and try again."
        )
    if spec is None or spec == "":
        return None
    if isinstance(spec, int) or str(spec).isdigit():
        idx = int(spec)
        if any(d.index == idx for d in devices):
            return idx
    else:
        for d in devices:
            if str(spec).lower() in d.name.lower():
                return d.index
    names = ", ".join(f"{d.index}: {d.name}" for d in devices)
    raise AudioDeviceError(f"the {kind} device '{spec}' was not found. Available: {names}. Set {kind}_device in the settings.")


class StreamResampler:
    """Linear-interpolation resampling of a stream given in blocks, with no seams between blocks."""

    def __init__(self, source_rate: float, target_rate: float = SAMPLE_RATE):
        self.step = source_rate / target_rate  # source samples per output sample
        self._t = 0.0  # position of the next output sample, relative to ``_prev``
        self._prev = None  # last source sample of the previous block

    def __call__(self, block):
        import numpy as np

        x = np.asarray(block, dtype=np.float32)
        if self._prev is not None:
            x = np.concatenate([[self._prev], x])
        else:
            self._t = 0.0
        if len(x) < 2:
            self._prev = x[-1] if len(x) else self._prev
            return np.zeros(0, np.float32)
        n = int(math.floor((len(x) - 1 - self._t) / self.step)) + 1
        pos = self._t + self.step * np.arange(max(n, 0))
        out = np.interp(pos, np.arange(len(x)), x).astype(np.float32)
        self._t = self._t + self.step * max(n, 0) - (len(x) - 1)
        self._prev = x[-1]
        return out


@dataclass
class Block:
    samples: Any  # float32 mono at 16 kHz
    position: int  # index of the first sample since the stream started
    time: float = 0.0  # monotonic time its first sample was captured (to align the echo reference)


def level_of(samples) -> float:
    """A 0..1 meter value: RMS in dBFS mapped from -60 dB (0) to 0 dB (1)."""
    import numpy as np

    if len(samples) == 0:
        return 0.0
    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))
    if rms <= 1e-6:
        return 0.0
    return min(1.0, max(0.0, (20 * math.log10(rms) + 60) / 60))


class Microphone:
    """16 kHz mono capture from one input device, read block by block by one consumer.

    ``stream_factory`` is sounddevice.InputStream unless a test stands in for a sound card that
    cannot exist on the test machine (e.g. one that gets unplugged)."""

    def __init__(
        self,
        device: str | int | None = "",
        *,
        preroll_s: float = 0.5,
        queue_seconds: float = 120.0,
        device_rate: float | None = None,
        on_level: Callable[[float], None] | None = None,
        stream_factory: Callable[..., Any] | None = None,
        stall_timeout: float = 2.0,
    ):
        self.device_spec = device
        self.device_rate = device_rate  # force a capture rate (else 16 kHz, or the device's own)
        self.on_level = on_level
        self.stall_timeout = stall_timeout
        self._factory = stream_factory
        self._queue: queue.Queue[Block | None] = queue.Queue(maxsize=max(1, int(queue_seconds * SAMPLE_RATE / BLOCK)))
        self._preroll: collections.deque = collections.deque(maxlen=max(1, int(preroll_s * SAMPLE_RATE / BLOCK)))
        self._stream = None
        self._resampler: StreamResampler | None = None
        self._pending = None  # samples waiting to fill a BLOCK
        self._lock = threading.Lock()
        self._position = 0
        self._clock = CaptureClock(SAMPLE_RATE)  # 16 kHz samples after resampling
        self.level = 0.0
        self.dropped_blocks = 0
        self.rate = SAMPLE_RATE  # the rate the device actually runs at
        self.error: str = ""
        self._closed = threading.Event()

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> "Microphone":
        import numpy as np

        sd = _sd()
        device = find_device(self.device_spec, "input") if self._factory is None else (self.device_spec or None)
        factory = self._factory or sd.InputStream
        while not self._queue.empty():  # blocks left from an earlier start
            self._queue.get_nowait()
        self._preroll.clear()
        self._closed.clear()
        self.error = ""
        rates = [self.device_rate] if self.device_rate else [SAMPLE_RATE, None]
        last_error: Exception | None = None
        for rate in rates:
            if rate is None:  # the device refused 16 kHz: use its own rate and resample
                try:
                    rate = float(sd.query_devices(device, "input")["default_samplerate"]) if self._factory is None else 48000.0
                except Exception as e:
                    raise AudioDeviceError(f"cannot open the microphone: {e}") from None
            # set before the stream starts: its first callback may come at once
            self._resampler = StreamResampler(rate, SAMPLE_RATE) if int(rate) != SAMPLE_RATE else None
            self._pending = np.zeros(0, np.float32)
            self._position = 0
            self._clock.reset()
            try:
                self._stream = factory(
                    samplerate=rate, channels=1, dtype="int16", device=device,
                    blocksize=int(round(BLOCK * rate / SAMPLE_RATE)), callback=self._callback,
                    finished_callback=self._finished,
                )
                self._stream.start()
            except Exception as e:  # sd.PortAudioError, or ValueError for impossible settings
                last_error = e
                self._stream = None
                log.info("microphone refused %s Hz: %s", rate, e)
                continue
            self.rate = int(rate)
            if self._resampler:
                log.info("microphone runs at %d Hz; resampling to 16 kHz", self.rate)
            return self
        raise AudioDeviceError(f"cannot open the microphone: {last_error}. Check that it is plugged in and not used by another program.")

    def stop(self) -> None:
        s, self._stream = self._stream, None
        if s is not None:
            try:
                s.abort() if hasattr(s, "abort") else s.stop()
                s.close()
            except Exception:
                log.debug("closing the input stream failed", exc_info=True)
        self._closed.set()

    def __enter__(self) -> "Microphone":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def active(self) -> bool:
        return self._stream is not None and not self._closed.is_set()

    @property
    def position(self) -> int:
        """Samples (16 kHz) delivered by the device since start."""
        return self._position

    def preroll(self):
        """The last ~0.5 s of blocks the consumer read: what came just before "now"."""
        return list(self._preroll)

    # --- PortAudio side -----------------------------------------------------------------------
    def _callback(self, indata, frames, time_info, status) -> None:
        import numpy as np

        overflow = bool(status and status.input_overflow)
        if overflow:
            log.debug("input overflow")
        x = np.asarray(indata)
        x = x[:, 0] if x.ndim == 2 else x
        x = x.astype(np.float32) / 32768.0 if x.dtype == np.int16 else x.astype(np.float32)
        if self._resampler is not None:
            x = self._resampler(x)
        buf = np.concatenate([self._pending, x]) if len(self._pending) else x.copy()
        n = len(buf) // BLOCK
        t = self._clock.first_sample_time(self._position, len(buf), overflow=overflow)
        for i in range(n):
            self._push(buf[i * BLOCK:(i + 1) * BLOCK], t + i * BLOCK / SAMPLE_RATE)
        self._pending = buf[n * BLOCK:]

    def _push(self, samples, t: float = 0.0) -> None:
        block = Block(samples, self._position, t)
        self._position += len(samples)
        try:
            self._queue.put_nowait(block)
        except queue.Full:
            self.dropped_blocks += 1

    def _finished(self) -> None:
        """PortAudio ended the stream: by our stop(), or because the device went away."""
        if self._stream is not None and not self._closed.is_set():
            self.error = "the microphone stopped delivering audio (was it unplugged?)"
        self._closed.set()
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass

    # --- consumer side ------------------------------------------------------------------------
    def read(self, timeout: float | None = None) -> Block | None:
        """The next block; None once stopped. Raises AudioDeviceError when the device stopped
        on its own or delivered nothing for ``stall_timeout`` seconds (unplugged, suspended)."""
        wait = self.stall_timeout if timeout is None else timeout
        try:
            block = self._queue.get(timeout=wait)
        except queue.Empty:
            if self._closed.is_set() or self._stream is None:
                return None
            if timeout is not None:
                raise TimeoutError from None
            self.error = f"the microphone delivered no audio for {wait:.0f} s (was it unplugged?)"
            raise AudioDeviceError(self.error) from None
        if block is None:
            if self.error:
                raise AudioDeviceError(self.error)
            return None
        self._preroll.append(block)
        self.level = level_of(block.samples)
        if self.on_level is not None:
            self.on_level(self.level)
        return block

    def blocks(self):
        """Iterate blocks until stopped."""
        while True:
            b = self.read()
            if b is None:
                return
            yield b
