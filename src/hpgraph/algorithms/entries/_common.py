"""What the registry's family modules share: where the kernels live, the common orders of
a verifier's arguments, and the number formats of the reports. numpy is imported inside
the functions, so that the registry stays light."""

from __future__ import annotations

from hpgraph.algorithms.entries.base import Param

__all__ = [
    "KERNELS",
    "VERIFY",
    "ORDER",
    "PRECISIONS",
    "dtype_param",
    "precision_row",
    "rooted",
    "plain",
    "count",
    "scalar",
    "reached",
]

#: Prefix of a kernel's ``"module:attribute"`` name.
KERNELS = "hpgraph.algorithms."
#: Prefix of a verifier in :mod:`hpgraph.algorithms.verify`.
VERIFY = KERNELS + "verify:"

#: The numbering a kernel that reads values along edges runs in (algorithms/_order.py).
ORDER = Param(
    "order",
    str,
    "auto",
    "vertex numbering it runs in: hubs (grouped by degree, first; cached on the graph), "
    "input, or auto (hubs on skewed graphs of over 131,072 vertices, local runtime)",
    choices=("auto", "hubs", "input"),
)


#: the precisions of the kernels that take a ``dtype`` (PageRank, SSSP)
PRECISIONS = ("float64", "float32")


def dtype_param(what: str) -> Param:
    """``--dtype``: the precision of a kernel's values (``what``), float64 by default or
    float32 as the GAP reference keeps them."""
    return Param(
        "dtype",
        str,
        PRECISIONS[0],
        f"{what} precision; float32 as the GAP reference (faster, fewer bytes)",
        choices=PRECISIONS,
    )


def precision_row(result, what: str) -> list:
    """The report's "precision" row when a kernel ran in float32 (``what``: how close)."""
    dtype = result.meta.get("dtype", "float64")
    return [] if dtype == "float64" else [("precision", f"{dtype} ({what})")]


def rooted(graph, result, source, options):
    """Verifier arguments ``(graph, source, result)`` of a kernel with a source vertex."""
    return graph, source, result


def plain(graph, result, source, options):
    """Verifier arguments ``(graph, result)``."""
    return graph, result


def count(n) -> str:
    """``n`` with thousands separators."""
    return f"{int(n):,}"


def scalar(x):
    """A numpy scalar as a Python one (a vertex id as it prints)."""
    return x.item() if hasattr(x, "item") else x


def reached(result, mask):
    """``(reached, text)``: how many vertices ``mask`` selects, and that as a share."""
    import numpy as np

    g = result.graph
    n = int(np.count_nonzero(mask))
    return n, f"{n:,} of {g.n:,} vertices ({100 * n / max(g.n, 1):.1f}%)"
