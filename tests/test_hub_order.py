"""The hub-grouped view (hpgraph.graph.hub_order) on every test shape and on rows the
view treats apart (short rows sorted by insertion, long rows scattered by group, input
rows that are not sorted), and PageRank on it against PageRank on the input's order."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import SHAPE_CASES, make_shape
from hpgraph import pagerank, sssp
from hpgraph.algorithms.verify import verify_pagerank, verify_sssp
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators.kronecker import kronecker, uniform_random
from hpgraph.graph import Graph
from hpgraph.graph.hub_order import hub_view, is_skewed


def _rows(indptr, indices, weights, v):
    seg = slice(indptr[v], indptr[v + 1])
    w = weights[seg].tolist() if weights is not None else [None] * (indptr[v + 1] - indptr[v])
    return list(zip(indices[seg].tolist(), w, strict=True))


def _check_view(g, order, view):
    n = g.n
    assert sorted(order.tolist()) == list(range(n))  # a permutation
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    # hubs first: the power of two of the out-degree never grows along the new numbers,
    # and within one power the input's order is kept
    deg = g.out_degree()[order]
    power = np.floor(np.log2(np.maximum(deg, 1)))
    assert np.all(np.diff(power) <= 0)
    same = np.diff(power) == 0
    assert np.all(np.diff(order.astype(np.int64))[same] > 0)
    assert view.directed == g.directed and view.weighted == g.weighted and view.n == n
    pairs = [(g.indptr, g.indices, g.weights, view.indptr, view.indices, view.weights)]
    if g.directed:
        pairs.append((*g.in_csr(), *view.in_csr()))
    for ip, ix, w, vip, vix, vw in pairs:
        for i in range(n):
            got = _rows(vip, vix, vw, i)
            assert [u for u, _ in got] == sorted(u for u, _ in got)  # sorted rows
            # the same edges renamed; parallel edges keep their weights' input order
            want = sorted(((int(rank[u]), x) for u, x in _rows(ip, ix, w, order[i])),
                          key=lambda p: p[0])  # fmt: skip
            assert got == want


@pytest.mark.parametrize("shape, directed, weighted", SHAPE_CASES)
def test_hub_view_is_a_renumbering(shape, directed, weighted):
    g = make_shape(shape, directed, weighted)
    order, numbers, view = hub_view(g)
    _check_view(g, order, view)
    assert np.array_equal(numbers[order], np.arange(g.n))
    assert hub_view(g).graph is view and not order.flags.writeable  # cached, read-only


@pytest.mark.parametrize("directed", [False, True])
def test_hub_view_long_and_unsorted_rows(directed):
    rng = np.random.default_rng(3)
    n = 300
    # hubs of 40-120 neighbours (scattered by group) among rows of 1-5 (insertion)
    src = np.concatenate([np.repeat([7, 150, 299], [120, 80, 40]), rng.integers(0, n, 500)])
    dst = np.concatenate([rng.integers(0, n, 240), rng.integers(0, n, 500)])
    w = rng.random(src.shape[0])
    g = Graph.from_edges(src, dst, w, n=n, directed=directed)
    _check_view(g, *hub_view(g, threads=2)[::2])
    # the same rows, each reversed: the view sorts them
    ip = g.indptr
    ix = np.concatenate([g.indices[ip[v] : ip[v + 1]][::-1] for v in range(n)])
    wx = np.concatenate([g.weights[ip[v] : ip[v + 1]][::-1] for v in range(n)])
    h = Graph(ip, ix, wx, directed=directed)
    order, _, view = hub_view(h, threads=2)
    assert order.tolist() == hub_view(g).order.tolist()
    _check_view(h, order, view)


def test_is_skewed_tells_power_law_from_uniform():
    assert is_skewed(kronecker(18, seed=1))  # top 1% hold about half of the edge ends
    assert not is_skewed(uniform_random(1 << 18, 1 << 22, seed=1))
    assert not is_skewed(kronecker(12, seed=1))  # small: its ranks stay in cache anyway


@pytest.mark.parametrize("directed", [False, True])
def test_pagerank_on_hubs_equals_input_order(directed):
    g = kronecker(10, seed=2, directed=directed)
    hubs = pagerank(g, order="hubs", threads=2)
    plain = pagerank(g, order="input", threads=2)
    assert hubs.meta["order"] == "hubs" and plain.meta["order"] == "input"
    np.testing.assert_allclose(hubs["rank"], plain["rank"], rtol=1e-12)
    verify_pagerank(g, hubs)
    h32 = pagerank(g, order="hubs", dtype="float32", threads=2)
    assert h32["rank"].dtype == np.float32
    np.testing.assert_allclose(h32["rank"], plain["rank"], rtol=1e-4)
    # auto: a graph this small stays in the input's order
    assert pagerank(g, threads=2).meta["order"] == "input"


def test_pagerank_auto_takes_hubs_on_a_large_skewed_graph():
    g = kronecker(18, seed=1)
    res = pagerank(g, iterations=3, threads=2)
    assert res.meta["order"] == "hubs"
    np.testing.assert_allclose(
        res["rank"], pagerank(g, iterations=3, order="input", threads=2)["rank"], rtol=1e-12
    )


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("variant", ["delta-stepping", "bellman-ford"])
def test_sssp_on_hubs_equals_input_order(directed, variant):
    g = kronecker(10, seed=3, weighted=True, directed=directed)
    rng = np.random.default_rng(1)
    for source in rng.choice(np.flatnonzero(g.out_degree() > 0), 3, replace=False).tolist():
        hubs = sssp(g, source, order="hubs", variant=variant, threads=2)
        plain = sssp(g, source, order="input", variant=variant, threads=2)
        assert hubs.meta["order"] == "hubs" and plain.meta["order"] == "input"
        # the same distances bit for bit (the same sums); the parents form a valid tree
        # in the input's ids, the smallest tight in-neighbour in the view's numbering
        assert np.array_equal(hubs["distance"], plain["distance"])
        assert hubs["parent"][source] == source
        verify_sssp(g, source, hubs)


def test_sssp_on_hubs_with_string_ids():
    g0 = kronecker(9, seed=4, weighted=True)
    ids = np.array([f"u{v}" for v in range(g0.n)], dtype=object)
    g = Graph(g0.indptr, g0.indices, g0.weights, directed=False, ids=ids)
    res = sssp(g, "u7", order="hubs", threads=2)
    ref = sssp(g, "u7", order="input", threads=2)
    assert np.array_equal(res["distance"], ref["distance"])
    parents = res.output_columns()["parent"]
    assert parents[7] == "u7" and set(parents[res["distance"] < np.inf]) <= set(ids)


def test_pagerank_order_errors():
    g = kronecker(8, seed=1)
    with pytest.raises(InvalidArgumentError, match="order must be one of auto, hubs, input"):
        pagerank(g, order="degree")
    with pytest.raises(InvalidArgumentError, match="local runtime only"):
        pagerank(g, order="hubs", runtime="mpi")
