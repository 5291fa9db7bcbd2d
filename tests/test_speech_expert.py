"""The speech experts on the shipped models: Whisper tiny.en hears espeak-ng and piper speech."""

from __future__ import annotations

import re

import numpy as np
import pytest
import soundfile as sf

from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import ExpertBackend, ExpertError, RunContext
from jarvis_desktop.experts.speech import ASR, TTS, SpeechBackend
from jarvis_desktop.voice import asr, tts
from jarvis_desktop.voice.errors import EmptyUtterance, VoiceModelMissing
from jarvis_desktop.voice.testing import noise, silence, spoken

pytestmark = pytest.mark.slow

REQUEST = "Please describe this image and read the answer aloud"


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


@pytest.fixture
def settings(tmp_path):
    return Settings(model_cache=str(tmp_path / "model_cache"), data_dir=str(tmp_path / "data"), offline=True)


@pytest.fixture
def backend(settings):
    return SpeechBackend(settings)


@pytest.fixture
def ctx(tmp_path):
    return RunContext(output_dir=tmp_path / "out", task_id=3)


def test_backend_follows_the_expert_protocol(backend):
    assert isinstance(backend, ExpertBackend)
    assert backend.models(ASR)[0] == "Systran/faster-whisper-tiny.en"
    assert backend.models(TTS)[0] == "rhasspy/piper-voices/en_US-joe-medium"
    assert "espeak-ng" in backend.models(TTS)
    assert backend.where(ASR, "Systran/faster-whisper-tiny.en") == "local-cpu"
    assert backend.where(ASR, "openai/whisper-tiny.en") == "local-cpu"  # the catalog's name for the same weights
    assert backend.where(ASR, "openai/whisper-large-v2") is None  # not in the (empty) model cache
    assert backend.where(TTS, "rhasspy/piper-voices/en_US-joe-medium") == "local-cpu"
    assert backend.where(TTS, "microsoft/speecht5_tts") is None
    assert backend.where("image-to-text", "Systran/faster-whisper-tiny.en") is None


def test_asr_transcribes_espeak_speech_word_for_word(backend, ctx, tmp_path):
    wav = tmp_path / "request.wav"
    sf.write(wav, np.concatenate([silence(0.4), spoken(REQUEST), silence(0.4)]), 16000)
    out = backend.run(ASR, "Systran/faster-whisper-tiny.en", {"audio": str(wav)}, ctx)
    assert words(out.text) == words(REQUEST)
    assert out.model_id == "Systran/faster-whisper-tiny.en"
    assert out.data["language"] == "en"


def test_asr_of_a_corrupt_file_is_a_clear_expert_error(backend, ctx, tmp_path):
    bad = tmp_path / "broken.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunkjunkjunk")
    with pytest.raises(ExpertError, match="broken.wav: not a readable audio file"):
        backend.run(ASR, "Systran/faster-whisper-tiny.en", {"audio": str(bad)}, ctx)
    with pytest.raises(ExpertError, match="file not found"):
        backend.run(ASR, "Systran/faster-whisper-tiny.en", {"audio": str(tmp_path / "nope.wav")}, ctx)


def test_asr_of_noise_only_says_no_speech(backend, ctx, tmp_path):
    wav = tmp_path / "room.wav"
    sf.write(wav, noise(2.0, level=0.002), 16000)
    out = backend.run(ASR, "Systran/faster-whisper-tiny.en", {"audio": str(wav)}, ctx)
    assert out.text == "(no speech found in the recording)"


def test_tts_writes_a_wav_that_whisper_reads_back(backend, ctx):
    sentence = "The weather is sunny today. I found two cats in the picture."
    out = backend.run(TTS, "rhasspy/piper-voices/en_US-joe-medium", {"text": sentence}, ctx)
    assert out.audio is not None and out.audio.parent == ctx.output_dir and out.audio.suffix == ".wav"
    assert out.model_id == "rhasspy/piper-voices/en_US-joe-medium"
    assert out.text == sentence
    data, sr = sf.read(out.audio)
    assert sr == 22050 and len(data) > sr  # over a second of speech
    heard = asr.Transcriber().transcribe(str(out.audio))
    assert words(heard.text) == words(sentence)


def test_tts_without_text_is_an_expert_error(backend, ctx):
    with pytest.raises(ExpertError, match="no text"):
        backend.run(TTS, "rhasspy/piper-voices/en_US-joe-medium", {"text": "  "}, ctx)


def test_espeak_fallback_when_the_piper_voice_is_broken(tmp_path, ctx):
    cache = tmp_path / "model_cache"
    voice_dir = cache / "voices"
    voice_dir.mkdir(parents=True)
    (voice_dir / "en_US-broken-low.onnx").write_bytes(b"not an onnx model")
    (voice_dir / "en_US-broken-low.onnx.json").write_text("{}")
    s = Settings(model_cache=str(cache), voice="en_US-broken-low", offline=True)
    b = SpeechBackend(s)
    assert "rhasspy/piper-voices/en_US-broken-low" in b.models(TTS)
    out = b.run(TTS, "rhasspy/piper-voices/en_US-broken-low", {"text": "Hello there, how are you?"}, ctx)
    assert out.model_id == "espeak-ng"  # honest about who spoke
    heard = asr.Transcriber().transcribe(str(out.audio))
    assert words(heard.text) == ["hello", "there", "how", "are", "you"]


def test_transcriber_takes_arrays_and_rejects_silence():
    t = asr.Transcriber()
    r = t.transcribe(spoken("open the window"))
    assert words(r.text) == ["open", "the", "window"]
    assert r.duration > 0.5 and r.seconds > 0
    with pytest.raises(EmptyUtterance):
        t.transcribe(silence(1.0))
    with pytest.raises(EmptyUtterance):
        t.transcribe(np.zeros(10, np.float32))


def test_missing_asr_model_names_the_model(tmp_path):
    t = asr.Transcriber("large-v3", cache_dir=tmp_path, offline=True)
    with pytest.raises(VoiceModelMissing, match="Systran/faster-whisper-large-v3.*jarvis models pull"):
        t.transcribe(spoken("hello"))


def test_synthesizer_volume_scales_the_samples():
    loud, sr = tts.Synthesizer(volume=1.0).synthesize("Testing the volume.")
    quiet, sr2 = tts.Synthesizer(volume=0.25).synthesize("Testing the volume.")
    assert sr == sr2 == 22050
    assert np.max(np.abs(quiet)) == pytest.approx(0.25 * np.max(np.abs(loud)), rel=0.05)
    empty, _ = tts.Synthesizer().synthesize("")
    assert empty.size == 0


def _hub_entry(cache, repo_id: str, files: dict) -> None:
    """A model laid out as the Hugging Face cache does (links to real files, not copies)."""
    rev = "0123456789abcdef0123456789abcdef01234567"
    base = cache / ("models--" + repo_id.replace("/", "--"))
    snap = base / "snapshots" / rev
    snap.mkdir(parents=True)
    for name, src in files.items():
        (snap / name).parent.mkdir(parents=True, exist_ok=True)
        (snap / name).symlink_to(src)
    (base / "refs").mkdir()
    (base / "refs" / "main").write_text(rev)


def test_models_from_the_cache_by_name(tmp_path, ctx):
    """asr_model / voice settings naming models in model_cache load through the same path."""
    cache = tmp_path / "model_cache"
    shipped = asr.shipped_model_path()
    _hub_entry(cache, "Systran/faster-whisper-base.en", {p.name: p for p in shipped.iterdir()})
    onnx = tts.shipped_voice_path()
    _hub_entry(cache, "rhasspy/piper-voices", {
        "en/en_US/test/medium/en_US-test-medium.onnx": onnx,
        "en/en_US/test/medium/en_US-test-medium.onnx.json": onnx.with_name(onnx.name + ".json"),
    })
    s = Settings(model_cache=str(cache), asr_model="base.en", voice="en_US-test-medium", offline=True)
    b = SpeechBackend(s)
    assert b.models(ASR)[:2] == ["Systran/faster-whisper-base.en", "Systran/faster-whisper-tiny.en"]
    assert b.models(TTS)[0] == "rhasspy/piper-voices/en_US-test-medium"
    assert b.where(ASR, "openai/whisper-base.en") == "local-cpu"  # the catalog's id maps to the cached conversion
    out = b.run(TTS, "rhasspy/piper-voices/en_US-test-medium", {"text": "Good morning."}, ctx)
    assert out.model_id == "rhasspy/piper-voices/en_US-test-medium"
    heard = asr.Transcriber.from_settings(s).transcribe(str(out.audio))
    assert heard.model_id == "Systran/faster-whisper-base.en"
    assert words(heard.text) == ["good", "morning"]


def test_a_decode_that_runs_away_repeating_itself_keeps_one_copy():
    """Whisper in a short window once wrote 'I found two cats' 23 times for a 1 s clip (CI)."""
    from faster_whisper.tokenizer import Tokenizer

    from jarvis_desktop.voice.asr import Transcriber, without_runaway_loop

    model = Transcriber().load()
    tok = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language="en")
    unit = tok.encode(" I found two cats")
    assert tok.decode(without_runaway_loop(unit * 23 + unit[:2])).strip() == "I found two cats"
    said = tok.encode(" Could you check the weather for me? I found two cats") + unit * 5
    assert tok.decode(without_runaway_loop(said)).strip() == "Could you check the weather for me? I found two cats"
    for kept in (" no no no", " thank you thank you", " Please translate this text into French."):
        assert without_runaway_loop(tok.encode(kept)) == tok.encode(kept)  # short repeats and plain text stay
