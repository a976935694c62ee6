"""Generators: sizes, determinism, the Kronecker model, and small graphs vs NetworkX."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from hpgraph.errors import InvalidArgumentError
from hpgraph.generators import (
    _rng,
    complete_graph,
    cycle_graph,
    empty_graph,
    grid_2d,
    kronecker,
    kronecker_edges,
    path_graph,
    star_graph,
    uniform_random,
    uniform_random_edges,
)
from hpgraph.graph import Graph


def adjacency(g: Graph) -> sp.csr_array:
    """Stored edges as a matrix of multiplicities."""
    data = (np.ones(g.num_stored_edges), g.indices.copy(), g.indptr.copy())
    a = sp.csr_array(data, shape=(g.n, g.n))  # (the graph's arrays are read-only)
    a.sum_duplicates()
    return a


def same_graph(g: Graph, h: Graph) -> bool:
    arrays = [(g.indptr, h.indptr), (g.indices, h.indices)]
    if g.weights is not None or h.weights is not None:
        arrays.append((g.weights, h.weights))
    return g.n == h.n and all(
        x is not None and y is not None and np.array_equal(x, y) for x, y in arrays
    )


def canonical_triples(g: Graph):
    """Stored (src, dst, weight) sorted: the graph up to the order of parallel edges."""
    src, dst, w = g.edges()
    order = np.lexsort((w, dst, src))
    return src[order], dst[order], w[order]


# ---------------------------------------------------------------- kronecker
@pytest.mark.parametrize("directed", [False, True])
def test_kronecker_sizes(directed):
    g = kronecker(10, 8, seed=3, directed=directed)
    assert g.n == 1024
    assert g.num_edges == 8 * 1024
    assert g.directed is directed
    assert g.indices.dtype == np.int32
    loops = int(np.count_nonzero(g.edges()[0] == g.indices))
    assert g.num_stored_edges == (8 * 1024 if directed else 2 * 8 * 1024 - loops)
    assert g.name == "kron10-ef8"
    assert kronecker(5).name == "kron5"
    assert kronecker(5, name="mine").name == "mine"


def test_kronecker_deterministic_and_seeded():
    assert same_graph(kronecker(11, seed=7), kronecker(11, seed=7))
    assert same_graph(kronecker(9, seed=7, weighted=True), kronecker(9, seed=7, weighted=True))
    assert not same_graph(kronecker(11, seed=7), kronecker(11, seed=8))
    s1, d1, _ = kronecker_edges(9, seed=1)
    s2, d2, _ = kronecker_edges(9, seed=1)
    s3, _, _ = kronecker_edges(9, seed=2)
    assert np.array_equal(s1, s2) and np.array_equal(d1, d2)
    assert not np.array_equal(s1, s3)


def test_output_independent_of_thread_count(monkeypatch):
    monkeypatch.setattr(_rng, "CHUNK", 1000)  # many chunks at a small scale
    one = kronecker(10, seed=5, weighted=True, threads=1)
    three = kronecker(10, seed=5, weighted=True, threads=3)
    assert same_graph(one, three)
    u1 = uniform_random(500, 7000, seed=5, threads=1)
    u3 = uniform_random(500, 7000, seed=5, threads=3)
    assert same_graph(u1, u3)


def test_kronecker_degree_skew_and_label_permutation():
    g = kronecker(14, seed=0)
    deg = g.out_degree()
    assert deg.max() > 50 * deg.mean()
    assert np.count_nonzero(deg == 0) > 0.1 * g.n  # many isolated vertices, as in Graph500
    hubs = [int(np.argmax(kronecker(12, seed=s).out_degree())) for s in range(4)]
    assert 0 not in hubs  # without the label permutation vertex 0 is always the hub
    assert len(set(hubs)) > 1


def test_kronecker_initiator_probabilities():
    # Scale 1: every edge is one quadrant draw. With a > d the heavier vertex h (the one
    # labelled 0 before the permutation) gets the A self-loops, the other one the D
    # self-loops; h -> other is quadrant B, other -> h quadrant C.
    a, b, c = 0.5, 0.3, 0.15
    m = 400_000
    src, dst, _ = kronecker_edges(1, m // 2, seed=11, a=a, b=b, c=c)
    loops0 = np.count_nonzero((src == 0) & (dst == 0)) / m
    loops1 = np.count_nonzero((src == 1) & (dst == 1)) / m
    h = 0 if loops0 > loops1 else 1
    frac = {
        "A": max(loops0, loops1),
        "D": min(loops0, loops1),
        "B": np.count_nonzero((src == h) & (dst != h)) / m,
        "C": np.count_nonzero((src != h) & (dst == h)) / m,
    }
    expected = {"A": a, "B": b, "C": c, "D": 1 - a - b - c}
    for q, p in expected.items():
        assert frac[q] == pytest.approx(p, abs=0.005), q


def test_kronecker_undirected_is_symmetric_and_weights_in_range():
    g = kronecker(10, seed=2, weighted=True)
    a = adjacency(g)
    assert (a != a.T).nnz == 0
    assert g.weights.min() >= 0.0 and g.weights.max() < 1.0
    # each undirected edge has one weight, stored in both directions
    src, dst, w = g.edges()
    fwd = src < dst
    one = np.lexsort((w[fwd], dst[fwd], src[fwd]))
    back = src > dst
    two = np.lexsort((w[back], src[back], dst[back]))
    assert np.array_equal(w[fwd][one], w[back][two])
    assert np.array_equal(src[fwd][one], dst[back][two])
    # about uniform
    assert abs(g.weights.mean() - 0.5) < 0.01


def test_kronecker_matches_its_edge_list():
    for directed in (False, True):
        src, dst, _ = kronecker_edges(9, seed=4)
        built = Graph.from_edges(src, dst, n=512, directed=directed)
        assert same_graph(kronecker(9, seed=4, directed=directed), built)
    src, dst, w = kronecker_edges(9, seed=4, weighted=True)
    built = Graph.from_edges(src, dst, w, n=512, directed=False)
    g = kronecker(9, seed=4, weighted=True)
    assert np.array_equal(g.indptr, built.indptr)
    for x, y in zip(canonical_triples(g), canonical_triples(built), strict=True):
        assert np.array_equal(x, y)


def test_kronecker_edges_are_shuffled():
    src, _, _ = kronecker_edges(10, seed=0)
    deg = np.bincount(src, minlength=1024)
    hub = np.argmax(deg)
    where = np.flatnonzero(src == hub)
    # a hub's edges are spread over the whole list, not generated in one run
    assert where[0] < len(src) // 4 and where[-1] > 3 * len(src) // 4


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scale": -1},
        {"scale": 2.5},
        {"scale": 4, "seed": -1},
        {"scale": 4, "a": 0.9, "b": 0.2},
        {"scale": 4, "edge_factor": -3},
    ],
)
def test_kronecker_rejects_bad_arguments(kwargs):
    with pytest.raises(InvalidArgumentError):
        kronecker(**kwargs)


def test_tiny_kronecker():
    g = kronecker(0)
    assert g.n == 1 and g.num_edges == 16  # 16 self-loops on the one vertex
    assert kronecker(3, 0).num_stored_edges == 0


# ---------------------------------------------------------------- uniform
def test_uniform_random():
    g = uniform_random(1000, 16_000, seed=1)
    assert g.n == 1000 and g.num_edges == 16_000 and not g.directed
    a = adjacency(g)
    assert (a != a.T).nnz == 0
    deg = g.out_degree()
    assert deg.max() < 2.5 * deg.mean()  # no skew
    assert deg.min() > 0
    assert same_graph(g, uniform_random(1000, 16_000, seed=1))
    assert not same_graph(g, uniform_random(1000, 16_000, seed=2))
    assert g.name == "uniform-1k-16k"
    d = uniform_random(100, 500, seed=1, directed=True, weighted=True)
    assert d.directed and d.num_stored_edges == 500
    assert 0 <= d.weights.min() and d.weights.max() < 1
    src, dst, w = uniform_random_edges(100, 500, seed=1, weighted=True)
    assert same_graph(d, Graph.from_edges(src, dst, w, n=100, directed=True))
    assert src.min() >= 0 and max(src.max(), dst.max()) < 100
    with pytest.raises(InvalidArgumentError):
        uniform_random(0, 5)
    assert uniform_random(0, 0).n == 0


# ---------------------------------------------------------------- small graphs
def nx_adjacency(h) -> sp.csr_array:
    a = nx.to_scipy_sparse_array(h, nodelist=sorted(h.nodes()), format="csr", weight=None)
    a.sum_duplicates()
    return a


def assert_like_nx(g: Graph, h):
    assert g.n == h.number_of_nodes()
    assert g.num_edges == h.number_of_edges()
    assert g.directed == h.is_directed()
    if g.n == 0:
        return
    a, b = adjacency(g), nx_adjacency(h)
    assert a.shape == b.shape and (a != b).nnz == 0


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7])
@pytest.mark.parametrize("directed", [False, True])
def test_small_graphs_match_networkx(n, directed):
    kind = nx.DiGraph if directed else nx.Graph
    assert_like_nx(path_graph(n, directed=directed), nx.path_graph(n, kind))
    assert_like_nx(cycle_graph(n, directed=directed), nx.cycle_graph(n, kind))
    assert_like_nx(complete_graph(n, directed=directed), nx.complete_graph(n, kind))
    assert_like_nx(empty_graph(n, directed=directed), nx.empty_graph(n, kind))
    if n > 0:
        assert_like_nx(star_graph(n, directed=directed), nx.star_graph(n - 1, kind))


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (1, 5), (3, 4), (0, 3)])
def test_grid_matches_networkx(rows, cols):
    h = nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols), ordering="sorted")
    assert_like_nx(grid_2d(rows, cols), h)


def test_directed_grid_points_right_and_down():
    g = grid_2d(2, 3, directed=True)
    src, dst, _ = g.edges()
    assert sorted(zip(src.tolist(), dst.tolist(), strict=True)) == [
        (0, 1),
        (0, 3),
        (1, 2),
        (1, 4),
        (2, 5),
        (3, 4),
        (4, 5),
    ]


def test_small_graphs_reject_bad_sizes():
    for f in (path_graph, cycle_graph, star_graph, complete_graph, empty_graph):
        with pytest.raises(InvalidArgumentError):
            f(-1)
    with pytest.raises(InvalidArgumentError):
        grid_2d(2, -1)


def test_weights_do_not_change_the_edges():
    # one graph per seed: weights come from a side stream, so `hpgraph info kronecker:16`
    # and the demo's weighted graph report the same degrees
    for make in (lambda w: kronecker(12, seed=3, weighted=w), lambda w: uniform_random(
            500, 4000, seed=3, weighted=w)):  # fmt: skip
        plain, weighted = make(False), make(True)
        assert np.array_equal(plain.indptr, weighted.indptr)
        assert np.array_equal(plain.indices, weighted.indices)
        assert weighted.weights.min() >= 0 and weighted.weights.max() < 1
        assert np.unique(weighted.weights).size > 0.99 * weighted.num_edges  # distinct draws
