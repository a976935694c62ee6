"""Dual and strict simulation against a naive reference written here from the definitions
(Ma et al., TODS 2014; Fard et al., IEEE BigData 2013): the relation's fix-point over
Python sets, and for strict simulation the match graph, the balls by BFS, dual simulation
inside each ball on the ball's induced edges, and the centre's component. Exact set
equality on seeded random labelled graphs of every shape, directed and undirected, on
1-3 threads; hand-made cases after the papers' examples; the file formats and errors;
and the MPI runtime (tests/mpi/check_simulation.py under mpiexec -n 1, 2, 3)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, SEED, SHAPES, make_shape, run_mpi
from hpgraph.algorithms.simulation import (
    Pattern,
    dual_simulation,
    read_labels,
    read_pattern,
    strict_simulation,
    verify_dual_simulation,
)
from hpgraph.errors import GraphFormatError, InvalidArgumentError, VerificationError
from hpgraph.graph import Graph

# ------------------------------------------------------------------ naive reference


def naive_dual(n, edges, labels, plabels, pedges, vertices=None):
    """The largest dual simulation by the textbook fix-point over sets, on the subgraph
    of ``vertices`` (all by default) with ``edges``."""
    vs = range(n) if vertices is None else vertices
    succ = {v: set() for v in vs}
    pred = {v: set() for v in vs}
    for a, b in edges:
        succ[a].add(b)
        pred[b].add(a)
    sim = {u: {v for v in vs if labels[v] == plabels[u]} for u in range(len(plabels))}
    changed = True
    while changed:
        changed = False
        for u, u2 in pedges:
            for v in list(sim[u]):  # (u, v) needs a child v2 with (u2, v2)
                if not succ[v] & sim[u2]:
                    sim[u].discard(v)
                    changed = True
            for v2 in list(sim[u2]):  # (u2, v2) needs a parent v with (u, v)
                if not pred[v2] & sim[u]:
                    sim[u2].discard(v2)
                    changed = True
    return sim


def match_edges(edges, sim, pedges):
    return {(a, b) for a, b in edges if any(a in sim[u] and b in sim[w] for u, w in pedges)}


def pattern_diameter(k, pedges):
    adj = {u: set() for u in range(k)}
    for a, b in pedges:
        adj[a].add(b)
        adj[b].add(a)
    return max(max(bfs_dist(adj, s, k).values()) for s in range(k))


def bfs_dist(adj, s, limit):
    dist = {s: 0}
    frontier = [s]
    while frontier and dist[frontier[0]] < limit:
        nxt = []
        for x in frontier:
            for y in adj[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    nxt.append(y)
        frontier = nxt
    return dist


def naive_strict(n, edges, labels, plabels, pedges):
    """{frozenset of (pattern vertex, data vertex): smallest centre} (internal ids)."""
    k = len(plabels)
    sim = naive_dual(n, edges, labels, plabels, pedges)
    d = pattern_diameter(k, pedges)
    adj = {v: set() for v in range(n)}
    for a, b in match_edges(edges, sim, pedges):
        adj[a].add(b)
        adj[b].add(a)
    found = {}
    for w in sorted(set().union(*sim.values())):
        ball = set(bfs_dist(adj, w, d))
        ball_edges = [(a, b) for a, b in edges if a in ball and b in ball]  # induced, from G
        sb = naive_dual(n, ball_edges, labels, plabels, pedges, vertices=ball)
        if not any(w in s for s in sb.values()):
            continue
        cadj = {v: set() for v in ball}
        for a, b in match_edges(ball_edges, sb, pedges):
            cadj[a].add(b)
            cadj[b].add(a)
        comp = set(bfs_dist(cadj, w, n + 1))
        pairs = frozenset((u, v) for u in range(k) for v in sb[u] & comp)
        if {u for u, _ in pairs} == set(range(k)):
            found.setdefault(pairs, w)
    return found


# ------------------------------------------------------------------ inputs

# (labels, edges) over pattern vertices 0..k-1; the last one is disconnected (dual only)
PATTERNS = {
    "edge": ((0, 1), [(0, 1)]),
    "2-cycle": ((0, 1), [(0, 1), (1, 0)]),
    "triangle": ((0, 1, 2), [(0, 1), (1, 2), (2, 0)]),
    "loop+edge": ((0, 1), [(0, 0), (0, 1)]),
    "star": ((0, 1, 1, 2), [(0, 1), (0, 2), (3, 0)]),
    "path3": ((1, 0, 1), [(0, 1), (1, 2)]),
    "single": ((2,), []),
    "disconnected": ((0, 1, 2), [(0, 1)]),
}


def random_labels(n, seed, values=3):
    return np.random.default_rng(seed).integers(0, values, n)


@functools.cache
def case(shape, directed):
    g = make_shape(shape, directed, False)
    labels = random_labels(g.n, SEED + 7)
    src, dst, _ = g.edges()
    return g, labels, list(zip(src.tolist(), dst.tolist(), strict=True))


@functools.cache
def reference(shape, directed, name):
    g, labels, edges = case(shape, directed)
    plabels, pedges = PATTERNS[name]
    dual = naive_dual(g.n, edges, labels.tolist(), plabels, pedges)
    strict = None
    if name != "disconnected":
        strict = naive_strict(g.n, edges, labels.tolist(), plabels, pedges)
    return dual, strict


def as_pattern(name):
    plabels, pedges = PATTERNS[name]
    return Pattern(tuple(range(len(plabels))), plabels, [a for a, _ in pedges],
                   [b for _, b in pedges])  # fmt: skip


def dual_sets(res):
    mask = res["mask"]
    return {u: set(np.flatnonzero((mask >> u) & 1).tolist()) for u in range(res.pattern.k)}


def strict_sets(res):
    k = res.pattern.k
    out = {}
    for i in range(len(res)):
        codes = res.codes[res.ptr[i] : res.ptr[i + 1]].tolist()
        out[frozenset((x % k, x // k) for x in codes)] = int(res.centre[i])
    assert len(out) == len(res), "duplicate matches were reported"
    return out


# ------------------------------------------------------------------ against the reference


@pytest.mark.parametrize("directed", [True, False], ids=["dir", "und"])
@pytest.mark.parametrize("shape", SHAPES)
def test_matches_the_naive_reference(shape, directed, threads):
    print(f"seed={SEED} shape={shape} directed={directed} threads={threads}")
    g, labels, _ = case(shape, directed)
    for name in PATTERNS:
        want_dual, want_strict = reference(shape, directed, name)
        pat = as_pattern(name)
        if want_strict is None:
            res = dual_simulation(g, labels, pat, threads=threads)
        else:
            strict = strict_simulation(g, labels, pat, threads=threads)
            assert strict_sets(strict) == want_strict, name
            assert list(strict.centre) == sorted(strict.centre)
            res = strict.dual
        assert dual_sets(res) == {u: s for u, s in want_dual.items()}, name
        verify_dual_simulation(g, labels, pat, res)


def test_the_reference_cases_are_not_trivial():
    """The random cases must exercise matches, removals and duplicate balls."""
    sizes = [len(reference(s, d, "triangle")[1]) for s in ("random", "dense") for d in (1, 0)]
    assert min(sizes) > 0
    g, labels, edges = case("random", True)
    dual, strict = reference("random", True, "star")
    assert (
        0
        < sum(map(len, dual.values()))
        < sum(1 for v in range(g.n) for lab in PATTERNS["star"][0] if labels[v] == lab)
    )
    assert len(strict) < len(set().union(*dual.values()))  # balls that gave duplicates


@pytest.mark.parametrize("directed", [True, False], ids=["dir", "und"])
def test_string_labels_and_dict_inputs(directed):
    g, labels, _ = case("components", directed)
    names = np.array(["red", "green", "blue"], dtype=object)[labels]
    plabels, pedges = PATTERNS["path3"]
    pat_dict = {f"p{u}": ["red", "green", "blue"][lab] for u, lab in enumerate(plabels)}
    edges = [(f"p{a}", f"p{b}") for a, b in pedges]
    as_dict = {i: str(x) for i, x in enumerate(names.tolist())}
    res = strict_simulation(g, as_dict, edges, pat_dict, threads=2)
    want = reference("components", directed, "path3")[1]
    got = {frozenset((int(p[1:]), v) for p, v in m.pairs): m.centre for m in res}
    assert got == want
    # a directed hpgraph Graph as the pattern, labels as a list
    pg = Graph.from_edges(np.array([a for a, _ in pedges]), np.array([b for _, b in pedges]),
                          n=len(plabels), directed=True)  # fmt: skip
    res2 = dual_simulation(g, names.astype(str), pg, [pat_dict[f"p{u}"] for u in range(3)])
    assert dual_sets(res2) == reference("components", directed, "path3")[0]


# ------------------------------------------------------------------ hand-made cases


def test_a_long_cycle_matches_a_cycle_by_dual_but_not_by_strict_simulation():
    # Ma et al.'s motivating case: the pattern A -> B -> C -> A and a data cycle of
    # length 9 repeating A, B, C: every vertex has the parent and child dual simulation
    # asks for, but no ball of radius 1 holds a cycle. A real triangle (9, 10, 11) is
    # the only strict match, found from each of its 3 vertices and reported once.
    src = [i for i in range(9)] + [9, 10, 11]
    dst = [(i + 1) % 9 for i in range(9)] + [10, 11, 9]
    g = Graph.from_edges(np.array(src), np.array(dst), n=12, directed=True)
    labels = ["A", "B", "C"] * 4
    pat = Pattern(("a", "b", "c"), ("A", "B", "C"), [0, 1, 2], [1, 2, 0])
    dual = dual_simulation(g, labels, pat, threads=2)
    assert {u: set(x.tolist()) for u, x in dual.match_sets().items()} == {
        "a": {0, 3, 6, 9}, "b": {1, 4, 7, 10}, "c": {2, 5, 8, 11},
    }  # fmt: skip
    res = strict_simulation(g, labels, pat, threads=2)
    assert res.matches() == [
        ((9), (9, 10, 11), (("a", 9), ("b", 10), ("c", 11))),
    ]
    assert res.meta["balls"] == 12 and res.meta["matches_found"] == 3
    assert res.meta["matches"] == 1


def test_a_cycle_pattern_on_a_long_path_has_no_match():
    g = Graph.from_edges(np.arange(19), np.arange(1, 20), n=20, directed=True)
    labels = ["A", "B"] * 10
    edges, plab = [("a", "b"), ("b", "a")], {"a": "A", "b": "B"}
    assert not dual_simulation(g, labels, edges, plab).matched  # the end loses support,
    assert len(strict_simulation(g, labels, edges, plab)) == 0  # and the rest in turn


def test_dual_simulation_checks_parents_where_graph_simulation_would_not():
    # A -> B -> C. B2 -> C2 has a C child but no A parent: graph simulation (children
    # only) would keep B2; dual simulation drops it, and then C2.
    g = Graph.from_edges(np.array([0, 1, 3]), np.array([1, 2, 4]), n=5, directed=True)
    labels = {0: "A", 1: "B", 2: "C", 3: "B", 4: "C"}
    res = dual_simulation(g, labels, [(0, 1), (1, 2)], ["A", "B", "C"])
    assert res["mask"].tolist() == [1, 2, 4, 0, 0]


def test_strict_matches_are_the_centres_components_in_their_balls():
    # A -> B with the star 0 -> {1, 2} and the edge 3 -> 4 (radius 1): the hub's ball
    # holds the whole star; a leaf's ball holds the hub and that leaf only.
    g = Graph.from_edges(np.array([0, 0, 3]), np.array([1, 2, 4]), n=5, directed=True)
    res = strict_simulation(g, ["A", "B", "B", "A", "B"], [(0, 1)], ["A", "B"], threads=3)
    assert [(m.centre, m.pairs) for m in res] == [
        (0, ((0, 0), (1, 1), (1, 2))),
        (1, ((0, 0), (1, 1))),
        (2, ((0, 0), (1, 2))),
        (3, ((0, 3), (1, 4))),
    ]
    cols = res.to_rows()
    assert cols["match_id"].tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 3]
    assert cols["centre"].tolist() == [0, 0, 0, 1, 1, 2, 2, 3, 3]
    assert cols["pattern_vertex"].tolist() == [0, 1, 1, 0, 1, 0, 1, 0, 1]
    assert cols["vertex"].tolist() == [0, 1, 2, 0, 1, 0, 2, 3, 4]


def test_undirected_graphs_and_self_loops():
    # An undirected edge is both directions, so A <-> B matches it; a self-loop is its
    # own child and parent, so the pattern a -> a matches only the looped vertex.
    g = Graph.from_edges(np.array([0, 2]), np.array([1, 2]), n=4, directed=False)
    res = strict_simulation(g, [0, 1, 0, 0], [(0, 1), (1, 0)], [0, 1])
    assert [m.pairs for m in res] == [((0, 0), (1, 1))]
    res = strict_simulation(g, [0, 1, 0, 0], [(0, 0)], [0])
    assert [(m.centre, m.pairs) for m in res] == [(2, ((0, 2),))]


def test_ids_of_the_input_in_results_and_rows(tmp_path):
    edges = tmp_path / "g.el"
    edges.write_text("alice bob\nbob carol\ncarol alice\ndave erin\n")
    from hpgraph.io import load_graph, write_result

    g = load_graph(edges, directed=True, cache=False)
    lab = tmp_path / "labels.txt"
    lab.write_text("# vertex label\nalice 1\nbob 2\ncarol 3\ndave 1\nerin 2\n")
    pat = tmp_path / "q.txt"
    pat.write_text("# a triangle\nv x 1\nv y 2\nv z 3\ne x y\ne y z\ne z x\n")
    res = strict_simulation(g, lab, pat, threads=2)  # paths are read by the readers
    assert [m.vertices for m in res] == [("alice", "bob", "carol")]
    assert res.matches()[0].pairs == (("x", "alice"), ("y", "bob"), ("z", "carol"))
    out = tmp_path / "m.csv"
    write_result(res, out)
    assert out.read_text().splitlines() == [
        "match_id,centre,pattern_vertex,vertex",
        "0,alice,x,alice",
        "0,alice,y,bob",
        "0,alice,z,carol",
    ]
    dual = dual_simulation(g, lab, pat)
    assert dual.matches("x").tolist() == ["alice"] and dual.matched


def test_empty_and_unmatched_graphs():
    g = Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n=0)
    res = strict_simulation(g, [], [(0, 1)], [0, 1])
    assert len(res) == 0 and res.to_rows()["vertex"].size == 0
    assert not dual_simulation(g, [], [(0, 1)], [0, 1]).matched
    g = Graph.from_edges(np.array([0]), np.array([1]), n=3)
    res = strict_simulation(g, [5, 5, 5], [(0, 1)], [0, 1])
    assert len(res) == 0 and res.dual["mask"].tolist() == [0, 0, 0]


# ------------------------------------------------------------------ formats and errors


def test_read_pattern_format_and_errors(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text("# comment\nv 1 person\nv 2 7\n\ne 1 2\ne 2,2\n")
    q = read_pattern(p)
    assert q.ids == (1, 2) and q.labels == ("person", 7)
    assert q.src.tolist() == [0, 1] and q.dst.tolist() == [1, 1] and q.diameter == 1
    p.write_text("v a X\ne a b\n")
    with pytest.raises(GraphFormatError, match=r"q\.txt:2: edge names undeclared .*'b'"):
        read_pattern(p)
    p.write_text("v a X\nv a Y\n")
    with pytest.raises(GraphFormatError, match=r"q\.txt:2: pattern vertex 'a' declared twice"):
        read_pattern(p)
    p.write_text("v a X\nx a b\n")
    with pytest.raises(GraphFormatError, match=r"q\.txt:2: expected 'v <id> <label>'"):
        read_pattern(p)
    p.write_text("# nothing\n")
    with pytest.raises(GraphFormatError, match="no pattern vertices"):
        read_pattern(p)
    p.write_text("".join(f"v {i} L\n" for i in range(33)))
    with pytest.raises(GraphFormatError, match="33 pattern vertices; .* at most 32"):
        read_pattern(p)


def test_read_labels_format_and_errors(tmp_path):
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    p = tmp_path / "l.txt"
    p.write_text("0 5\n1,6\n2 7\n2 7\n")
    assert read_labels(p, g).tolist() == [5, 6, 7]
    p.write_text("0 a\n1 b\n2 7\n")
    assert read_labels(p, g).tolist() == ["a", "b", 7]
    p.write_text("0 a\n9 b\n")
    with pytest.raises(GraphFormatError, match=r"l\.txt:2: unknown vertex '9'"):
        read_labels(p, g)
    p.write_text("0 a\n0 b\n")
    with pytest.raises(GraphFormatError, match=r"l\.txt:2: vertex '0' labelled 'a' at line 1"):
        read_labels(p, g)
    p.write_text("0 a\n")
    with pytest.raises(GraphFormatError, match=r"no label for 2 of 3 vertices \(e\.g\. 1, 2\)"):
        read_labels(p, g)
    p.write_text("0 a b\n")
    with pytest.raises(GraphFormatError, match=r"l\.txt:1: expected two fields"):
        read_labels(p, g)


def test_bad_arguments_are_named():
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    big = [(i, i + 1) for i in range(32)]
    with pytest.raises(InvalidArgumentError, match="33 vertices; .* at most 32"):
        dual_simulation(g, [0, 0, 0], big, [0] * 33)
    with pytest.raises(InvalidArgumentError, match=r"no label for 1 of 3 vertices \(e\.g\. 2\)"):
        dual_simulation(g, {0: "a", 1: "b"}, [(0, 1)], ["a", "b"])
    with pytest.raises(InvalidArgumentError, match="unknown vertex 7"):
        dual_simulation(g, {0: "a", 1: "b", 2: "c", 7: "d"}, [(0, 1)], ["a", "b"])
    with pytest.raises(InvalidArgumentError, match=r"one entry per vertex \(3\)"):
        dual_simulation(g, [0, 0], [(0, 1)], [0, 0])
    with pytest.raises(InvalidArgumentError, match="pattern vertex 'z' has no label"):
        dual_simulation(g, [0, 0, 0], [("x", "z")], {"x": 0})
    with pytest.raises(InvalidArgumentError, match="connected pattern"):
        strict_simulation(g, [0, 0, 0], [(0, 1)], [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="no data labels"):
        strict_simulation(g, pattern=[(0, 1)], pattern_labels=[0, 0])
    with pytest.raises(InvalidArgumentError, match="no pattern"):
        dual_simulation(g, [0, 0, 0])


def test_the_verifier_rejects_a_wrong_relation():
    g, labels, _ = case("random", True)
    pat = as_pattern("star")
    res = dual_simulation(g, labels, pat)
    verify_dual_simulation(g, labels, pat, res)
    label_compatible = (labels == 2) & (res["mask"] == 0)
    res.columns["mask"] = res["mask"].copy()
    res.columns["mask"][np.flatnonzero(label_compatible)[0]] |= 1 << 3  # a pair with no parent
    with pytest.raises(VerificationError, match="lacks a child or parent witness"):
        verify_dual_simulation(g, labels, pat, res)
    res.columns["mask"][np.flatnonzero(labels == 0)[0]] |= 1 << 1
    with pytest.raises(VerificationError, match="whose label it lacks"):
        verify_dual_simulation(g, labels, pat, res)


# ------------------------------------------------------------------ MPI


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mpi_runtime_gives_the_local_results(ranks):
    out = run_mpi(ranks, "check_simulation.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SIMULATION OK" in out.stdout
