"""Registry entry of ``layout`` (force-directed layout), with its report and the picture
``hpgraph run layout --picture`` draws after it."""

from __future__ import annotations

from hpgraph.algorithms.entries._common import KERNELS
from hpgraph.algorithms.entries.base import Algorithm, Param

__all__ = ["LAYOUT"]


def _report_layout(result):
    meta = result.meta
    what = f"{meta['dim']}-D, {meta['iterations']} iterations, {meta['method']} repulsion"
    return [("layout", what)], None


def _layout_picture(result, graph, options, console):
    """``hpgraph run layout --picture out.png``: the rasterised picture of the layout,
    coloured by connected component (hpgraph.viz.render_png)."""
    path = options.get("picture")
    if not path:
        return
    import numpy as np

    from hpgraph.viz import render_png

    coords = np.column_stack([result[c] for c in "xyz" if c in result.columns])
    _, part = _components(graph)
    stats = render_png(path, coords, part, title=f"{graph.name or 'graph'}: layout")
    console.print(f"wrote {path} ({stats['width']}x{stats['height']}, coloured by component)")


def _components(graph):
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    g = graph.symmetrized()
    adj = csr_matrix((np.ones(g.indices.shape[0]), g.indices, g.indptr), shape=(g.n, g.n))
    return connected_components(adj, directed=False)


LAYOUT = Algorithm(
    "layout",
    KERNELS + "layout:layout",
    False,
    "force-directed layout (Fruchterman-Reingold), 2-D or 3-D",
    (
        Param("dim", int, 2, "2 or 3 dimensions"),
        Param("iterations", int, 100, "iterations (linear cooling)"),
        Param("method", str, "auto", "repulsion: auto, exact, grid, barnes-hut"),
        Param("theta", float, 0.8, "Barnes-Hut opening angle (0.5..1)"),
        Param("gravity", float, None, "pull to the centre (default 1; 0 for grid)"),
        Param("picture", str, None, "also draw the layout to this PNG", front_end=True),
    ),
    seeded=True,
    api_only=("k", "initial"),
    report=_report_layout,
    after_run=_layout_picture,
    columns=("vertex", "x", "y"),
    whole_graph=True,
)
