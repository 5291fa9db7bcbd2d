"""Diffusers models from the local cache: text-to-image, image-to-image (with a text instruction),
text-to-video, and ControlNet-guided text-to-image for every control kind.

A ControlNet repo holds only the control network; it is paired with a Stable Diffusion base from
the cache whose text conditioning matches (the one named in resources/experts/defaults.json first).
Pipelines stay warm in the shared model cache. On CUDA they run in fp16, on MPS in fp16, else fp32.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..media import load_image
from .base import ExpertError, ModelMissingError, RunContext, TaskOutput
from .cached import CachedModelsBackend, need
from .devices import torch_dtype
from .drawing import save_image, save_video
from .local_cache import CONTROL_KINDS, ModelInfo
from .model_cache import estimate_bytes

GUIDED = frozenset(f"{k}-text-to-image" for k in CONTROL_KINDS)
MAX_SIDE = 1024


class Cancelled(ExpertError):
    pass


def _multiple_of_8(image, max_side: int = MAX_SIDE):
    w, h = image.size
    scale = min(1.0, max_side / max(w, h))
    w2, h2 = max(8, int(w * scale) // 8 * 8), max(8, int(h * scale) // 8 * 8)
    return image if (w2, h2) == (w, h) else image.resize((w2, h2))


def looks_like_map(kind: str, image) -> bool:
    """Whether an image already is a control map (dark background with lines) rather than a photo."""
    import numpy as np

    a = np.asarray(image.convert("RGB"), dtype=np.int16)
    if kind in ("canny", "mlsd", "hed", "openpose"):
        return float((a.max(axis=-1) < 24).mean()) > 0.5
    if kind == "depth":
        return bool(np.abs(a[..., 0] - a[..., 1]).max() <= 2 and np.abs(a[..., 1] - a[..., 2]).max() <= 2)
    return True


class DiffusersBackend(CachedModelsBackend):
    name = "diffusers"
    families = ("diffusers", "controlnet")
    TASKS = frozenset({"text-to-image", "image-to-image", "text-to-video"}) | GUIDED
    HALF_OK = TASKS

    def __init__(self, settings: Any, cache=None, steps: int = 25, video_frames: int = 16, preferred_base: str = ""):
        super().__init__(settings, cache)
        self.steps = steps
        self.video_frames = video_frames
        self.preferred_base = preferred_base or _default_base()

    # --- loading -------------------------------------------------------------------------
    def _load_pipeline(self, path: Path, device: str, task: str):
        from diffusers import DiffusionPipeline

        pipe = DiffusionPipeline.from_pretrained(str(path), dtype=torch_dtype(device, True), variant=_variant(path))
        pipe = pipe.to(device)
        pipe.set_progress_bar_config(disable=True)
        return pipe

    def _base_for(self, task: str, controlnet: ModelInfo) -> ModelInfo:
        """A cached Stable Diffusion whose text conditioning fits the ControlNet's."""
        want = _read(controlnet.path / "config.json").get("cross_attention_dim")
        infos = self.index.infos()
        candidates = [i for i in infos.values() if i.family == "diffusers" and "text-to-image" in i.tasks
                      and "StableDiffusion" in i.pipeline_class and "XL" not in i.pipeline_class]
        fits = [i for i in candidates if _read(i.path / "unet" / "config.json").get("cross_attention_dim") == want]
        fits.sort(key=lambda i: (i.model_id != self.preferred_base, i.model_id))
        if not fits:
            raise ModelMissingError(task, self.preferred_base or "runwayml/stable-diffusion-v1-5",
                                    f"the ControlNet '{controlnet.model_id}' needs a Stable Diffusion base model")
        return fits[0]

    # --- running -------------------------------------------------------------------------
    def _run(self, task: str, info: ModelInfo, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        import torch

        device = self.device
        generator = torch.Generator("cpu").manual_seed(int(args.get("seed", 0) or 0))
        common = dict(num_inference_steps=self.steps, generator=generator, callback_on_step_end=_stopper(ctx, task))
        if task in GUIDED:
            return self._guided(task, info, args, ctx, device, common)
        if info.family != "diffusers":
            raise ExpertError(f"{task}: '{info.model_id}' is a ControlNet; use it for a *-text-to-image task")
        with self.loaded(task, info, "pipeline", lambda: self._load_pipeline(info.path, device, task), device) as pipe:
            if task == "text-to-image":
                img = _call(pipe, task, prompt=need(args, "text", task), **common).images[0]
                path = save_image(img, ctx, "image")
                return TaskOutput(text=f"Image generated: {path.name}", image=path, data={"size": list(img.size)})
            if task == "image-to-image":
                return self._image_to_image(pipe, info, args, ctx, common)
            if task == "text-to-video":
                frames = _call(pipe, task, prompt=need(args, "text", task), num_frames=self.video_frames, **common).frames[0]
                path = save_video(list(frames), ctx, "video")
                return TaskOutput(text=f"Video ({len(frames)} frames) saved to {path.name}", video=path,
                                  data={"frames": len(frames)})
        raise ExpertError(f"{task}: not a diffusers task")

    def _image_to_image(self, pipe, info: ModelInfo, args, ctx, common) -> TaskOutput:
        task = "image-to-image"
        image = _multiple_of_8(load_image(need(args, "image", task)))
        prompt = str(args.get("text") or "")
        if "InstructPix2Pix" in info.pipeline_class:
            out = _call(pipe, task, prompt=prompt or "keep the picture as it is", image=image, **common)
        else:
            from diffusers import AutoPipelineForImage2Image

            img2img = pipe if "Img2Img" in info.pipeline_class else AutoPipelineForImage2Image.from_pipe(pipe)
            out = _call(img2img, task, prompt=prompt, image=image, strength=0.6, **common)
        img = out.images[0]
        path = save_image(img, ctx, "edited")
        return TaskOutput(text=f"Edited image saved to {path.name}", image=path, data={"size": list(img.size), "instruction": prompt})

    def _guided(self, task, info: ModelInfo, args, ctx, device, common) -> TaskOutput:
        kind = task.split("-")[0]
        if info.family != "controlnet":
            raise ExpertError(f"{task}: '{info.model_id}' is not a ControlNet")
        base = self._base_for(task, info)
        control = _multiple_of_8(load_image(need(args, "image", task)), 768)
        note = ""
        if not looks_like_map(kind, control):
            from . import control as maps

            extract = {"canny": maps.canny_map, "hed": maps.softedge_map, "mlsd": lambda im: maps.mlsd_map(im)[0]}.get(kind)
            if extract is not None:
                control = extract(control)
                note = f" (the {kind} map was extracted from the photo first)"

        def load():
            from diffusers import ControlNetModel, StableDiffusionControlNetPipeline

            dtype = torch_dtype(device, True)
            cn = ControlNetModel.from_pretrained(str(info.path), dtype=dtype, variant=_variant(info.path))
            pipe = StableDiffusionControlNetPipeline.from_pretrained(str(base.path), controlnet=cn, dtype=dtype,
                                                                     variant=_variant(base.path))
            pipe = pipe.to(device)
            pipe.set_progress_bar_config(disable=True)
            return pipe

        from .devices import dtype_factor

        extra = estimate_bytes(base.path, dtype_factor(device, True))
        key_info = ModelInfo(f"{info.model_id}+{base.model_id}", info.path, info.family, info.tasks)
        with self.loaded(task, key_info, "controlnet", load, device, folder=info.path, extra_bytes=extra) as pipe:
            out = _call(pipe, task, prompt=need(args, "text", task), image=control,
                        height=control.size[1], width=control.size[0], **common)
        img = out.images[0]
        path = save_image(img, ctx, f"{kind}-guided")
        return TaskOutput(text=f"Image generated from the {kind} map{note}: {path.name}", image=path,
                          data={"size": list(img.size), "base_model": base.model_id, "controlnet": info.model_id})


def _stopper(ctx: RunContext, task: str):
    def on_step_end(pipe, step, timestep, kwargs):
        if ctx.cancel.cancelled:
            raise Cancelled(f"{task}: cancelled at step {step}")
        return kwargs

    return on_step_end


def _call(pipe, task: str, **kwargs):
    import inspect

    params = inspect.signature(pipe.__call__).parameters
    if "callback_on_step_end" not in params:
        kwargs.pop("callback_on_step_end", None)
    return pipe(**kwargs)


def _variant(path: Path) -> str | None:
    """``fp16`` when the folder holds only half-precision weight files (what pull fetches for big
    pipelines), else None."""
    files = [p.name for p in Path(path).rglob("*.safetensors")] + [p.name for p in Path(path).rglob("*.bin")]
    if any(".fp16." in f for f in files) and not any(".fp16." not in f for f in files):
        return "fp16"
    return None


def _read(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _default_base() -> str:
    from .model_store import curated_defaults

    try:
        return curated_defaults().get("controlnet_base", "")
    except Exception:
        return ""
