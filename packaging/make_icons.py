"""Draw the JARVIS icon: resources/icons/jarvis.svg and PNGs (48, 128, 256) from one geometry.

The icon is a task graph (one request node feeding two experts) inside a ring, on a dark blue
rounded square. The PNGs are drawn with Pillow (4x supersampled) from the same numbers the SVG
uses, so no SVG renderer is needed. Run: python packaging/make_icons.py
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "resources" / "icons"
SIZES = (48, 128, 256)

# Geometry on a 256 x 256 canvas.
BG = (16, 16, 240, 240)
BG_RADIUS = 52
BG_TOP, BG_BOTTOM = "#0b1e3a", "#16467f"
RING = (128, 128, 86)
RING_WIDTH = 14
RING_COLOR = "#4fd1ff"
NODES = [(128, 86), (90, 158), (166, 158)]
NODE_RADIUS = 18
NODE_COLOR = "#eaf8ff"
EDGES = [(0, 1), (0, 2)]
EDGE_WIDTH = 9


def svg() -> str:
    x0, y0, x1, y1 = BG
    cx, cy, r = RING
    edges = "\n".join(
        f'    <line x1="{NODES[a][0]}" y1="{NODES[a][1]}" x2="{NODES[b][0]}" y2="{NODES[b][1]}"/>' for a, b in EDGES)
    nodes = "\n".join(f'    <circle cx="{x}" cy="{y}" r="{NODE_RADIUS}"/>' for x, y in NODES)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">
  <title>JARVIS Desktop</title>
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="{BG_TOP}"/>
      <stop offset="1" stop-color="{BG_BOTTOM}"/>
    </linearGradient>
  </defs>
  <rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" rx="{BG_RADIUS}" fill="url(#bg)"/>
  <circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="{RING_COLOR}" stroke-width="{RING_WIDTH}"/>
  <g stroke="{RING_COLOR}" stroke-width="{EDGE_WIDTH}" stroke-linecap="round">
{edges}
  </g>
  <g fill="{NODE_COLOR}">
{nodes}
  </g>
</svg>
"""


def png(size: int):
    """The icon at ``size`` pixels, drawn 4x larger and scaled down for smooth edges."""
    from PIL import Image, ImageColor, ImageDraw

    k = size * 4 / 256
    big = size * 4

    def s(v: float) -> int:
        return round(v * k)

    top, bottom = ImageColor.getrgb(BG_TOP), ImageColor.getrgb(BG_BOTTOM)
    gradient = Image.new("RGBA", (big, big))
    gd = ImageDraw.Draw(gradient)
    x0, y0, x1, y1 = (s(v) for v in BG)
    for y in range(big):
        t = min(max((y - y0) / max(1, y1 - y0), 0.0), 1.0)
        gd.line([(0, y), (big, y)], fill=tuple(round(a + (b - a) * t) for a, b in zip(top, bottom)) + (255,))
    mask = Image.new("L", (big, big), 0)
    ImageDraw.Draw(mask).rounded_rectangle((x0, y0, x1, y1), radius=s(BG_RADIUS), fill=255)
    im = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    im.paste(gradient, (0, 0), mask)

    d = ImageDraw.Draw(im)
    cx, cy, r = RING
    half = RING_WIDTH / 2
    d.ellipse((s(cx - r - half), s(cy - r - half), s(cx + r + half), s(cy + r + half)),
              outline=RING_COLOR, width=s(RING_WIDTH))
    for a, b in EDGES:
        d.line([(s(NODES[a][0]), s(NODES[a][1])), (s(NODES[b][0]), s(NODES[b][1]))], fill=RING_COLOR, width=s(EDGE_WIDTH))
        for x, y in (NODES[a], NODES[b]):  # round caps
            d.ellipse((s(x - EDGE_WIDTH / 2), s(y - EDGE_WIDTH / 2), s(x + EDGE_WIDTH / 2), s(y + EDGE_WIDTH / 2)),
                      fill=RING_COLOR)
    for x, y in NODES:
        d.ellipse((s(x - NODE_RADIUS), s(y - NODE_RADIUS), s(x + NODE_RADIUS), s(y + NODE_RADIUS)), fill=NODE_COLOR)
    return im.resize((size, size), Image.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "jarvis.svg").write_text(svg(), encoding="utf-8")
    for size in SIZES:
        png(size).save(OUT / f"jarvis-{size}.png", optimize=True)
    print(f"wrote {OUT}/jarvis.svg and jarvis-{{{','.join(map(str, SIZES))}}}.png")


if __name__ == "__main__":
    main()
