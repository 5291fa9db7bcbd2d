"""Control maps for ControlNet: canny, hed (soft edges), mlsd (straight lines), openpose, normal,
seg and depth, from an input image.

Edges and lines are computed directly (OpenCV when importable, else numpy): no model needed.
Depth and segmentation maps come from a depth / segmentation model in the model cache, and the
normal map is derived from the depth map's gradients (JARVIS could not make normal maps at all).
Pose maps come from a pose model and are drawn by :func:`pose_map` (see vision_tasks).
"""

from __future__ import annotations

from typing import Any

from ..media import load_image
from .base import ExpertError, RunContext, TaskOutput
from .cached import need
from .drawing import depth_to_image, save_image
from .local_cache import ModelInfo
from .transformers_backend import TransformersBackend

#: built-in (model-free) extractors, by task; JARVIS's catalog ids are accepted as aliases
BUILTIN = {"canny-control": "builtin/canny", "hed-control": "builtin/softedge", "mlsd-control": "builtin/mlsd"}
JARVIS_ALIASES = ("lllyasviel/ControlNet", "lllyasviel/Annotators", "lllyasviel/ControlNet-v1-1")


def _cv2():
    try:
        import cv2

        return cv2
    except ImportError:
        return None


def _gray(image):
    import numpy as np

    return np.asarray(image.convert("L"), dtype=np.uint8)


def _rgb(a):
    import numpy as np
    from PIL import Image

    a = np.asarray(a)
    if a.ndim == 2:
        a = np.stack([a] * 3, axis=-1)
    return Image.fromarray(a.astype(np.uint8))


def _sobel(gray):
    """Horizontal and vertical gradients (float32)."""
    import numpy as np

    cv2 = _cv2()
    g = np.asarray(gray, dtype=np.float32)
    if cv2 is not None:
        return cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    gy, gx = np.gradient(g)
    return gx * 4, gy * 4


def _blur(a, sigma: float):
    import numpy as np

    cv2 = _cv2()
    a = np.asarray(a, dtype=np.float32)
    if cv2 is not None:
        return cv2.GaussianBlur(a, (0, 0), sigma)
    from PIL import Image, ImageFilter

    return np.asarray(Image.fromarray(a, mode="F").filter(ImageFilter.GaussianBlur(sigma)), dtype=np.float32)


def canny_map(image, low: int = 100, high: int = 200):
    """White edges on black, as ControlNet's canny model expects."""
    import numpy as np

    cv2 = _cv2()
    gray = _gray(image)
    if cv2 is not None:
        return _rgb(cv2.Canny(gray, low, high))
    gx, gy = _sobel(_blur(gray, 1.4))
    mag = np.hypot(gx, gy)
    return _rgb(np.where(mag > high, 255, 0))


def softedge_map(image):
    """Soft edges from gradients at three scales, the classical stand-in for HED: bright where the
    picture has boundaries, fading with their strength (what ControlNet's hed/softedge models take)."""
    import numpy as np

    gray = _gray(image).astype(np.float32) / 255.0
    acc = np.zeros_like(gray)
    for sigma in (1.0, 2.0, 4.0):
        gx, gy = _sobel(_blur(gray, sigma))
        mag = np.hypot(gx, gy)
        if mag.max() > 0:
            acc += mag / mag.max()
    acc /= 3.0
    acc = np.clip(acc / max(float(np.percentile(acc, 99)), 1e-6), 0, 1) ** 0.8
    return _rgb((acc * 255).round())


def mlsd_map(image, min_length_frac: float = 0.04):
    """Straight line segments drawn white on black (ControlNet's mlsd condition): OpenCV's line
    segment detector, keeping lines longer than a fraction of the image diagonal."""
    import numpy as np
    from PIL import ImageDraw

    w, h = image.size
    out = _rgb(np.zeros((h, w), dtype=np.uint8))
    draw = ImageDraw.Draw(out)
    min_len = min_length_frac * (w * w + h * h) ** 0.5
    lines = []
    cv2 = _cv2()
    gray = _gray(image)
    if cv2 is not None and hasattr(cv2, "createLineSegmentDetector"):
        found = cv2.createLineSegmentDetector().detect(gray)[0]
    elif cv2 is not None:
        found = cv2.HoughLinesP(cv2.Canny(gray, 100, 200), 1, np.pi / 180, 50, minLineLength=int(min_len), maxLineGap=5)
    else:
        found = None
    if found is not None:  # (N, 1, 4) or (N, 4) depending on the OpenCV build
        lines = [tuple(map(float, l)) for l in np.asarray(found, dtype=np.float32).reshape(-1, 4)]
    kept = [l for l in lines if ((l[2] - l[0]) ** 2 + (l[3] - l[1]) ** 2) ** 0.5 >= min_len]
    width = max(1, round(max(w, h) / 256))
    for x0, y0, x1, y1 in kept:
        draw.line([(x0, y0), (x1, y1)], fill=(255, 255, 255), width=width)
    return out, [[round(v, 1) for v in l] for l in kept]


def normal_map(depth, background: float = 0.1):
    """Surface normals from a relative depth map (near = large), encoded as RGB like ControlNet's
    normal model expects: x right -> red, y up -> green, z towards the viewer -> blue. Pixels in
    the far background get a flat normal."""
    import numpy as np

    d = np.asarray(depth, dtype=np.float32)
    lo, hi = float(d.min()), float(d.max())
    d = (d - lo) / (hi - lo) if hi > lo else np.zeros_like(d)
    gx, gy = _sobel(d * 255.0)
    z = np.full_like(gx, 2 * np.pi)
    gx[d < background] = 0
    gy[d < background] = 0
    n = np.stack([gx, gy, z], axis=-1)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    return _rgb((n * 127.5 + 127.5).clip(0, 255).round())


# OpenPose's 18 keypoints, from COCO's 17 (VitPose's order); the neck is the shoulders' midpoint.
_COCO_TO_OPENPOSE = [0, None, 6, 8, 10, 5, 7, 9, 12, 14, 16, 11, 13, 15, 2, 1, 4, 3]
_LIMBS = [(1, 2), (1, 5), (2, 3), (3, 4), (5, 6), (6, 7), (1, 8), (8, 9), (9, 10), (1, 11), (11, 12), (12, 13),
          (1, 0), (0, 14), (14, 16), (0, 15), (15, 17)]


def pose_map(people: list[dict[str, Any]], size: tuple[int, int], min_score: float = 0.3):
    """Stick figures on black in OpenPose's style (a distinct hue per limb), for ControlNet openpose."""
    import colorsys

    import numpy as np
    from PIL import ImageDraw

    w, h = size
    out = _rgb(np.zeros((h, w), dtype=np.uint8))
    draw = ImageDraw.Draw(out)
    radius = max(2, round(max(w, h) / 128))
    for person in people:
        kp = person["keypoints"]
        if len(kp) < 17:
            raise ExpertError(f"openpose-control: the pose model gives {len(kp)} keypoints; a COCO model (17) is needed")
        pts: list[tuple[float, float] | None] = []
        for src in _COCO_TO_OPENPOSE:
            if src is None:
                a, b = kp[5], kp[6]
                ok = a[2] >= min_score and b[2] >= min_score
                pts.append(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) if ok else None)
            else:
                x, y, s = kp[src]
                pts.append((x, y) if s >= min_score else None)
        for i, (a, b) in enumerate(_LIMBS):
            if pts[a] and pts[b]:
                r, g, bl = colorsys.hsv_to_rgb(i / len(_LIMBS), 1.0, 0.6)
                draw.line([pts[a], pts[b]], fill=(int(r * 255), int(g * 255), int(bl * 255)), width=radius * 2)
        for i, p in enumerate(pts):
            if p:
                r, g, bl = colorsys.hsv_to_rgb(i / len(pts), 1.0, 1.0)
                draw.ellipse([p[0] - radius, p[1] - radius, p[0] + radius, p[1] + radius],
                             fill=(int(r * 255), int(g * 255), int(bl * 255)))
    return out


class ControlMapBackend(TransformersBackend):
    """Control-map extraction for every ControlNet kind but openpose (which needs a pose model and
    runs in :class:`TransformersBackend`)."""

    name = "control"
    cache_prefix = "transformers"  # share loaded depth/segmentation models with the plain tasks
    TASKS = frozenset({"canny-control", "hed-control", "mlsd-control", "depth-control", "normal-control", "seg-control"})

    def serves(self, info: ModelInfo, task: str) -> bool:
        if task in ("depth-control", "normal-control"):
            return "depth-estimation" in info.tasks
        if task == "seg-control":
            return "image-segmentation" in info.tasks
        return False

    def models(self, task: str) -> list[str]:
        if task in BUILTIN:
            return [BUILTIN[task]] if self.settings.local_allowed else []
        return super().models(task)

    def where(self, task: str, model_id: str) -> str | None:
        if task in BUILTIN and (model_id == BUILTIN[task] or model_id in JARVIS_ALIASES):
            return "local-cpu" if self.settings.local_allowed else None
        return super().where(task, model_id)

    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        if task in BUILTIN and (model_id == BUILTIN[task] or model_id in JARVIS_ALIASES):
            from ..media import MediaError

            try:
                image = load_image(need(args, "image", task))
            except MediaError as e:
                raise ExpertError(f"{task}: {e}") from None
            data: dict[str, Any] = {}
            if task == "canny-control":
                img = canny_map(image)
            elif task == "hed-control":
                img = softedge_map(image)
                data["method"] = "multi-scale gradient soft edges (HED-style)"
            else:
                img, lines = mlsd_map(image)
                data["lines"] = lines
            kind = task.split("-")[0]
            path = save_image(img, ctx, kind)
            return TaskOutput(text=f"{kind} control map saved to {path.name}", image=path, data=data,
                              model_id=BUILTIN[task], where="local-cpu")
        return super().run(task, model_id, args, ctx)

    def _run(self, task: str, info: ModelInfo, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        from . import vision_tasks

        image = load_image(need(args, "image", task))
        device = self.device
        kind = task.split("-")[0]
        if task == "seg-control":
            img = vision_tasks.seg_map(self, info, image, device)
        else:
            depth = vision_tasks.estimate_depth(self, info, image, device)
            img = depth_to_image(depth) if task == "depth-control" else normal_map(depth)
        path = save_image(img, ctx, kind)
        return TaskOutput(text=f"{kind} control map saved to {path.name}", image=path, data={"source_model": info.model_id})
