"""Playback through sounddevice, stoppable at once (barge-in must silence the assistant within
200 ms). Audio is fed to PortAudio in ~20 ms blocks from a callback that checks a stop flag, and
``stop()`` also aborts the stream, discarding what PortAudio had buffered.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from .capture import _sd, find_device
from .errors import AudioDeviceError

log = logging.getLogger(__name__)


class Player:
    """Plays one clip at a time on an output device. ``play`` blocks until the clip ends or
    ``stop`` is called from another thread. ``stream_factory`` is sounddevice.OutputStream unless a
    test stands in for a device that cannot exist here."""

    def __init__(
        self,
        device: str | int | None = "",
        *,
        volume: float = 1.0,
        block_ms: int = 20,
        stream_factory: Callable[..., Any] | None = None,
    ):
        self.device_spec = device
        self.volume = volume
        self.block_ms = block_ms
        self._factory = stream_factory
        self._stop = threading.Event()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._stream = None
        self.samples_played = 0  # of the current/last clip
        self.last_completed = False

    @property
    def playing(self) -> bool:
        return self._stream is not None

    def stop(self) -> None:
        """Silence now: safe from any thread; a no-op when nothing plays."""
        self._stop.set()
        s = self._stream
        if s is not None:
            try:
                s.abort()
            except Exception:
                log.debug("aborting the output stream failed", exc_info=True)
        self._done.set()

    def play(
        self,
        samples,
        sample_rate: int,
        on_start: Callable[[], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> bool:
        """Play mono float samples; True when played to the end, False when stopped.
        ``should_stop`` closes the gap between a caller deciding to play and ``stop()`` arriving
        before the stream exists: it is checked once the stream is registered."""
        import numpy as np

        sd = _sd()
        x = np.asarray(samples, dtype=np.float32).reshape(-1)
        if self.volume != 1.0:
            x = np.clip(x * float(self.volume), -1.0, 1.0)
        with self._lock:  # one clip at a time
            self._stop.clear()
            self._done.clear()
            self.samples_played = 0
            self.last_completed = False
            if len(x) == 0:
                return True
            device = find_device(self.device_spec, "output") if self._factory is None else (self.device_spec or None)
            rate = int(sample_rate)
            stream = None
            for attempt_rate in (rate, None):
                if attempt_rate is None:  # the device refused the voice's rate: resample to its own
                    try:
                        attempt_rate = int(sd.query_devices(device, "output")["default_samplerate"]) if self._factory is None else 48000
                    except Exception as e:
                        raise AudioDeviceError(f"cannot open the speaker: {e}") from None
                    if attempt_rate == rate:
                        break
                    from ..media import resample

                    x = resample(x, rate, attempt_rate)
                try:
                    stream = self._open(attempt_rate, device, x)
                    break
                except AudioDeviceError:
                    raise
                except Exception as e:
                    log.info("speaker refused %s Hz: %s", attempt_rate, e)
                    stream = None
            if stream is None:
                raise AudioDeviceError("cannot open the speaker. Check that an output device is connected.")
            self._stream = stream
            if self._stop.is_set() or (should_stop is not None and should_stop()):  # stopped while opening
                self._stream = None
                self._close(stream)
                return False
            try:
                stream.start()
                if on_start is not None:
                    on_start()
                self._done.wait()
            except Exception as e:
                raise AudioDeviceError(f"playback failed: {e}") from None
            finally:
                self._stream = None
                self._close(stream)
            self.last_completed = not self._stop.is_set() and self.samples_played >= len(x)
            return self.last_completed

    def _open(self, rate: int, device, x):
        import numpy as np

        sd = _sd()
        pos = [0]
        done = self._done
        stop = self._stop

        def callback(outdata, frames, time_info, status):
            if stop.is_set():
                outdata.fill(0)
                raise sd.CallbackAbort
            chunk = x[pos[0]:pos[0] + frames]
            n = len(chunk)
            outdata[:n, 0] = (chunk * 32767).astype(np.int16)
            if n < frames:
                outdata[n:] = 0
            pos[0] += n
            self.samples_played = pos[0]
            if n < frames:
                raise sd.CallbackStop

        factory = self._factory or sd.OutputStream
        return factory(
            samplerate=rate, channels=1, dtype="int16", device=device,
            blocksize=max(64, rate * self.block_ms // 1000), callback=callback,
            finished_callback=done.set,
        )

    @staticmethod
    def _close(stream) -> None:
        try:
            stream.close()
        except Exception:
            log.debug("closing the output stream failed", exc_info=True)
