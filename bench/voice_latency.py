"""Voice latency: from the end of a spoken request to the first sample of the spoken reply.

The request (a WAV file, or a ~3 s request spoken by espeak-ng) is fed block by block at real-time
pace, as a microphone would deliver it, through the real endpointer (Silero VAD), the shipped
Whisper tiny.en and the shipped piper voice. The answer stage is replaced by a fixed text, so only
the voice path is timed. Breakdown:

  endpointing  end of speech -> the endpointer declares the utterance over (mostly the configured
               silence, which is audio time, not computation)
  asr          utterance over -> transcript (speculative recognition starts at the first pause, so
               part of it hides inside the silence; shown with and without)
  first tts    transcript -> first sentence of the reply synthesised (first sample ready)

Also the real-time factors (compute seconds per second of audio) of ASR and TTS.

Run: .venv/bin/python bench/voice_latency.py [--wav FILE] [--runs 3] [--silence-ms 600] [--beam 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

REQUEST = "Please describe this image and read the answer aloud"
REPLY = (
    "The image shows a grey cat asleep on a sofa. It was described by the captioning model, "
    "and the answer was read aloud by the piper voice."
)
SR = 16000
BLOCK = 512


def request_audio(path: str | None):
    import numpy as np

    from jarvis_desktop.media import load_audio
    from jarvis_desktop.voice.testing import noise, spoken

    if path:
        audio = load_audio(path)
    else:
        speech = spoken(REQUEST)
        audio = np.concatenate([noise(0.5), speech + noise(len(speech) / SR, seed=1), noise(2.0, seed=2)])
    loud = np.nonzero(np.abs(audio) > 0.02)[0]
    speech_end = int(loud[-1]) if len(loud) else len(audio)
    return audio, speech_end


def one_run(audio, speech_end: int, transcriber, synth, silence_ms: int, speculate: bool) -> dict:
    from jarvis_desktop.voice.listener import Recognizer, Utterance
    from jarvis_desktop.voice.speaker import SentenceSplitter
    from jarvis_desktop.voice.vad import Endpointer, SpeechPaused, UtteranceEnded

    ep = Endpointer(silence_ms=silence_ms)
    rec = Recognizer(transcriber)
    t_start = time.perf_counter()
    arrival = lambda pos: t_start + pos / SR  # noqa: E731 - when a sample leaves the "microphone"
    ended = None
    t_end_speech = arrival(speech_end)
    t_ep = None
    for pos in range(0, len(audio) - BLOCK + 1, BLOCK):
        wait = arrival(pos + BLOCK) - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        for ev in ep.feed(audio[pos:pos + BLOCK], pos):
            if isinstance(ev, SpeechPaused) and speculate:
                rec.speculate(ev)
            elif isinstance(ev, UtteranceEnded):
                ended, t_ep = ev, time.perf_counter()
        if ended is not None:
            break
    if ended is None:
        raise SystemExit("the endpointer found no complete utterance in the request audio")
    r = rec.recognize(Utterance(ended.audio, ended.start, ended.end, ended.reason))
    t_asr = time.perf_counter()
    rec.close()
    sp = SentenceSplitter()
    first = (sp.feed(REPLY + " ") or sp.flush())[0]
    samples, rate = synth.synthesize(first)
    t_tts = time.perf_counter()
    return {
        "endpointing": t_ep - t_end_speech,
        "asr": t_asr - t_ep,
        "first_tts": t_tts - t_asr,
        "total": t_tts - t_end_speech,
        "text": r.text,
        "speculative": r.speculative,
        "first_sentence_s": len(samples) / rate,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wav", help="a spoken request (any rate; mono or stereo)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--silence-ms", type=int, default=600)
    ap.add_argument("--beam", type=int, default=5, help="Whisper beam size (1: greedy, faster, less accurate)")
    args = ap.parse_args()

    from jarvis_desktop.voice.asr import Transcriber
    from jarvis_desktop.voice.tts import Synthesizer

    audio, speech_end = request_audio(args.wav)
    transcriber, synth = Transcriber(beam_size=args.beam), Synthesizer()
    t0 = time.perf_counter()
    transcriber.load()
    t_load_asr = time.perf_counter() - t0
    t0 = time.perf_counter()
    synth.load()
    t_load_tts = time.perf_counter() - t0
    print(f"request: {speech_end / SR:.2f} s of speech in {len(audio) / SR:.2f} s of audio; "
          f"cpu threads: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f} (other work slows every figure); models loaded in {t_load_asr:.2f} s (ASR) + {t_load_tts:.2f} s (TTS)")
    # warm-up (first calls allocate)
    transcriber.transcribe(audio[: speech_end + SR // 2])
    synth.synthesize("Warm up.")

    for speculate in (True, False):
        runs = [one_run(audio, speech_end, transcriber, synth, args.silence_ms, speculate) for _ in range(args.runs)]
        med = {k: statistics.median(r[k] for r in runs) for k in ("endpointing", "asr", "first_tts", "total")}
        label = "speculative ASR at the first pause" if speculate else "ASR after the endpoint"
        print(f"\n[{label}] silence {args.silence_ms} ms, median of {args.runs} runs")
        print(f"  endpointing  {med['endpointing'] * 1000:7.0f} ms")
        print(f"  asr          {med['asr'] * 1000:7.0f} ms   (speculative result reused: "
              f"{sum(r['speculative'] for r in runs)}/{len(runs)})")
        print(f"  first tts    {med['first_tts'] * 1000:7.0f} ms   ({runs[0]['first_sentence_s']:.2f} s of speech)")
        print(f"  TOTAL        {med['total'] * 1000:7.0f} ms   end of speech -> first reply sample ready")
        print(f"  heard: {runs[0]['text']!r}")

    # real-time factors
    utt = audio[: speech_end + SR // 5]
    t0 = time.perf_counter()
    for _ in range(args.runs):
        transcriber.transcribe(utt)
    asr_s = (time.perf_counter() - t0) / args.runs
    t0 = time.perf_counter()
    for _ in range(args.runs):
        samples, rate = synth.synthesize(REPLY)
    tts_s = (time.perf_counter() - t0) / args.runs
    print("\nreal-time factor (compute / audio, lower is faster):")
    print(f"  ASR Whisper tiny.en int8 beam {transcriber.beam_size}: {asr_s:.2f} s for {len(utt) / SR:.2f} s -> RTF {asr_s / (len(utt) / SR):.3f}")
    print(f"  TTS piper en_US-joe-medium: {tts_s:.2f} s for {len(samples) / rate:.2f} s -> RTF {tts_s / (len(samples) / rate):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
