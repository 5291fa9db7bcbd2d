"""audio-to-audio without a model: noise reduction by spectral gating.

The Hub's audio-to-audio models need toolkits we do not ship (SpeechBrain, Asteroid); a spectral
gate removes steady background noise (hum, hiss, fans) well enough for speech and runs anywhere.
A noise profile is taken from the quietest frames, and each time-frequency cell is kept in
proportion to how far it rises above that profile.
"""

from __future__ import annotations

from typing import Any

from ..media import MediaError, load_audio
from .base import ExpertError, RunContext, TaskOutput
from .cached import need

SPECTRAL_GATE_ID = "builtin/spectral-gate"
SR = 16000


def _stft(x, n_fft: int, hop: int):
    import numpy as np

    win = np.hanning(n_fft).astype(np.float32)
    pad = np.pad(x, (n_fft, n_fft + hop))
    frames = np.lib.stride_tricks.sliding_window_view(pad, n_fft)[::hop] * win
    return np.fft.rfft(frames, axis=-1), win


def _istft(spec, win, n_fft: int, hop: int, length: int):
    import numpy as np

    frames = np.fft.irfft(spec, n=n_fft, axis=-1) * win
    total = n_fft + hop * (len(frames) - 1)
    out = np.zeros(total, dtype=np.float32)
    norm = np.zeros(total, dtype=np.float32)
    for i, f in enumerate(frames):
        out[i * hop:i * hop + n_fft] += f
        norm[i * hop:i * hop + n_fft] += win ** 2
    out /= np.maximum(norm, 1e-8)
    return out[n_fft:n_fft + length]


def spectral_gate(x, n_fft: int = 512, hop: int = 128, strength: float = 1.5):
    """Denoised copy of ``x`` (mono float32) and the noise reduction achieved, in dB."""
    import numpy as np

    spec, win = _stft(x, n_fft, hop)
    mag = np.abs(spec)
    energy = mag.mean(axis=1)
    quiet = mag[energy <= np.percentile(energy, 15)]
    noise = quiet.mean(axis=0) + 2.0 * quiet.std(axis=0)
    snr = mag / np.maximum(noise * strength, 1e-10)
    mask = np.clip((snr - 1.0) / 1.0, 0.0, 1.0)
    # smooth the mask over neighbouring frames and bins to avoid "musical noise"
    k = np.ones(3) / 3
    mask = np.apply_along_axis(lambda m: np.convolve(m, k, mode="same"), 0, mask)
    mask = np.apply_along_axis(lambda m: np.convolve(m, k, mode="same"), 1, mask)
    y = _istft(spec * mask, win, n_fft, hop, len(x)).astype(np.float32)
    before = float(np.mean(np.square(x))) + 1e-12
    after = float(np.mean(np.square(y))) + 1e-12
    return y, round(10 * np.log10(before / after), 2)


class AudioDSPBackend:
    """Built-in audio-to-audio (noise reduction); always available, CPU only."""

    name = "audio-dsp"

    def __init__(self, settings: Any = None):
        self.settings = settings

    def models(self, task: str) -> list[str]:
        if task != "audio-to-audio" or (self.settings is not None and not self.settings.local_allowed):
            return []
        return [SPECTRAL_GATE_ID]

    def where(self, task: str, model_id: str) -> str | None:
        return "local-cpu" if model_id in self.models(task) else None

    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        import numpy as np
        import soundfile as sf

        from .audio_tasks import is_silent

        try:
            x = load_audio(need(args, "audio", task), SR)
        except MediaError as e:
            raise ExpertError(f"{task}: {e}") from None
        if is_silent(x):
            raise ExpertError(f"{task}: the recording is silent, there is nothing to enhance")
        y, reduced = spectral_gate(x)
        peak = float(np.abs(y).max())
        if peak > 1.0:
            y = y / peak
        path = ctx.output_path("denoised", ".wav")
        sf.write(str(path), y, SR, subtype="PCM_16")
        return TaskOutput(text=f"Noise reduced by {reduced} dB; saved to {path.name}", audio=path,
                          data={"noise_reduction_db": reduced, "seconds": round(len(y) / SR, 2)},
                          model_id=SPECTRAL_GATE_ID, where="local-cpu")
