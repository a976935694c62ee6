"""Given ``n`` and a mixing parameter ``mu``, returns an LFR benchmark graph and its planted
communities (Lancichinetti, Fortunato, Radicchi 2008; NetworKit's generator,
non-overlapping communities), for the BMLPA evaluation."""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.generators._rng import check_seed
from hpgraph.graph import Graph

__all__ = ["lfr_graph"]


def lfr_graph(
    n: int,
    mu: float,
    *,
    average_degree: int = 20,
    max_degree: int = 50,
    degree_exponent: float = 2.0,
    min_community: int = 20,
    max_community: int = 100,
    community_exponent: float = 1.0,
    seed: int = 0,
):
    """An LFR benchmark graph (NetworKit's generator, non-overlapping communities): returns
    ``(graph, membership)``, an undirected :class:`Graph` and the planted community of
    every vertex. ``mu`` is the mixing parameter (share of each vertex's edges leaving its
    community). NetworKit runs on one thread with ``seed`` so the graph is reproducible."""
    seed = check_seed(seed)
    if not 0.0 <= mu <= 1.0:
        raise InvalidArgumentError(f"mu must be in [0, 1], got {mu!r}")
    try:
        import networkit as nk
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise InvalidArgumentError("lfr_graph needs networkit: pip install networkit") from exc
    threads = nk.getMaxNumberOfThreads()
    nk.setNumberOfThreads(1)
    nk.setSeed(seed, False)
    try:
        gen = nk.generators.LFRGenerator(n)
        gen.generatePowerlawDegreeSequence(average_degree, max_degree, -degree_exponent)
        gen.generatePowerlawCommunitySizeSequence(min_community, max_community, -community_exponent)
        gen.setMu(mu)
        gen.run()
        g = gen.getGraph()
        part = gen.getPartition()
    finally:
        nk.setNumberOfThreads(threads)
    from scipy import sparse

    upper = sparse.triu(nk.algebraic.adjacencyMatrix(g, matrixType="sparse")).tocoo()
    graph = Graph.from_edges(upper.row, upper.col, n=n, directed=False, name=f"lfr-{n}-mu{mu:g}")
    membership = np.asarray(part.getVector(), dtype=np.int64)
    return graph, membership
