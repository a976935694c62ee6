"""Given an algorithm's name, returns everything a front end needs to know about it: the
function, its parameters (type, default, help, choices), its verifier, the report of its
result, its output columns, how the benchmark calls it, and the runtimes it runs on.

This table is the one place where an algorithm is described. ``hpgraph run`` (and the
options of ``hpgraph run --help``, generated from the parameters), ``hpgraph bench``,
``hpgraph demo``, :mod:`hpgraph.bench` and the list in ``docs/algorithms/README.md`` (a
test compares it) all read it; adding a kernel is its module plus one :class:`Algorithm`
entry in the module of its family under :mod:`hpgraph.algorithms.entries`, listed in
:data:`_ENTRIES` below (see "Adding a kernel" in ``docs/algorithms/README.md``). The
declaration types (:class:`Algorithm`, :class:`Param`, :class:`Verifier`,
:class:`BenchSpec`, :class:`ReportTable`) and :func:`resolve` live in
:mod:`hpgraph.algorithms.entries.base` and are importable from here.

Nothing here imports a kernel, numpy or numba: functions and verifiers are named as
``"module:attribute"`` and imported when first called, so ``import hpgraph`` and
``hpgraph --help`` stay fast. They are looked up at every use (a dictionary hit and a
``getattr``), so a test that patches ``hpgraph.algorithms.verify.verify_bfs`` is seen.
"""

from __future__ import annotations

from hpgraph.algorithms.entries import centrality, community, layout, paths, simulation
from hpgraph.algorithms.entries.base import (
    COMMON_ARGUMENTS,
    RUNTIMES,
    Algorithm,
    BenchSpec,
    Param,
    ReportTable,
    Verifier,
    resolve,
)

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Param",
    "Verifier",
    "BenchSpec",
    "ReportTable",
    "RUNTIMES",
    "get_algorithm",
    "bench_kernels",
    "resolve",
    "COMMON_ARGUMENTS",
]

#: Every entry, in the order the CLI lists them.
_ENTRIES = (
    paths.BFS,
    paths.WCC,
    centrality.PAGERANK,
    paths.SSSP,
    community.LCC,
    community.CDLP,
    community.BMLPA,
    centrality.BETWEENNESS,
    centrality.EDGE_BETWEENNESS,
    paths.APSP,
    simulation.DUAL_SIMULATION,
    simulation.STRICT_SIMULATION,
    layout.LAYOUT,
)

#: name -> :class:`Algorithm`, in the order the CLI lists them.
ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in _ENTRIES}


def get_algorithm(name: str) -> Algorithm:
    """The entry of ``name`` (any case); InvalidArgumentError naming the choices if none."""
    algo = ALGORITHMS.get(name.lower())
    if algo is None:
        from hpgraph.errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)}"
        )
    return algo


def bench_kernels() -> tuple[str, ...]:
    """The algorithms ``hpgraph bench`` runs, in report order."""
    timed = [a for a in ALGORITHMS.values() if a.bench is not None]
    return tuple(a.name for a in sorted(timed, key=lambda a: a.bench.order))
