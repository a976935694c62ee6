"""Drawing a force-directed layout with matplotlib.

Given a :func:`~hpgraph.algorithms.layout.layout` (or
:func:`~hpgraph.algorithms.community_layout.community_layout`) result, :func:`plot_layout`
writes a picture of it (PNG or any format matplotlib writes): vertices coloured by
community, edges as thin lines, 2-D or 3-D axes.
"""

from __future__ import annotations

import numpy as np

from hpgraph.algorithms.layout.quality import _positions
from hpgraph.errors import InvalidArgumentError

__all__ = ["plot_layout"]


def plot_layout(result, path, *, communities=None, edges=True, size=6.0):
    """Draw a :func:`layout` result to ``path`` (PNG or any format matplotlib writes):
    vertices coloured by ``communities`` (one integer label per vertex) when given, edges
    as thin lines (skipped above 200,000 edges). 3-D results get a 3-D axes. Needs
    matplotlib; raises :class:`InvalidArgumentError` naming it when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
    except ImportError as exc:
        raise InvalidArgumentError("plot_layout needs matplotlib: pip install matplotlib") from exc
    x = _positions(result.graph, result)
    dim = x.shape[1]
    colour = None
    if communities is not None:
        colour = np.asarray(communities)
        if colour.shape != (x.shape[0],):
            raise InvalidArgumentError(
                f"communities must hold one label per vertex ({x.shape[0]}), got shape "
                f"{colour.shape}"
            )
    fig = plt.figure(figsize=(size, size))
    ax = fig.add_subplot(projection="3d" if dim == 3 else None)
    src, dst, _ = result.graph.symmetrized().edges()
    keep = src < dst
    if edges and 0 < keep.sum() <= 200_000:
        seg = np.stack([x[src[keep]], x[dst[keep]]], axis=1)
        if dim == 2:
            ax.add_collection(LineCollection(seg, linewidths=0.3, colors="0.6", zorder=1))
        else:
            from mpl_toolkits.mplot3d.art3d import Line3DCollection

            ax.add_collection(Line3DCollection(seg, linewidths=0.3, colors="0.6"))
    paint = {} if colour is None else {"c": colour, "cmap": "tab20"}
    ax.scatter(*x.T, s=max(1.0, 2000.0 / max(x.shape[0], 1) ** 0.5), zorder=2, **paint)
    lo, hi = x.min(axis=0) if x.size else np.zeros(dim), x.max(axis=0) if x.size else np.ones(dim)
    pad = 0.02 * max(float((hi - lo).max()), 1e-9)
    ax.set_xlim(lo[0] - pad, hi[0] + pad)
    ax.set_ylim(lo[1] - pad, hi[1] + pad)
    if dim == 3:
        ax.set_zlim(lo[2] - pad, hi[2] + pad)
    else:
        ax.set_aspect("equal")
    ax.set_axis_off()
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
