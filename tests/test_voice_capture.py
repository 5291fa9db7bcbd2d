"""Capture through real PortAudio on a file-backed ALSA device; fakes only for sound cards that
cannot exist here (one that refuses 16 kHz, one that gets unplugged)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from jarvis_desktop.voice.asr import Transcriber
from jarvis_desktop.voice.capture import BLOCK, Microphone, StreamResampler, find_device, level_of
from jarvis_desktop.voice.errors import AudioDeviceError
from jarvis_desktop.voice.listener import VoiceInput
from jarvis_desktop.voice.testing import (
    FakeRealtimeMicrophone,
    alsa_file_device,
    no_sound_card,
    noise,
    silence,
    spoken,
    to_raw_int16,
)


@pytest.fixture
def device(tmp_path):
    with alsa_file_device(tmp_path / "home", tmp_path / "mic.raw", tmp_path / "speaker.raw") as d:
        yield d


def read_n(mic: Microphone, n_blocks: int) -> list:
    return [mic.read() for _ in range(n_blocks)]


def test_capture_returns_the_device_samples_exactly(device):
    sig = np.concatenate([noise(0.5), spoken("hello"), silence(0.5)])
    to_raw_int16(sig, device.capture_raw)
    raw = np.fromfile(device.capture_raw, "<i2").astype(np.float32) / 32768
    with Microphone() as mic:
        blocks = read_n(mic, len(raw) // BLOCK)
    assert [b.position for b in blocks] == [i * BLOCK for i in range(len(blocks))]  # no gap, no repeat
    got = np.concatenate([b.samples for b in blocks])
    assert np.array_equal(got, raw[: len(got)])
    assert mic.rate == 16000 and mic.dropped_blocks == 0


def test_level_meter_and_preroll(device):
    sig = np.concatenate([silence(1.0), spoken("testing the level meter")])
    to_raw_int16(sig, device.capture_raw)
    levels = []
    with Microphone(on_level=levels.append, preroll_s=0.5) as mic:
        quiet = read_n(mic, 16000 // BLOCK)
        quiet_level = max(levels)
        read_n(mic, 16000 // BLOCK)
        preroll = mic.preroll()
    assert quiet_level == 0.0 and max(levels) > 0.5
    assert len(preroll) == int(0.5 * 16000 / BLOCK)
    assert preroll[-1].position == 2 * (16000 // BLOCK) * BLOCK - BLOCK  # the last block read
    assert 0.0 == level_of(np.zeros(BLOCK)) < level_of(np.full(BLOCK, 0.01)) < level_of(np.full(BLOCK, 0.5)) <= 1.0
    assert quiet[0].position == 0


@pytest.mark.slow
def test_a_48k_device_is_resampled_and_still_understood(device):
    """The real file device run at 48 kHz: the microphone converts to 16 kHz for Whisper."""
    sig48 = np.concatenate([silence(0.3, 48000), spoken("turn on the kitchen lights", 48000), silence(0.5, 48000)])
    to_raw_int16(sig48, device.capture_raw)
    with Microphone(device_rate=48000) as mic:
        assert mic.rate == 48000
        blocks = read_n(mic, int(len(sig48) / 3) // BLOCK)
    audio = np.concatenate([b.samples for b in blocks])
    assert abs(len(audio) - len(sig48) / 3) <= BLOCK
    assert Transcriber().transcribe(audio).text.lower().strip(".") == "turn on the kitchen lights"


def test_a_device_that_refuses_16k_is_opened_at_its_own_rate():
    tone48 = np.sin(2 * np.pi * 440 * np.arange(48000) / 48000).astype(np.float32) * 0.5
    card = lambda **kw: FakeRealtimeMicrophone(tone48, rates=(48000,), speed=50, **kw)  # noqa: E731
    with Microphone(stream_factory=card) as mic:
        assert mic.rate == 48000
        blocks = read_n(mic, 20)
    audio = np.concatenate([b.samples for b in blocks])
    expected = np.sin(2 * np.pi * 440 * np.arange(len(audio)) / 16000) * 0.5
    assert np.max(np.abs(audio - expected)) < 0.01  # 440 Hz at 16 kHz, with no seams between blocks


def test_stream_resampler_has_no_seams():
    x = np.sin(np.arange(4800) / 7).astype(np.float32)
    r = StreamResampler(48000, 16000)
    pieces = np.concatenate([r(x[i : i + 441]) for i in range(0, len(x), 441)])
    whole = np.interp(np.arange(1600) * 3.0, np.arange(len(x)), x)
    assert len(pieces) == 1600
    assert np.max(np.abs(pieces - whole)) < 1e-5


def test_no_input_device_is_a_clear_message(tmp_path):
    # every sound card hidden from PortAudio, whatever this machine has
    with no_sound_card(tmp_path / "nocard"):
        from jarvis_desktop.voice.capture import list_devices

        assert list_devices() == []
        with pytest.raises(AudioDeviceError, match="no microphone found. Plug one in"):
            Microphone().start()


def test_unknown_device_name_lists_the_devices(device):
    with pytest.raises(AudioDeviceError, match=r"'USB headset' was not found\. Available: .*default"):
        find_device("USB headset", "input")
    assert find_device("", "input") is None
    assert find_device("filemic", "input") == 0


def test_unplugged_mid_recording_keeps_what_was_heard():
    speech = spoken("save this note")
    card = lambda **kw: FakeRealtimeMicrophone(  # noqa: E731
        np.concatenate([silence(0.2), speech]), unplug_after=1.2, speed=20, **kw)
    errors, utterances = [], []
    done = threading.Event()
    vin = VoiceInput(Microphone(stream_factory=card), mode="push-to-talk",
                     on_utterance=utterances.append, on_error=lambda m: (errors.append(m), done.set()))
    vin.press(at=0)
    vin.start()
    assert done.wait(30)
    vin.stop()
    assert errors and "unplugged" in errors[0]
    assert len(utterances) == 1 and utterances[0].reason == "device-lost"
    got = utterances[0].audio
    assert len(got) >= 1.1 * 16000  # everything up to the unplugging, nothing dropped
    assert np.allclose(got[3200:3200 + 8000], speech[:8000], atol=1 / 16384)


def test_a_silent_stall_is_reported_not_waited_on_forever():
    class FakeStalledCard(FakeRealtimeMicrophone):
        def _loop(self):  # a device that stops calling back without ending the stream
            self._halt.wait()

    card = lambda **kw: FakeStalledCard(silence(1), **kw)  # noqa: E731
    mic = Microphone(stream_factory=card, stall_timeout=0.3).start()
    try:
        with pytest.raises(AudioDeviceError, match="no audio for"):
            mic.read()
    finally:
        mic.stop()
