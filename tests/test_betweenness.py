"""Vertex and edge betweenness against NetworkX 3.6 (``betweenness_centrality``,
``edge_betweenness_centrality``; parallel edges collapsed as NetworkX does on a
MultiGraph, see ``_reference``), on every shape, directed or not, weighted or not,
with 1, 2 and 3 peers; sampled sources through the same source set NetworkX draws; the
NetworkX documentation's worked examples; the parallel-edge rule; errors; MPI."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, SEED, SHAPE_CASES, make_shape, run_mpi, to_networkx
from hpgraph.algorithms.betweenness import betweenness, edge_betweenness
from hpgraph.errors import InvalidArgumentError, InvalidGraphError
from hpgraph.generators import path_graph
from hpgraph.graph import Graph

RTOL = 1e-9

CASES = SHAPE_CASES


def _close(ref: np.ndarray, got: np.ndarray):
    assert ref.shape == got.shape
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12, equal_nan=True)


def _reference(g, shape):
    """The NetworkX graph to compare with. NetworkX collapses a MultiGraph's parallel
    edges (BFS visits neighbours, Dijkstra takes the smallest parallel weight): on the
    shape built for parallel edges the reference is that MultiGraph itself; elsewhere it
    is the equivalent simple graph, which NetworkX handles about 3x faster."""
    M = to_networkx(g)
    if shape == "multi_loops":
        return M
    G = nx.DiGraph() if g.directed else nx.Graph()
    G.add_nodes_from(M)
    for u, v, w in M.edges(data="weight"):
        if not G.has_edge(u, v) or w < G[u][v]["weight"]:
            G.add_edge(u, v, weight=w)
    return G


def _vertex_ref(G, n, **kw):
    ref = nx.betweenness_centrality(G, **kw)
    return np.array([ref[v] for v in range(n)], dtype=np.float64)


def _edge_ref(G, directed, **kw):
    """NetworkX's values grouped by vertex pair (an undirected pair sorted): one value
    per parallel copy on a MultiGraph (its keys), one per pair on a simple graph."""
    out = {}
    for e, x in nx.edge_betweenness_centrality(G, **kw).items():
        u, v = e[0], e[1]
        out.setdefault((u, v) if directed else (min(u, v), max(u, v)), []).append(x)
    return {k: sorted(v) for k, v in out.items()}


def _edge_got(res, per_copy):
    if not per_copy:
        return {k: [x] for k, x in res.to_dict().items()}
    out = {}
    cols = res.output_columns()
    for u, v, x in zip(cols["source"], cols["target"], cols["betweenness"], strict=True):
        out.setdefault((int(u), int(v)), []).append(float(x))
    return {k: sorted(v) for k, v in out.items()}


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_vertex_betweenness_matches_networkx(shape, directed, weighted):
    g = make_shape(shape, directed, weighted)
    G = _reference(g, shape)
    w = "weight" if weighted else None
    # two of the four scalings per shape, one on the largest (NetworkX is the slow part;
    # all four: the sampled and documented tests)
    settings = [(True, False, (1, 2, 3)), (False, True, (2,))]
    for normalized, endpoints, peers in settings[: 1 if shape == "random" else 2]:
        ref = _vertex_ref(G, g.n, normalized=normalized, weight=w, endpoints=endpoints)
        for threads in peers:
            got = betweenness(g, normalized=normalized, endpoints=endpoints, threads=threads)
            _close(ref, got["betweenness"])
            assert got["betweenness"].dtype == np.float64


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_edge_betweenness_matches_networkx(shape, directed, weighted):
    g = make_shape(shape, directed, weighted)
    G = _reference(g, shape)
    ref = _edge_ref(G, directed, weight="weight" if weighted else None)
    for threads in (1, 3):
        got = _edge_got(edge_betweenness(g, threads=threads), G.is_multigraph())
        assert got.keys() == ref.keys()
        for pair, values in ref.items():
            np.testing.assert_allclose(got[pair], values, rtol=RTOL, atol=1e-12)


def test_weights_can_be_ignored():
    g = make_shape("random", False, True)
    G = _reference(g, "random")
    _close(_vertex_ref(G, g.n), betweenness(g, weighted=False, threads=2)["betweenness"])


@pytest.mark.parametrize("shape", ["dense", "components", "multi_loops", "path"])
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_sampled_sources_match_networkx(shape, directed, weighted):
    """NetworkX samples k sources with random.Random(seed).sample(list(G), k); passing
    that set as ``sources`` must reproduce its k-estimate, scaling included (k = 1 makes
    the sampled source NaN when endpoints are excluded, as in NetworkX)."""
    g = make_shape(shape, directed, weighted)
    G = _reference(g, shape)
    w = "weight" if weighted else None
    for k in (1, 7, g.n - 1):
        src = random.Random(SEED).sample(list(range(g.n)), k)
        for normalized in (True, False):
            for endpoints in (False, True):
                ref = _vertex_ref(
                    G, g.n, k=k, seed=SEED, normalized=normalized, weight=w, endpoints=endpoints
                )
                got = betweenness(
                    g, sources=src, normalized=normalized, endpoints=endpoints, threads=2
                )
                _close(ref, got["betweenness"])
        eref = _edge_ref(G, directed, k=k, seed=SEED, weight=w, normalized=False)
        want = {key: sum(x) for key, x in eref.items()}
        got = edge_betweenness(g, sources=src, normalized=False, threads=3).to_dict()
        assert got.keys() == want.keys()
        np.testing.assert_allclose([got[p] for p in want], list(want.values()), rtol=RTOL)


@pytest.mark.parametrize("directed,weighted", [(False, False), (True, True)])
def test_kronecker_sample_matches_networkx(directed, weighted):
    """A few thousand vertices (Kronecker scale 11: parallel edges, self-loops, isolated
    vertices), 24 sources as NetworkX samples them."""
    from hpgraph.generators import kronecker

    g = kronecker(11, seed=SEED % 1000, weighted=weighted, directed=directed)
    G = _reference(g, "kronecker")
    src = random.Random(SEED).sample(list(range(g.n)), 24)
    w = "weight" if weighted else None
    ref = _vertex_ref(G, g.n, k=24, seed=SEED, weight=w, endpoints=True)
    _close(ref, betweenness(g, sources=src, endpoints=True, threads=2)["betweenness"])


def test_k_draws_sources_from_numpy_default_rng():
    g = make_shape("random", False, False)
    k = 25
    drawn = np.random.default_rng(5).choice(g.n, size=k, replace=False)
    a = betweenness(g, k=k, seed=5, threads=2)
    b = betweenness(g, sources=drawn.tolist(), threads=1)
    _close(b["betweenness"], a["betweenness"])
    assert a.meta["k"] == k and a.meta["sources"] == k
    c = betweenness(g, k=k, seed=6, threads=2)
    assert not np.allclose(a["betweenness"], c["betweenness"])
    # k = n is the exact computation
    _close(betweenness(g)["betweenness"], betweenness(g, k=g.n)["betweenness"])


def test_networkx_documented_examples():
    """The worked examples of NetworkX 3.6's docstrings (3-path; k = 2 picks 0 and 2)."""
    und, dg = path_graph(3), path_graph(3, directed=True)

    def bc(g, **kw):
        return betweenness(g, threads=1, **kw)["betweenness"].tolist()

    assert bc(und, normalized=False) == [0.0, 1.0, 0.0]
    assert bc(und, normalized=False, endpoints=True) == [2.0, 3.0, 2.0]
    assert bc(und, normalized=True, endpoints=True) == pytest.approx([2 / 3, 1.0, 2 / 3])
    assert bc(dg, normalized=True, endpoints=True) == pytest.approx([1 / 3, 0.5, 1 / 3])
    assert bc(dg, normalized=True) == [0.0, 0.5, 0.0]
    assert bc(und, sources=[0, 2], normalized=False, endpoints=True) == [2.25, 3.0, 2.25]
    assert bc(und, sources=[0, 2], normalized=True, endpoints=True) == [0.75, 1.0, 0.75]
    assert edge_betweenness(und, normalized=False).to_dict() == {(0, 1): 2.0, (1, 2): 2.0}
    assert edge_betweenness(dg).to_dict() == pytest.approx({(0, 1): 1 / 3, (1, 2): 1 / 3})
    e = edge_betweenness(und, sources=[0, 2], normalized=False).to_dict()
    assert e == {(0, 1): 2.25, (1, 2): 2.25}


def _rows(e):
    cols = (e["source"].tolist(), e["target"].tolist(), e["betweenness"].tolist())
    return sorted(zip(*cols, strict=True))


def test_parallel_edges_are_collapsed_and_share_the_edge_value():
    # path 0 - 1 - 2 with 0 - 1 doubled: still one shortest path 0 -> 2
    g = Graph.from_edges([0, 0, 1], [1, 1, 2], n=3, directed=False)
    assert betweenness(g, normalized=False)["betweenness"].tolist() == [0.0, 1.0, 0.0]
    e = edge_betweenness(g, normalized=False)
    assert _rows(e) == [
        (0, 1, 1.0),
        (0, 1, 1.0),
        (1, 2, 2.0),
    ]
    # weighted: only the lightest copies carry the value
    gw = Graph.from_edges([0, 0, 1], [1, 1, 2], [1.0, 2.0, 1.0], n=3, directed=True)
    e = edge_betweenness(gw, normalized=False)
    assert _rows(e) == [(0, 1, 0.0), (0, 1, 2.0), (1, 2, 2.0)]


def test_string_ids_and_writing(tmp_path):
    from hpgraph.io import write_result

    ids = np.array(["a", "b", "c", "d"], dtype=object)
    g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=False, ids=ids)
    r = betweenness(g, normalized=False)
    assert r.to_dict() == {"a": 0.0, "b": 2.0, "c": 2.0, "d": 0.0}
    e = edge_betweenness(g, normalized=False)
    assert e.to_dict() == {("a", "b"): 3.0, ("b", "c"): 4.0, ("c", "d"): 3.0}
    write_result(e, tmp_path / "e.csv")
    lines = (tmp_path / "e.csv").read_text().splitlines()
    assert lines[0] == "source,target,betweenness" and lines[1] == "a,b,3"


def test_bad_arguments():
    g = make_shape("random", True, True)
    with pytest.raises(InvalidArgumentError, match="k must be"):
        betweenness(g, k=0)
    with pytest.raises(InvalidArgumentError, match="k must be"):
        betweenness(g, k=g.n + 1)
    with pytest.raises(InvalidArgumentError, match="not both"):
        betweenness(g, k=3, sources=[1])
    with pytest.raises(InvalidArgumentError, match="more than once"):
        betweenness(g, sources=[1, 1])
    with pytest.raises(InvalidArgumentError, match="empty"):
        edge_betweenness(g, sources=[])
    with pytest.raises(InvalidArgumentError, match="unknown vertex"):
        betweenness(g, sources=[10**6])
    with pytest.raises(InvalidArgumentError, match="threads"):
        betweenness(g, threads=0)
    with pytest.raises(InvalidArgumentError, match="no edge weights"):
        betweenness(make_shape("path", False, False), weighted=True)
    with pytest.raises(
        InvalidGraphError, match=r"positive edge weights; edge 0 -> 1 has weight 0\.0"
    ):
        betweenness(Graph.from_edges([0, 1], [1, 2], [0.0, 1.0], n=3))
    with pytest.raises(InvalidGraphError, match="weight -1.0"):
        edge_betweenness(Graph.from_edges([0, 1], [1, 2], [1.0, -1.0], n=3))
    # ignoring the weights makes bad weights irrelevant
    assert betweenness(Graph.from_edges([0, 1], [1, 2], [0.0, -1.0], n=3), weighted=False)


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mpi_runtime_matches_local(ranks):
    out = run_mpi(ranks, "check_betweenness.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("BETWEENNESS OK") == 1
