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
from hpgraph.algorithms.registry import ALGORITHMS as _ALGORITHMS  # light: no numpy

#: every registered kernel is ``hp.<its function's name>`` (imported on first use)
_KERNELS = [a.target.rpartition(":")[2] for a in _ALGORITHMS.values()]

__all__ = [
    "__version__",
    "Graph",
    "load_graph",
    "vertex_program",
    "run",
    "run_bsp",
    *_KERNELS,
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
    **{k: ("hpgraph.algorithms", k) for k in _KERNELS},
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
