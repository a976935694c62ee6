"""Input checks, the categorical palette and the fixed 3-D view (angles) shared by the PNG and
the HTML page. Given the user's plain arrays, returns validated numpy arrays (or raises
:class:`~hpgraph.errors.InvalidArgumentError` with one line saying what was expected)."""

from __future__ import annotations

import colorsys
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__ = [
    "Leaders",
    "Inputs",
    "check_inputs",
    "palette",
    "colour_of_community",
    "AZIMUTH_DEG",
    "ELEVATION_DEG",
    "NONE_RGB",
]

#: The fixed 3-D view of the PNG (and the page's starting view): turn about the z axis by
#: the azimuth, then tilt towards the viewer by the elevation; orthographic.
AZIMUTH_DEG = 35.0
ELEVATION_DEG = 25.0

#: Colour of vertices in no community (community -1).
NONE_RGB = (150, 150, 150)

# A categorical palette for the biggest communities: Tableau 10 then Kelly's contrasting
# colours (minus white, black and greys), all readable on white. Communities past these
# get colours from a golden-ratio hue walk with alternating saturation and value.
_BASE = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f", "#f3c300", "#875692", "#f38400", "#a1caf1", "#be0032", "#008856",
    "#e68fac", "#0067a5", "#f99379", "#604e97", "#f6a600", "#b3446c", "#8db600", "#654522",
    "#e25822", "#2b3d26",
]  # fmt: skip


def palette(k: int) -> np.ndarray:
    """``k`` distinct-looking RGB colours, uint8 of shape (k, 3); colour i goes to the
    i-th biggest community."""
    out = np.empty((max(k, 0), 3), dtype=np.uint8)
    for i in range(out.shape[0]):
        if i < len(_BASE):
            h = _BASE[i]
            out[i] = (int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16))
        else:
            j = i - len(_BASE)
            hue = (0.13 + j * 0.6180339887498949) % 1.0
            sat = (0.85, 0.55, 0.7)[j % 3]
            val = (0.85, 0.65, 0.95, 0.55)[(j // 3) % 4]
            out[i] = [round(255 * c) for c in colorsys.hsv_to_rgb(hue, sat, val)]
    return out


def colour_of_community(sizes: np.ndarray) -> np.ndarray:
    """RGB per community (uint8, (C, 3)): the palette in order of descending size (ties by
    community id), so the biggest communities get the most distinct colours."""
    order = np.lexsort((np.arange(sizes.size), -sizes))
    rgb = np.empty((sizes.size, 3), dtype=np.uint8)
    rgb[order] = palette(sizes.size)
    return rgb


class Leaders(NamedTuple):
    """Leaders as four aligned arrays (row i: ``vertex[i]`` is the ``rank[i]``-th leader
    of ``community[i]``, with betweenness ``betweenness[i]``)."""

    community: np.ndarray
    rank: np.ndarray
    vertex: np.ndarray
    betweenness: np.ndarray


class Inputs(NamedTuple):
    coords: np.ndarray  # (n, 2|3) float64, finite
    community: np.ndarray  # (n,) int64 in [-1, C)
    names: list  # C label strings
    sizes: np.ndarray  # (C,) int64
    leaders: Leaders  # possibly empty
    memberships: tuple | None  # (ptr, community_of, coefficient) or None


def _int_array(a, what):
    arr = np.asarray(a)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)):
            if np.all(arr == np.round(arr)):
                return arr.astype(np.int64)
        elif arr.size == 0:
            return arr.astype(np.int64)
        raise InvalidArgumentError(f"{what} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _leaders(leaders, n, ncomm) -> Leaders:
    empty = np.zeros(0, dtype=np.int64)
    if leaders is None:
        return Leaders(empty, empty, empty, np.zeros(0))
    keys = ("community", "rank", "vertex", "betweenness")
    try:
        if isinstance(leaders, Mapping) or hasattr(leaders, "column_names"):
            cols = [leaders[k] for k in keys]
        elif all(hasattr(leaders, k) for k in keys):
            cols = [getattr(leaders, k) for k in keys]
        else:
            cols = list(leaders)
    except (KeyError, TypeError) as exc:
        raise InvalidArgumentError(
            "leaders must be four arrays (community, rank, vertex, betweenness) or a "
            f"mapping/table with those columns: {exc}"
        ) from None
    if len(cols) != 4:
        raise InvalidArgumentError(
            f"leaders must be four arrays (community, rank, vertex, betweenness), got {len(cols)}"
        )
    com = _int_array(cols[0], "leaders community")
    rank = _int_array(cols[1], "leaders rank")
    ver = _int_array(cols[2], "leaders vertex")
    btw = np.asarray(cols[3], dtype=np.float64)
    m = com.size
    if any(c.ndim != 1 or c.size != m for c in (com, rank, ver, btw)):
        raise InvalidArgumentError(
            "leaders' four arrays must be 1-D and of one length, got lengths "
            f"{[np.size(c) for c in (com, rank, ver, btw)]}"
        )
    if m and (ver.min() < 0 or ver.max() >= n):
        raise InvalidArgumentError(
            f"leaders vertex must lie in [0, {n}), got {ver.min()}..{ver.max()}"
        )
    if m and (com.min() < 0 or com.max() >= ncomm):
        raise InvalidArgumentError(
            f"leaders community must lie in [0, {ncomm}), got {com.min()}..{com.max()}"
        )
    return Leaders(com, rank, ver, btw)


def _memberships(memberships, n):
    if memberships is None:
        return None
    try:
        ptr, com, coef = memberships
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            "memberships must be a CSR triple (ptr, community_of, coefficient)"
        ) from None
    ptr = _int_array(ptr, "memberships ptr")
    com = _int_array(com, "memberships community_of")
    coef = np.asarray(coef, dtype=np.float64)
    if ptr.shape != (n + 1,):
        raise InvalidArgumentError(
            f"memberships ptr must have n + 1 = {n + 1} entries, got {ptr.shape}"
        )
    if ptr[0] != 0 or np.any(np.diff(ptr) < 0) or ptr[-1] != com.size:
        raise InvalidArgumentError(
            "memberships ptr must start at 0, never decrease and end at len(community_of) "
            f"= {com.size}"
        )
    if coef.shape != com.shape:
        raise InvalidArgumentError(
            f"memberships coefficient has shape {coef.shape}, community_of {com.shape}"
        )
    if com.size and com.min() < 0:
        raise InvalidArgumentError("memberships community_of must be >= 0")
    return ptr, com, coef


def check_inputs(coords, community, names=None, sizes=None, leaders=None, memberships=None):
    """Validated :class:`Inputs`. The number of communities C is the longest of ``names``,
    ``sizes`` and ``community.max() + 1`` (and the memberships' largest community + 1);
    missing names are the community ids as text, missing sizes are counted from the
    memberships when given, else from ``community``."""
    x = np.asarray(coords)
    if x.ndim != 2 or x.shape[1] not in (2, 3):
        raise InvalidArgumentError(f"coords must have shape (n, 2) or (n, 3), got {x.shape}")
    if x.dtype.kind not in "iuf":
        raise InvalidArgumentError(f"coords must be numbers, got dtype {x.dtype}")
    x = x.astype(np.float64, copy=False)
    if not np.all(np.isfinite(x)):
        raise InvalidArgumentError("coords must be finite (found NaN or infinity)")
    n = x.shape[0]
    com = _int_array(community, "community")
    if com.shape != (n,):
        raise InvalidArgumentError(
            f"community must hold one entry per point ({n}), got shape {com.shape}"
        )
    if n and com.min() < -1:
        raise InvalidArgumentError(f"community must be >= -1 (-1: none), got {com.min()}")
    mem = _memberships(memberships, n)
    ncomm = int(com.max()) + 1 if n else 0
    if mem is not None and mem[1].size:
        ncomm = max(ncomm, int(mem[1].max()) + 1)
    if names is not None:
        names = [str(s) for s in names]
        if len(names) < ncomm:
            raise InvalidArgumentError(
                f"names has {len(names)} entries but community ids go up to {ncomm - 1}"
            )
        ncomm = len(names)
    if sizes is not None:
        sizes = _int_array(sizes, "sizes")
        if sizes.ndim != 1 or sizes.size < ncomm:
            raise InvalidArgumentError(
                f"sizes must hold one count per community ({ncomm}), got shape {sizes.shape}"
            )
        if names is not None and sizes.size != ncomm:
            raise InvalidArgumentError(
                f"sizes has {sizes.size} entries, names {len(names)}: one per community"
            )
        ncomm = sizes.size
    if names is None:
        names = [str(c) for c in range(ncomm)]
    if sizes is None:
        if mem is not None:
            sizes = np.bincount(mem[1], minlength=ncomm).astype(np.int64)
        else:
            sizes = np.bincount(com[com >= 0], minlength=ncomm).astype(np.int64)
    lead = _leaders(leaders, n, ncomm)
    return Inputs(x, com, names, sizes, lead, mem)
