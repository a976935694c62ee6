"""Every kernel against NetworkX and its own verifier, on every graph shape, with 1, 2
and 3 threads (3 parts: uneven ranges)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from conftest import SHAPE_CASES, make_shape, to_networkx
from hpgraph.algorithms import (
    bfs,
    pagerank,
    sssp,
    verify_bfs,
    verify_pagerank,
    verify_sssp,
    verify_wcc,
    wcc,
)
from hpgraph.errors import InvalidArgumentError, InvalidGraphError, VerificationError
from hpgraph.graph import Graph

CASES = SHAPE_CASES


def _sources(g):
    if g.n == 0:
        return []
    deg = g.out_degree()
    return sorted({0, int(np.argmax(deg)), g.n - 1})


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_bfs_matches_networkx(shape, directed, weighted, threads):
    g = make_shape(shape, directed, weighted)
    G = to_networkx(g)
    for s in _sources(g):
        r = bfs(g, s, threads=threads)
        verify_bfs(g, s, r)
        ref = nx.single_source_shortest_path_length(G, s)
        expect = np.full(g.n, -1)
        expect[list(ref)] = list(ref.values())
        np.testing.assert_array_equal(r["depth"], expect)


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_sssp_matches_networkx(shape, directed, weighted, threads):
    g = make_shape(shape, directed, weighted)
    G = to_networkx(g)
    for s in _sources(g):
        r = sssp(g, s, threads=threads)
        verify_sssp(g, s, r)
        ref = nx.single_source_dijkstra_path_length(G, s)
        expect = np.full(g.n, np.inf)
        expect[list(ref)] = list(ref.values())
        np.testing.assert_allclose(r["distance"], expect, rtol=1e-12)


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_wcc_matches_networkx(shape, directed, weighted, threads):
    g = make_shape(shape, directed, weighted)
    r = wcc(g, threads=threads)
    verify_wcc(g, r)
    G = to_networkx(g)
    comps = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
    for comp in comps:
        labels = {int(r["component"][v]) for v in comp}
        assert labels == {min(comp)}  # the smallest member names the component


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_pagerank_matches_networkx(shape, directed, weighted, threads):
    g = make_shape(shape, directed, False)
    r = pagerank(g, iterations=30, threads=threads)
    verify_pagerank(g, r, iterations=30)
    if g.n == 0:
        assert r["rank"].shape == (0,)
        return
    assert math.isclose(r["rank"].sum(), 1.0, rel_tol=1e-9)
    # NetworkX iterates to convergence; run ours to convergence as well
    conv = pagerank(g, iterations=1000, tolerance=1e-13, threads=threads)
    assert conv.meta["converged"] or g.n == 1
    G = to_networkx(g)
    ref = nx.pagerank(G, alpha=0.85, tol=1e-14, max_iter=10_000, weight=None)
    np.testing.assert_allclose(conv["rank"], [ref[v] for v in range(g.n)], rtol=1e-6)


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_pagerank_in_single_precision(shape, directed, weighted, threads):
    # float32 ranks and contributions (GAP's precision): the same ranks as double within
    # single precision's reach, and the verifier's SciPy iteration within 1e-4; a lost or
    # doubled contribution moves a rank by far more than 1e-5 of it
    g = make_shape(shape, directed, False)
    r64 = pagerank(g, iterations=30, threads=threads)
    r32 = pagerank(g, iterations=30, threads=threads, dtype="float32")
    assert r32["rank"].dtype == np.float32 and r32.meta["dtype"] == "float32"
    verify_pagerank(g, r32, iterations=30)
    np.testing.assert_allclose(r32["rank"], r64["rank"], rtol=1e-5, atol=0)
    same = pagerank(g, iterations=30, threads=threads, dtype=np.float32)
    np.testing.assert_array_equal(same["rank"], r32["rank"])


def test_pagerank_dtype_is_checked():
    from hpgraph.algorithms.pagerank import _PROGRAMS
    from hpgraph.algorithms.registry import ALGORITHMS

    # the registry's choices (the CLI's and the bench's) are the programs that exist
    assert ALGORITHMS["pagerank"].param("dtype").choices == tuple(_PROGRAMS)
    g = Graph.from_edges([0, 1], [1, 2], n=3)
    for bad in ("float16", "int64", np.int32, ["float32"]):
        with pytest.raises(InvalidArgumentError, match="dtype must be float64 or float32"):
            pagerank(g, dtype=bad)


def test_results_are_reported_in_user_ids():
    ids = np.array([100, 7, 42, 9], dtype=np.int64)
    g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=False, ids=ids)
    r = bfs(g, 7)
    out = r.output_columns()
    np.testing.assert_array_equal(out["vertex"], ids)
    assert r.to_dict("depth") == {100: 1, 7: 0, 42: 1, 9: 2}
    assert dict(zip(out["vertex"].tolist(), out["parent"].tolist(), strict=True)) == {
        100: 7,
        7: 7,
        42: 7,
        9: 42,
    }
    assert set(wcc(g).output_columns()["component"].tolist()) == {100}


def test_string_ids_and_unreachable():
    ids = np.array(["a", "b", "c"], dtype=object)
    g = Graph.from_edges([0], [1], n=3, directed=True, ids=ids)
    r = sssp(g, "a")
    out = r.output_columns()
    assert out["parent"].tolist() == ["a", "a", ""]
    assert r.to_dict("distance") == {"a": 0.0, "b": 1.0, "c": math.inf}


def test_bad_sources_and_weights_are_rejected():
    g = Graph.from_edges([0, 1], [1, 2], [1.0, -2.0], n=3)
    with pytest.raises(InvalidGraphError, match="non-negative.*-2.0"):
        sssp(g, 0)
    with pytest.raises(InvalidArgumentError, match="unknown vertex 5"):
        bfs(g, 5)
    with pytest.raises(InvalidArgumentError, match="no vertices"):
        bfs(Graph.from_edges([], [], n=0), 0)
    with pytest.raises(InvalidArgumentError, match="damping"):
        pagerank(g, damping=1.5)


def test_verifiers_catch_wrong_results():
    g = make_shape("random", False, True)
    r = bfs(g, 0)
    r.columns["depth"] = r["depth"].copy()
    v = int(np.flatnonzero(r["depth"] > 1)[0])
    r.columns["depth"][v] += 1
    with pytest.raises(VerificationError):
        verify_bfs(g, 0, r)
    s = sssp(g, 0)
    s.columns["distance"] = s["distance"] * 1.5
    with pytest.raises(VerificationError):
        verify_sssp(g, 0, s)
    g = make_shape("components", False, False)
    c = wcc(g)
    c.columns["component"] = np.zeros(g.n, dtype=np.int64)
    with pytest.raises(VerificationError):
        verify_wcc(g, c)
    p = pagerank(g)
    p.columns["rank"] = p["rank"] * 1.01
    with pytest.raises(VerificationError):
        verify_pagerank(g, p)
