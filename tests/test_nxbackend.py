"""hpgraph as a NetworkX backend: every dispatched function called with
``backend="hpgraph"`` against NetworkX itself on varied seeded graphs (directed,
undirected, weighted with floats and with ints, string labels in a shuffled order,
isolated vertices, self-loops, a multigraph, empty and edgeless graphs): equal values
(floats to 1e-9; PageRank to NetworkX's own ``n * tol``), equal types, equal key order
where NetworkX has one; the same exception types on bad input; ``can_run`` fallbacks
giving NetworkX's answer under automatic dispatch; ``should_run`` sending small graphs
back to NetworkX; the conversion cache; and NetworkX's own tests of the dispatched
functions run against the backend in a subprocess."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from conftest import SEED
from hpgraph.nxbackend import FUNCTIONS
from hpgraph.nxbackend.graph import BackendGraph, from_networkx, to_networkx
from hpgraph.nxbackend.interface import SMALL_GRAPH, TRAVERSAL, can_run, should_run

HP = "hpgraph"
RTOL = 1e-9


@pytest.fixture(autouse=True)
def _quiet_cache_note():
    """NetworkX warns each time it reuses a cached conversion (warnings are errors)."""
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.warnings_to_ignore.discard("cache")


# ------------------------------------------------------------------ graphs
def _random(n, p, seed, directed=False, extra=4):
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    G.add_nodes_from(range(n, n + extra))  # isolated vertices
    return G


def _weighted(G, seed, ints=False):
    rng = random.Random(seed)
    for u, v in G.edges():
        G[u][v]["weight"] = rng.randint(1, 5) if ints else rng.uniform(0.5, 2.0)
    return G


def _strings_shuffled(G, seed, loops=3):
    """Same shape, string labels, nodes and edges inserted in a shuffled order, loops."""
    rng = random.Random(seed)
    nodes = list(G)
    rng.shuffle(nodes)
    H = G.__class__()
    H.add_nodes_from(f"v{u}" for u in nodes)
    edges = list(G.edges(data=True))
    rng.shuffle(edges)
    H.add_edges_from((f"v{u}", f"v{v}", d) for u, v, d in edges)
    for u in rng.sample(nodes, loops):
        H.add_edge(f"v{u}", f"v{u}", weight=1.5)
    return H


def _multigraph(seed):
    rng = random.Random(seed)
    M = nx.MultiGraph()
    M.add_nodes_from(range(40))
    for _ in range(90):
        u, v = rng.randrange(40), rng.randrange(40)
        M.add_edge(u, v, weight=rng.choice([0.5, 1.0, 2.0, 3.0]))
    return M


def _graphs():
    s = SEED
    und = _random(60, 0.08, s)
    dig = _random(60, 0.05, s + 1, directed=True)
    loops = _random(50, 0.1, s + 2)
    loops.add_edges_from([(0, 0), (7, 7), (55, 55)])
    return {
        "undirected": und,
        "directed": dig,
        "weighted": _weighted(_random(60, 0.08, s + 3), s),
        "weighted_int_directed": _weighted(_random(60, 0.06, s + 4, directed=True), s, True),
        "strings": _strings_shuffled(_weighted(_random(50, 0.1, s + 5), s), s),
        "strings_directed": _strings_shuffled(
            _weighted(_random(50, 0.07, s + 6, directed=True), s), s
        ),
        "self_loops": loops,
        "multigraph": _multigraph(s),
        "empty": nx.Graph(),
        "edgeless": nx.empty_graph(5),
        "empty_directed": nx.DiGraph(),
    }


GRAPHS = _graphs()
ALL = list(GRAPHS)
UNDIRECTED = [k for k, G in GRAPHS.items() if not G.is_directed()]
DIRECTED = [k for k, G in GRAPHS.items() if G.is_directed()]
NONEMPTY = [k for k, G in GRAPHS.items() if len(G)]


def _same(got, ref, rtol=RTOL, atol=1e-12, order=True):
    """Equal values and types, floats to rtol; dict key order too when ``order``."""
    assert type(got) is type(ref), (type(got), type(ref))
    if isinstance(ref, dict):
        if order:
            assert list(got) == list(ref)
        else:
            assert set(got) == set(ref)
        for k, v in ref.items():
            _same(got[k], v, rtol, atol, order)
    elif isinstance(ref, list | tuple):
        assert len(got) == len(ref)
        for a, b in zip(got, ref, strict=True):
            _same(a, b, rtol, atol, order)
    elif isinstance(ref, float):
        assert got == pytest.approx(ref, rel=rtol, abs=atol)
    else:
        assert got == ref


def _sources(G, count=3):
    nodes = list(G)
    return [nodes[i] for i in random.Random(SEED).sample(range(len(nodes)), min(count, len(G)))]


# ------------------------------------------------------------------ the backend is found
def test_entry_points_register_the_backend():
    assert HP in nx.utils.backends.backends
    info = nx.utils.backends.backend_info[HP]
    assert set(info["functions"]) == set(FUNCTIONS)
    registered = nx.utils.backends._registered_algorithms
    for name in FUNCTIONS:  # every listed function is a NetworkX dispatchable
        assert HP in registered[name].backends


# ------------------------------------------------------------------ conversion
@pytest.mark.parametrize("name", [k for k in ALL if not GRAPHS[k].is_multigraph()])
def test_conversion_round_trip(name):
    """Vertices, edges, weights and neighbour order come back (multigraph: below)."""
    G = GRAPHS[name]
    bg = from_networkx(G, {"weight": 1})
    assert isinstance(bg, BackendGraph) and bg.n == len(G)
    H = to_networkx(bg)
    assert list(H) == list(G)
    assert H.is_directed() == G.is_directed()
    assert {(u, v, d.get("weight", 1)) for u, v, d in G.edges(data=True)} == set(
        H.edges(data="weight")
    ) or not G.is_directed()
    assert nx.utils.edges_equal(H.edges(data="weight"), G.edges(data="weight", default=1))
    for u in G:  # neighbours kept in NetworkX's order
        assert list(H[u]) == list(G[u])


def test_multigraph_conversion_sums_and_takes_the_smallest():
    M = nx.MultiGraph([(0, 1, {"w": 2.0}), (0, 1, {"w": 0.5}), (1, 2, {}), (2, 2, {"w": 3})])
    bg = from_networkx(M, {"w": 1})
    ev = bg.values("w")
    assert bg.indptr.tolist() == [0, 1, 3, 5]
    assert ev.total.tolist() == [2.5, 2.5, 1.0, 1.0, 3.0]
    assert ev.least.tolist() == [0.5, 0.5, 1.0, 1.0, 3.0]
    assert not ev.integral
    with pytest.raises(NotImplementedError, match="not numbers"):
        from_networkx(nx.Graph([(0, 1, {"w": "heavy"})]), {"w": 1})


def test_cache_first_call_converts_second_reuses_mutation_clears():
    G = _random(300, 0.02, SEED)
    ref = nx.pagerank(G)
    first = nx.pagerank(G, backend=HP)
    cache = G.__networkx_cache__["backends"][HP]
    assert len(cache) == 1
    (cached,) = cache.values()
    assert isinstance(cached, BackendGraph)
    _same(nx.pagerank(G, backend=HP), first)
    assert list(cache.values())[0] is cached  # not converted again
    _same(first, ref, rtol=0, atol=len(G) * 1e-6)
    G.add_edge(0, 299)  # NetworkX clears the cache on mutation
    assert not G.__networkx_cache__.get("backends", {}).get(HP)
    _same(nx.pagerank(G, backend=HP), nx.pagerank(G), rtol=0, atol=len(G) * 1e-6)


# ------------------------------------------------------------------ PageRank
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("weight", ["weight", None])
def test_pagerank(name, weight):
    G = GRAPHS[name]
    tol = 1e-6
    _same(nx.pagerank(G, weight=weight, backend=HP), nx.pagerank(G, weight=weight), 0, len(G) * tol)


@pytest.mark.parametrize("name", ["directed", "strings_directed", "multigraph"])
def test_pagerank_options(name):
    G = GRAPHS[name]
    rng = random.Random(SEED)
    nodes = list(G)
    pers = {v: rng.random() for v in rng.sample(nodes, 10)}
    nstart = {v: rng.random() for v in nodes}
    dangling = {v: rng.random() for v in rng.sample(nodes, 5)}
    kw = dict(alpha=0.7, personalization=pers, nstart=nstart, dangling=dangling, tol=1e-10)
    _same(nx.pagerank(G, backend=HP, **kw), nx.pagerank(G, **kw), 0, len(G) * 1e-10)


def test_pagerank_errors():
    G = GRAPHS["directed"]
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=2, backend=HP)
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={"missing": 1}, backend=HP)


# ------------------------------------------------------------------ BFS and unweighted lengths
@pytest.mark.parametrize("name", NONEMPTY)
@pytest.mark.parametrize("depth_limit", [None, 0, 1, 2.5])
def test_bfs_edges_and_tree(name, depth_limit):
    G = GRAPHS[name]
    for s in _sources(G):
        got = nx.bfs_edges(G, s, depth_limit=depth_limit, backend=HP)
        assert list(got) == list(nx.bfs_edges(G, s, depth_limit=depth_limit))  # same order
        T = nx.bfs_tree(G, s, depth_limit=depth_limit, backend=HP)
        R = nx.bfs_tree(G, s, depth_limit=depth_limit)
        assert type(T) is nx.DiGraph and list(T.edges) == list(R.edges) and list(T) == list(R)


@pytest.mark.parametrize("name", NONEMPTY)
@pytest.mark.parametrize("cutoff", [None, 0, 2, 1.5])
def test_unweighted_lengths(name, cutoff):
    G = GRAPHS[name]
    for s in _sources(G):
        _same(
            nx.single_source_shortest_path_length(G, s, cutoff=cutoff, backend=HP),
            nx.single_source_shortest_path_length(G, s, cutoff=cutoff),
        )
    got = nx.all_pairs_shortest_path_length(G, cutoff=cutoff, backend=HP)
    ref = nx.all_pairs_shortest_path_length(G, cutoff=cutoff)
    assert type(got) is type(ref)  # a generator, like NetworkX's
    _same(list(got), list(ref))


@pytest.mark.parametrize("name", NONEMPTY)
@pytest.mark.parametrize("weight", [None, "weight"])
def test_shortest_path_length_every_form(name, weight):
    G = GRAPHS[name]
    s, t = _sources(G, 2) if len(G) > 1 else (next(iter(G)),) * 2
    forms = [dict(source=s), dict(source=s, target=t), dict(source=s, target=s)]
    if not G.is_directed():
        forms.append(dict(target=t))
    for kw in forms:
        try:
            ref = nx.shortest_path_length(G, weight=weight, **kw)
        except nx.NetworkXNoPath:
            with pytest.raises(nx.NetworkXNoPath):
                nx.shortest_path_length(G, weight=weight, backend=HP, **kw)
            continue
        _same(nx.shortest_path_length(G, weight=weight, backend=HP, **kw), ref)
    _same(
        list(nx.shortest_path_length(G, weight=weight, backend=HP)),
        list(nx.shortest_path_length(G, weight=weight)),
    )


def test_unweighted_errors():
    G = GRAPHS["strings"]
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, "nope", backend=HP)
    gen = nx.bfs_edges(G, "nope", backend=HP)
    with pytest.raises(nx.NetworkXError):  # raised when iterated, as NetworkX's
        next(gen)
    with pytest.raises(nx.NetworkXError):
        nx.bfs_tree(G, "nope", backend=HP)
    with pytest.raises(nx.NodeNotFound):
        nx.shortest_path_length(G, "v0", "nope", backend=HP)
    E = nx.empty_graph(3)
    with pytest.raises(nx.NetworkXNoPath):
        nx.shortest_path_length(E, 0, 2, backend=HP)
    with pytest.raises(nx.NetworkXNoPath):
        nx.shortest_path_length(E, 0, 2, weight="weight", backend=HP)


# ------------------------------------------------------------------ Dijkstra
@pytest.mark.parametrize("name", NONEMPTY)
@pytest.mark.parametrize("cutoff", [None, 2.0, 3])
def test_dijkstra_lengths(name, cutoff):
    G = GRAPHS[name]
    for s in _sources(G):
        got = nx.single_source_dijkstra_path_length(G, s, cutoff=cutoff, backend=HP)
        _same(got, nx.single_source_dijkstra_path_length(G, s, cutoff=cutoff))  # settling order


def test_dijkstra_int_weights_give_ints():
    G = GRAPHS["weighted_int_directed"]
    got = nx.single_source_dijkstra_path_length(G, 0, backend=HP)
    assert all(type(d) is int for d in got.values())


def test_dijkstra_errors():
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_dijkstra_path_length(GRAPHS["weighted"], -1, backend=HP)
    neg = nx.DiGraph()
    neg.add_weighted_edges_from([(0, 1, 1.0), (0, 2, 5.0), (2, 1, -10.0), (1, 3, 1.0)])
    with pytest.raises(ValueError, match="Contradictory"):
        nx.single_source_dijkstra_path_length(neg, 0)
    with pytest.raises(ValueError, match="Contradictory"):
        nx.single_source_dijkstra_path_length(neg, 0, backend=HP)


# ------------------------------------------------------------------ components
@pytest.mark.parametrize("name", UNDIRECTED)
def test_connected_components(name):
    G = GRAPHS[name]
    got = nx.connected_components(G, backend=HP)
    ref = nx.connected_components(G)
    assert type(got) is type(ref)  # generators
    assert list(got) == list(ref)  # the same sets in the same order
    assert nx.number_connected_components(G, backend=HP) == nx.number_connected_components(G)


@pytest.mark.parametrize("name", DIRECTED)
def test_weakly_connected_components(name):
    G = GRAPHS[name]
    assert list(nx.weakly_connected_components(G, backend=HP)) == list(
        nx.weakly_connected_components(G)
    )
    n = nx.number_weakly_connected_components(G, backend=HP)
    assert type(n) is int and n == nx.number_weakly_connected_components(G)


def test_components_wrong_direction_raise_as_networkx():
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.connected_components(GRAPHS["directed"], backend=HP))
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.weakly_connected_components(GRAPHS["undirected"], backend=HP))


# ------------------------------------------------------------------ betweenness
@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("endpoints", [False, True])
def test_betweenness(name, weight, normalized, endpoints):
    G = GRAPHS[name]
    kw = dict(weight=weight, normalized=normalized, endpoints=endpoints)
    _same(nx.betweenness_centrality(G, backend=HP, **kw), nx.betweenness_centrality(G, **kw))


@pytest.mark.parametrize("name", [k for k in NONEMPTY if len(GRAPHS[k]) > 10])
@pytest.mark.parametrize("endpoints", [False, True])
def test_betweenness_sampled_same_sources(name, endpoints):
    """The same seed draws the same sources as NetworkX, so the estimates are equal."""
    G = GRAPHS[name]
    for seed in (0, 7):
        kw = dict(k=8, seed=seed, endpoints=endpoints)
        _same(nx.betweenness_centrality(G, backend=HP, **kw), nx.betweenness_centrality(G, **kw))
    seeded = random.Random(3)
    kw = dict(k=5, endpoints=endpoints)
    got = nx.betweenness_centrality(G, seed=random.Random(3), backend=HP, **kw)
    _same(got, nx.betweenness_centrality(G, seed=seeded, **kw))


@pytest.mark.parametrize("name", [k for k in ALL if not GRAPHS[k].is_multigraph()])
@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("k", [None, 6])
def test_edge_betweenness(name, weight, k):
    G = GRAPHS[name]
    if k is not None and k > len(G):
        k = None
    kw = dict(weight=weight, k=k, seed=11)
    got = nx.edge_betweenness_centrality(G, backend=HP, **kw)
    _same(got, nx.edge_betweenness_centrality(G, **kw), order=False)


def test_betweenness_errors_and_data_fallback():
    G = GRAPHS["undirected"]
    with pytest.raises(ValueError):  # k > n: random.sample raises, as in NetworkX
        nx.betweenness_centrality(G, k=len(G) + 1, seed=1, backend=HP)
    Z = nx.Graph([(0, 1, {"weight": 0.0}), (1, 2, {"weight": 1.0})])
    with pytest.raises(NotImplementedError):  # zero weights: NetworkX's code must run
        nx.betweenness_centrality(Z, weight="weight", backend=HP)


# ------------------------------------------------------------------ triangles and clustering
def _agree(call, **same):
    """``call(backend=...)`` gives NetworkX's value, or raises NetworkX's exception type."""
    try:
        ref = call()
    except Exception as exc:  # whatever NetworkX raises, the backend must raise too
        with pytest.raises(type(exc)):
            call(backend=HP)
        return
    _same(call(backend=HP), ref, **same)


@pytest.mark.parametrize("name", UNDIRECTED)
def test_triangle_family(name):
    """Values and types (NetworkX's int 0 for a vertex without triangles); NetworkX's
    exceptions: a multigraph (except whole-graph triangles), an empty average."""
    G = GRAPHS[name]
    _agree(lambda **b: nx.triangles(G, **b))
    _agree(lambda **b: nx.clustering(G, **b))
    _agree(lambda **b: nx.transitivity(G, **b))
    for v in _sources(G, 2):
        _agree(lambda v=v, **b: nx.triangles(G, v, **b))
        _agree(lambda v=v, **b: nx.clustering(G, v, **b))
    for zeros in (True, False):
        _agree(lambda zeros=zeros, **b: nx.average_clustering(G, count_zeros=zeros, **b))


def test_triangles_directed_raises_as_networkx():
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.triangles(GRAPHS["directed"], backend=HP)


# ------------------------------------------------------------------ can_run / should_run
UNSUPPORTED = [  # (function, arguments after G, keyword arguments, graph)
    ("bfs_edges", (0,), {"sort_neighbors": sorted}, "directed"),
    ("bfs_edges", (0,), {"reverse": True}, "directed"),
    ("bfs_tree", (0,), {"reverse": True}, "directed"),
    ("clustering", (), {}, "directed"),
    ("clustering", (), {"weight": "weight"}, "weighted"),
    ("clustering", ([0, 1, 2],), {}, "undirected"),
    ("average_clustering", (), {"nodes": [0, 1]}, "undirected"),
    ("transitivity", (), {}, "directed"),
    ("triangles", ([0, 1],), {}, "undirected"),
    ("shortest_path_length", (), {"target": 3}, "directed"),
    ("shortest_path_length", (0,), {"weight": "weight", "method": "bellman-ford"}, "weighted"),
    ("single_source_dijkstra_path_length", (0,), {"weight": lambda u, v, d: 2}, "weighted"),
    ("edge_betweenness_centrality", (), {}, "multigraph"),
    ("betweenness_centrality", (), {"weight": lambda u, v, d: 1.5}, "weighted"),
]


def _materialise(out):
    return out if isinstance(out, dict | float | int | nx.Graph) else list(out)


@pytest.mark.parametrize(("name", "args", "kwargs", "graph"), UNSUPPORTED)
def test_unsupported_arguments_fall_back_to_networkx(name, args, kwargs, graph, monkeypatch):
    G = GRAPHS[graph].copy()
    func = getattr(nx, name)
    assert isinstance(can_run(name, (G, *args), kwargs), str)
    ref = _materialise(func(G, *args, **kwargs))
    with pytest.raises(NotImplementedError, match="for the given arguments"):
        _materialise(func(G, *args, backend=HP, **kwargs))  # asked for by name: refuses
    monkeypatch.setattr(nx.config.backend_priority, "algos", [HP])
    got = _materialise(func(G, *args, **kwargs))  # automatic dispatch: NetworkX answers
    if isinstance(ref, nx.Graph):
        assert list(got.edges) == list(ref.edges)
    else:
        assert got == ref
    assert not G.__networkx_cache__.get("backends", {}).get(HP)  # never converted


def test_can_run_reasons():
    G = GRAPHS["directed"]
    assert can_run("pagerank", (G,), {}) is True
    assert "callable" in can_run("pagerank", (G,), {"weight": len})
    assert "not implemented" in can_run("fast_label_propagation_communities", (G,), {})
    assert "do not match" in can_run("pagerank", (G,), {"no_such_argument": 1})


def test_should_run_small_graphs_go_back_to_networkx(monkeypatch):
    small = nx.path_graph(10)
    big = nx.path_graph(SMALL_GRAPH["pagerank"])
    assert isinstance(should_run("pagerank", (small,), {}), str)
    assert should_run("pagerank", (big,), {}) is True
    assert should_run("betweenness_centrality", (nx.path_graph(40),), {}) is True
    for name in ("bfs_edges", "connected_components", "single_source_dijkstra_path_length"):
        size = SMALL_GRAPH[name]  # one traversal: large graphs only
        assert size >= TRAVERSAL
        assert isinstance(should_run(name, (nx.empty_graph(size - 1), 0), {}), str)
        assert should_run(name, (nx.empty_graph(size), 0), {}) is True
    mid = nx.empty_graph(TRAVERSAL - 1)
    assert isinstance(should_run("shortest_path_length", (mid, 0), {}), str)
    assert should_run("shortest_path_length", (mid,), {}) is True  # all pairs
    monkeypatch.setattr(nx.config.backend_priority, "algos", [HP])
    nx.pagerank(small)  # NetworkX ran: nothing converted
    assert not small.__networkx_cache__.get("backends", {}).get(HP)
    nx.pagerank(big)  # hpgraph ran: the conversion is cached
    assert big.__networkx_cache__["backends"][HP]
    nx.pagerank(small, backend=HP)  # asked for by name: runs whatever the size
    assert small.__networkx_cache__["backends"][HP]
    assert should_run("pagerank", (small,), {}) is True  # converted already: no cost left
    assert should_run("bfs_edges", (small, 0), {}) is True


def test_results_hold_python_numbers_not_numpy():
    G = GRAPHS["weighted"]
    for out in (
        nx.pagerank(G, backend=HP),
        nx.betweenness_centrality(G, backend=HP),
        nx.triangles(G, backend=HP),
        nx.single_source_shortest_path_length(G, 0, backend=HP),
        nx.single_source_dijkstra_path_length(G, 0, backend=HP),
    ):
        assert all(type(v) in (int, float) for v in out.values())
    assert type(nx.number_connected_components(G, backend=HP)) is int
    assert type(nx.transitivity(G, backend=HP)) is float


# ------------------------------------------------------------------ NetworkX's own tests
#: NetworkX's test modules that call the dispatched functions directly (the whole suite,
#: where other functions reach them too, takes about 20 minutes on 2 cores: see
#: docs/networkx.md for its result).
NX_TEST_MODULES = [
    "algorithms/link_analysis/tests/test_pagerank.py",
    "algorithms/traversal/tests/test_bfs.py",
    "algorithms/shortest_paths/tests/test_generic.py",
    "algorithms/shortest_paths/tests/test_unweighted.py",
    "algorithms/shortest_paths/tests/test_weighted.py",
    "algorithms/components/tests/test_connected.py",
    "algorithms/components/tests/test_weakly_connected.py",
    "algorithms/centrality/tests/test_betweenness_centrality.py",
    "algorithms/tests/test_cluster.py",
    "algorithms/community/tests/test_label_propagation.py",
]


def run_networkx_tests(tmp_path, *args):
    """NetworkX's own tests ``args`` (paths, pytest options) run against the backend in a
    fresh process from ``tmp_path``; asserts they pass and returns pytest's summary."""
    env = dict(os.environ, NETWORKX_TEST_BACKEND=HP, NETWORKX_FALLBACK_TO_NX="True")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    tail = proc.stdout[-3000:]
    assert proc.returncode == 0, tail
    summary = tail.strip().splitlines()[-1]
    assert "failed" not in summary and " passed" in summary, summary
    return summary


def test_networkx_own_tests_pass_with_the_backend(tmp_path):
    root = Path(nx.__file__).parent
    summary = run_networkx_tests(tmp_path, *[str(root / m) for m in NX_TEST_MODULES])
    assert int(summary.split(" passed")[0].split()[-1]) >= 300, summary


def test_graph_views_convert_as_iterated():
    """A filtered view's rows can report a len() that differs from what they yield (an
    edge-induced multigraph view); the conversion follows what they yield."""
    M = GRAPHS["multigraph"]
    keep = [e for i, e in enumerate(M.edges(keys=True)) if i % 3]
    V = M.edge_subgraph(keep)
    _same(nx.pagerank(V, weight=None, backend=HP), nx.pagerank(V, weight=None), 0, 1e-4)
    assert list(nx.connected_components(V, backend=HP)) == list(nx.connected_components(V))
    R = GRAPHS["strings_directed"].reverse(copy=False)
    _same(nx.single_source_dijkstra_path_length(R, "v3", backend=HP),
          nx.single_source_dijkstra_path_length(R, "v3"))  # fmt: skip
