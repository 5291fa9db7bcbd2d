"""Live recognition: word errors, time, and how well the last-word probability tells a request
cut at a pause from a finished one, for each way of decoding a live turn.

Sentences: the held-out voice-turn set (bench/data/voice_turns_blind.json, written by an author who
never saw the voice code): its 20 complete requests and its 30 paused ones said whole (50), and the
30 paused ones cut where their pause starts (what speculative recognition hears at the pause).
Each is spoken by espeak-ng at 150 and 200 words a minute and by the shipped piper voice, with room
noise, 0.3 s before and 0.2 s after (0.16 s after a cut: the pause that starts recognition).

Decoders compared (the real Transcriber, short window, ``last_word=True`` as live turns ask):
  beam 2 (live turns)    what live turns use
  greedy (beam 1)        faster, if it recognises as well
  beam 5 (files)         what recorded files use, for reference (no last-word pass)
The last word's probability comes from one teacher-forced pass (CTranslate2 align) after decoding.

A cut request is "caught" when its last word's probability is under the doubt threshold (0.75,
voice/turn.py); a whole request is "doubted" when it is under it.

    .venv/bin/python bench/asr_live.py [--voices espeak150,espeak200,piper]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SR = 16000
DECODERS = (("beam 2 (live turns)", 2, True), ("greedy (beam 1)", 1, True), ("beam 5 (files)", 5, False))
NUMBERS = {"0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
           "8": "eight", "9": "nine", "10": "ten", "11": "eleven", "12": "twelve", "15": "fifteen", "20": "twenty",
           "30": "thirty"}


def words(text: str) -> list[str]:
    text = text.lower().replace("’", "'")
    out = []
    for w in re.findall(r"[a-z0-9']+", text):
        out.append(NUMBERS.get(w, w))
    return out


def edit_distance(a: list[str], b: list[str]) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def render(text: str, voice: str, synth):
    import numpy as np

    from jarvis_desktop.media import resample
    from jarvis_desktop.voice.testing import spoken

    if voice.startswith("espeak"):
        return spoken(text, wpm=int(voice[len("espeak"):]))
    samples, rate = synth.synthesize(text)
    x = resample(np.asarray(samples, np.float32), rate, SR)
    loud = np.nonzero(np.abs(x) > 0.01)[0]
    return x[loud[0]: loud[-1] + 1] if len(loud) else x


def clip(speech, tail: float, seed: int):
    import numpy as np

    from jarvis_desktop.voice.testing import noise

    x = np.concatenate([np.zeros(int(0.3 * SR), np.float32), speech, np.zeros(int(tail * SR), np.float32)])
    n = noise(len(x) / SR + 0.01, level=0.003, seed=seed)[: len(x)]
    return x + n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--voices", default="espeak150,espeak200,piper")
    args = ap.parse_args()
    from jarvis_desktop.voice.asr import Transcriber
    from jarvis_desktop.voice.errors import EmptyUtterance
    from jarvis_desktop.voice.tts import Synthesizer

    blind = json.loads((ROOT / "bench/data/voice_turns_blind.json").read_text())
    whole = list(blind["complete"]) + [f"{p['before']} {p['after']}" for p in blind["paused"]]
    cut = [p["before"] for p in blind["paused"]]
    asr, synth = Transcriber(), Synthesizer()
    asr.load()
    synth.load()
    voices = args.voices.split(",")
    clips = []  # (kind, reference text, samples)
    for v in voices:
        for k, t in enumerate(whole):
            clips.append(("whole", t, clip(render(t, v, synth), 0.2, k)))
        for k, t in enumerate(cut):
            clips.append(("cut", t, clip(render(t, v, synth), 0.16, 100 + k)))
    n_whole = sum(c[0] == "whole" for c in clips)
    print(f"cpu threads: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}; {n_whole} whole and "
          f"{len(clips) - n_whole} cut clips (HELD-OUT sentences, voices {', '.join(voices)})")
    asr.transcribe(clips[0][2], beam_size=2, last_word=True)  # warm
    for name, beam, last_word in DECODERS:
        errors = ref_words = 0
        seconds, caught, doubted, n_cut, n_whole_p = [], 0, 0, 0, 0
        for kind, text, samples in clips:
            t0 = time.perf_counter()
            try:
                tr = asr.transcribe(samples, beam_size=beam, last_word=last_word)
                hyp, prob = tr.text, tr.segments[-1].last_word_prob if tr.segments else None
            except EmptyUtterance:
                hyp, prob = "", None
            seconds.append(time.perf_counter() - t0)
            if kind == "whole":
                errors += edit_distance(words(text), words(hyp))
                ref_words += len(words(text))
                if prob is not None:
                    n_whole_p += 1
                    doubted += prob < 0.75
            elif prob is not None:
                n_cut += 1
                caught += prob < 0.75
        line = (f"  {name:22s} WER {100 * errors / ref_words:4.1f}% ({errors}/{ref_words} words)  "
                f"time per clip median {1000 * statistics.median(seconds):.0f} ms")
        if last_word:
            line += (f"  cut requests caught by the last-word doubt {caught}/{n_cut}; "
                     f"whole requests doubted {doubted}/{n_whole_p}")
        print(line + f"  load {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
