"""The PyPI libraries timed beside hpgraph (its competitors), one adapter per library.

Adapters by family: :mod:`~hpgraph.bench.competitors.sparse` (SciPy, scikit-network,
python-graphblas: sparse matrices) and :mod:`~hpgraph.bench.competitors.graph_objects`
(NetworKit, igraph, NetworkX: graph objects of their own); what they share is in
:mod:`~hpgraph.bench.competitors.base`. Each family's docstring gives its conversion
caveats (parallel edges, sinks, PageRank to convergence, threads); :mod:`hpgraph.bench`
sums them up.
"""

from __future__ import annotations

from hpgraph.bench.competitors.base import Competitor, GraphForms, Prepared
from hpgraph.bench.competitors.graph_objects import (
    IGraphCompetitor,
    NetworKitCompetitor,
    NetworkXCompetitor,
)
from hpgraph.bench.competitors.sparse import (
    GraphBLASCompetitor,
    ScipyCompetitor,
    SkNetworkCompetitor,
)

__all__ = ["Prepared", "GraphForms", "Competitor", "COMPETITORS", "available_competitors"]

#: Every competitor adapter, in run and report order. SciPy runs first: its kernels have
#: exactly hpgraph's definitions, so it is the reference when hpgraph's are missing.
COMPETITORS: dict[str, type[Competitor]] = {
    c.name: c
    for c in (
        ScipyCompetitor,
        GraphBLASCompetitor,
        NetworKitCompetitor,
        IGraphCompetitor,
        SkNetworkCompetitor,
        NetworkXCompetitor,
    )
}


def available_competitors(names=None) -> tuple[list[Competitor], dict[str, str]]:
    """(importable competitor adapters, {name: why skipped}) for ``names`` (default:
    all)."""
    names = list(COMPETITORS) if names is None else list(names)
    ok, skipped = [], {}
    for name in names:
        if name not in COMPETITORS:
            skipped[name] = f"unknown competitor (known: {', '.join(COMPETITORS)})"
            continue
        competitor = COMPETITORS[name]()
        if competitor.available():
            ok.append(competitor)
        else:
            skipped[name] = f"not importable ({competitor.error})"
    return ok, skipped
