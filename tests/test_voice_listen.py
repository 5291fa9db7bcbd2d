"""Utterance boundaries (Silero VAD), hands-free and push-to-talk through real capture on a
file-backed ALSA device, and recognition with the shipped Whisper."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest
import soundfile as sf

from jarvis_desktop.voice.asr import Transcriber
from jarvis_desktop.voice.capture import BLOCK, Microphone
from jarvis_desktop.voice.listener import Recognizer, Utterance, VoiceInput
from jarvis_desktop.voice.testing import alsa_file_device, noise, silence, spoken, to_raw_int16
from jarvis_desktop.voice.vad import Endpointer, SpeechPaused, SpeechResumed, UtteranceEnded

SR = 16000


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def speech_bounds(x, thr=0.02):
    idx = np.nonzero(np.abs(x) > thr)[0]
    return int(idx[0]), int(idx[-1])


def run_endpointer(sig, **kw):
    ep = Endpointer(**kw)
    events = []
    for i in range(0, len(sig) - BLOCK + 1, BLOCK):
        events += ep.feed(sig[i : i + BLOCK], i)
    return events


@pytest.fixture(scope="module")
def transcriber():
    t = Transcriber()
    t.load()
    return t


@pytest.fixture
def device(tmp_path):
    with alsa_file_device(tmp_path / "home", tmp_path / "mic.raw", tmp_path / "speaker.raw") as d:
        yield d


# --- endpointing ------------------------------------------------------------------------------


def test_vad_finds_the_utterance_boundaries():
    speech = spoken("Please set a timer for ten minutes")
    s0, s1 = speech_bounds(speech)
    lead = int(1.5 * SR)
    sig = np.concatenate([noise(1.5), speech + noise(len(speech) / SR, seed=1), noise(2.0, seed=2)])
    events = run_endpointer(sig, silence_ms=600)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["SpeechStarted", "SpeechPaused", "UtteranceEnded"]
    start, end = events[0], events[-1]
    assert lead + s0 - 0.05 * SR <= start.position <= lead + s0 + 0.15 * SR  # heard within 150 ms of onset
    assert end.reason == "silence"
    assert lead + s1 - 0.1 * SR <= end.speech_end <= lead + s1 + 0.15 * SR  # last speech found
    assert end.start <= lead + s0 - 0.3 * SR  # pre-roll: the first consonant is kept
    assert end.end == end.speech_end + 0.2 * SR  # tail
    assert np.array_equal(end.audio, sig[end.start : end.end])
    assert events[1].start == end.start and events[1].end == end.end  # the pause saw the final audio


def test_a_short_pause_does_not_end_the_utterance_but_a_long_one_does():
    a, b = spoken("turn left"), spoken("then stop")
    short = np.concatenate([silence(1), a, silence(0.3), b, silence(1.5)])
    events = run_endpointer(short, silence_ms=600)
    ends = [e for e in events if isinstance(e, UtteranceEnded)]
    assert len(ends) == 1
    long_ = np.concatenate([silence(1), a, silence(1.0), b, silence(1.5)])
    assert len([e for e in run_endpointer(long_, silence_ms=600) if isinstance(e, UtteranceEnded)]) == 2
    # the configured silence decides: 300 ms splits the short pause too
    assert len([e for e in run_endpointer(short, silence_ms=150, tail_ms=100) if isinstance(e, UtteranceEnded)]) == 2


def test_resumed_speech_after_a_pause_is_reported():
    a, b = spoken("call mom"), spoken("on her mobile")
    events = run_endpointer(np.concatenate([silence(1), a, silence(0.45), b, silence(1.5)]), silence_ms=600)
    kinds = [type(e) for e in events]
    assert SpeechPaused in kinds and SpeechResumed in kinds
    assert kinds.index(SpeechResumed) > kinds.index(SpeechPaused)
    assert kinds[-1] is UtteranceEnded


def test_noise_and_silence_start_no_utterance():
    assert run_endpointer(np.concatenate([silence(1), noise(3, level=0.01), silence(1)])) == []


def test_max_length_cuts_a_long_utterance():
    speech = np.concatenate([spoken("one two three four five six seven eight nine ten")] * 3)
    events = run_endpointer(np.concatenate([silence(0.5), speech, silence(1)]), max_utterance_s=3.0)
    reasons = [e.reason for e in events if isinstance(e, UtteranceEnded)]
    assert reasons[0] == "max-length" and len(reasons) >= 2


# --- hands-free and push-to-talk through real capture ------------------------------------------


@pytest.mark.slow
def test_hands_free_hears_and_transcribes_a_request(device, transcriber, tmp_path):
    text = "What is the weather like in Paris today"
    sig = np.concatenate([noise(1.5), spoken(text) + noise(len(spoken(text)) / SR, seed=3), noise(1.5, seed=4)])
    to_raw_int16(sig, device.capture_raw)
    rec = Recognizer(transcriber, keep_dir=tmp_path / "recordings")
    got, started = [], []
    done = threading.Event()
    vin = VoiceInput(Microphone(), on_speech_start=started.append, on_pause=rec.speculate,
                     on_utterance=lambda u: (got.append(u), done.set()))
    vin.start()
    assert done.wait(30)
    vin.stop()
    utt = got[0]
    assert len(started) == 1 and utt.start < started[0] < utt.end
    r = rec.recognize(utt)
    assert words(r.text) == words(text)
    assert r.speculative  # recognition began at the pause and was reused
    kept, sr = sf.read(r.audio_path, dtype="float32")
    assert sr == SR and len(kept) == len(utt.audio)  # the utterance's audio is kept with the session


@pytest.mark.slow
def test_push_to_talk_captures_exactly_the_span(device, transcriber):
    speech = spoken("Read my new messages")
    sig = np.concatenate([noise(1.0), speech, noise(1.0, seed=5)])
    to_raw_int16(sig, device.capture_raw)
    raw = np.fromfile(device.capture_raw, "<i2").astype(np.float32) / 32768
    press_at, release_at = 1.0 * SR - 0.25 * SR, 1.0 * SR + len(speech) + 0.1 * SR
    got = []
    done = threading.Event()
    vin = None

    def on_block(block):  # the "button" is pressed and released at known device positions
        if block.position == 8 * BLOCK:
            vin.press(at=int(press_at))
        if block.position == int(release_at // BLOCK) * BLOCK:
            vin.release(at=int(release_at))

    vin = VoiceInput(Microphone(), mode="push-to-talk", on_block=on_block,
                     on_utterance=lambda u: (got.append(u), done.set()))
    vin.start()
    assert done.wait(30)
    vin.stop()
    utt = got[0]
    assert (utt.start, utt.end) == (int(press_at), int(release_at))
    assert np.array_equal(utt.audio, raw[int(press_at) : int(release_at)])  # not a sample more or less
    assert words(transcriber.transcribe(utt.audio).text) == words("Read my new messages")


def test_push_to_talk_from_another_thread_gets_a_contiguous_span(device):
    to_raw_int16(noise(3.0), device.capture_raw)
    got, delivered = [], {}
    done = threading.Event()
    mic = Microphone()
    vin = VoiceInput(mic, mode="push-to-talk", on_block=lambda b: delivered.setdefault(b.position, b.samples),
                     on_utterance=lambda u: (got.append(u), done.set()))
    vin.start()
    start = vin.press()  # now, by the device's sample counter
    while mic.position < start + SR // 2:
        threading.Event().wait(0.001)
    end = vin.release()
    assert done.wait(10)
    vin.stop()
    utt = got[0]
    assert (utt.start, utt.end) == (start, end) and len(utt.audio) == end - start
    first = start // BLOCK * BLOCK
    stream = np.concatenate([delivered[p] for p in range(first, end, BLOCK)])
    assert np.array_equal(utt.audio, stream[start - first : end - first])  # what the device delivered, in order


@pytest.mark.slow
def test_a_ten_minute_recording_is_transcribed_whole(device, transcriber):
    first, last = spoken("This is the start of a long meeting"), spoken("And this is the end of it")
    body = noise(600 - (len(first) + len(last)) / SR - 1.0, level=0.002)
    sig = np.concatenate([silence(0.5), first, body, last, silence(0.5)])
    to_raw_int16(sig, device.capture_raw)
    got = []
    done = threading.Event()
    vin = VoiceInput(Microphone(queue_seconds=700), mode="push-to-talk",
                     on_utterance=lambda u: (got.append(u), done.set()))
    vin.press(at=0)
    vin.release(at=len(sig))
    vin.start()
    assert done.wait(120)
    vin.stop()
    utt = got[0]
    assert utt.duration == pytest.approx(600, abs=0.01)
    text = transcriber.transcribe(utt.audio).text
    assert "start of a long meeting" in text.lower() and "end of it" in text.lower()


# --- recognition outcomes ---------------------------------------------------------------------


@pytest.mark.slow
def test_noise_only_and_tiny_utterances_are_reported_as_no_speech(transcriber, tmp_path):
    rec = Recognizer(transcriber, keep_dir=tmp_path)
    r = rec.recognize(Utterance(noise(1.5, level=0.003), 0, 24000, "silence"))
    assert r.empty and not r.ok and r.audio_path.exists()
    r = rec.recognize(Utterance(silence(0.1), 0, 1600, "silence"))
    assert r.empty and "too short" in r.error


def test_a_failed_recognition_keeps_the_audio_for_a_retry(tmp_path):
    class BrokenTranscriber:  # a recogniser that fails, as one does when its model is damaged
        def transcribe(self, audio, **options):
            raise RuntimeError("model file is damaged")

    rec = Recognizer(BrokenTranscriber(), keep_dir=tmp_path / "rec")
    speech = spoken("remember this")
    r = rec.recognize(Utterance(speech, 0, len(speech), "silence"))
    assert not r.ok and "model file is damaged" in r.error and str(r.audio_path) in r.error
    kept, _ = sf.read(r.audio_path, dtype="float32")
    assert np.allclose(kept, speech, atol=1 / 16000)
    retried = Recognizer(Transcriber()).retry(r.audio_path)
    assert words(retried.text) == ["remember", "this"]
    # a retry is not a live turn: the file beam, and no last-word pass for the end of a turn
    assert retried.transcript.segments[-1].last_word_prob is None
