"""Speech experts: automatic-speech-recognition (faster-whisper) and text-to-speech (piper, with
espeak-ng as fallback), on the models that ship in registry packages or sit in the model cache.

The heavy work lives in ``jarvis_desktop.voice``; this backend adapts it to the expert interface,
so the voice loop and a planned task share one loaded model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..media import MediaError, load_audio
from .base import ExpertError, ModelMissingError, RunContext, TaskOutput

ASR = "automatic-speech-recognition"
TTS = "text-to-speech"


class SpeechBackend:
    """Runs Whisper (ASR) and piper/espeak-ng (TTS) locally."""

    name = "speech"
    hosted = False

    def __init__(self, settings):
        self.settings = settings
        self._transcribers: dict[str, Any] = {}
        self._synths: dict[str, Any] = {}

    # --- what can run here -----------------------------------------------------------------
    def models(self, task: str) -> list[str]:
        """The configured (or shipped) model first, then others found locally; stable order."""
        from ..voice import asr, tts

        cache = self.settings.model_cache_path
        out: list[str] = []
        if task == ASR:
            if self.settings.asr_model:
                try:
                    out.append(asr.resolve_model(self.settings.asr_model, cache, offline=True).model_id)
                except Exception:  # configured but not here: not runnable now
                    pass
            if asr.shipped_model_path() is not None:
                out.append(asr.SHIPPED_ASR_ID)
            out += _cached_whisper_repos(cache)
        elif task == TTS:
            configured = tts.Synthesizer(self.settings.voice, cache_dir=cache)
            if self.settings.voice and (configured.espeak_only or tts.find_piper_voice(self.settings.voice, cache)):
                out.append(configured.model_id)
            if tts.shipped_voice_path() is not None:
                out.append(tts.SHIPPED_TTS_ID)
            out += [tts.PIPER_PREFIX + v for v in tts.cached_piper_voices(cache)]
            if tts.espeak_available():
                out.append(tts.ESPEAK_ID)
        return list(dict.fromkeys(m for m in out if m))

    def where(self, task: str, model_id: str) -> str | None:
        if task == ASR:
            from ..voice import asr

            try:
                asr.resolve_model(model_id, self.settings.model_cache_path, offline=True)
            except Exception:
                return None
            return "local-gpu" if asr.pick_device(self.settings.device)[0] == "cuda" else "local-cpu"
        if task == TTS:
            from ..voice import tts

            if model_id == tts.ESPEAK_ID:
                return "local-cpu" if tts.espeak_available() else None
            if tts.find_piper_voice(model_id, self.settings.model_cache_path) is None:
                return None
            return "local-cpu"
        return None

    # --- running ---------------------------------------------------------------------------
    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        if task == ASR:
            return self._recognise(model_id, args, ctx)
        if task == TTS:
            return self._speak(model_id, args, ctx)
        raise ExpertError(f"{task}: the speech backend runs only {ASR} and {TTS}")

    def _recognise(self, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        from ..voice.asr import Transcriber
        from ..voice.errors import EmptyUtterance, VoiceError, VoiceModelMissing

        audio = args.get("audio")
        if not audio:
            raise ExpertError(f"{ASR}: no audio file given")
        if not Path(str(audio)).is_file():  # soundfile reports a missing file as unreadable
            raise ExpertError(f"{ASR}: {Path(str(audio)).name}: file not found ({audio}).")
        try:
            samples = load_audio(audio)
        except MediaError as e:
            raise ExpertError(f"{ASR}: {e}") from None
        t = self._transcribers.get(model_id)
        if t is None:
            s = self.settings
            t = Transcriber(model_id, cache_dir=s.model_cache_path, device=ctx.device or s.device,
                            language=s.language, offline=True, beam_size=5)
            self._transcribers[model_id] = t
        if ctx.cancel.cancelled:
            raise ExpertError(f"{ASR}: cancelled")
        try:
            result = t.transcribe(samples)
        except EmptyUtterance:
            return TaskOutput(text="(no speech found in the recording)", data={"language": "", "duration": len(samples) / 16000},
                              model_id=t.model_id, where=self._where_asr())
        except VoiceModelMissing as e:
            raise ModelMissingError(ASR, e.model_id) from None
        except VoiceError as e:
            raise ExpertError(f"{ASR}: {e}") from None
        return TaskOutput(
            text=result.text,
            data={"language": result.language, "duration": round(result.duration, 3),
                  "segments": [(round(x.start, 2), round(x.end, 2), x.text) for x in result.segments]},
            model_id=result.model_id,
            where=self._where_asr(),
        )

    def _speak(self, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        from ..voice.errors import VoiceError
        from ..voice.tts import Synthesizer

        text = str(args.get("text") or "").strip()
        if not text:
            raise ExpertError(f"{TTS}: no text to read aloud")
        synth = self._synths.get(model_id)
        if synth is None:
            s = self.settings
            synth = Synthesizer(model_id, cache_dir=s.model_cache_path, volume=1.0, device=ctx.device or s.device)
            self._synths[model_id] = synth
        if ctx.cancel.cancelled:
            raise ExpertError(f"{TTS}: cancelled")
        path = ctx.output_path("speech", ".wav")
        try:
            speech = synth.synthesize_to_file(text, path)
        except VoiceError as e:
            raise ExpertError(f"{TTS}: {e}") from None
        return TaskOutput(text=text, audio=path, model_id=speech.engine,
                          data={"seconds_of_audio": round(speech.duration, 2), "sample_rate": speech.sample_rate},
                          where="local-cpu")

    def _where_asr(self) -> str:
        from ..voice import asr

        return "local-gpu" if asr.pick_device(self.settings.device)[0] == "cuda" else "local-cpu"


def _cached_whisper_repos(cache) -> list[str]:
    """faster-whisper repos (CTranslate2 ``model.bin``) in the Hugging Face cache layout."""
    out = []
    root = Path(cache)
    if not root.is_dir():
        return out
    for d in sorted(root.glob("models--*")):
        if any(d.glob("snapshots/*/model.bin")) and "whisper" in d.name.lower():
            out.append(d.name.removeprefix("models--").replace("--", "/"))
    return out
