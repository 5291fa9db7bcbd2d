"""Turn-taking: end of turn from what was said (spaCy + Whisper's punctuation), the assistant's
own voice mixed into the microphone (WebRTC echo cancellation, barge-in gate), one open output
stream fed clip by clip, devices that fall silent or go away. Speech is real (espeak-ng, the
shipped Whisper and piper); sound cards are fakes where a paced one is needed (none here)."""

from __future__ import annotations

import logging
import threading
import time

import numpy as np
import pytest

from jarvis_desktop.voice.asr import Transcriber
from jarvis_desktop.voice.capture import BLOCK, Microphone
from jarvis_desktop.voice.conversation import PAUSE_MS
from jarvis_desktop.voice.echo import EchoCanceller, ReferenceTrack, aec_available
from jarvis_desktop.voice.listener import Recognizer, VoiceInput
from jarvis_desktop.voice.playback import Player
from jarvis_desktop.voice.speaker import StreamingSpeaker
from jarvis_desktop.voice.testing import (
    FakeRealtimeMicrophone, FakeRealtimeSpeaker, LiveAudio, RoomEcho, alsa_file_device, noise, silence, spoken,
    to_raw_int16,
)
from jarvis_desktop.voice.tts import Synthesizer
from jarvis_desktop.voice.turn import TurnDetector, TurnTaker
from jarvis_desktop.voice.vad import Endpointer, SpeechPaused, UtteranceEnded

SR = 16000
MAX_WAIT_MS = 1200


@pytest.fixture(scope="module")
def transcriber():
    t = Transcriber()
    t.load()
    return t


@pytest.fixture(scope="module")
def detector():
    d = TurnDetector(max_wait_ms=MAX_WAIT_MS)
    assert d.load(), "spaCy's en_core_web_sm is installed by make setup"
    return d


@pytest.fixture(scope="module")
def synth():
    s = Synthesizer()
    s.load()
    return s


# --- the decision from text ---------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "What is the weather like in Paris today?", "Please describe this image.", "Set a timer for 10 minutes",
    "Tell me a joke", "Thanks.",
])
def test_a_finished_sentence_or_question_ends_the_turn_after_the_usual_gap(detector, text):
    d = detector.judge(text)
    assert (d.verdict, d.wait_ms) == ("complete", detector.min_gap_ms), d
    assert PAUSE_MS < detector.min_gap_ms < MAX_WAIT_MS


@pytest.mark.parametrize("text", [
    "Please describe this image and...", "Please describe this image and", "Can you tell me what",
    "so I want to", "Um, so I wanted to...", "Translate this text into", "Please describe.", "I think, um",
    "Generate a picture of a cat but",
])
def test_a_trailing_conjunction_filler_or_open_clause_waits_the_full_silence(detector, text):
    d = detector.judge(text)
    assert (d.verdict, d.wait_ms) == ("incomplete", MAX_WAIT_MS), d


def test_a_fragment_waits_a_middle_time_and_nothing_waits_past_the_setting():
    d = TurnDetector(max_wait_ms=400, unsure_wait_ms=700).judge("The cat")
    assert d.verdict == "unsure" and d.wait_ms == 400


# --- the decision in the listening loop ------------------------------------------------------------


def listen_with_turns(sig, transcriber, detector):
    """Feed ``sig`` block by block through the endpointer with turn-taking. At each pause the
    feed waits for the speculative judgement (as a fast machine would have it within the pause),
    so the test checks the decision, not the speed of this machine."""
    ep = Endpointer(silence_ms=MAX_WAIT_MS, tail_ms=PAUSE_MS)
    rec = Recognizer(transcriber)
    taker = TurnTaker(rec, detector, ep.end_turn)
    ended: list[UtteranceEnded] = []
    taker.ended_at = []  # the position after the block that ended each utterance
    try:
        for i in range(0, len(sig) - BLOCK + 1, BLOCK):
            for ev in ep.feed(sig[i:i + BLOCK], i):
                if isinstance(ev, SpeechPaused):
                    before = taker.judged
                    taker.on_pause(ev)
                    deadline = time.monotonic() + 60
                    while taker.judged == before and time.monotonic() < deadline:
                        time.sleep(0.01)
                elif isinstance(ev, UtteranceEnded):
                    ended.append(ev)
                    taker.ended_at.append(i + BLOCK)
    finally:
        rec.close()
    return ended, taker


def test_a_finished_question_ends_the_turn_at_the_pause_not_after_the_fixed_silence(transcriber, detector):
    speech = spoken("What is the capital of Australia?")
    sig = np.concatenate([noise(0.5), speech + noise(len(speech) / SR, seed=1), noise(2.5, seed=2)])
    speech_end = int(0.5 * SR) + len(speech)
    ended, taker = listen_with_turns(sig, transcriber, detector)
    assert len(ended) == 1 and ended[0].reason == "turn-complete", taker.decisions
    # over at the first pause: far sooner than the configured silence
    assert ended[0].end - speech_end < 0.5 * MAX_WAIT_MS * SR / 1000
    assert taker.decisions[-1][1].verdict == "complete"
    assert "australia" in taker.decisions[-1][0].lower()
    # recognised from the early pause, yet not ended before people's usual gap between phrases
    silence = taker.ended_at[0] - ended[0].speech_end
    assert detector.min_gap_ms * SR / 1000 <= silence < (detector.min_gap_ms + 70) * SR / 1000, silence


@pytest.mark.parametrize("first,rest", [
    ("Can you tell me what", "time it is in Tokyo"),
    ("Translate this sentence into", "French for me"),
    ("I would like you to", "read the answer aloud"),
    # cut here, Whisper finishes the sentence with a guess ("What is the capital done?", "Set a
    # timer for it"): only its doubt about that last word keeps the turn open
    ("What is the capital of", "Australia"),
    ("Set a timer for", "ten minutes"),
])
def test_a_pause_in_an_unfinished_sentence_does_not_cut_it(transcriber, detector, first, rest):
    a, b = spoken(first), spoken(rest)
    sig = np.concatenate([noise(0.5), a + noise(len(a) / SR, seed=1), noise(0.5, seed=3),
                          b + noise(len(b) / SR, seed=4), noise(2.5, seed=2)])
    ended, taker = listen_with_turns(sig, transcriber, detector)
    assert len(ended) == 1, [(d[0], d[1].verdict) for d in taker.decisions]  # one request, not two
    assert taker.decisions[0][1].verdict != "complete"  # "incomplete", or "unsure" when Whisper garbled the last word
    heard = Transcriber().transcribe(ended[0].audio).text.lower()
    assert first.split()[0].lower() in heard and rest.split()[-1].lower() in heard


# --- one open output stream -------------------------------------------------------------------------


def test_clips_are_written_back_to_back_on_one_stream_that_stays_open():
    FakeRealtimeSpeaker.instances.clear()
    player = Player(stream_factory=lambda **kw: FakeRealtimeSpeaker(speed=4.0, **kw), idle_stop_s=0.2)
    tones = [(np.sin(np.arange(4000 + 1000 * k) / (5 + k)) * 0.3).astype(np.float32) for k in range(3)]
    clips = [player.enqueue(t, 22050) for t in tones]
    assert all(c.done.wait(10) for c in clips) and all(c.completed for c in clips)
    # sentence k+1 starts on the very frame after sentence k ends: no gap in the written stream
    assert [c.start_frame for c in clips[1:]] == [c.end_frame for c in clips[:-1]]
    card = FakeRealtimeSpeaker.instances[0]
    written = np.concatenate(card.played).astype(np.float32) / 32768
    joined = np.concatenate(tones)
    s = clips[0].start_frame
    assert np.allclose(written[s:s + len(joined)], joined, atol=1e-4)
    time.sleep(0.3)  # idle: the stream pauses itself; the next answer restarts it, no reopen
    later = player.enqueue(tones[0], 22050)
    assert later.done.wait(10) and later.completed
    assert player.streams_opened == 1 and len(FakeRealtimeSpeaker.instances) == 1
    player.close()


def test_a_speaker_that_disappears_mid_reply_fails_the_rest_and_is_reopened_next_time(synth):
    cards = []

    def card(**kw):
        cards.append(FakeRealtimeSpeaker(speed=2.0, vanish_after=0.6 if not cards else None, **kw))
        return cards[-1]

    events = []
    sp = StreamingSpeaker(synth, Player(stream_factory=card), on_event=lambda e: events.append((e.kind, e.index)))
    sp.say("This first sentence is long enough to outlast the sound card. The second one follows it. A third.")
    assert sp.wait(60)
    assert not sp.speaking  # nothing stuck in "speaking"
    assert ("failed", 0) in events and "unplugged" in sp.error
    events.clear()
    sp.say("Back again.")
    assert sp.wait(60) and ("played", 0) in events and len(cards) == 2
    sp.close()


# --- the assistant's own voice in the microphone -------------------------------------------------------


def test_what_a_late_playback_callback_writes_is_waited_for_not_taken_as_silence():
    """The card plays on schedule from its buffer while a held-up callback writes the far-end
    signal late: the microphone's block for that moment waits for it (bounded), and does not wait
    once playback has paused."""
    reference = ReferenceTrack()
    reference.write(np.zeros(BLOCK, np.float32), SR, t=100.0)
    threading.Timer(0.2, lambda: reference.write(np.full(BLOCK, 0.5, np.float32), SR, t=100.0 + BLOCK / SR)).start()
    reference.wait_for(100.0 + 2 * BLOCK / SR, timeout=30)
    assert np.allclose(reference.read(100.0 + BLOCK / SR, BLOCK), 0.5)
    reference.paused()
    done = threading.Event()
    threading.Thread(target=lambda: (reference.wait_for(200.0, timeout=60), done.set()), daemon=True).start()
    assert done.wait(10)  # nothing more is coming: no waiting


@pytest.mark.parametrize("use_aec", [False, True], ids=["correlation-gate", "webrtc-aec3"])
def test_the_fading_tail_of_its_own_sentence_is_not_taken_for_a_user(use_aec):
    """At the end of a sentence the echo sinks into the room's noise: those blocks neither
    correlate with the speaker nor cancel, and must not make the assistant's own voice look like
    a user (it interrupted itself this way in CI). A user who talks there still counts."""
    said = spoken("The image shows a grey cat asleep on a sofa.")
    far = np.concatenate([silence(0.5), said, silence(1.0)])
    room_noise = np.random.default_rng(0).normal(0, 0.002, len(far)).astype(np.float32)
    echo_only = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:len(far)] + room_noise
    end = int((0.5 * SR + len(said)) // BLOCK * BLOCK)
    user = echo_only.copy()
    stop = spoken("Stop, that is enough.", voice="en-us+f3")  # another person, over the last word
    starts = end - int(0.2 * SR)
    user[starts:starts + len(stop)] += 0.5 * stop[:len(far) - starts]

    def unexplained_blocks(mic):
        reference = ReferenceTrack(keep_s=30)
        reference.write(far, SR, t=1000.0)
        echo = EchoCanceller(reference, use_aec=use_aec)
        found = []
        for i in range(0, len(far) - BLOCK + 1, BLOCK):
            echo.process(mic[i:i + BLOCK], 1000.0 + i / SR)
            if echo.far_active() and not echo.echo_explains_speech():
                found.append(i)
        return found

    assert unexplained_blocks(echo_only) == []
    assert [i for i in unexplained_blocks(user) if i >= starts]  # the user's voice over the same tail


@pytest.mark.parametrize("use_aec", [False, True], ids=["correlation-gate", "webrtc-aec3"])
def test_a_faint_sound_as_the_reply_comes_back_quietly_is_not_a_user(use_aec):
    """The card ran dry and the reply comes back at the start of a word: its echo is at the room's
    noise, and a sound 7 dB above that noise is no user talking over the answer (as 6 dB it passed
    for one, and the assistant interrupted itself in CI); a voice 20 dB above it is."""
    rng = np.random.default_rng(2)
    n = 3 * SR
    far = rng.normal(0, 0.1, n).astype(np.float32)  # a steady reply after a second of the room alone
    far[:SR] = 0.0
    far[int(2.4 * SR) // BLOCK * BLOCK:] *= 0.01
    room = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:n] + rng.normal(0, 0.002, n).astype(np.float32)
    at = int(2.6 * SR) // BLOCK * BLOCK

    def explained(level_db):
        mic = room.copy()
        mic[at:] += rng.normal(0, np.sqrt(0.002 ** 2 * 10 ** (level_db / 10)), n - at).astype(np.float32)
        reference = ReferenceTrack(keep_s=30)
        reference.write(far, SR, t=1000.0)
        gate = EchoCanceller(reference, use_aec=use_aec)
        verdicts = []
        for i in range(0, n - BLOCK + 1, BLOCK):
            gate.process(mic[i:i + BLOCK], 1000.0 + i / SR)
            if i >= at and gate.far_active():
                verdicts.append(gate.echo_explains_speech())
        return verdicts

    assert all(explained(7.0))
    assert not any(explained(20.0))


def test_the_fake_rooms_clock_keeps_time_for_samples_lost_to_an_overflow():
    """The barge-in bench measures the user's onset on this clock: a count of delivered samples
    falls behind the room for good once the card overflowed (it made barge-ins look missed)."""
    room = LiveAudio(noise_level=0.0)
    assert room.time_of(0) is None  # nothing read yet: no clock
    room.read(1600, t_end=10.1, rate=16000)
    room.skip(1600)  # 0.1 s the card never delivered
    user = room.mix(np.ones(800, np.float32), room.read_pos + 800)
    assert user == 4000
    assert room.time_of(user) == pytest.approx(10.25)
    assert room.position_at(room.time_of(2400)) == 2400
    assert float(np.max(room.read(1600))) == 1.0  # the user is heard 800 samples into the next read


@pytest.mark.skipif(not aec_available(), reason="pywebrtc-audio is installed by make setup")
@pytest.mark.parametrize("echo_delay, stall, speaker_stall, latency", [
    (0.03, 0.0, 0.0, 0.05), (0.2, 0.0, 0.0, 0.05), (0.03, 0.19, 0.0, 0.05), (0.03, 0.0, 0.15, 0.25), (0.03, 0.0, 0.15, 0.05),
], ids=["laptop-speakers", "bluetooth-speaker-200ms", "capture-thread-stalls-as-reply-starts",
        "playback-thread-stalls-within-a-long-output-buffer", "playback-thread-stalls-and-the-card-runs-dry"])
def test_echo_of_the_reply_does_not_barge_in_but_the_user_does(synth, echo_delay, stall, speaker_stall, latency, caplog):
    caplog.set_level(logging.DEBUG, logger="jarvis_desktop.voice")  # a failure shows the gate's evidence
    room = LiveAudio(noise_level=0.002)
    reference = ReferenceTrack()
    player = Player(stream_factory=lambda **kw: FakeRealtimeSpeaker(echo=RoomEcho(room, gain=0.2, delay_s=echo_delay),
                                                                    latency=latency, **kw),
                    reference=reference)
    speaker = StreamingSpeaker(synth, player)
    barge_ins: list[int] = []

    def on_speech_start(pos):
        if speaker.speaking:
            barge_ins.append(pos)
            speaker.interrupt()

    mic = Microphone(stream_factory=lambda **kw: FakeRealtimeMicrophone(room, **kw))
    echo = EchoCanceller(reference)
    heard = []
    vin = VoiceInput(mic, echo=echo, on_speech_start=on_speech_start, on_utterance=heard.append,
                     endpointer=Endpointer(silence_ms=MAX_WAIT_MS, tail_ms=160)).start()
    try:
        time.sleep(0.5)
        room.stall_reader(stall)  # a busy process: the samples are captured on time, read late
        speaker.say("The image shows a grey cat asleep on a sofa. It was described by the captioning model.")
        if speaker_stall:  # ...or the samples to play are handed over late, within what the card buffers
            for at in (0.8, 1.6, 2.4):
                threading.Timer(at, lambda: FakeRealtimeSpeaker.instances[-1].stall_writer(speaker_stall)).start()
        assert speaker.wait(60)
        assert barge_ins == [] and not speaker.interrupted  # its own voice did not interrupt it
        assert echo.echo_path_heard()  # the microphone did hear the speaker
        time.sleep(MAX_WAIT_MS / 1000 + 0.3)  # ...nor became a request once its echo died away
        assert heard == [] or vin.echo_rejected == 0, [(u.reason, len(u.audio)) for u in heard]
        # now the user talks over the next answer
        started = threading.Event()
        speaker._listener = lambda e: started.set() if e.kind == "playing" and e.index == 1 else None
        speaker.say("Here is a longer answer. It has a second sentence that the user talks over, and it goes on "
                    "for quite a while so that there is time to interrupt it.")
        assert started.wait(60)
        time.sleep(0.4)
        room.mix(spoken("Stop, that is enough thank you"))
        assert speaker.wait(30)
        assert barge_ins and speaker.interrupted
        assert vin.error == ""
    finally:
        vin.stop()
        speaker.close()


# --- bad input -----------------------------------------------------------------------------------------


def test_a_microphone_that_delivers_only_silence_is_reported_and_listening_goes_on(tmp_path):
    notices, errors = [], []
    with alsa_file_device(tmp_path / "home", to_raw_int16(silence(6.0), tmp_path / "mic.raw"), tmp_path / "spk.raw"):
        vin = VoiceInput(Microphone(), on_notice=notices.append, on_error=errors.append).start()
        deadline = time.monotonic() + 20
        while not notices and time.monotonic() < deadline:
            time.sleep(0.05)
        vin.stop()
    assert notices and "only silence" in notices[0] and "muted" in notices[0]
    assert len(notices) == 1 and errors == []


def test_a_finished_sentence_recognised_with_low_confidence_waits_a_little(detector):
    d = detector.judge("I would like YouTube.", confidence=-0.8)  # "I would like you to", garbled
    assert d.verdict == "unsure" and 0 < d.wait_ms < MAX_WAIT_MS
    assert detector.judge("I would like a coffee.", confidence=-0.3).verdict == "complete"


def test_a_finished_sentence_whose_last_word_was_a_guess_waits_a_little(detector, transcriber):
    d = detector.judge("Set a timer for it.", confidence=-0.4, last_word=0.65)
    assert d.verdict == "unsure" and 0 < d.wait_ms < MAX_WAIT_MS and "guess" in d.reason
    assert detector.judge("Set a timer for ten minutes.", confidence=-0.4, last_word=0.9).verdict == "complete"
    # without a full stop Whisper did not commit to an ending: a fairly sure guess still waits
    assert detector.judge("Set a timer for it", confidence=-0.4, last_word=0.82).verdict == "unsure"
    assert detector.judge("Set a timer for it.", confidence=-0.4, last_word=0.82).verdict == "complete"
    assert detector.judge("Set a timer for ten minutes", confidence=-0.4, last_word=0.95).verdict == "complete"
    # the probability comes from the real recogniser: sure of a whole request's last word, less
    # sure of a word it invented to finish one cut off at a pause
    whole = transcriber.transcribe(np.concatenate([noise(0.3), spoken("What is the capital of Australia?"), noise(0.2)]),
                                   last_word=True)
    cut = transcriber.transcribe(np.concatenate([noise(0.3), spoken("Set a timer for", wpm=190), noise(0.16)]),
                                 last_word=True)
    assert whole.segments[-1].last_word_prob > 0.75 > cut.segments[-1].last_word_prob, (whole.text, cut.text)


# --- recordings in the session log ---------------------------------------------------------------------


def test_sessions_show_lists_the_recordings_of_a_session(jarvis_env, tmp_path):
    import subprocess
    import sys

    import soundfile as sf

    from jarvis_desktop.config import load_settings
    from jarvis_desktop.store.sessions import SessionStore

    wav = tmp_path / "utterance-1.wav"
    sf.write(str(wav), spoken("What time is it"), SR)
    store = SessionStore(load_settings().db_path)
    assert store.schema_version == len(__import__("jarvis_desktop.store.sessions", fromlist=["x"]).MIGRATIONS)
    sid = store.new_session("time")
    store.add_message(sid, "user", "What time is it?")
    store.add_recording(sid, str(wav), request_id="req1", text="What time is it?", seconds=1.2)
    store.close()
    shown = subprocess.run([sys.executable, "-m", "jarvis_desktop", "sessions", "show", sid],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr[-800:]
    assert str(wav) in shown.stdout and "recording" in shown.stdout
    store = SessionStore(load_settings().db_path)
    assert store.export_session(sid)["recordings"][0]["path"] == str(wav)
    assert store.delete_session(sid)  # recordings do not block deleting their session
    store.close()


@pytest.mark.parametrize("use_aec", [False, True], ids=["correlation-gate", "webrtc-aec3"])
def test_a_voice_unlike_the_speaker_counts_as_double_talk_sooner_than_a_louder_echo(use_aec):
    """Over a loud stretch of the answer the onset of "Stop" is only 6-8 dB above the echo: energy
    alone took one more block to see it (first-sentence barge-in 209 ms). A block that loud which
    does not correlate with the speaker is the user; the speaker itself turned up as loud (its echo,
    correlated) is not."""
    rng = np.random.default_rng(1)
    n = 3 * SR
    far = rng.normal(0, 0.1, n).astype(np.float32)  # a steady reply: the expected echo is known in every block
    far[:SR] = 0.0  # the room before the reply: its noise
    echo = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:n] + rng.normal(0, 0.002, n).astype(np.float32)
    at = int(2.5 * SR) // BLOCK * BLOCK
    user = echo.copy()
    user[at:] += rng.normal(0, 0.2 * 0.1 * np.sqrt(5.5), n - at).astype(np.float32)  # 5.5x the echo's energy
    louder = echo.copy()
    louder[at:] *= np.sqrt(6.5)  # the same energy, but the speaker's own sound

    def first_double_talk(mic):
        reference = ReferenceTrack(keep_s=30)
        reference.write(far, SR, t=1000.0)
        gate = EchoCanceller(reference, use_aec=use_aec)
        for i in range(0, n - BLOCK + 1, BLOCK):
            gate.process(mic[i:i + BLOCK], 1000.0 + i / SR)
            if gate.user_over_echo():
                return i
        return None

    assert first_double_talk(echo) is None
    assert first_double_talk(louder) is None
    assert first_double_talk(user) == at + BLOCK  # the second block over the echo: no third needed


@pytest.mark.skipif(not aec_available(), reason="pywebrtc-audio is installed by make setup")
def test_once_the_speaker_is_quiet_the_microphone_is_passed_on_uncancelled():
    """AEC3 still in double talk after a barge-in distorted the words that followed ("What time is
    it in Tokyo?" heard as "... in tow, kiddo?"). With nothing played for longer than its echo lasts
    there is nothing to cancel: the user's voice goes on as the microphone heard it."""
    rng = np.random.default_rng(2)
    played = int(1.5 * SR)
    far = np.concatenate([np.zeros(SR // 2, np.float32), rng.normal(0, 0.1, played).astype(np.float32), np.zeros(2 * SR, np.float32)])
    n = len(far)
    mic = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:n] + rng.normal(0, 0.002, n).astype(np.float32)
    user_at = SR // 2 + played - SR // 4  # the user talks over the end of the answer and goes on after it
    user = spoken("What time is it in Tokyo?")
    mic[user_at:user_at + len(user)] += 0.5 * user[:n - user_at]
    reference = ReferenceTrack(keep_s=30)
    reference.write(far, SR, t=1000.0)
    gate = EchoCanceller(reference)
    out = np.concatenate([gate.process(mic[i:i + BLOCK], 1000.0 + i / SR) for i in range(0, n - BLOCK + 1, BLOCK)])
    quiet = SR // 2 + played + int(0.5 * SR)  # half a second after the speaker stopped: no echo is left
    late = gate.latency  # what is handed on runs as far behind the microphone as AEC3's output does
    assert np.array_equal(out[quiet + late:quiet + late + SR // 2], mic[quiet:quiet + SR // 2])
    during = slice(SR + SR // 4, SR + 3 * SR // 4)  # while it plays (before the user), the echo is cancelled
    assert np.mean(np.square(out[during])) < 0.1 * np.mean(np.square(mic[during]))


class RecordedCapture:
    """A fake sound card (none here) that hands over a recording block by block, stamped on the
    clock the reference track uses, as fast as it is read: the gate's decisions, not the pace,
    are under test."""

    def __init__(self, samples, t0: float):
        self.samples, self.t0 = samples, t0

    def start(self):
        return self

    def stop(self):
        pass

    def blocks(self):
        from jarvis_desktop.voice.capture import Block

        for i in range(0, len(self.samples) - BLOCK + 1, BLOCK):
            yield Block(self.samples[i:i + BLOCK], i, self.t0 + i / SR)


@pytest.mark.skipif(not aec_available(), reason="pywebrtc-audio is installed by make setup")
def test_speech_shown_over_the_echo_by_double_talk_is_the_users_request_not_dropped_as_echo():
    """A user who goes on over the start of an answer: double talk sees the voice at once, but
    AEC3 holds it back, so the endpointer hears it begin a few blocks later, while the echo still
    dominates the gate's window. Judged again there, it was taken for the speaker and the user's
    words were dropped (the answer stopped, and what the user went on to say was lost)."""
    rng = np.random.default_rng(3)
    reply = spoken("The Eiffel Tower is three hundred and thirty metres tall, as measured in twenty twenty two.")
    user_at = SR // 2 + int(0.3 * SR)  # 0.3 s into the answer
    stopped = user_at + int(0.3 * SR)  # the barge-in has stopped the answer 0.3 s later
    far = np.concatenate([np.zeros(SR // 2, np.float32), reply[:stopped - SR // 2], np.zeros(3 * SR, np.float32)])
    n = len(far)
    mic = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:n] + rng.normal(0, 0.002, n).astype(np.float32)
    user = spoken("in metres", voice="en-us+f3")
    mic[user_at:user_at + len(user)] += 0.35 * user
    reference = ReferenceTrack(keep_s=30)
    reference.write(far, SR, t=1000.0)
    barge_ins, heard = [], []
    vin = VoiceInput(RecordedCapture(mic, 1000.0), echo=EchoCanceller(reference), on_speech_start=barge_ins.append,
                     on_utterance=heard.append, endpointer=Endpointer(silence_ms=MAX_WAIT_MS, tail_ms=160))
    vin.start().wait(30)
    assert barge_ins and user_at <= barge_ins[0] <= user_at + SR // 10  # double talk saw the user at once
    assert vin.echo_rejected == vin.echo_dropped == 0
    assert [u for u in heard if u.start <= user_at + SR // 4 and u.end >= user_at + len(user) // 2], \
        [(u.start, u.end, u.reason) for u in heard]


@pytest.mark.parametrize("use_aec", [False, True], ids=["correlation-gate", "webrtc-aec3"])
def test_a_user_talking_as_the_answer_starts_does_not_make_its_echo_look_louder(use_aec):
    """The first blocks that correlate with a new answer can hold the user too, who was still
    talking as it started: learned from them, the echo looked several times louder than it is, and
    the user's next words over it passed for echo. The speaker's loudness is a median of estimates."""
    rng = np.random.default_rng(4)
    n = 3 * SR
    start = SR // BLOCK * BLOCK
    far = rng.normal(0, 0.1, n).astype(np.float32)
    far[:start] = 0.0
    mic = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:n] + rng.normal(0, 0.002, n).astype(np.float32)
    # a voice as the answer starts, as loud as its echo: those blocks still correlate with the speaker (0.67)
    mic[start:start + 2 * BLOCK] += rng.normal(0, 0.2 * 0.1 * np.sqrt(1.2), 2 * BLOCK).astype(np.float32)
    at = start + 10 * BLOCK  # a third of a second later
    mic[at:] += rng.normal(0, 0.2 * 0.1 * np.sqrt(5.5), n - at).astype(np.float32)  # the user, 5.5x the echo
    reference = ReferenceTrack(keep_s=30)
    reference.write(far, SR, t=1000.0)
    gate = EchoCanceller(reference, use_aec=use_aec)
    found = None
    for i in range(0, n - BLOCK + 1, BLOCK):
        gate.process(mic[i:i + BLOCK], 1000.0 + i / SR)
        if found is None and gate.user_over_echo():
            found = i
    assert found == at + BLOCK


@pytest.mark.skipif(not aec_available(), reason="pywebrtc-audio is installed by make setup")
def test_a_user_going_on_as_the_first_answer_starts_is_heard_not_muted_with_the_echo():
    """AEC3 has learned nothing about the room when the first answer starts, and mutes the
    microphone while the speaker plays, the user's voice included: a request that went on over
    the start of its answer ("Play some music ... by the Beatles") came back without its second
    part (it kept 5% of the voice's energy here). Blocks that do not sound like the speaker and
    stand above the echo are passed on as the microphone heard them; the echo alone is still
    removed."""
    rng = np.random.default_rng(5)
    reply = spoken("Here is some music. It is playing on your speakers now, enjoy it.")
    start = SR // 2
    far = np.concatenate([np.zeros(start, np.float32), reply, np.zeros(SR, np.float32)])
    n = len(far)
    mic = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:n] + rng.normal(0, 0.002, n).astype(np.float32)
    user_at = start + int(0.1 * SR)  # the user goes on 0.1 s into the answer, 11 dB above its echo
    user = spoken("by the Beatles", voice="en-us+f3")
    mic[user_at:user_at + len(user)] += 0.8 * user
    reference = ReferenceTrack(keep_s=30)
    reference.write(far, SR, t=1000.0)
    gate = EchoCanceller(reference)
    out = np.concatenate([gate.process(mic[i:i + BLOCK], 1000.0 + i / SR) for i in range(0, n - BLOCK + 1, BLOCK)])
    said = slice(user_at, user_at + len(user))
    assert np.mean(np.square(out[said])) > 0.5 * np.mean(np.square(mic[said]))
    after = user_at + len(user) + SR // 4  # the answer goes on alone: its echo is still cancelled
    tail = slice(after, min(after + SR, start + len(reply)))
    assert np.mean(np.square(out[tail])) < 0.1 * np.mean(np.square(mic[tail]))


@pytest.mark.skipif(not aec_available(), reason="pywebrtc-audio is installed by make setup")
def test_a_canceller_resumed_in_the_same_room_keeps_what_it_learned_and_drops_the_old_stream():
    """Hands-free switched off and on again: started afresh, AEC3 would mute the start of the next
    answer while it learns the room again, the user's words over it included. Resumed, it keeps the
    room (its filter, the echo's delay and loudness) and forgets only what the old stream heard."""
    rng = np.random.default_rng(7)
    reply = spoken("Here is the weather for today. It will be sunny and warm, with a light breeze in the afternoon.")
    far = np.concatenate([np.zeros(SR // 2, np.float32), reply, np.zeros(SR // 2, np.float32)])
    n = len(far)
    mic = np.concatenate([np.zeros(480, np.float32), 0.2 * far])[:n] + rng.normal(0, 0.002, n).astype(np.float32)
    reference = ReferenceTrack(keep_s=30)
    reference.write(far, SR, t=1000.0)
    gate = EchoCanceller(reference)
    for i in range(0, n - BLOCK + 1, BLOCK):
        gate.process(mic[i:i + BLOCK], 1000.0 + i / SR)
    learned = (gate.echo_delay(), gate.echo_gain())
    assert not gate._aec_learning() and None not in learned  # the answer was long enough to learn from
    gate.resume()
    assert not gate._aec_learning() and (gate.echo_delay(), gate.echo_gain()) == learned
    assert not gate.far_active()  # the old stream's answer is not playing in the new one
    louder_room = rng.normal(0, 0.02, BLOCK * 4).astype(np.float32)  # a fan was switched on meanwhile
    for i in range(4):
        gate.process(louder_room[i * BLOCK:(i + 1) * BLOCK], 2000.0 + i * BLOCK / SR)
    assert gate.noise_floor() > 1e-4  # the new stream's noise, not the quiet of the old one


@pytest.mark.skipif(not aec_available(), reason="pywebrtc-audio is installed by make setup")
def test_a_user_going_on_over_the_first_answer_is_heard_as_clearly_as_over_a_later_one():
    """AEC3 mutes the microphone while it learns the room, for its first 2.5 s of hearing the
    speaker, and (fed 512-sample blocks) dropped a quarter of every block: on the first answer of
    a session, a user who went on talking over it came through at -6 dB against -2 dB over an
    answer once the room was learned. A voice shown over the echo is handed on as heard, on the
    same timeline as the cancelled signal, and AEC3 gets whole frames."""
    rng = np.random.default_rng(5)
    reply = spoken("Here is the weather for today. It will be sunny and warm, with a light breeze in the afternoon.")
    start = SR // 2
    far = np.concatenate([np.zeros(start, np.float32), reply, np.zeros(SR, np.float32)])
    n = len(far) // BLOCK * BLOCK
    ir = np.zeros(int(0.06 * SR), np.float32)  # a speaker 30 ms away with a few wall reflections
    for t, a in ((0.0, 1.0), (0.011, 0.4), (0.027, -0.25), (0.05, 0.12)):
        ir[int(t * SR)] = 0.2 * a
    echo = np.concatenate([np.zeros(480, np.float32), np.convolve(far, ir)])[:len(far)]
    room = echo + rng.normal(0, 0.002, len(far)).astype(np.float32)
    user = np.zeros(len(far), np.float32)
    user_at = start + int(1.6 * SR)  # the user goes on 1.6 s into the answer, about as loud as its echo
    said = spoken("by the Beatles", voice="en-us+f3")
    user[user_at:user_at + len(said)] = 0.2 * said

    def heard(learn_first: bool) -> tuple[float, EchoCanceller]:  # how clearly the user came through
        reference = ReferenceTrack(keep_s=30)
        gate = EchoCanceller(reference)
        t0 = 1000.0
        if learn_first:  # a whole earlier answer, in the same room
            reference.write(far, SR, t=t0)
            for i in range(0, n, BLOCK):
                gate.process(room[i:i + BLOCK], t0 + i / SR)
            gate.resume()
            t0 = 2000.0
        reference.write(far, SR, t=t0)
        mic = room + user
        out = np.concatenate([gate.process(mic[i:i + BLOCK], t0 + i / SR) for i in range(0, n, BLOCK)])
        return _voice_snr_db(out, user[:n], slice(user_at, user_at + len(said))), gate

    first, _ = heard(learn_first=False)
    warm, _ = heard(learn_first=True)
    assert first > warm - 1.5, (first, warm)


def _voice_snr_db(out: np.ndarray, voice: np.ndarray, span: slice) -> float:
    """How clearly ``voice`` comes through in ``out`` over ``span``: the part of the output that is
    the voice (at the lag AEC3's framing adds, up to 40 ms) against everything else there."""
    best = None
    for lag in range(0, 640, 16):
        o = np.concatenate([out[lag:], np.zeros(lag, np.float32)])[span]
        v = voice[span]
        g = float(np.dot(o, v) / np.dot(v, v))
        rest = o - g * v
        snr = 10 * np.log10(max(g * g * float(np.dot(v, v)), 1e-12) / max(float(np.dot(rest, rest)), 1e-12))
        best = snr if best is None else max(best, snr)
    return best


@pytest.mark.skipif(not aec_available(), reason="pywebrtc-audio is installed by make setup")
def test_the_cancelled_microphone_keeps_every_sample_and_joins_the_uncancelled_one_without_a_jump():
    """AEC3 takes 10 ms frames: fed the microphone's 512-sample blocks directly, 128 samples of every
    block came back as silence, a quarter of a voice heard over the answer. And the microphone is
    handed on cancelled or as heard, block by block: the two must run equally late, or the voice
    jumps back and forth by AEC3's delay at every switch."""
    rng = np.random.default_rng(3)
    n = 2 * SR
    voice = rng.normal(0, 0.05, n).astype(np.float32)  # a near-end sound with no far end: AEC3 passes it
    reference = ReferenceTrack(keep_s=30)
    gate = EchoCanceller(reference)
    out = np.concatenate([gate._aec.process(voice[i:i + BLOCK], np.zeros(BLOCK, np.float32)) for i in range(0, n - BLOCK + 1, BLOCK)])
    late = gate.latency
    heard, sent = out[late + SR // 2:], voice[SR // 2:len(out) - late]
    assert np.mean(np.abs(heard) < 1e-4) < 0.01  # no holes
    assert np.corrcoef(heard, sent)[0, 1] > 0.95  # the same sound, as late as the latency says
    raw = np.concatenate([gate._delayed(voice[i:i + BLOCK]) for i in range(0, n - BLOCK + 1, BLOCK)])
    assert np.array_equal(raw[late:], voice[:len(raw) - late])
