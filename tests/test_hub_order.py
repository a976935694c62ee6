"""The hub-grouped view (hpgraph.graph.hub_order) on every test shape and on rows the
view treats apart (short rows sorted by insertion, long rows scattered by group, input
rows that are not sorted), and PageRank on it against PageRank on the input's order."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import SHAPE_CASES, make_shape
from hpgraph import bfs, pagerank, sssp, wcc
from hpgraph.algorithms.verify import verify_bfs, verify_pagerank, verify_sssp
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators.kronecker import kronecker, uniform_random
from hpgraph.graph import Graph
from hpgraph.graph.hub_order import hub_view, is_hub_grouped, is_skewed


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


# ------------------------------------------------------------ a graph numbered hubs first
@pytest.mark.parametrize("shape, directed, weighted", SHAPE_CASES)
def test_renumbered_is_the_view_named_by_the_input_ids(shape, directed, weighted):
    g = make_shape(shape, directed, weighted)
    h = g.renumbered("hubs", threads=2)
    assert "views.hub" not in g._derived  # nothing left cached on the input
    if h is g:  # numbered so already: the view would number every vertex as it is
        assert is_hub_grouped(g) and hub_view(g).order.tolist() == list(range(g.n))
        return
    order = np.array([g.vertex_index(x) for x in h.user_ids().tolist()], dtype=np.int64)
    _check_view(g, order, h)
    assert is_hub_grouped(h) and h.renumbered("hubs") is h
    assert h.name == g.name and h.num_edges == g.num_edges


def test_renumbered_keeps_string_ids_and_finds_integer_ids():
    g0 = kronecker(9, seed=5)
    h0 = g0.renumbered()
    assert not is_hub_grouped(g0) and is_hub_grouped(h0)
    # integer ids out of order: found by an argsort, not a table
    for v in (0, 7, 511):
        assert int(h0.user_ids()[h0.vertex_index(v)]) == v
        assert h0.vertex_index(str(v)) == h0.vertex_index(v)
    with pytest.raises(InvalidArgumentError, match="unknown vertex 512"):
        h0.vertex_index(512)
    assert isinstance(h0._id_index, np.ndarray) and h0._id_index.dtype.kind == "i"
    ids = np.array([f"u{v}" for v in range(g0.n)], dtype=object)
    g = Graph(g0.indptr, g0.indices, directed=False, ids=ids)
    h = g.renumbered()
    assert sorted(h.user_ids().tolist()) == sorted(ids.tolist())
    assert h.user_ids()[h.vertex_index("u7")] == "u7"
    with pytest.raises(InvalidArgumentError, match="order must be 'hubs'"):
        g.renumbered("degree")


@pytest.mark.parametrize("directed", [False, True])
def test_kernels_on_a_graph_numbered_hubs_first_read_as_on_the_input(directed):
    g = kronecker(10, seed=6, weighted=True, directed=directed)
    h = g.renumbered(threads=2)
    back = h.user_ids()  # h's vertex i is g's vertex back[i]
    src = int(np.argmax(g.out_degree()))
    # PageRank: the graph runs as it is, no view, same ranks per id
    pr = pagerank(h, order="hubs", threads=2)
    assert pr.meta["order"] == "own" and "views.hub" not in h._derived
    want = pagerank(g, order="input", threads=2)["rank"][back]
    np.testing.assert_allclose(pr["rank"], want, rtol=1e-12)
    assert pagerank(h, threads=2).meta["order"] == "input"  # auto: small, not skewed
    # SSSP: the same distances bit for bit, from the same vertex (named by its id)
    d = sssp(h, src, order="hubs", threads=2)
    assert d.meta["order"] == "own" and d["distance"][h.vertex_index(src)] == 0
    assert np.array_equal(d["distance"], sssp(g, src, order="input", threads=2)["distance"][back])
    verify_sssp(h, src, d)
    # BFS: the same depths; WCC: the same partition
    b = bfs(h, src, threads=2)
    assert np.array_equal(b["depth"], bfs(g, src, threads=2)["depth"][back])
    verify_bfs(h, src, b)
    c = wcc(h, threads=2)["component"]
    want = wcc(g, threads=2)["component"][back]
    pairs = set(zip(c.tolist(), want.tolist(), strict=True))
    assert len(pairs) == len(set(c.tolist())) == len(set(want.tolist()))


def test_pagerank_auto_runs_a_skewed_graph_numbered_hubs_first_as_it_is():
    h = kronecker(18, seed=1).renumbered()
    res = pagerank(h, iterations=3, threads=2)
    assert res.meta["order"] == "own" and "views.hub" not in h._derived
