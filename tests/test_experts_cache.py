"""The model cache: warm reuse, LRU eviction that really frees the model, per-model locks, and
size estimates from weight files. Uses real tiny transformers models through the registry."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from helpers.tiny_models import tiny_model_cache
from jarvis_desktop.config import Settings
from jarvis_desktop.experts.base import RunContext
from jarvis_desktop.experts.defaults import build_registry
from jarvis_desktop.experts.model_cache import ModelCache, estimate_bytes, weight_bytes

MB = 1 << 20


@pytest.fixture(scope="session")
def tiny_cache(tmp_path_factory) -> Path:
    return tiny_model_cache(tmp_path_factory.mktemp("tiny"))


@pytest.fixture
def ctx(tmp_path):
    return RunContext(tmp_path / "out")


def _key(cache: ModelCache, model_id: str) -> str:
    return next(k for k in cache.keys() if f":{model_id}:" in k)


def test_lru_eviction_under_a_small_budget_really_releases_the_model(tiny_cache, ctx):
    # each tiny model is estimated at the 1 MB floor: a 2.5 MB budget holds two of them
    reg = build_registry(Settings(offline=True, model_cache=str(tiny_cache), inference_mode="local",
                                  device="cpu", model_budget_gb=2.5 * MB / 2**30))
    cache = reg.model_cache
    reg.run("text-classification", "tiny/bert-sentiment", {"text": "hello"}, ctx)
    first = weakref.ref(cache.peek(_key(cache, "tiny/bert-sentiment")).model)
    reg.run("token-classification", "tiny/bert-ner", {"text": "hello paris"}, ctx)
    reg.run("text-classification", "tiny/bert-sentiment", {"text": "again"}, ctx)  # now most recent
    assert cache.evictions == 0 and first() is not None
    reg.run("question-answering", "tiny/bert-squad", {"text": "who", "context": "the cat"}, ctx)
    loaded = cache.keys()
    assert not any(":tiny/bert-ner:" in k for k in loaded), "least recently used model should go"
    assert any(":tiny/bert-sentiment:" in k for k in loaded) and cache.evictions == 1
    reg.run("image-classification", "tiny/vit-classify", {"image": _photo(ctx)}, ctx)
    gc.collect()
    assert first() is None, "an evicted model must not stay referenced anywhere"
    assert cache.stats().used_bytes["ram"] <= 2.5 * MB


def _photo(ctx: RunContext) -> str:
    ctx.output_dir.mkdir(parents=True, exist_ok=True)
    p = ctx.output_dir / "p.png"
    Image.fromarray((np.random.RandomState(1).rand(32, 32, 3) * 255).astype("uint8")).save(p)
    return str(p)


def test_explicit_evict_and_clear_free_models(tiny_cache, ctx):
    reg = build_registry(Settings(offline=True, model_cache=str(tiny_cache), inference_mode="local", device="cpu"))
    cache = reg.model_cache
    reg.run("text-classification", "tiny/bert-sentiment", {"text": "hello"}, ctx)
    key = _key(cache, "tiny/bert-sentiment")
    ref = weakref.ref(cache.peek(key).model)
    assert cache.evict(key) and key not in cache
    gc.collect()
    assert ref() is None
    reg.run("text-classification", "tiny/bert-sentiment", {"text": "hello"}, ctx)
    cache.clear()
    assert cache.keys() == []


def test_a_model_in_use_is_never_evicted():
    cache = ModelCache(budgets={"ram": 3 * MB})
    with cache.use("a", lambda: object(), 2 * MB):
        with cache.use("b", lambda: object(), 2 * MB):  # over budget, but "a" is running
            assert set(cache.keys()) == {"a", "b"}
            assert not cache.evict("a")
    with cache.use("c", lambda: object(), 2 * MB):
        pass
    assert cache.keys() == ["c"] and cache.evictions == 2


def test_same_model_loads_once_and_its_tasks_run_one_at_a_time():
    cache = ModelCache(budgets={"ram": 100 * MB})
    loads, spans, errors = [], [], []

    def loader():
        loads.append(time.perf_counter())
        time.sleep(0.2)
        return object()

    def task():
        try:
            with cache.use("m", loader, MB):
                t0 = time.perf_counter()
                time.sleep(0.1)
                spans.append((t0, time.perf_counter()))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=task) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(loads) == 1 and len(spans) == 4
    spans.sort()
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:])), "runs on one model overlapped"


def test_different_models_load_and_run_in_parallel():
    cache = ModelCache(budgets={"ram": 100 * MB})
    loading = threading.Barrier(2, timeout=5)  # both loaders must be running at the same time
    inside = threading.Barrier(2, timeout=5)  # and both tasks inside their model at the same time

    def task(key):
        with cache.use(key, lambda: loading.wait() and object() or object(), MB):
            inside.wait()

    threads = [threading.Thread(target=task, args=(k,)) for k in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not loading.broken and not inside.broken and cache.loads == 2


def test_two_threads_on_one_real_model_through_the_registry(tiny_cache, tmp_path):
    reg = build_registry(Settings(offline=True, model_cache=str(tiny_cache), inference_mode="local", device="cpu"))
    results, errors = [], []

    def run(i):
        try:
            results.append(reg.run("text-classification", "tiny/bert-sentiment", {"text": f"hello {i}"},
                                   RunContext(tmp_path / f"o{i}")))
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4 and reg.model_cache.loads == 1


def test_a_failed_load_is_not_cached_and_can_be_retried():
    cache = ModelCache(budgets={"ram": 10 * MB})
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk hiccup")
        return "model"

    with pytest.raises(OSError):
        with cache.use("m", flaky, MB):
            pass
    with cache.use("m", flaky, MB) as m:
        assert m == "model"
    assert len(calls) == 2


def test_size_estimate_counts_one_weight_format(tmp_path):
    (tmp_path / "unet").mkdir()
    (tmp_path / "model.safetensors").write_bytes(b"\0" * 3000)
    (tmp_path / "pytorch_model.bin").write_bytes(b"\0" * 3000)  # the same weights again: ignored
    (tmp_path / "unet" / "diffusion_pytorch_model.bin").write_bytes(b"\0" * 5000)
    (tmp_path / "config.json").write_text("{}")
    assert weight_bytes(tmp_path) == 8000
    big = tmp_path / "big"
    big.mkdir()
    (big / "model.safetensors").write_bytes(b"\0" * (4 * MB))
    assert estimate_bytes(big, 0.5) == int(4 * MB * 0.5 * 1.2)
    assert estimate_bytes(tmp_path / "missing") == MB


def test_budget_from_settings_and_from_free_memory():
    assert ModelCache(budget_gb=2).budget("ram") == 2 * 2**30
    derived = ModelCache().budget("ram")
    assert 0 < derived < 2**44
    stats = ModelCache(budget_gb=1).stats()
    assert stats.loaded == [] and stats.loads == 0


# --- devices: where a model runs and at what precision -------------------------------------
def test_device_labels_precision_and_memory_pools():
    import torch

    from jarvis_desktop.experts.devices import dtype_factor, memory_pool, torch_dtype, where_label

    assert [where_label(d) for d in ("cuda", "cuda:1", "mps", "cpu")] == ["local-gpu", "local-gpu", "local-mps", "local-cpu"]
    assert torch_dtype("cuda") == torch.float16 and torch_dtype("cuda", half_ok=False) == torch.float32
    assert torch_dtype("cpu") == torch.float32 and dtype_factor("cpu") == 1.0 and dtype_factor("cuda:0") == 0.5
    assert memory_pool("cuda:0") == "gpu" and memory_pool("mps") == "ram"


def test_the_device_setting_decides_where_a_cached_model_runs(tiny_cache):
    # no GPU here: this checks the labels and budgets the registry reports, not CUDA itself
    for device, label in (("cuda", "local-gpu"), ("mps", "local-mps"), ("cpu", "local-cpu")):
        reg = build_registry(Settings(offline=True, model_cache=str(tiny_cache), inference_mode="local", device=device))
        assert reg.find("image-classification", "tiny/vit-classify").where == label
        assert reg.find("text-to-image", "tiny/sd").where == label
        assert reg.find("image-to-text", "RapidAI/RapidOCR").where == "local-cpu"  # ONNX runtime on the CPU


def test_cancelling_stops_diffusion_between_steps(tmp_path):
    from jarvis_desktop.experts.base import ExpertError
    from jarvis_desktop.experts.diffusers_backend import _stopper

    ctx = RunContext(tmp_path)
    on_step_end = _stopper(ctx, "text-to-image")
    assert on_step_end(None, 0, 999, {"latents": 1}) == {"latents": 1}
    ctx.cancel.cancel()
    with pytest.raises(ExpertError, match="text-to-image: cancelled at step 1"):
        on_step_end(None, 1, 998, {})
