"""The runtime conformance suite: every kernel on small seeded graphs, checked against
NetworkX or the kernel's own verifier, on one runtime. A runtime proves itself by passing
it; tests/test_conformance.py runs it on the local runtime (in process) and on MPI with 1,
2 and 3 ranks (``mpiexec -n P python tests/conformance/kernels.py mpi``: one launch runs
every kernel), and with ``mpi-parts`` so, each rank holding only its own rows
(:class:`~hpgraph.graph.part.PartGraph`) for the kernels the registry marks
``partitioned``. The runtime is made by :func:`hpgraph.runtimes.resolve_runtime`, the one
resolver. Rank 0 (or the local process) prints one line per kernel and ``CONFORMS``; a
wrong result raises (under MPI: aborts the job, non-zero status)."""

from __future__ import annotations

import os
import sys

import networkx as nx
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from conftest import make_shape, to_networkx  # noqa: E402
from hpgraph.algorithms import verify_bfs, verify_pagerank, verify_sssp, verify_wcc  # noqa: E402
from hpgraph.algorithms.bfs import bfs  # noqa: E402
from hpgraph.algorithms.bmlpa import bmlpa  # noqa: E402
from hpgraph.algorithms.cdlp import cdlp, reference_cdlp  # noqa: E402
from hpgraph.algorithms.lcc import lcc, verify_lcc  # noqa: E402
from hpgraph.algorithms.pagerank import pagerank  # noqa: E402
from hpgraph.algorithms.sssp import sssp  # noqa: E402
from hpgraph.algorithms.wcc import wcc  # noqa: E402
from hpgraph.graph import Graph  # noqa: E402
from hpgraph.runtimes import resolve_runtime  # noqa: E402

#: (shape, directed, weighted): the shapes that catch the usual mistakes, both directions
CASES = [
    (shape, directed, weighted)
    for shape in ("single_loop", "path", "star_isolated", "multi_loops", "components", "random")
    for directed, weighted in ((False, False), (True, True))
]


def _simple_undirected(g):
    G = nx.Graph(to_networkx(g).to_undirected())
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


def whole(g, name):
    """The graph a kernel gets: the whole graph (``mpi-parts`` swaps in this rank's part
    for partitioned kernels)."""
    return g


hold = whole


def check_traversals(g, rt):
    """BFS and SSSP from the highest-degree vertex vs NetworkX, and the verifiers."""
    G = to_networkx(g)
    s = int(np.argmax(g.out_degree()))
    r = bfs(hold(g, "bfs"), s, runtime=rt)
    verify_bfs(g, s, r)
    ref = nx.single_source_shortest_path_length(G, s)
    expect = np.full(g.n, -1)
    expect[list(ref)] = list(ref.values())
    np.testing.assert_array_equal(r["depth"], expect)
    r = sssp(hold(g, "sssp"), s, runtime=rt)
    verify_sssp(g, s, r)
    ref = nx.single_source_dijkstra_path_length(G, s)
    expect = np.full(g.n, np.inf)
    expect[list(ref)] = list(ref.values())
    np.testing.assert_allclose(r["distance"], expect, rtol=1e-12)
    # delta-stepping (the default: in bucket-synchronous supersteps off the local
    # runtime) and Bellman-Ford give the same bits
    bf = sssp(hold(g, "sssp"), s, variant="bellman-ford", runtime=rt)
    np.testing.assert_array_equal(bf["distance"], r["distance"])
    # float32 distances: verified, and bit for bit the local runtime's delta-stepping
    single = sssp(hold(g, "sssp"), s, dtype="float32", runtime=rt)
    assert single["distance"].dtype == np.float32
    verify_sssp(g, s, single)
    local = sssp(g, s, dtype="float32", threads=1)
    np.testing.assert_array_equal(single["distance"], local["distance"])
    np.testing.assert_allclose(single["distance"], expect, rtol=1e-6)


def check_wcc(g, rt):
    r = wcc(hold(g, "wcc"), runtime=rt)
    verify_wcc(g, r)
    G = to_networkx(g)
    comps = nx.weakly_connected_components(G) if g.directed else nx.connected_components(G)
    for comp in comps:
        assert {int(r["component"][v]) for v in comp} == {min(comp)}


def check_pagerank(g, rt):
    r = pagerank(hold(g, "pagerank"), iterations=30, runtime=rt)
    verify_pagerank(g, r, iterations=30)
    assert abs(r["rank"].sum() - 1.0) < 1e-9
    single = pagerank(hold(g, "pagerank"), iterations=30, dtype="float32", runtime=rt)
    assert single["rank"].dtype == np.float32
    verify_pagerank(g, single, iterations=30)
    np.testing.assert_allclose(single["rank"], r["rank"], rtol=1e-5)
    conv = pagerank(hold(g, "pagerank"), iterations=1000, tolerance=1e-13, runtime=rt)
    ref = nx.pagerank(to_networkx(g), alpha=0.85, tol=1e-14, max_iter=10_000, weight=None)
    np.testing.assert_allclose(conv["rank"], [ref[v] for v in range(g.n)], rtol=1e-6)


def check_cdlp(g, rt):
    r = cdlp(hold(g, "cdlp"), iterations=5, runtime=rt)
    assert r["label"].tolist() == reference_cdlp(g, iterations=5).tolist()


def check_lcc(g, rt):
    r = lcc(hold(g, "lcc"), runtime=rt)
    verify_lcc(g, r)
    if g.directed:
        return  # Graphalytics' directed LCC has no NetworkX counterpart: the verifier's only
    G = _simple_undirected(g)
    cl, tr = nx.clustering(G), nx.triangles(G)
    np.testing.assert_allclose(r["lcc"], [cl[v] for v in range(g.n)], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(r["triangles"], [tr[v] for v in range(g.n)])


def check_bmlpa(rt):
    """Against the local runtime with one thread (the definition of the schedule), bit
    for bit, and a cover's invariants: every vertex in at least one community, each
    vertex's belonging coefficients summing to 1."""
    rng = np.random.default_rng(7)
    g = Graph.from_edges(rng.integers(0, 200, 800), rng.integers(0, 200, 800), n=205)
    for update in ("semi-sync", "sync"):
        ref = bmlpa(g, b=0.3, threads=1, update=update)
        got = bmlpa(g, b=0.3, runtime=rt, update=update)
        for name in ("ptr", "community_of", "coefficient", "sizes"):
            a, c = getattr(ref, name), getattr(got, name)
            assert a.shape == c.shape and (a == c).all(), (update, name)
        counts = np.diff(got.ptr)
        assert (counts >= 1).all()
        sums = np.add.reduceat(got.coefficient, got.ptr[:-1])
        np.testing.assert_allclose(sums, 1.0, rtol=1e-9)


def run_all(rt, say=print) -> None:
    for shape, directed, weighted in CASES:
        g = make_shape(shape, directed, weighted)
        check_traversals(g, rt)
        check_wcc(g, rt)
        check_pagerank(make_shape(shape, directed, False), rt)
        check_cdlp(g, rt)
        check_lcc(g, rt)
        kind = "dir-w" if directed else "und"
        say(f"ok {shape}-{kind}: bfs sssp wcc pagerank cdlp lcc")
    check_bmlpa(rt)
    say("ok bmlpa")


def _part_of(g, name):
    """This rank's part of ``g`` for a kernel the registry marks partitioned."""
    from hpgraph.algorithms.registry import get_algorithm
    from hpgraph.runtimes.mpi.parts import split_graph

    return split_graph(g) if get_algorithm(name).partitioned else g


def main(argv) -> None:
    global hold
    name = argv[0] if argv else "local"
    threads = int(argv[1]) if len(argv) > 1 else None
    if name == "mpi-parts":
        name, hold = "mpi", _part_of
    rt, owned = resolve_runtime(name, threads, "vertex")
    try:
        say = print if rt.is_root else (lambda msg: None)
        run_all(rt, say=lambda msg: say(msg) or sys.stdout.flush())
        held = "own rows" if hold is _part_of else "whole graph"
        say(f"CONFORMS {rt!r} parts={rt.num_parts} {held}")
    finally:
        if owned:
            rt.close()


if __name__ == "__main__":
    main(sys.argv[1:])
