"""BMLPA against a plain-Python implementation of the paper's pseudo-code
(tests/_bmlpa_naive.py), on known structures and awkward inputs; the mention-graph
generator; the MPI runtime (tests/mpi/check_bmlpa.py under mpiexec -n 1, 2, 3)."""

from __future__ import annotations

import importlib
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from _bmlpa_naive import bmlpa_naive, rough_cores
from conftest import MPIEXEC, NO_MPI, SEED, SHAPES, make_shape, run_mpi
from hpgraph.algorithms.bmlpa import BMLPAResult, bmlpa, read_vertex_labels
from hpgraph.algorithms.bmlpa import rough_cores as hp_rough_cores
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.generators._rng import stream
from hpgraph.generators.mention import lfr_graph, mention_graph
from hpgraph.graph import Graph
from hpgraph.graph.views import simple_view

HERE = Path(__file__).parent


def simple_nx(g):
    ip, ix = simple_view(g)
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    for v in range(g.n):
        G.add_edges_from((v, int(u)) for u in ix[ip[v] : ip[v + 1]])
    return G


def cover_of(r: BMLPAResult):
    """{(members, (vertex, coefficient) pairs)}: independent of community numbering."""
    out = set()
    for c, mem in enumerate(r.communities()):
        coefs = []
        for v in mem:
            a, e = r.ptr[v], r.ptr[v + 1]
            k = a + np.searchsorted(r.community_of[a:e], c)
            coefs.append((int(v), round(float(r.coefficient[k]), 9)))
        out.add((frozenset(int(v) for v in mem), frozenset(coefs)))
    return out


def naive_initial(G, seed=0):
    key = np.random.Generator(stream(seed, 0)).permutation(G.number_of_nodes())
    init = {v: {} for v in G}
    for core in rough_cores(G, key):
        for v in core:
            init[v][core[0]] = 1.0
    return {v: ({c: 1 / len(d) for c in d} if d else {v: 1.0}) for v, d in init.items()}


def check_result(r: BMLPAResult):
    n = r.graph.n
    assert r.ptr.shape == (n + 1,) and (np.diff(r.ptr) >= 1).all()
    sums = np.add.reduceat(r.coefficient, r.ptr[:-1]) if n else np.zeros(0)
    np.testing.assert_allclose(sums, 1.0, rtol=1e-12)
    assert (np.bincount(r.community_of, minlength=r.num_communities) == r.sizes).all()
    for v in range(n):  # rows ascending by community
        row = r.community_of[r.ptr[v] : r.ptr[v + 1]]
        assert (np.diff(row) > 0).all()


_NAIVE: dict = {}  # the slow reference, once per (shape, directed, b) for every thread count


@pytest.mark.parametrize("update", ["semi-sync", "sync"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("directed", [False, True])
def test_matches_the_naive_implementation(shape, directed, update, threads):
    g = make_shape(shape, directed, False)
    for b in (0.05, 0.3, 0.8):
        key = (shape, directed, b, update)
        if key not in _NAIVE:
            G = simple_nx(g)
            _NAIVE[key] = bmlpa_naive(G, b, naive_initial(G), update=update)
        r = bmlpa(g, b=b, threads=threads, update=update)
        check_result(r)
        assert cover_of(r) == _NAIVE[key], key


@pytest.mark.parametrize("seed", range(4))
def test_random_graphs_with_a_label_cap(seed):
    rng = np.random.default_rng(SEED + seed)
    n = int(rng.integers(20, 120))
    g = Graph.from_edges(rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n), n=n)
    G = simple_nx(g)
    assert sorted(map(sorted, (c.tolist() for c in hp_rough_cores(g, seed)))) == sorted(
        map(sorted, rough_cores(G, np.random.Generator(stream(seed, 0)).permutation(n)))
    )
    for cap in (1, 2, 3):
        r = bmlpa(g, b=0.05, max_labels=cap, seed=seed, threads=2)
        assert np.diff(r.ptr).max() <= cap or r.meta["nested_removed"] >= 0
        assert cover_of(r) == bmlpa_naive(G, 0.05, naive_initial(G, seed), cap=cap)


def hubs_in_many_cores(blocks=(80, 70), shared=6, seed=0):
    """Two hubs, each in more rough cores than ``bmlpa.propagate._BIG`` (so each starts with more
    labels): hub k shares K4 blocks {hub, a, b, c} with its block vertices, whose rows
    also hold small sets (the bounded path); ``shared`` degree-2 vertices see only the
    two hubs (no small neighbour: the full sum); a path hangs off each hub. Vertex ids
    are shuffled so label order is not construction order."""
    G = nx.Graph()
    nxt = len(blocks)
    for h, k in enumerate(blocks):
        for _ in range(k):
            G.add_edges_from(nx.complete_graph([h, nxt, nxt + 1, nxt + 2]).edges())
            nxt += 3
        G.add_edges_from([(h, nxt), (nxt, nxt + 1), (nxt + 1, nxt + 2)])
        nxt += 3
    for _ in range(shared):
        G.add_edges_from([(0, nxt), (1, nxt)])
        nxt += 1
    perm = np.random.default_rng(seed).permutation(nxt)
    src, dst = np.array(list(G.edges())).T
    return Graph.from_edges(perm[src], perm[dst], n=nxt, directed=False), perm[:2]


@pytest.mark.parametrize("cap", [None, 3])
def test_hubs_with_more_labels_than_the_bound_threshold(cap):
    bm = importlib.import_module("hpgraph.algorithms.bmlpa.propagate")
    g, hubs = hubs_in_many_cores()
    cores = hp_rough_cores(g)
    for h in hubs:
        assert sum(int(h) in c for c in cores) > bm._BIG
    G = simple_nx(g)
    for b in (0.05, 0.3):
        want = bmlpa_naive(G, b, naive_initial(G), cap=cap)
        rs = [bmlpa(g, b=b, max_labels=cap, threads=t) for t in (1, 3)]
        assert cover_of(rs[0]) == want, b
        for x in ("ptr", "community_of", "coefficient"):  # bit for bit across peers
            assert np.array_equal(getattr(rs[0], x), getattr(rs[1], x)), x


@pytest.mark.parametrize("seed", range(3))
def test_bound_on_big_label_sets_against_the_full_sum(seed):
    # explicit initial labels: a few vertices hold 65..200 labels (big), the others 1..20;
    # at b = 0.05 most big labels must survive next to a neighbour of many small
    # coefficients (the bound fails, the full sum runs), at b = 0.5 they must not
    bm = importlib.import_module("hpgraph.algorithms.bmlpa.propagate")
    rng = np.random.default_rng(SEED + seed)
    n = 150
    g = Graph.from_edges(rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n), n=n)
    pool = np.arange(400)
    sizes = rng.integers(1, 21, n)
    sizes[rng.choice(n, 6, replace=False)] = rng.integers(bm._BIG + 1, 200, 6)
    init = {v: rng.choice(pool, sizes[v], replace=False).tolist() for v in range(n)}
    # named labels get ids in order of first appearance; rename them so that this order
    # is also the names' order, which the reference breaks ties by
    rank = {c: i for i, c in enumerate(dict.fromkeys(c for v in range(n) for c in init[v]))}
    init = {v: [rank[c] for c in ls] for v, ls in init.items()}
    G = simple_nx(g)
    naive_init = {v: {c: 1 / len(ls) for c in ls} for v, ls in init.items()}
    for b in (0.05, 0.2, 0.5):
        for iterations in (1, 2, 100):  # later supersteps can hide a wrong first one
            r = bmlpa(g, b=b, initial=init, threads=2, max_iterations=iterations)
            want = bmlpa_naive(G, b, naive_init, max_iterations=iterations)
            assert cover_of(r) == want, (b, iterations)


def test_a_vertex_that_changes_alone_is_recomputed():
    # the pendant vertex 5 changes in superstep 1 ({5} -> the core's label) while its
    # clique does not (b = 0.5 drops 5's label there); superstep 2 must still recompute it:
    # no state exists two supersteps before superstep 1
    G = nx.complete_graph(5)
    G.add_edge(4, 5)
    src, dst = np.array(list(G.edges())).T
    r = bmlpa(Graph.from_edges(src, dst, directed=False), b=0.5)
    assert cover_of(r) == bmlpa_naive(G, 0.5, naive_initial(G))
    assert r.num_communities == 1 and r.meta["converged"]


def test_vertices_with_settled_neighbourhoods_are_skipped():
    # stars and chains settle into a period-2 swing: their vertices stop being recomputed
    g = mention_graph(1500, 1900, seed=2)
    r = bmlpa(g, b=0.3, threads=2, update="sync", tolerance=0.01)
    act = r.meta["active_per_iteration"]
    assert len(act) == r.meta["iterations"] and act[0] == act[1] == g.n
    assert min(act) < g.n // 4, act
    G = simple_nx(g)
    assert cover_of(r) == bmlpa_naive(G, 0.3, naive_initial(G), update="sync")
    one = bmlpa(g, b=0.3, threads=1, update="sync", tolerance=0.01)
    for x in ("ptr", "community_of", "coefficient"):
        assert np.array_equal(getattr(one, x), getattr(r, x)), x


@pytest.mark.parametrize("b", [0.1, 0.3])
def test_semi_synchronous_sweeps_skip_settled_vertices_and_ignore_peer_count(b):
    # a vertex is recomputed only when a neighbour changed since its own last update; the
    # colour classes make the order the same for any number of peers
    g = mention_graph(1500, 1900, seed=2)
    G = simple_nx(g)
    covers = []
    for threads in (1, 2, 3):
        r = bmlpa(g, b=b, threads=threads, tolerance=0.0, max_iterations=30)
        act = r.meta["active_per_iteration"]
        assert len(act) == r.meta["iterations"] and act[0] == g.n
        assert max(act[1:]) < g.n, act  # some vertices skipped every sweep
        # a class is two supersteps: its exchange, then the barrier after the writes; one
        # more when the arena grows first, and one when it is compacted after
        classes = r.meta["iterations"] * r.meta["colours"]
        assert 2 * classes <= len(r.stats.supersteps) <= 2 * classes + 10
        covers.append(r)
    want = bmlpa_naive(G, b, naive_initial(G), tolerance=0.0, max_iterations=30)
    assert cover_of(covers[0]) == want
    for r in covers[1:]:
        for x in ("ptr", "community_of", "coefficient"):
            assert np.array_equal(getattr(covers[0], x), getattr(r, x)), x


@pytest.mark.parametrize("update, initial_states", [("sync", 3), ("semi-sync", 1)])
def test_state_patching_compacts_its_arena(monkeypatch, update, initial_states):
    # sets that outgrow their slot move to the arena's end; with no slack tolerated the
    # arena is compacted often: same cover, bit for bit (seed 3: a hub's leaves share
    # one slot, so fewer sets move on seed 2's graph and semi-sync compacts once there)
    bm = importlib.import_module("hpgraph.algorithms.bmlpa.state")
    g = mention_graph(1500, 1900, seed=3)
    want = bmlpa(g, b=0.1, threads=2, update=update)
    compactions = []
    real = bm._compact_state
    monkeypatch.setattr(bm, "_SLACK", 0)
    counted = lambda *a: compactions.append(1) or real(*a)  # noqa: E731
    monkeypatch.setattr(bm, "_compact_state", counted)  # the patches' compactions
    program = importlib.import_module("hpgraph.algorithms.bmlpa.program")
    monkeypatch.setattr(program, "_compact_state", counted)  # initial and full states
    got = bmlpa(g, b=0.1, threads=2, update=update)
    assert len(compactions) > 2 * initial_states  # more than the initial and full states
    for x in ("ptr", "community_of", "coefficient"):
        assert np.array_equal(getattr(want, x), getattr(got, x)), x


def test_bridge_vertex_belongs_to_both_cliques():
    G = nx.Graph()
    G.add_edges_from(nx.complete_graph(range(5)).edges())
    G.add_edges_from(nx.complete_graph(range(6, 11)).edges())
    G.add_edges_from((5, v) for v in [*range(5), *range(6, 11)])
    src, dst = np.array(list(G.edges())).T
    r = bmlpa(Graph.from_edges(src, dst, directed=False), b=0.3)
    assert r.num_communities == 2
    members = sorted(sorted(m.tolist()) for m in r.communities())
    assert members == [[0, 1, 2, 3, 4, 5], [5, 6, 7, 8, 9, 10]]
    assert r.ptr[6] - r.ptr[5] == 2
    np.testing.assert_allclose(r.coefficient[r.ptr[5] : r.ptr[6]], [0.5, 0.5])
    assert r["memberships"][5] == 2 and r.meta["overlapping_vertices"] == 1


def test_disjoint_cliques_are_the_communities():
    blocks = [range(0, 4), range(4, 9), range(9, 15)]
    edges = [(u, v) for bl in blocks for u in bl for v in bl if u < v]
    src, dst = np.array(edges).T
    r = bmlpa(Graph.from_edges(src, dst, n=17, directed=False))  # 15, 16 isolated
    got = sorted(sorted(m.tolist()) for m in r.communities())
    assert got == sorted([list(b) for b in blocks] + [[15], [16]])
    assert (r.coefficient == 1.0).all()
    assert r["community"].tolist() == [0] * 4 + [1] * 5 + [2] * 6 + [3, 4]


def test_split_and_nested_post_processing():
    # a path 0-1-2-3-4: synchronous propagation leaves nested and disconnected labels
    r = bmlpa(Graph.from_edges(np.arange(4), np.arange(1, 5), directed=False), b=0.5)
    G = nx.path_graph(5)
    assert cover_of(r) == bmlpa_naive(G, 0.5, naive_initial(G))
    comms = [set(m.tolist()) for m in r.communities()]
    for i, a in enumerate(comms):  # no community inside another, every one connected
        assert nx.is_connected(G.subgraph(a))
        assert not any(i != j and a <= b for j, b in enumerate(comms))


def test_post_processing_is_the_same_on_any_number_of_threads(monkeypatch):
    # ranges of communities and vertices on a pool, union-find by compare-and-swap hooks:
    # the same pieces, numbering and coefficients, bit for bit, from propagation's sets
    # with nested and disconnected labels (few sweeps and a small b leave many)
    pkg = importlib.import_module("hpgraph.algorithms.bmlpa")
    seen = []

    def grab(*args):
        seen.append(args)
        return real(*args)

    real = pkg._postprocess
    monkeypatch.setattr(pkg, "_postprocess", grab)
    bmlpa(mention_graph(3000, 4000, seed=3), b=0.05, max_iterations=2, update="sync")
    args = seen[0][:6]
    want = real(*args, 1)
    assert want[5] > 0  # nested communities were merged
    assert want[3].shape[0] > np.unique(args[3]).shape[0] - want[5]  # and pieces split
    for threads in (2, 3):
        got = real(*args, threads)
        for x, y in zip(want, got, strict=True):
            assert np.array_equal(x, y)


def test_empty_single_and_loops():
    r = bmlpa(Graph.from_edges([], [], n=0))
    assert r.num_communities == 0 and r.ptr.tolist() == [0]
    r = bmlpa(Graph.from_edges([0], [0], n=1))
    assert r.num_communities == 1 and r.coefficient.tolist() == [1.0]
    # self-loops and parallel edges change nothing: the simple view
    a = Graph.from_edges([0, 1, 2, 0, 0, 3], [1, 2, 0, 1, 0, 3], n=5)
    b = Graph.from_edges([0, 1, 2], [1, 2, 0], n=5)
    assert cover_of(bmlpa(a)) == cover_of(bmlpa(b))


def test_initial_labels_from_a_file(tmp_path):
    src = np.array([0, 1, 2, 3, 4, 5, 2])
    dst = np.array([1, 2, 0, 4, 5, 3, 3])
    ids = np.array([10, 11, 12, 13, 14, 15])
    g = Graph.from_edges(src, dst, n=6, ids=ids)
    path = tmp_path / "labels.txt"
    path.write_text("# user hashtags\n10 #a\n11 #a #a\n\n13 #b\n14 #b\n14 #c\n")
    vl = read_vertex_labels(path, g)
    assert vl.names == ["#a", "#b", "#c"]
    assert vl.ptr.tolist() == [0, 1, 2, 2, 3, 5, 5] and vl.labels.tolist() == [0, 0, 1, 1, 2]
    r = bmlpa(g, initial=str(path), b=0.5)
    G = simple_nx(g)
    init = {0: {6: 1.0}, 1: {6: 1.0}, 2: {2: 1.0}, 3: {7: 1.0}, 4: {7: 0.5, 8: 0.5}, 5: {5: 1.0}}
    assert cover_of(r) == bmlpa_naive(G, 0.5, init)
    assert set(r.label.tolist()) <= {"#a", "#b", "#c", 12, 15}
    # the same labels as a mapping and as an array
    same = bmlpa(g, initial={10: "#a", 11: ["#a"], 13: "#b", 14: ["#b", "#c"]}, b=0.5)
    assert cover_of(same) == cover_of(r)
    arr = bmlpa(g, initial=np.array([7, 7, -1, 3, 3, -1]), b=0.5)
    init2 = {0: {6: 1.0}, 1: {6: 1.0}, 2: {2: 1.0}, 3: {7: 1.0}, 4: {7: 1.0}, 5: {5: 1.0}}
    assert cover_of(arr) == bmlpa_naive(G, 0.5, init2)
    rows = r.to_rows()
    assert rows["vertex"].tolist()[0] == 10 and len(rows["community"]) == r.ptr[-1]
    bad = tmp_path / "bad.txt"
    bad.write_text("10 #a\n99 #b\n")
    with pytest.raises(GraphFormatError, match="bad.txt:2"):
        read_vertex_labels(bad, g)
    bad.write_text("10\n")
    with pytest.raises(GraphFormatError, match="bad.txt:1"):
        read_vertex_labels(bad, g)


def test_bad_arguments():
    g = make_shape("path", False, False)
    for kw, match in [
        ({"b": 0.0}, "b"),
        ({"b": 1.5}, "b"),
        ({"b": 0.2, "p": 0.3}, "disagree"),
        ({"max_labels": 0}, "max_labels"),
        ({"max_iterations": -1}, "max_iterations"),
        ({"threads": 0}, "threads"),
        ({"seed": -1}, "seed"),
        ({"initial": "no-such-file.txt"}, "no-such-file"),
        ({"initial": np.zeros(3, np.int64)}, "one integer label per vertex"),
        ({"stop": "never"}, "stop"),
        ({"tolerance": 1.0}, "tolerance"),
        ({"tolerance": -0.1}, "tolerance"),
        ({"stop": "counts", "tolerance": 0.1}, "stop='rate' only"),
        ({"update": "async"}, "update must be one of semi-sync, sync"),
    ]:
        with pytest.raises(InvalidArgumentError, match=match):
            bmlpa(g, **kw)
    with pytest.raises(InvalidArgumentError, match="Graph"):
        bmlpa("not a graph")


def test_alias_iterations_and_progress():
    g = make_shape("random", False, False)
    seen = []
    r = bmlpa(g, p=0.2, progress=lambda it, ch, ent: seen.append((it, ch, ent)))
    assert r.meta["b"] == 0.2 and len(seen) == r.meta["iterations"] >= 1
    assert [s[0] for s in seen] == list(range(1, len(seen) + 1))
    r0 = bmlpa(g, max_iterations=0)
    assert r0.meta["iterations"] == 0 and r0.stats is None
    r1 = bmlpa(g, max_iterations=1, update="sync")
    assert r1.meta["iterations"] == 1 and len(r1.stats.supersteps) == 1
    # a sweep is two supersteps per colour class, and one before a class's writes when
    # they grow the arena
    r1 = bmlpa(g, max_iterations=1)
    k = r1.meta["colours"]
    assert r1.meta["iterations"] == 1 and 2 * k <= len(r1.stats.supersteps) <= 3 * k and k > 1


@pytest.mark.parametrize("update", ["semi-sync", "sync"])
@pytest.mark.parametrize("shape", ["star_isolated", "random", "path", "dense"])
def test_both_stop_rules_match_the_naive_implementation(shape, update):
    g = make_shape(shape, False, False)
    G = simple_nx(g)
    init = naive_initial(G)
    for b in (0.05, 0.3):
        counts = bmlpa(g, b=b, stop="counts", threads=2, update=update)
        assert cover_of(counts) == bmlpa_naive(G, b, init, tolerance=None, update=update)
        assert counts.meta["stopped_by"] in ("counts", "max_iterations")
        for tol in (0.0, 0.05, 0.3):
            r = bmlpa(g, b=b, tolerance=tol, threads=2, update=update)
            assert cover_of(r) == bmlpa_naive(G, b, init, tolerance=tol, update=update), tol
            rate = r.meta["update_rate"]
            assert len(rate) == r.meta["iterations"] == len(r.meta["changed_per_iteration"])
            if r.meta["stopped_by"] == "rate":  # stops at the first rate below tol (or 0)
                assert rate[-1] < tol or rate[-1] == 0
                assert all(x >= tol and x > 0 for x in rate[:-1])


def test_rate_rule_stops_a_period_two_swing():
    # a star swings for ever under synchronous propagation; its sets repeat every two
    # supersteps, so the rate (against two supersteps back) falls to 0 and the rule stops
    g = Graph.from_edges(np.zeros(6, np.int64), np.arange(1, 7), directed=False)
    r = bmlpa(g, b=0.3, tolerance=0.0, max_iterations=50)
    assert r.meta["stopped_by"] == "rate" and r.meta["update_rate"][-1] == 0.0
    assert r.meta["iterations"] < 10


def test_weighted_initial_labels():
    # belongings start proportional to the weights (how often a user used a hashtag)
    from hpgraph.algorithms.bmlpa import VertexLabels

    g = Graph.from_edges([0, 1, 0, 2], [1, 2, 2, 3], directed=False)  # triangle + pendant
    vl = VertexLabels(
        np.array([0, 2, 3, 4, 4]), np.array([0, 1, 0, 1], np.int32), ["ai", "ml"],
        np.array([3.0, 1.0, 5.0, 2.0]),
    )  # fmt: skip
    r = bmlpa(g, initial=vl, b=0.2, max_iterations=0)
    rows = r.to_rows()
    got = {
        (int(v), r.label[c], round(float(w), 12))
        for v, c, w in zip(rows["vertex"], rows["community"], rows["belonging"], strict=True)
    }
    assert got == {(0, "ai", 0.75), (0, "ml", 0.25), (1, "ai", 1.0), (2, "ml", 1.0), (3, 3, 1.0)}
    bad = VertexLabels(vl.ptr, vl.labels, vl.names, np.array([1.0, 0.0, 1.0, 1.0]))
    with pytest.raises(InvalidArgumentError, match="weights"):
        bmlpa(g, initial=bad)


def test_mention_graph_is_seeded_and_shaped():
    g = mention_graph(20_000, 25_000, seed=3)
    assert g.n == 20_000 and g.num_edges == 25_000 and g.directed
    src, dst, _ = g.edges()
    assert not (src == dst).any()
    h = mention_graph(20_000, 25_000, seed=3)
    assert (g.indptr == h.indptr).all() and (g.indices == h.indices).all()
    deg = g.symmetrized().out_degree()
    assert (deg > 0).all() and deg.max() > 100 * np.median(deg)  # hubs
    assert (deg == 1).mean() > 0.3  # leaves of stars and chain ends
    with pytest.raises(InvalidArgumentError, match="too small"):
        mention_graph(1000, 200)


def test_lfr_recovers_planted_communities():
    from hpgraph.algorithms.community_quality import overlapping_nmi

    g, planted = lfr_graph(1000, 0.1, seed=1)
    again, planted2 = lfr_graph(1000, 0.1, seed=1)
    assert (g.indices == again.indices).all() and (planted == planted2).all()
    r = bmlpa(g, b=0.3)
    assert overlapping_nmi(r, planted) > 0.9


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mpi_matches_the_local_runtime(ranks):
    out = run_mpi(ranks, "check_bmlpa.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("BMLPA OK") == ranks


@pytest.mark.parametrize("shape", SHAPES)
def test_greedy_colouring_is_proper_and_matches_the_reference(shape):
    from _bmlpa_naive import colour_classes
    from hpgraph.algorithms.bmlpa.schedule import greedy_colouring

    g = make_shape(shape, False, False)
    ip, ix = simple_view(g)
    colour, k = greedy_colouring(ip, ix)
    src = np.repeat(np.arange(g.n), np.diff(ip))
    assert not (colour[src] == colour[ix]).any()  # no edge inside a class
    deg = np.diff(ip)
    assert k == (int(colour.max()) + 1 if g.n else 0) and k <= (deg.max() + 1 if g.n else 0)
    want = colour_classes(simple_nx(g))  # first fit by (-degree, vertex)
    assert [np.flatnonzero(colour == c).tolist() for c in range(k)] == want
