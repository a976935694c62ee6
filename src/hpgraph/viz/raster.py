"""A static picture of the communities. Given a layout (x, y[, z] per vertex) and each
vertex's strongest community, returns a PNG file in which every vertex counts, drawn the
way datashader draws millions of points: no marker per point, but an aggregation into
the pixel grid followed by shading.

1. Projection. 2-D coordinates are used as they are; 3-D ones through a fixed orthographic
   view (:data:`~hpgraph.viz._data.AZIMUTH_DEG`, :data:`~hpgraph.viz._data.ELEVATION_DEG`).
   The bounding box is fitted into the image with a margin, keeping the aspect ratio.
2. Aggregation (one compiled pass over the points, O(n)): per pixel, the number of
   points and the sum of their community colours. Small inputs splat each point into a
   (2r+1)^2 square (r = ``spread``; auto: 0 above one point per 20 pixels, 1 above one per
   400, else 2) so a few hundred points stay visible.
3. Shading (datashader's categorical ``count_cat`` with ``how='log'``): a pixel's colour is
   the mean colour of its points; its opacity over the background is
   ``min_alpha + (1 - min_alpha) * log1p(count) / log1p(max count)``, so dense cores do
   not wash out sparse fringes.
4. Compositing (matplotlib, Agg, no pyplot state): the raster is placed pixel for pixel;
   leaders of the ``mark_top`` biggest communities are marked with a black-edged dot in
   their community's colour; the first-ranked leader of the ``label_top`` biggest
   communities gets a bigger dot and its community's label (hashtag or vertex id),
   placed greedily beside it without overlapping other labels or the legend (a label
   that fits nowhere is skipped and reported). A legend lists the ``legend_top`` biggest
   communities with their sizes (members, overlaps counted, when ``sizes`` is given).

Colours go to communities in order of size (:func:`~hpgraph.viz._data.colour_of_community`):
the biggest get the palette's most distinct colours; vertices in no community are grey.
"""

from __future__ import annotations

import math
import os
import time

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.viz._data import (
    AZIMUTH_DEG,
    ELEVATION_DEG,
    NONE_RGB,
    check_inputs,
    colour_of_community,
)

__all__ = ["render_png", "screen_positions"]

#: Fraction of the image's smaller side left empty around the points.
MARGIN = 0.04

#: zlib level of the PNG (1 fastest .. 9 smallest); 8M-point pictures are noisy, so higher
#: levels cost seconds for a few percent.
PNG_COMPRESSION = 3


@njit(**NUMBA_FLAGS)
def _aggregate(px, py, cidx, colours, w, h, r, acc):
    """Per pixel p: summed colours in acc[p, :3] and the number of points in acc[p, 3] (one
    cache line per pixel: the scatter is bound by memory); returns the points drawn."""
    drawn = 0
    for i in range(px.shape[0]):
        x0 = px[i]
        y0 = py[i]
        c = cidx[i]
        inside = False
        for dy in range(-r, r + 1):
            y = y0 + dy
            if y < 0 or y >= h:
                continue
            for dx in range(-r, r + 1):
                x = x0 + dx
                if x < 0 or x >= w:
                    continue
                p = y * w + x
                acc[p, 3] += 1.0
                acc[p, 0] += colours[c, 0]
                acc[p, 1] += colours[c, 1]
                acc[p, 2] += colours[c, 2]
                inside = True
        if inside:
            drawn += 1
    return drawn


@njit(**NUMBA_FLAGS)
def _bounds(uv):
    """Per-column minimum and maximum of an (n, 2) array (one pass)."""
    lo = np.full(2, np.inf)
    hi = np.full(2, -np.inf)
    for i in range(uv.shape[0]):
        for d in range(2):
            v = uv[i, d]
            if v < lo[d]:
                lo[d] = v
            if v > hi[d]:
                hi[d] = v
    return lo, hi


@njit(**NUMBA_FLAGS)
def _pixels(uv, cu, cv, scale, w, h):
    """Integer pixel (x right, y down) of every point; the float position is
    ``w / 2 + (u - cu) * scale``, ``h / 2 - (v - cv) * scale``."""
    n = uv.shape[0]
    px = np.empty(n, dtype=np.int32)
    py = np.empty(n, dtype=np.int32)
    for i in range(n):
        px[i] = np.int32(np.floor(w / 2 + (uv[i, 0] - cu) * scale))
        py[i] = np.int32(np.floor(h / 2 - (uv[i, 1] - cv) * scale))
    return px, py


def _fit(uv, width, height, margin=MARGIN):
    """Centre and scale that fit the points' bounding box into the picture."""
    if uv.shape[0] == 0:
        return 0.0, 0.0, 1.0
    lo, hi = _bounds(uv)
    span = np.maximum(hi - lo, 1e-12)
    m = margin * min(width, height)
    scale = min((width - 2 * m) / span[0], (height - 2 * m) / span[1])
    return (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, scale


@njit(**NUMBA_FLAGS)
def _project(x, ca, sa, ce, se):
    """(u, v) of 3-D points under the fixed orthographic view: turn by the azimuth about z,
    tilt towards the viewer by the elevation; u to the right, v up."""
    uv = np.empty((x.shape[0], 2))
    for i in range(x.shape[0]):
        xr = x[i, 0] * ca - x[i, 1] * sa
        yr = x[i, 0] * sa + x[i, 1] * ca
        uv[i, 0] = xr
        uv[i, 1] = x[i, 2] * ce + yr * se
    return uv


def _plane(coords):
    x = np.ascontiguousarray(coords, dtype=np.float64)
    if x.shape[1] == 2:
        return x
    a, e = math.radians(AZIMUTH_DEG), math.radians(ELEVATION_DEG)
    return _project(x, math.cos(a), math.sin(a), math.cos(e), math.sin(e))


def screen_positions(coords, width, height, margin=MARGIN):
    """Pixel positions (float64 (n, 2); x right, y down) of the points in a
    ``width`` x ``height`` picture, with the fixed 3-D projection for (n, 3) input."""
    uv = _plane(coords)
    cu, cv, scale = _fit(uv, width, height, margin)
    return np.column_stack(
        [width / 2 + (uv[:, 0] - cu) * scale, height / 2 - (uv[:, 1] - cv) * scale]
    )


@njit(**NUMBA_FLAGS)
def _shade_kernel(acc, bg, min_alpha, img):
    """Mean colour at log opacity over the background, pixel by pixel; returns pixels lit."""
    cmax = 0.0
    for p in range(acc.shape[0]):
        if acc[p, 3] > cmax:
            cmax = acc[p, 3]
    norm = np.log1p(cmax) if cmax > 0 else 1.0
    lit = 0
    for p in range(acc.shape[0]):
        c = acc[p, 3]
        if c == 0:
            for k in range(3):
                img[p, k] = np.uint8(bg[k])
            continue
        lit += 1
        a = min_alpha + (1.0 - min_alpha) * np.log1p(c) / norm
        for k in range(3):
            v = bg[k] * (1.0 - a) + (acc[p, k] / c) * a + 0.5
            img[p, k] = np.uint8(min(max(v, 0.0), 255.0))
    return lit


def _shade(acc, background, min_alpha):
    """RGB uint8 pixels (h*w, 3) from the aggregates, and the number of lit pixels."""
    img = np.empty((acc.shape[0], 3), dtype=np.uint8)
    bg = np.asarray(background, dtype=np.float64)
    lit = _shade_kernel(acc, bg, float(min_alpha), img)
    return img, int(lit)


def render_png(
    path,
    coords,
    community,
    *,
    names=None,
    sizes=None,
    leaders=None,
    width=2400,
    height=2400,
    title=None,
    label_top=12,
    mark_top=100,
    legend_top=12,
    spread=None,
    min_alpha=0.35,
    background=(255, 255, 255),
) -> dict:
    """Write a PNG picture of the communities to ``path`` and return statistics.

    ``coords``: (n, 2) or (n, 3) floats (3-D: fixed projection); ``community``: (n,) ints,
    each vertex's strongest community (-1: none); ``names``: one label per community
    (hashtag or vertex id; default the id); ``sizes``: members per community (with
    overlaps, as a cover counts them; default: the vertices whose strongest it is), which
    order the communities for colours, labels and the legend; ``leaders``: four aligned
    arrays (community, rank, vertex, betweenness), as a tuple, a mapping or a table with
    those columns. ``label_top``/``mark_top``/``legend_top``: how many of the biggest
    communities get their first leader labelled / their leaders marked / a legend entry.
    ``spread``: splat radius in pixels (None: by density). Returns a dict: ``path``,
    ``width``, ``height``, ``points``, ``drawn``, ``pixels_lit``, ``communities``,
    ``leaders_marked``, ``labels`` (one dict per drawn label: community, name, vertex, box
    as pixel (x0, y0, x1, y1), y down), ``skipped_labels``, ``legend`` (its lines),
    ``spread``, ``seconds`` and ``stage_seconds`` (check_project, aggregate, shade,
    overlays, encode_png).
    """
    t0 = time.perf_counter()
    width, height = int(width), int(height)
    if not (16 <= width <= 20000 and 16 <= height <= 20000):
        raise InvalidArgumentError(f"width and height must be in [16, 20000], got {width}x{height}")
    if spread is not None and not (0 <= int(spread) <= 20):
        raise InvalidArgumentError(f"spread must be in [0, 20] pixels or None, got {spread}")
    if not 0.0 <= float(min_alpha) <= 1.0:
        raise InvalidArgumentError(f"min_alpha must be in [0, 1], got {min_alpha}")
    inp = check_inputs(coords, community, names=names, sizes=sizes, leaders=leaders)
    n, ncomm = inp.coords.shape[0], len(inp.names)
    rgb = colour_of_community(inp.sizes)
    colours = np.vstack([rgb, np.array([NONE_RGB], dtype=np.uint8)]).astype(np.float32)
    uv = _plane(inp.coords)
    cu, cv, scale = _fit(uv, width, height)
    px, py = _pixels(uv, cu, cv, scale, width, height)
    # float positions of the leaders, row by row (marks and labels)
    lv = inp.leaders.vertex
    pos = np.column_stack([width / 2 + (uv[lv, 0] - cu) * scale,
                           height / 2 - (uv[lv, 1] - cv) * scale])  # fmt: skip
    del uv
    cidx = np.where(inp.community < 0, ncomm, inp.community).astype(np.int32)
    if spread is None:
        area = width * height
        r = 0 if n > area / 20 else (1 if n > area / 400 else 2)
    else:
        r = int(spread)
    acc = np.zeros((width * height, 4), dtype=np.float32)
    t1 = time.perf_counter()
    drawn = _aggregate(px, py, cidx, colours, width, height, r, acc)
    t2 = time.perf_counter()
    img, lit = _shade(acc, background, float(min_alpha))
    t3 = time.perf_counter()
    del acc
    img = img.reshape(height, width, 3)
    labels, skipped, marked, legend, t4 = _composite(
        path, img, pos, inp, rgb, title, label_top, mark_top, legend_top, background
    )
    t5 = time.perf_counter()
    return {
        "path": os.fspath(path),
        "width": width,
        "height": height,
        "points": n,
        "drawn": int(drawn),
        "pixels_lit": lit,
        "communities": ncomm,
        "leaders_marked": marked,
        "labels": labels,
        "skipped_labels": skipped,
        "legend": legend,
        "spread": r,
        "seconds": t5 - t0,
        "stage_seconds": {
            "check_project": t1 - t0,
            "aggregate": t2 - t1,
            "shade": t3 - t2,
            "overlays": t4 - t3,
            "encode_png": t5 - t4,
        },  # fmt: skip
    }


def _by_size(sizes):
    return np.lexsort((np.arange(sizes.size), -sizes))


def _overlaps(box, boxes):
    x0, y0, x1, y1 = box
    return any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in boxes)


def _composite(path, img, pos, inp, rgb, title, label_top, mark_top, legend_top, background):
    """Raster + leader marks + labels + legend + title through matplotlib's Agg canvas."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
        from PIL import Image
    except ImportError as exc:  # a core dependency; only a broken install lands here
        raise InvalidArgumentError("render_png needs matplotlib: pip install matplotlib") from exc
    h, w = img.shape[:2]
    dpi = 100
    fig = Figure(figsize=(w / dpi, h / dpi), dpi=dpi, facecolor="none")
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.patch.set_alpha(0.0)
    ax.set_xlim(0, w)
    ax.set_ylim(h, 0)
    renderer = canvas.get_renderer()
    px_pt = 72.0 / dpi  # points per pixel
    scale = max(min(w, h) / 2400.0, 0.25)
    font_px = max(10.0, 24.0 * scale)
    fg = "black" if sum(background) > 3 * 128 else "white"
    bg = tuple(c / 255 for c in background)
    boxes = []

    def measure(text, size_px, weight="normal"):
        t = ax.text(0, 0, text, fontsize=size_px * px_pt, weight=weight, parse_math=False)
        e = t.get_window_extent(renderer)
        t.remove()
        return e.width, e.height

    pad = 0.6 * font_px
    if title:
        tw, th = measure(str(title), 1.4 * font_px, "bold")
        ax.text(w / 2, pad, str(title), ha="center", va="top", fontsize=1.4 * font_px * px_pt,
                weight="bold", color=fg, parse_math=False)  # fmt: skip
        boxes.append((w / 2 - tw / 2, pad, w / 2 + tw / 2, pad + th))
    order = _by_size(inp.sizes)
    # Legend: the biggest communities, a swatch, the label and the size.
    top = [int(c) for c in order[: max(int(legend_top), 0)] if inp.sizes[c] > 0]
    lines = [f"{inp.names[c]}  ({int(inp.sizes[c]):,})" for c in top]
    if top:
        lh = 1.35 * font_px
        tw = max(measure(s, font_px)[0] for s in lines)
        x0, y0 = pad, pad + (boxes[0][3] + pad if boxes else 0)
        bw, bh = tw + 2.6 * font_px, lh * len(lines) + pad
        ax.add_patch(
            Rectangle((x0, y0), bw, bh, facecolor=bg, edgecolor="0.6", alpha=0.9, zorder=10)
        )
        for k, (c, s) in enumerate(zip(top, lines, strict=True)):
            yy = y0 + pad / 2 + (k + 0.5) * lh
            ax.scatter([x0 + 0.9 * font_px], [yy], s=(0.8 * font_px * px_pt) ** 2, marker="s",
                       color=rgb[c] / 255.0, edgecolors="none", zorder=11)  # fmt: skip
            ax.text(x0 + 1.8 * font_px, yy, s, va="center", ha="left", fontsize=font_px * px_pt,
                    color=fg, parse_math=False, zorder=11)  # fmt: skip
        boxes.append((x0, y0, x0 + bw, y0 + bh))
    # Leaders: marks for the mark_top biggest communities, labels for the label_top biggest.
    lead = inp.leaders
    marked = 0
    labels, skipped = [], []
    if lead.vertex.size:
        rank_of = np.empty(inp.sizes.size, dtype=np.int64)
        rank_of[order] = np.arange(order.size)
        sel = rank_of[lead.community] < int(mark_top)
        if sel.any():
            ax.scatter(pos[sel, 0], pos[sel, 1], s=(0.45 * font_px * px_pt) ** 2,
                       c=rgb[lead.community[sel]] / 255.0, edgecolors=fg,
                       linewidths=0.08 * font_px * px_pt, zorder=3)  # fmt: skip
            marked = int(sel.sum())
        # the first-ranked leader of each labelled community
        first = np.lexsort((lead.rank, lead.community))
        keep = np.ones(first.size, dtype=bool)
        keep[1:] = lead.community[first][1:] != lead.community[first][:-1]
        first = first[keep]
        first = first[rank_of[lead.community[first]] < int(label_top)]
        first = first[np.argsort(rank_of[lead.community[first]], kind="stable")]
        gap = 0.7 * font_px
        for i in first:
            c, v = int(lead.community[i]), int(lead.vertex[i])
            x, y = float(pos[i, 0]), float(pos[i, 1])
            name = inp.names[c]
            tw, th = measure(name, font_px, "bold")
            tw, th = tw + 0.6 * font_px, th + 0.4 * font_px  # the label's box padding
            spot = None
            for cx, cy in ((x + gap, y - gap - th), (x + gap, y + gap),
                           (x - gap - tw, y - gap - th), (x - gap - tw, y + gap)):  # fmt: skip
                box = (cx, cy, cx + tw, cy + th)
                if box[0] >= 0 and box[1] >= 0 and box[2] <= w and box[3] <= h:
                    if not _overlaps(box, boxes):
                        spot = box
                        break
            ax.scatter([x], [y], s=(0.8 * font_px * px_pt) ** 2, c=[rgb[c] / 255.0],
                       edgecolors=fg, linewidths=0.12 * font_px * px_pt, zorder=4)  # fmt: skip
            if spot is None:
                skipped.append({"community": c, "name": name, "vertex": v})
                continue
            boxes.append(spot)
            ax.text(spot[0] + 0.3 * font_px, spot[1] + 0.2 * font_px, name, ha="left", va="top",
                    fontsize=font_px * px_pt, weight="bold", color=fg, parse_math=False, zorder=5,
                    bbox={"boxstyle": "round,pad=0.25", "facecolor": bg, "alpha": 0.85,
                          "edgecolor": rgb[c] / 255.0, "linewidth": 2})  # fmt: skip
            labels.append({"community": c, "name": name, "vertex": v, "box": spot})
    # the overlays (straight RGBA from Agg) over the raster, then one PNG encode
    canvas.draw()
    over = np.asarray(canvas.buffer_rgba())
    a = over[:, :, 3]
    on = a > 0
    if on.any():
        fa = a[on].astype(np.float32)[:, None] / 255.0
        img[on] = np.clip(img[on] * (1.0 - fa) + over[:, :, :3][on] * fa + 0.5, 0, 255)
    t = time.perf_counter()
    Image.fromarray(img, "RGB").save(path, format="PNG", compress_level=PNG_COMPRESSION)
    return labels, skipped, marked, lines, t
