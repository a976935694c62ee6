"""LCC / triangles and CDLP against outside references: NetworkX (clustering, triangles,
transitivity, label propagation where it agrees) and brute-force Python over NetworkX
neighbour sets for the Graphalytics definitions NetworkX does not implement (directed
LCC, synchronous CDLP); on the awkward shapes, directed and undirected, 1-3 threads, and
on MPI (tests/mpi/check_lcc_cdlp.py under mpiexec -n 1, 2, 3)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, SEED, SHAPES, make_shape, run_mpi, to_networkx
from hpgraph.algorithms.cdlp import cdlp, reference_cdlp, verify_cdlp
from hpgraph.algorithms.lcc import lcc, transitivity, triangle_count, verify_lcc
from hpgraph.errors import InvalidArgumentError, VerificationError
from hpgraph.generators import kronecker
from hpgraph.graph import Graph

TOL = 1e-9


def _simple_undirected(g):
    """NetworkX's simple undirected view: direction, loops and parallel edges dropped."""
    G = nx.Graph(to_networkx(g).to_undirected())
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def _directed_lcc_reference(g):
    """Graphalytics LCC on a directed graph, straight from the definition: N(v) = in- and
    out-neighbours but v; count ordered pairs (u, w) of N(v) with an edge u -> w."""
    G = nx.DiGraph(to_networkx(g))  # parallel edges once
    out = np.zeros(g.n)
    for v in G:
        nb = (set(G.successors(v)) | set(G.predecessors(v))) - {v}
        k = len(nb)
        if k > 1:
            links = sum(1 for u in nb for w in nb if u != w and G.has_edge(u, w))
            out[v] = links / (k * (k - 1))
    return out


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=TOL, atol=TOL)


# ------------------------------------------------------------------------------ LCC
@pytest.mark.parametrize("shape", SHAPES)
def test_lcc_undirected_matches_networkx(shape, threads):
    g = make_shape(shape, False, False)
    r = lcc(g, threads=threads)
    G = _simple_undirected(g)
    cl, tr = nx.clustering(G), nx.triangles(G)
    _close(r["lcc"], [cl[v] for v in range(g.n)])
    np.testing.assert_array_equal(r["triangles"], [tr[v] for v in range(g.n)])
    assert r["lcc"].dtype == np.float64 and r["triangles"].dtype == np.int64
    assert r.meta["triangles"] == sum(tr.values()) // 3
    _close(r.meta["transitivity"], nx.transitivity(G))
    if g.n:
        _close(r.meta["average_clustering"], nx.average_clustering(G))
    verify_lcc(g, r)


@pytest.mark.parametrize("shape", SHAPES)
def test_lcc_directed_matches_the_graphalytics_definition(shape, threads):
    g = make_shape(shape, True, False)
    r = lcc(g, threads=threads)
    _close(r["lcc"], _directed_lcc_reference(g))
    G = _simple_undirected(g)
    tr = nx.triangles(G)
    np.testing.assert_array_equal(r["triangles"], [tr[v] for v in range(g.n)])
    _close(r.meta["transitivity"], nx.transitivity(G))
    verify_lcc(g, r)


def test_directed_lcc_counts_reciprocal_pairs_twice():
    # 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 1: N(0) = {1, 2} holds 2 directed links of 2 possible
    g = Graph.from_edges(np.array([0, 0, 1, 2]), np.array([1, 2, 2, 1]), n=3)
    r = lcc(g, threads=1)
    _close(r["lcc"], [1.0, 0.5, 0.5])
    np.testing.assert_array_equal(r["triangles"], [1, 1, 1])


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
def test_lcc_on_a_skewed_kronecker_graph(directed, threads):
    # hubs exercise the degree ordering and the work-balanced ranges
    g = kronecker(9, edge_factor=8, seed=SEED % 1000)
    if directed:
        src, dst, _ = g.edges()
        keep = (2 * src + dst) % 3 != 0  # drop some directions: one- and two-way pairs
        g = Graph.from_edges(src[keep], dst[keep], n=g.n)
    r = lcc(g, threads=threads)
    G = _simple_undirected(g)
    tr = nx.triangles(G)
    np.testing.assert_array_equal(r["triangles"], [tr[v] for v in range(g.n)])
    if directed:
        _close(r["lcc"], _directed_lcc_reference(g))
    else:
        cl = nx.clustering(G)
        _close(r["lcc"], [cl[v] for v in range(g.n)])


def test_triangle_count_and_transitivity_match_networkx():
    g = make_shape("dense", True, False)
    G = _simple_undirected(g)
    assert triangle_count(g, threads=2) == sum(nx.triangles(G).values()) // 3
    _close(transitivity(g, threads=2), nx.transitivity(G))


def test_verify_lcc_rejects_a_wrong_result():
    g = make_shape("dense", False, False)
    r = lcc(g, threads=1)
    r.columns["lcc"] = r["lcc"].copy()
    r.columns["lcc"][7] += 1e-6
    with pytest.raises(VerificationError, match="LCC"):
        verify_lcc(g, r)
    r = lcc(g, threads=1)
    r.columns["triangles"] = r["triangles"] + 1
    with pytest.raises(VerificationError, match="triangles"):
        verify_lcc(g, r)


def test_lcc_rejects_a_non_graph():
    with pytest.raises(InvalidArgumentError, match="Graph"):
        lcc([(0, 1)])


# ------------------------------------------------------------------------------ CDLP
def _cdlp_reference(G, directed, iterations):
    """Graphalytics CDLP over NetworkX neighbour sets, in the graph's own vertex names:
    synchronous; the most frequent label among the neighbours (a directed graph's in- and
    out-neighbours both count), the smallest on a tie; no neighbours: keep the label."""
    label = {v: v for v in G}
    for _ in range(iterations):
        new = {}
        for v in G:
            if directed:
                heard = [label[u] for u in set(G.successors(v)) if u != v]
                heard += [label[u] for u in set(G.predecessors(v)) if u != v]
            else:
                heard = [label[u] for u in set(G.neighbors(v)) if u != v]
            if not heard:
                new[v] = label[v]
                continue
            count = {}
            for x in heard:
                count[x] = count.get(x, 0) + 1
            top = max(count.values())
            new[v] = min(x for x, c in count.items() if c == top)
        label = new
    return label


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("shape", SHAPES)
def test_cdlp_matches_the_graphalytics_definition(shape, directed, threads):
    g = make_shape(shape, directed, False)
    G = to_networkx(g)
    for iterations in (0, 1, 3, 10):
        r = cdlp(g, iterations=iterations, threads=threads)
        ref = _cdlp_reference(G, directed, iterations)
        np.testing.assert_array_equal(r["label"], [ref[v] for v in range(g.n)])
        assert r["label"].dtype == np.int64
        assert r.meta["communities"] == len(set(ref.values()))
    verify_cdlp(g, r, iterations=10)


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
def test_cdlp_breaks_ties_by_the_input_ids(directed):
    # internal ids in another order than the input's integer ids, and string ids
    g0 = make_shape("random", directed, False)
    src, dst, _ = g0.edges()
    rng = np.random.default_rng(SEED)
    for ids in (rng.permutation(g0.n).astype(np.int64) * 7 - 300, None):
        if ids is None:
            ids = np.array([f"v{i:04d}" for i in rng.permutation(g0.n)], dtype=object)
        g = Graph.from_edges(src, dst, n=g0.n, directed=directed, ids=ids)
        G = nx.relabel_nodes(to_networkx(g), dict(enumerate(ids.tolist())))
        for iterations in (1, 2, 5):
            r = cdlp(g, iterations=iterations, threads=2)
            assert r.to_dict("label") == _cdlp_reference(G, directed, iterations)
            verify_cdlp(g, r, iterations=iterations)


def test_cdlp_finds_disjoint_cliques_like_networkx():
    G = nx.disjoint_union_all([nx.complete_graph(k) for k in range(3, 8)])
    src, dst = np.array(list(G.edges())).T
    g = Graph.from_edges(src, dst, n=G.number_of_nodes(), directed=False)
    labels = cdlp(g, threads=2)["label"]
    ours = {frozenset(np.flatnonzero(labels == x).tolist()) for x in np.unique(labels)}
    theirs = {frozenset(c) for c in nx.community.label_propagation_communities(G)}
    assert ours == theirs and len(ours) == 5


def test_verify_cdlp_rejects_a_wrong_result():
    g = make_shape("components", False, False)
    r = cdlp(g, threads=1)
    assert reference_cdlp(g).tolist() == r["label"].tolist()
    r.columns["label"] = r["label"].copy()
    r.columns["label"][np.argmax(np.diff(g.indptr))] = g.n - 1
    with pytest.raises(VerificationError, match="cdlp"):
        verify_cdlp(g, r)


@pytest.mark.parametrize("bad", [-1, 2.5, True, "3"])
def test_cdlp_rejects_bad_iterations(bad):
    with pytest.raises(InvalidArgumentError, match="iterations"):
        cdlp(make_shape("path", False, False), iterations=bad)


# ------------------------------------------------------------------------------- MPI
@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_lcc_and_cdlp_on_mpi_match_the_local_runtime(ranks):
    out = run_mpi(ranks, "check_lcc_cdlp.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ALL OK" in out.stdout
