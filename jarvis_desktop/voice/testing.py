"""Helpers for tests and benchmarks of the voice path on machines without a sound card.

``spoken(text)`` makes real speech with espeak-ng; ``file_backed_alsa(home, ...)`` writes an
``.asoundrc`` whose default ALSA device reads its "microphone" from a raw 16 kHz file and writes its
"speaker" to another, so PortAudio (and the real capture/playback code) runs unchanged. Such a
device is unpaced: it delivers the whole file as fast as it is read, so it checks data flow, not
real-time behaviour.
"""

from __future__ import annotations

import io
import subprocess
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
}}
ctl.!default {{ type hw card 0 }}
"""


def spoken(text: str, sample_rate: int = SAMPLE_RATE, voice: str = "en-us"):
    """``text`` spoken by espeak-ng, as mono float32 at ``sample_rate``."""
    import soundfile as sf

    from ..media import resample

    wav = subprocess.run(
        ["espeak-ng", "--stdout", "-v", voice, "--stdin"], input=text.encode(), capture_output=True, check=True
    ).stdout
    data, sr = sf.read(io.BytesIO(wav), dtype="float32", always_2d=True)
    return resample(data.mean(axis=1), sr, sample_rate)


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
