"""Device and precision choice for local experts, and the label a result shows ("where it ran").

Kept apart from the backends so every family (transformers, diffusers, shipped) agrees on what
``auto`` means and on which precision a device gets.
"""

from __future__ import annotations

from typing import Any


def pick_device(settings: Any = None) -> str:
    """The torch device string for local models: the settings' choice, resolved (``auto`` -> best)."""
    if settings is None:
        return "cpu"
    try:
        return settings.resolved_device()
    except Exception:  # a broken torch install must not stop CPU-only experts
        return "cpu"


def where_label(device: str) -> str:
    """``local-gpu`` | ``local-mps`` | ``local-cpu`` for a torch device string."""
    if device.startswith("cuda"):
        return "local-gpu"
    if device == "mps":
        return "local-mps"
    return "local-cpu"


def torch_dtype(device: str, half_ok: bool = True, saved_as: str = ""):
    """fp16 on CUDA and MPS, fp32 on the CPU where half precision is slow or unsupported. A model
    saved in bfloat16 (most recent LLMs) gets bf16 on GPUs that have it: fp16 would overflow."""
    import torch

    if half_ok and (device.startswith("cuda") or device == "mps"):
        if saved_as == "bfloat16" and device.startswith("cuda") and torch.cuda.is_available() and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float16
    return torch.float32


def dtype_factor(device: str, half_ok: bool = True) -> float:
    """How a model's on-disk size (usually fp32 weights) scales once loaded at this precision."""
    if half_ok and (device.startswith("cuda") or device == "mps"):
        return 0.5
    return 1.0


def memory_pool(device: str) -> str:
    """Which memory a model on ``device`` uses: ``gpu`` (VRAM) or ``ram`` (MPS shares system RAM)."""
    return "gpu" if device.startswith("cuda") else "ram"


def free_bytes(pool: str) -> int:
    """Free memory in a pool now: CUDA's free VRAM, or the system's available RAM."""
    if pool == "gpu":
        try:
            import torch

            if torch.cuda.is_available():
                return int(torch.cuda.mem_get_info()[0])
        except Exception:
            pass
        return 0
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import os

        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 1024**3


def release_memory() -> None:
    """Really give memory back after dropping a model: collect cycles, empty CUDA's cache."""
    import gc
    import sys

    gc.collect()
    torch = sys.modules.get("torch")  # never import torch just to free memory
    if torch is not None:
        try:
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            mps = getattr(torch, "mps", None)
            if mps is not None and getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
                mps.empty_cache()
        except Exception:
            pass
