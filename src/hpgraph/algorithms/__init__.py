"""Graph kernels, each a BSP program (a vertex program, or a peer-level ``run_bsp`` program
where the vertex model does not fit) with a verifier or an outside reference in the tests.
Every kernel runs on every runtime (``runtime=None``: local threads; ``runtime="mpi"``)
with no runtime-specific code.

:data:`ALGORITHMS` (from :mod:`hpgraph.algorithms.registry`) maps a name to its
:class:`Algorithm` entry: the function, its parameters, verifier, report, output columns,
benchmark form and runtimes. The kernels, verifiers and helpers below are imported on
first use, so importing this package (and the registry) loads neither numpy nor numba.
"""

from __future__ import annotations

import importlib
import sys
import types

from hpgraph.algorithms.registry import (
    ALGORITHMS,
    Algorithm,
    BenchSpec,
    Param,
    ReportTable,
    Verifier,
    bench_kernels,
    get_algorithm,
)

#: Public names that are not an algorithm's function: name -> module under this package.
_HELPERS = {
    "read_vertex_labels": "bmlpa",
    "overlapping_nmi": "community_quality",
    "overlapping_modularity": "community_quality",
    "layout_quality": "layout",
    "triangle_count": "lcc",
    "transitivity": "lcc",
    "verify_bfs": "verify",
    "verify_wcc": "verify",
    "verify_pagerank": "verify",
    "verify_sssp": "verify",
    "verify_lcc": "lcc",
    "verify_cdlp": "cdlp",
    "verify_dual_simulation": "simulation",
}


def _lazy_names() -> dict[str, str]:
    """Public name -> ``"module:attribute"``: every algorithm's function, then helpers."""
    names = {}
    for algo in ALGORITHMS.values():
        if isinstance(algo.target, str):
            names[algo.target.rpartition(":")[2]] = algo.target
    names.update({k: f"{__name__}.{m}:{k}" for k, m in _HELPERS.items()})
    return names


_LAZY = _lazy_names()

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Param",
    "Verifier",
    "BenchSpec",
    "ReportTable",
    "get_algorithm",
    "bench_kernels",
    *_LAZY,
]


def __getattr__(name):
    target = _LAZY.get(name)
    if target is None and not name.startswith("__"):
        # a submodule (``verify``, ``simulation`` ...), imported on first use
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attr = target.partition(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """This package. Most kernels live in a module of their own name (``bfs.bfs``); when
    the import system binds such a submodule here, the function keeps the name, so that
    ``hpgraph.algorithms.bfs`` is the function however the modules were imported."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and name in _LAZY:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
