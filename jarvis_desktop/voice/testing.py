"""Helpers for tests and benchmarks of the voice path on machines without a sound card.

``spoken(text)`` makes real speech with espeak-ng; ``file_backed_alsa(home, ...)`` writes an
``.asoundrc`` whose default ALSA device reads its "microphone" from a raw 16 kHz file and writes what its
"speaker" plays to files (one per stream opened), so PortAudio (and the real capture/playback code) runs unchanged. Such a
device is unpaced: it delivers the whole file as fast as it is read, so it checks data flow, not
real-time behaviour.
"""

from __future__ import annotations

import io
import subprocess
import time
from pathlib import Path

SAMPLE_RATE = 16000

_ASOUNDRC = """pcm.!default {{
    type plug
    slave.pcm "filemic"
}}
pcm.filemic {{
    type file
    slave.pcm "null"
    file "{playback}"
    infile "{capture}"
    format "raw"
    truncate false
}}
ctl.!default {{ type hw card 0 }}
"""


def spoken(text: str, sample_rate: int = SAMPLE_RATE, voice: str = "en-us", trim: bool = True, wpm: int = 175):
    """``text`` spoken by espeak-ng (at ``wpm`` words a minute), as mono float32 at
    ``sample_rate``; with ``trim`` the silence espeak-ng puts before and after the words is cut
    (so a test's pauses are exact)."""
    import soundfile as sf

    from ..media import resample

    wav = subprocess.run(
        ["espeak-ng", "--stdout", "-v", voice, "-s", str(wpm), "--stdin"], input=text.encode(),
        capture_output=True, check=True,
    ).stdout
    data, sr = sf.read(io.BytesIO(wav), dtype="float32", always_2d=True)
    x = data.mean(axis=1)
    if trim:
        import numpy as np

        loud = np.nonzero(np.abs(x) > 0.01)[0]
        if len(loud):
            x = x[loud[0]: loud[-1] + 1]
    return resample(x, sr, sample_rate)


def silence(seconds: float, sample_rate: int = SAMPLE_RATE):
    import numpy as np

    return np.zeros(int(seconds * sample_rate), np.float32)


def noise(seconds: float, level: float = 0.003, sample_rate: int = SAMPLE_RATE, seed: int = 0):
    """Low white noise, like a quiet room through a cheap microphone."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return (rng.standard_normal(int(seconds * sample_rate)) * level).astype(np.float32)


def to_raw_int16(samples, path: str | Path) -> Path:
    """Write float samples as raw little-endian int16 (what the file-backed ALSA device reads)."""
    import numpy as np

    path = Path(path)
    (np.clip(np.asarray(samples), -1, 1) * 32767).astype("<i2").tofile(path)
    return path


def file_backed_alsa(home: str | Path, capture_raw: str | Path, playback_raw: str | Path) -> Path:
    """Write ``home/.asoundrc`` making the default ALSA device a file pair. Point ``HOME`` at
    ``home`` before PortAudio initialises (i.e. before ``import sounddevice`` in that process)."""
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    rc = home / ".asoundrc"
    rc.write_text(_ASOUNDRC.format(capture=Path(capture_raw).resolve(), playback=Path(playback_raw).resolve()))
    return rc


class alsa_file_device:
    """Context manager: HOME points at a folder whose .asoundrc makes the default ALSA device a
    file pair, and PortAudio is re-initialised so it sees that device (restored on exit)."""

    def __init__(self, home: str | Path, capture_raw: str | Path, playback_raw: str | Path):
        self.home, self.capture_raw, self.playback_raw = Path(home), Path(capture_raw), Path(playback_raw)

    def __enter__(self) -> "alsa_file_device":
        import os

        self._old = os.environ.get("HOME")
        file_backed_alsa(self.home, self.capture_raw, self.playback_raw)
        if not self.capture_raw.exists():
            self.capture_raw.write_bytes(b"")
        os.environ["HOME"] = str(self.home)
        _reinit_portaudio()
        return self

    def __exit__(self, *exc) -> None:
        import os

        if self._old is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = self._old
        _reinit_portaudio()

    def clips(self) -> list:
        """What each playback stream played, in order, as float32. With ``truncate false`` ALSA
        writes every opening of the device to a new file: PATH, PATH.0001, PATH.0002..."""
        import numpy as np

        paths = [self.playback_raw] + sorted(self.playback_raw.parent.glob(self.playback_raw.name + ".[0-9]*"))
        return [np.fromfile(p, dtype="<i2").astype(np.float32) / 32768.0 for p in paths if p.exists()]

    def played(self):
        """Everything played, streams joined in order."""
        import numpy as np

        clips = self.clips()
        return np.concatenate(clips) if clips else np.zeros(0, np.float32)


class no_sound_card:
    """Hides every sound card from PortAudio for the duration, on any machine: ALSA is given a
    configuration of its own (ALSA_CONFIG_PATH) whose only device is on a card that cannot exist
    and which lacks the ``hw`` definitions real cards are opened through, and HOME points at a
    folder without an ``.asoundrc``. This lets the "no
    microphone" / "no speaker" messages be checked on a machine that has a sound card too."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def __enter__(self) -> "no_sound_card":
        import os

        self.folder.mkdir(parents=True, exist_ok=True)
        conf = self.folder / "alsa-no-devices.conf"
        # not empty (libasound aborts on a configuration with nothing in it): a default device on a
        # card that cannot exist, and no ``hw``/``plughw`` definitions for the cards that do
        conf.write_text("pcm.!default { type hw card 99 }\nctl.!default { type hw card 99 }\n")
        self._old = {k: os.environ.get(k) for k in ("HOME", "ALSA_CONFIG_PATH")}
        os.environ["HOME"] = str(self.folder)
        os.environ["ALSA_CONFIG_PATH"] = str(conf)
        _reinit_portaudio()
        return self

    def __exit__(self, *exc) -> None:
        import os

        for k, v in self._old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        _reinit_portaudio()


def _reinit_portaudio() -> None:
    import sounddevice as sd

    sd._terminate()
    sd._initialize()


class _FakeStreamBase:
    """Shared shape of sounddevice's stream objects, for the sound-card fakes below."""

    def __init__(self, samplerate=None, blocksize=None, device=None, channels=1, dtype="int16",
                 callback=None, finished_callback=None, rates=None, speed: float = 1.0, **_):
        import sounddevice as sd

        if rates is not None and int(samplerate) not in rates:
            raise sd.PortAudioError(f"Invalid sample rate [PaErrorCode -9997] ({samplerate} Hz; this card offers {rates})")
        self.samplerate = float(samplerate)
        self.blocksize = int(blocksize or 512)
        self.channels = channels
        self.dtype = dtype
        self.callback = callback
        self.finished_callback = finished_callback
        self.speed = speed
        self._halt = None
        self._thread = None
        self.active = False
        self.closed = False

    def start(self):
        import threading

        self._due = None
        self._halt = threading.Event()
        self.active = True
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _end(self):
        if self.active:
            self.active = False
            if self.finished_callback:
                self.finished_callback()

    def abort(self):
        if self._halt is not None:
            self._halt.set()
        if self._thread is not None and self._thread is not __import__("threading").current_thread():
            self._thread.join(2)
        self._end()

    stop = abort

    def close(self):
        self.abort()
        self.closed = True

    def _sleep(self) -> bool:
        """Wait until the next block is due (scaled by speed); True when halted. Paced by a
        deadline, like a sound card's clock, so the stream does not drift behind real time."""
        step = self.blocksize / self.samplerate / self.speed
        now = time.monotonic()
        due = getattr(self, "_due", None)
        self._due = (now if due is None else due) + step
        return self._halt.wait(max(0.0, self._due - now))

    def _flags(self, kind: str, buffer_s: float = 0.2):
        """Called before each block: the status flags for its callback (``kind``: input or
        output). A thread held up for longer than the card buffers (``buffer_s``) loses that
        time, as a real card does: its clock goes on from now and the callback reports an
        overflow (input) or underflow (output), as PortAudio's would. Shorter hold-ups are caught up."""
        import sounddevice as sd

        due = getattr(self, "_due", None)
        now = time.monotonic()
        self.lost_s = 0.0
        if due is None or now - due <= buffer_s:
            return sd.CallbackFlags()
        self._due, self.lost_s = now, now - due
        return sd.CallbackFlags(sd._lib.paInputOverflow if kind == "input" else sd._lib.paOutputUnderflow)

    @property
    def card_time(self) -> float:
        """When the current block is due on the card's own clock (monotonic seconds): the time a
        real card plays or captures it, whenever the thread that moves it happens to run."""
        due = getattr(self, "_due", None)
        return time.monotonic() if due is None else due


class LiveAudio:
    """What a fake microphone hears next: a test calls ``say(samples)`` when its scenario wants
    the "user" to speak (e.g. on a speaker event); silence otherwise."""

    def __init__(self, noise_level: float = 0.001, seed: int = 0):
        import threading

        import numpy as np

        self._buf = np.zeros(0, np.float32)
        self._lock = threading.Lock()
        self.noise_level = noise_level  # a real microphone never delivers digital silence
        self.read_pos = 0  # samples the microphone has read so far
        self.read_time: float | None = None  # card-clock time of sample ``read_pos`` (None: unknown)
        self.rate = SAMPLE_RATE  # samples per second of real time, as the microphone reads them
        self._rng = np.random.default_rng(seed)
        self._stall = 0.0

    def stall_reader(self, seconds: float) -> None:
        """Hold up the microphone's next read by ``seconds``, as a busy process holds up a real
        capture thread (the card keeps capturing; its blocks then arrive back to back)."""
        self._stall = seconds

    def skip(self, n: int) -> None:
        """Drop the next ``n`` samples: what the room said while the card was overflowing is
        lost, not heard late (the echo in them included)."""
        with self._lock:
            self._buf = self._buf[n:]
            self.read_pos += n
            if self.read_time is not None:
                self.read_time += n / self.rate

    def say(self, samples) -> None:
        import numpy as np

        with self._lock:
            self._buf = np.concatenate([self._buf, np.asarray(samples, np.float32)])

    def mix(self, samples, at: int | None = None) -> int:
        """Add ``samples`` to what the microphone will hear, starting at absolute sample ``at``
        (default: the next one read), on top of what is already queued (an echo of the speaker
        over the user's voice). Returns where they start; a start already read moves to now."""
        import numpy as np

        x = np.asarray(samples, np.float32)
        with self._lock:
            delay = max(0, (self.read_pos if at is None else at) - self.read_pos)
            start = self.read_pos + delay
            need = delay + len(x)
            if len(self._buf) < need:
                self._buf = np.concatenate([self._buf, np.zeros(need - len(self._buf), np.float32)])
            self._buf[delay:need] += x
        return start

    def position_at(self, t: float) -> int:
        """The sample the microphone captures at monotonic time ``t``, by its card's clock (its
        reading thread may lag behind that clock; the room does not wait for it)."""
        with self._lock:
            if self.read_time is None:
                return self.read_pos
            return self.read_pos + int(round((t - self.read_time) * self.rate))

    def time_of(self, pos: int) -> float | None:
        """Monotonic time at which the card captures (or captured) absolute sample ``pos``, by
        its clock; None before the first read. The inverse of ``position_at``: a sample lost to an
        overflow still has a time (the user spoke then), though no block ever carries it."""
        with self._lock:
            if self.read_time is None:
                return None
            return self.read_time + (pos - self.read_pos) / self.rate

    def read(self, n: int, t_end: float | None = None, rate: float | None = None):
        """The next ``n`` samples; ``t_end``: the card-clock time at which the last of them was
        captured, ``rate``: samples per second of real time (both kept for ``position_at``)."""
        import numpy as np

        if self._stall:
            stall, self._stall = self._stall, 0.0
            time.sleep(stall)
        with self._lock:
            out, self._buf = self._buf[:n], self._buf[n:]
            self.read_pos += n
            if t_end is not None:
                self.read_time = t_end
            if rate:
                self.rate = rate
        out = np.concatenate([out, np.zeros(n - len(out), np.float32)])
        if self.noise_level:
            out = out + (self._rng.standard_normal(n) * self.noise_level).astype(np.float32)
        return out


class FakeRealtimeMicrophone(_FakeStreamBase):
    """A sound card that cannot exist on a test machine: delivers ``audio`` (float, at the
    stream's rate) in real time, then silence; optionally "unplugged" after ``unplug_after`` s."""

    def __init__(self, audio, unplug_after: float | None = None, **kw):
        super().__init__(**kw)
        import numpy as np

        self.live = audio if isinstance(audio, LiveAudio) else None
        if self.live is None:
            self.audio = (np.clip(np.asarray(audio, np.float32), -1, 1) * 32767).astype(np.int16)
        self.unplug_after = unplug_after

    def _loop(self):
        import numpy as np
        import sounddevice as sd

        pos = 0
        while not self._halt.is_set():
            if self.unplug_after is not None and pos >= self.unplug_after * self.samplerate:
                self._end()  # what PortAudio does when the device disappears
                return
            flags = self._flags("input")
            block = np.zeros((self.blocksize, 1), np.int16)
            if self.live is not None:
                if self.lost_s:
                    self.live.skip(int(self.lost_s * self.samplerate * self.speed))  # never captured
                chunk = self.live.read(self.blocksize, t_end=self.card_time, rate=self.samplerate * self.speed)
                chunk = (np.clip(chunk, -1, 1) * 32767).astype(np.int16)
            else:
                chunk = self.audio[pos:pos + self.blocksize]
            block[:len(chunk), 0] = chunk
            pos += self.blocksize
            try:
                self.callback(block, self.blocksize, None, flags)
            except (sd.CallbackStop, sd.CallbackAbort):
                break
            if self._sleep():
                break
        self._end()


class FakeRealtimeSpeaker(_FakeStreamBase):
    """A sound card that plays in real time (a test machine's devices are unpaced): pulls blocks
    from the callback at the stream's pace and keeps what was played in ``played``."""

    instances: list = []

    def __init__(self, echo: "RoomEcho | None" = None, vanish_after: float | None = None, latency: float = 0.05, **kw):
        super().__init__(**kw)
        self.latency = latency  # seconds between a block handed over and played: what the card buffers
        self.played: list = []
        self.echo = echo  # what it plays is also heard by a fake microphone in the same room
        self.vanish_after = vanish_after  # seconds of playing after which the card "is unplugged"
        self._frames = 0
        self._stall = 0.0
        FakeRealtimeSpeaker.instances.append(self)

    def stall_writer(self, seconds: float) -> None:
        """Hold up the next callback by ``seconds`` (longer than ``latency``: the card runs dry)."""
        self._stall = seconds

    def _loop(self):
        import numpy as np
        import sounddevice as sd

        while not self._halt.is_set():
            if self.vanish_after is not None and self._frames >= self.vanish_after * self.samplerate:
                self._end()  # what PortAudio does when the device disappears
                return
            if self._stall:  # a busy process holds the thread up
                stall, self._stall = self._stall, 0.0
                time.sleep(stall)
            # Within its output latency a late block still plays on schedule; later than that the
            # card ran dry (underflow), and the block plays one latency after it was handed over.
            flags = self._flags("output", buffer_s=self.latency)
            out = np.zeros((self.blocksize, 1), np.int16)
            played_at = self.card_time + self.latency  # when this block leaves the card
            stop = False
            try:
                self.callback(out, self.blocksize, None, flags)
            except sd.CallbackStop:
                stop = True
            except sd.CallbackAbort:
                break
            self.played.append(out[:, 0].copy())
            self._frames += self.blocksize
            if self.echo is not None:
                self.echo.hear(out[:, 0].astype(np.float32) / 32768, self.samplerate, played_at)
            if stop or self._sleep():
                break
        self._end()


class RoomEcho:
    """The path from a fake speaker to a fake microphone (``LiveAudio``): attenuated by ``gain``,
    delayed by ``delay_s`` and smeared by a few wall reflections, as open laptop speakers are."""

    def __init__(self, live: LiveAudio, gain: float = 0.2, delay_s: float = 0.03):
        import numpy as np

        from .capture import StreamResampler

        self.live = live
        self.delay = int(delay_s * SAMPLE_RATE)
        ir = np.zeros(int(0.06 * SAMPLE_RATE), np.float32)
        for t, a in ((0.0, 1.0), (0.011, 0.4), (0.027, -0.25), (0.05, 0.12)):
            ir[int(t * SAMPLE_RATE)] = a
        self.ir = ir * gain
        self._tail = np.zeros(len(ir) - 1, np.float32)
        self._resample = None
        self._rate = 0
        self._StreamResampler = StreamResampler
        self._next: int | None = None

    def hear(self, block, rate: float, t: float | None = None) -> None:
        """``block`` played by the speaker at monotonic time ``t`` (its card's clock; None: now)."""
        import numpy as np

        if rate != SAMPLE_RATE:
            if self._rate != rate:
                self._resample, self._rate = self._StreamResampler(rate, SAMPLE_RATE), rate
            block = self._resample(block)
        y = np.convolve(block, self.ir)
        y[: len(self._tail)] += self._tail
        out, self._tail = y[: len(block)], y[len(block):].copy()
        # The echo reaches the microphone ``delay`` after the block is played, placed by time
        # (not by how far the microphone's thread has read: a stalled reader would otherwise
        # hear the echo before the speaker played it). Blocks follow on sample-exact from the
        # previous one unless the two cards' clocks disagree by more than 20 ms.
        at = self.live.position_at(time.monotonic() if t is None else t) + self.delay
        if self._next is None or abs(at - self._next) > 0.02 * SAMPLE_RATE:
            self._next = at
        self._next = self.live.mix(out, max(self._next, self.live.read_pos)) + len(out)

    def samples(self):
        import numpy as np

        return np.concatenate(self.played).astype(np.float32) / 32768 if self.played else np.zeros(0, np.float32)
