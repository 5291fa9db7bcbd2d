"""``jarvis doctor``: what this machine offers, and what is missing, in one screen."""

from __future__ import annotations

import importlib.metadata as md
import platform
import sys

from .config import Settings
from .task_types import TASK_TYPES

PACKAGES = ("torch", "transformers", "diffusers", "faster-whisper", "huggingface-hub", "openai", "xllamacpp",
            "piper-tts", "spacy", "rapidocr-onnxruntime", "sounddevice", "sqlite-utils", "PySide6-Essentials")


def _version(name: str) -> str:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "not installed"


def device_lines() -> list[str]:
    lines = []
    try:
        import torch

        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                lines.append(f"CUDA {i}: {p.name}, {p.total_memory / 2**30:.1f} GiB")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            lines.append("Apple MPS: available")
    except ImportError:
        lines.append("torch not installed: CPU only")
    lines.append(f"CPU: {platform.processor() or platform.machine()}")
    return lines


def audio_lines() -> list[str]:
    try:
        import sounddevice as sd

        devices = sd.query_devices()
    except Exception as e:  # PortAudio missing or no sound card
        return [f"no audio devices ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"]
    ins = [d["name"] for d in devices if d.get("max_input_channels", 0) > 0]
    outs = [d["name"] for d in devices if d.get("max_output_channels", 0) > 0]
    return [f"inputs: {', '.join(ins) or 'none'}", f"outputs: {', '.join(outs) or 'none'}"]


def run_doctor(settings: Settings, check_controller: bool = True) -> int:
    from rich.console import Console
    from rich.table import Table

    con = Console(highlight=False)
    con.print(f"[bold]JARVIS Desktop doctor[/bold]  Python {sys.version.split()[0]} on {platform.platform()}")
    t = Table("package", "version", box=None)
    for p in PACKAGES:
        t.add_row(p, _version(p))
    con.print(t)
    con.print("[bold]Devices[/bold] (setting: %s, using: %s)" % (settings.device, settings.resolved_device()))
    for line in device_lines():
        con.print("  " + line)
    con.print("[bold]Audio[/bold]")
    for line in audio_lines():
        con.print("  " + line)
    con.print(f"[bold]Storage[/bold]\n  sessions: {settings.db_path}\n  outputs: {settings.outputs_path}\n"
              f"  model cache: {settings.model_cache_path}")
    con.print(f"[bold]Mode[/bold]  inference={settings.inference_mode} offline={settings.offline} planner={settings.planner}")

    from .experts.defaults import build_registry

    registry = build_registry(settings)
    t = Table("task type", "runnable local model", box=None)
    ready = 0
    for task in TASK_TYPES:
        models = registry.local_models(task)
        ready += bool(models)
        t.add_row(task, models[0] if models else "[dim]none - jarvis models defaults " + task + "[/dim]")
    con.print(t)
    con.print(f"  {ready} of {len(TASK_TYPES)} task types run offline now.")

    status = 0
    if check_controller:
        from .llm.base import ControllerError
        from .llm.factory import make_controller

        try:
            c = make_controller(settings)
            reply = c.chat([{"role": "user", "content": "Reply with the word: ready"}], max_tokens=8)
            con.print(f"[bold]Controller[/bold]  {c.name}: reachable (replied {str(reply).strip()[:30]!r})"
                      + (" - tiny model: offline planner and plain answers are used" if c.tiny else ""))
            if hasattr(c, "stop"):
                c.stop()
        except ControllerError as e:
            con.print(f"[bold]Controller[/bold]  [red]{e}[/red]")
            status = 1
    return status
