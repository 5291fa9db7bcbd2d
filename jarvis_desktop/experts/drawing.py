"""Turning vision results into pictures a person can look at (boxes, masks, depth maps, videos).

JARVIS draws detections and masks onto a new image; we do the same and also return the
structured data so later tasks and the answer can quote it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import RunContext

#: Distinct colours for labels (a fixed palette: the same label keeps its colour across images).
PALETTE = [
    (230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48), (145, 30, 180),
    (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (220, 190, 255),
    (170, 110, 40), (255, 250, 200), (128, 0, 0), (170, 255, 195), (128, 128, 0), (255, 215, 180),
    (0, 0, 128), (128, 128, 128),
]


def colour_for(label: str) -> tuple[int, int, int]:
    import zlib

    return PALETTE[zlib.crc32(label.encode("utf-8")) % len(PALETTE)]


def save_image(img, ctx: RunContext, stem: str) -> Path:
    path = ctx.output_path(stem, ".png")
    img.save(path)
    return path


def draw_boxes(image, objects: list[dict[str, Any]]):
    """A copy of ``image`` with each object's box and "label score" caption."""
    from PIL import ImageDraw

    out = image.copy()
    d = ImageDraw.Draw(out)
    width = max(1, round(max(out.size) / 250))
    for o in objects:
        b = o["box"]
        c = colour_for(o["label"])
        d.rectangle([b["xmin"], b["ymin"], b["xmax"], b["ymax"]], outline=c, width=width)
        caption = f"{o['label']} {o['score']:.2f}"
        tx, ty = b["xmin"] + width, max(0, b["ymin"] - 11)
        tw = d.textlength(caption)
        d.rectangle([tx - 1, ty, tx + tw + 1, ty + 11], fill=c)
        d.text((tx, ty), caption, fill=(0, 0, 0))
    return out


def overlay_masks(image, segments: list[dict[str, Any]], alpha: float = 0.5):
    """A copy of ``image`` with each segment's mask tinted in its label's colour."""
    import numpy as np

    base = np.asarray(image.convert("RGB"), dtype=np.float32)
    out = base.copy()
    for s in segments:
        m = np.asarray(s["mask"].convert("L").resize(image.size)) > 127
        out[m] = (1 - alpha) * out[m] + alpha * np.array(colour_for(s["label"]), dtype=np.float32)
    from PIL import Image

    return Image.fromarray(out.clip(0, 255).astype("uint8"))


def label_map(segments: list[dict[str, Any]], size: tuple[int, int]):
    """Segments painted in flat label colours on black: the map ControlNet's seg model expects."""
    import numpy as np
    from PIL import Image

    w, h = size
    out = np.zeros((h, w, 3), dtype=np.uint8)
    for s in segments:
        m = np.asarray(s["mask"].convert("L").resize(size)) > 127
        out[m] = colour_for(s["label"])
    return Image.fromarray(out)


def depth_to_image(depth):
    """A depth array normalised to 0..255 grey (near = bright, as MiDaS and ControlNet use it)."""
    import numpy as np
    from PIL import Image

    a = np.asarray(depth, dtype=np.float32)
    a = np.nan_to_num(a)
    lo, hi = float(a.min()), float(a.max())
    norm = (a - lo) / (hi - lo) if hi > lo else np.zeros_like(a)
    return Image.fromarray((norm * 255).round().astype("uint8")).convert("RGB")


def save_video(frames: list, ctx: RunContext, stem: str, fps: int = 8) -> Path:
    """Write frames (PIL images or HxWx3 arrays) as an H.264 MP4 with PyAV, else an animated GIF."""
    import numpy as np
    from PIL import Image

    imgs = [f if isinstance(f, Image.Image) else Image.fromarray(_to_uint8(f)) for f in frames]
    imgs = [i.convert("RGB") for i in imgs]
    try:
        import av

        path = ctx.output_path(stem, ".mp4")
        w, h = imgs[0].size
        w2, h2 = w + (w % 2), h + (h % 2)  # yuv420p needs even sizes
        with av.open(str(path), mode="w") as container:
            stream = container.add_stream("libx264", rate=fps)
            stream.width, stream.height, stream.pix_fmt = w2, h2, "yuv420p"
            for img in imgs:
                if (w2, h2) != (w, h):
                    img = img.resize((w2, h2))
                for packet in stream.encode(av.VideoFrame.from_ndarray(np.asarray(img), format="rgb24")):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        return path
    except Exception:  # no PyAV or no H.264 encoder: a GIF always works
        path = ctx.output_path(stem, ".gif")
        imgs[0].save(path, save_all=True, append_images=imgs[1:], duration=int(1000 / fps), loop=0)
        return path


def _to_uint8(a):
    import numpy as np

    a = np.asarray(a)
    if a.dtype != np.uint8:
        a = (np.clip(a, 0, 1) * 255).round().astype(np.uint8) if a.max() <= 1.0 else a.clip(0, 255).astype(np.uint8)
    return a
