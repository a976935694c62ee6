"""hpgraph: a BSP / vertex-centric graph analytics framework with compiled (numba) user
programs and pluggable runtimes.

The public API is loaded lazily so ``import hpgraph`` stays fast (numba, pyarrow and the
kernels load on first use)::

    import hpgraph as hp
    g = hp.generators.kronecker(16, seed=1)
    r = hp.pagerank(g)             # also bfs, wcc, sssp, lcc, betweenness, bmlpa, ...
    hp.io.write_result(r, "pr.parquet")
"""

from __future__ import annotations

import importlib

from hpgraph._version import __version__

__all__ = [
    "__version__",
    "Graph",
    "load_graph",
    "vertex_program",
    "run",
    "run_bsp",
    "bfs",
    "wcc",
    "pagerank",
    "sssp",
    "lcc",
    "cdlp",
    "bmlpa",
    "betweenness",
    "edge_betweenness",
    "apsp",
    "dual_simulation",
    "strict_simulation",
    "layout",
    "LocalRuntime",
    "generators",
    "io",
    "algorithms",
    "engine",
    "errors",
]

_LAZY = {
    "Graph": ("hpgraph.graph", "Graph"),
    "load_graph": ("hpgraph.io", "load_graph"),
    "vertex_program": ("hpgraph.engine", "vertex_program"),
    "run": ("hpgraph.engine", "run"),
    "run_bsp": ("hpgraph.engine", "run_bsp"),
    "bfs": ("hpgraph.algorithms", "bfs"),
    "wcc": ("hpgraph.algorithms", "wcc"),
    "pagerank": ("hpgraph.algorithms", "pagerank"),
    "sssp": ("hpgraph.algorithms", "sssp"),
    "lcc": ("hpgraph.algorithms", "lcc"),
    "cdlp": ("hpgraph.algorithms", "cdlp"),
    "bmlpa": ("hpgraph.algorithms", "bmlpa"),
    "betweenness": ("hpgraph.algorithms", "betweenness"),
    "edge_betweenness": ("hpgraph.algorithms", "edge_betweenness"),
    "apsp": ("hpgraph.algorithms", "apsp"),
    "dual_simulation": ("hpgraph.algorithms", "dual_simulation"),
    "strict_simulation": ("hpgraph.algorithms", "strict_simulation"),
    "layout": ("hpgraph.algorithms", "layout"),
    "LocalRuntime": ("hpgraph.runtimes", "LocalRuntime"),
}
_SUBMODULES = {"generators", "io", "algorithms", "engine", "errors", "graph", "runtimes"}


def __getattr__(name):
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"hpgraph.{name}")
    else:
        raise AttributeError(f"module 'hpgraph' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
