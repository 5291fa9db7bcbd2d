"""Audio task types on transformers models: speech recognition, audio classification, speech
synthesis. Audio is decoded by :func:`media.load_audio` (no ffmpeg needed) and handed over as
16 kHz samples; a silent clip is answered plainly instead of letting a model hallucinate words."""

from __future__ import annotations

from typing import Any

from ..media import load_audio
from .base import ExpertError, RunContext, TaskOutput
from .cached import need
from .local_cache import ModelInfo

SR = 16000
#: RMS below this (about -70 dBFS) is treated as silence
SILENCE_RMS = 3e-4


def is_silent(samples) -> bool:
    import numpy as np

    return len(samples) == 0 or float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))) < SILENCE_RMS


def run(backend, task: str, info: ModelInfo, args: dict[str, Any], ctx: RunContext, device: str) -> TaskOutput:
    if task == "text-to-speech":
        return speak(backend, info, need(args, "text", task), ctx, device)
    samples = load_audio(need(args, "audio", task), SR)
    duration = round(len(samples) / SR, 3)
    if task == "automatic-speech-recognition":
        if is_silent(samples):
            return TaskOutput(text="(no speech found in the recording)", data={"text": "", "duration": duration, "silent": True})
        kwargs: dict[str, Any] = {}
        if info.model_type == "whisper":
            kwargs["generate_kwargs"] = {"max_new_tokens": 200}
        if duration > 30:
            kwargs["chunk_length_s"] = 30
        with backend.pipeline(task, info, device) as pipe:
            out = pipe({"raw": samples, "sampling_rate": SR}, **kwargs)
        text = str(out.get("text", "")).strip()
        return TaskOutput(text=text or "(no words recognised)", data={"text": text, "duration": duration})
    if task == "audio-classification":
        with backend.pipeline(task, info, device) as pipe:
            labels = pipe({"raw": samples, "sampling_rate": SR}, top_k=5)
        labels = [{"label": x["label"], "score": float(x["score"])} for x in labels]
        text = ", ".join(f"{x['label']} ({x['score']:.2f})" for x in labels)
        if is_silent(samples):
            text += " (the clip is silent)"
        return TaskOutput(text=text, data={"labels": labels, "duration": duration, "silent": is_silent(samples)})
    raise ExpertError(f"{task}: not an audio task")


def speak(backend, info: ModelInfo, text: str, ctx: RunContext, device: str) -> TaskOutput:
    import numpy as np
    import soundfile as sf

    with backend.pipeline("text-to-speech", info, device) as pipe:
        out = pipe(text[:2000])
    audio = np.asarray(out["audio"], dtype=np.float32).squeeze()
    if audio.ndim > 1:
        audio = audio.mean(axis=0)
    rate = int(out["sampling_rate"])
    peak = float(np.abs(audio).max()) if audio.size else 0.0
    if peak > 1.0:
        audio = audio / peak
    path = ctx.output_path("speech", ".wav")
    sf.write(str(path), audio, rate, subtype="PCM_16")
    seconds = round(len(audio) / rate, 2)
    return TaskOutput(text=f"Speech ({seconds} s) saved to {path.name}", audio=path,
                      data={"sampling_rate": rate, "seconds": seconds})
