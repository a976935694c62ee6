"""hpgraph as a NetworkX backend against NetworkX itself and graphblas-algorithms (the
``graphblas`` backend, where it installs), timed in the same run on the same NetworkX
graph.

    python benchmarks/nxbackend_bench.py [--scale 20] [--nx-scale 16] [--k 64] [--seed 1]
    python benchmarks/nxbackend_bench.py --crossover    # where should_run lets hpgraph run
    python benchmarks/nxbackend_bench.py --scale 20 --hpgraph-only   # hpgraph's side alone
    python benchmarks/nxbackend_bench.py --scale 16 --only pagerank,bfs_edges   # some only
    python benchmarks/nxbackend_bench.py --layout 500,1000,2000     # forceatlas2_layout

Graph: the Graph500 Kronecker graph (``hp.generators.kronecker_edges``, edge factor 16:
``2**scale`` vertices, ``16 * 2**scale`` generated edges, so scale 20 is the 1M-vertex /
16M-edge graph), as an undirected ``nx.Graph`` (parallel edges merged, self-loops kept)
with a ``weight`` in (0, 1] on every edge; the ``--scale`` graph has no weights unless
``--big-weights`` (a weighted NetworkX graph at scale 20 needs about 9 GiB: NetworkX
keeps a dict per edge), so there the weighted functions read the default weight 1 (they
still read every edge's attribute dict).

Per function, one timed call each, in the same process:

- ``networkx``: NetworkX's own implementation;
- ``graphblas``: ``backend="graphblas"`` when graphblas-algorithms dispatches the function
  (its conversion included: its cache is cleared first);
- ``hpgraph 1st``: ``backend="hpgraph"`` with the conversion cache cleared, so the time
  includes converting the NetworkX graph;
- ``hpgraph 2nd``: the same call again, on the cached conversion.

Ratios are NetworkX's (or graphblas') time over hpgraph's first call, and first over
second. NetworkX (and graphblas) are timed at ``--nx-scale`` only: at scale 20 NetworkX
takes tens of minutes per function and its PageRank alone needs more memory than the
shared machine allows; hpgraph is timed at both scales, and the NetworkX time at
``--scale`` is extrapolated by the ratio of edges (every timed NetworkX function here is
linear in the edges, except the triangle family, which grows faster, so the
extrapolation flatters NetworkX there). ``--nx-scale`` equal to ``--scale`` times
NetworkX directly. A short check that the answers agree runs on every call.

graphblas-algorithms 2023.10 installs beside NetworkX 3.6 (``pip install --no-deps
graphblas-algorithms``; python-graphblas is in the ``competitors`` extra); nx-parallel does not
(0.4 needs Python 3.12, 0.3 fails to import with NetworkX 3.6), so it is not timed.
"""

from __future__ import annotations

import argparse
import gc
import resource
import time


def timed(fn):
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def rss_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def nx_graph(scale, seed, weighted=True):
    import networkx as nx

    import hpgraph as hp

    src, dst, w = hp.generators.kronecker_edges(scale, 16, seed=seed, weighted=weighted)
    G = nx.Graph()
    G.add_nodes_from(range(2**scale))
    if weighted:
        w = 1.0 - w  # (0, 1]: Dijkstra and weighted betweenness want positive weights
        G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist(), strict=True))
    else:
        G.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
    return G


def conversion(G):
    """Where a first call's time goes: converting ``G`` without and with a weight, and
    the floor any conversion pays, reading every adjacency key once (``np.fromiter``
    over ``G._adj``)."""
    from itertools import chain

    import numpy as np

    from hpgraph.nxbackend.graph import from_networkx

    m = sum(map(len, G._adj.values()))
    _, t_keys = timed(lambda: np.fromiter(chain.from_iterable(G._adj.values()), np.int64, m))
    _, t_plain = timed(lambda: from_networkx(G))
    _, t_weight = timed(lambda: from_networkx(G, {"weight": 1}))
    print(f"  conversion: read keys {t_keys:.3f} s, unweighted {t_plain:.3f} s, "
          f"weighted {t_weight:.3f} s", flush=True)  # fmt: skip


def cases(G, k, seed):
    """(name, call(G, **backend), check(got, ref)) for every benchmarked function."""
    import networkx as nx

    s = max(G, key=G.degree)  # a source in the big component

    def close(tol):
        return lambda a, b: max(abs(a[v] - b[v]) for v in b) <= tol

    def equal(a, b):
        return a == b

    return [
        ("pagerank", lambda **b: nx.pagerank(G, **b), close(len(G) * 1e-6)),
        ("connected_components", lambda **b: list(nx.connected_components(G, **b)), equal),
        ("number_connected_components", lambda **b: nx.number_connected_components(G, **b), equal),
        ("bfs_edges", lambda **b: list(nx.bfs_edges(G, s, **b)), equal),
        (
            "single_source_shortest_path_length",
            lambda **b: nx.single_source_shortest_path_length(G, s, **b),
            equal,
        ),
        (
            "single_source_dijkstra_path_length",
            lambda **b: nx.single_source_dijkstra_path_length(G, s, **b),
            close(1e-9),
        ),
        (
            f"betweenness_centrality k={k}",
            lambda **b: nx.betweenness_centrality(G, k=k, seed=seed, **b),
            close(1e-9),
        ),
        ("triangles", lambda **b: nx.triangles(G, **b), equal),
        ("clustering", lambda **b: nx.clustering(G, **b), close(1e-12)),
        ("transitivity", lambda **b: nx.transitivity(G, **b), lambda a, b: abs(a - b) < 1e-12),
        (
            "label_propagation_communities",
            lambda **b: list(nx.community.label_propagation_communities(G, **b)),
            equal,
        ),
        (
            "asyn_lpa_communities",
            lambda **b: list(nx.community.asyn_lpa_communities(G, seed=seed, **b)),
            equal,
        ),
    ]


def graphblas_functions():
    from networkx.utils.backends import backend_info

    return set(backend_info.get("graphblas", {}).get("functions", {}))


def run(scale, nx_too, k, seed, threads, weighted=True, only=None):
    import networkx as nx

    nx.config.warnings_to_ignore.add("cache")
    G, t_build = timed(lambda: nx_graph(scale, seed, weighted))
    m = G.number_of_edges()
    print(f"\nkron{scale}: {len(G):,} vertices, {m:,} edges (nx.Graph built in {t_build:.0f} s)")
    gb = graphblas_functions() if nx_too else set()
    conversion(G)
    rows = {}
    for name, call, check in cases(G, k, seed):
        base = name.split()[0]
        if only and base not in only:
            continue
        row = {}
        G.__networkx_cache__.clear()
        got, row["hp1"] = timed(lambda call=call: call(backend="hpgraph"))
        _, row["hp2"] = timed(lambda call=call: call(backend="hpgraph"))
        if nx_too:
            ref, row["nx"] = timed(lambda call=call: call(backend="networkx"))
            row["ok"] = bool(check(got, ref))
            del ref
            if base in gb:
                G.__networkx_cache__.clear()
                _, row["gb"] = timed(lambda call=call: call(backend="graphblas"))
        del got
        rows[name] = row
        shown = "  ".join(f"{key} {v:8.3f}" if isinstance(v, float) else f"{key} {v}"
                          for key, v in row.items())  # fmt: skip
        print(f"  {name:38s} {shown}   (max RSS {rss_gib():.1f} GiB)", flush=True)
    return m, rows


def crossover(sizes=(25, 50, 100, 200, 400, 1000, 3000, 10000, 30000)):
    """NetworkX's time over hpgraph's first call (conversion included) on G(n, 4n), best
    of 3: where hpgraph starts to pay (``should_run``'s thresholds)."""
    import networkx as nx

    nx.config.warnings_to_ignore.add("cache")
    fs = {
        "pagerank": lambda G, **b: nx.pagerank(G, **b),
        "components": lambda G, **b: list(nx.connected_components(G, **b)),
        "sssp_length": lambda G, **b: nx.single_source_shortest_path_length(G, 0, **b),
        "betweenness": lambda G, **b: nx.betweenness_centrality(G, k=min(len(G), 64), seed=1, **b),
        "clustering": lambda G, **b: nx.clustering(G, **b),
        "triangles": lambda G, **b: nx.triangles(G, **b),
    }

    def best(f):
        out = []
        for _ in range(3):
            out.append(timed(f)[1])
        return min(out)

    W = nx.gnm_random_graph(300, 1200, seed=1)
    for f in fs.values():  # warm-up (JIT caches)
        f(W, backend="hpgraph")
    print("\nNetworkX time / hpgraph first call, G(n, 4n):")
    print(f"{'n':>7s} " + " ".join(f"{k:>12s}" for k in fs))
    for n in sizes:
        G = nx.gnm_random_graph(n, 4 * n, seed=1)
        row = []
        for f in fs.values():
            t_nx = best(lambda f=f, G=G: f(G))

            def first(f=f, G=G):
                G.__networkx_cache__.clear()
                f(G, backend="hpgraph")

            row.append(t_nx / best(first))
        print(f"{n:7d} " + " ".join(f"{r:12.2f}" for r in row), flush=True)


def layout(sizes, seed, max_iter=100):
    """``forceatlas2_layout`` on G(n, 4n): NetworkX (dense ``n x n`` arrays, O(n^2) per
    iteration) against hpgraph's first and second call, same seed, one call each; the
    largest position difference relative to the layout's extent."""
    import networkx as nx
    import numpy as np

    nx.config.warnings_to_ignore.add("cache")
    nx.forceatlas2_layout(nx.path_graph(20), seed=seed, backend="hpgraph")  # warm-up
    print(f"\nforceatlas2_layout, G(n, 4n), max_iter={max_iter}:")
    print(f"{'n':>7s} {'nx s':>8s} {'hp1 s':>8s} {'hp2 s':>8s} {'nx/hp1':>7s} {'nx/hp2':>7s} "
          f"{'max diff':>9s}")  # fmt: skip
    for n in sizes:
        G = nx.gnm_random_graph(n, 4 * n, seed=seed)

        def fa2(G=G, **b):
            return nx.forceatlas2_layout(G, seed=seed, max_iter=max_iter, **b)

        ref, t_nx = timed(fa2)
        G.__networkx_cache__.clear()
        got, t1 = timed(lambda fa2=fa2: fa2(backend="hpgraph"))
        _, t2 = timed(lambda fa2=fa2: fa2(backend="hpgraph"))
        a = np.array(list(ref.values()), dtype=float)
        b = np.array(list(got.values()), dtype=float)
        diff = np.abs(a - b).max() / np.ptp(a, axis=0).max()
        print(f"{n:7d} {t_nx:8.3f} {t1:8.3f} {t2:8.3f} {t_nx / t1:7.1f} {t_nx / t2:7.1f} "
              f"{diff:9.1e}", flush=True)  # fmt: skip


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--nx-scale", type=int, default=16)
    p.add_argument("--k", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument(
        "--big-weights",
        action="store_true",
        help="weights on the --scale graph too (scale 20 then needs about 10 GiB)",
    )
    p.add_argument("--crossover", action="store_true", help="only the small-graph crossover")
    p.add_argument("--hpgraph-only", action="store_true", help="only hpgraph, at --scale")
    p.add_argument("--only", help="comma-separated function names: time only these")
    p.add_argument(
        "--layout",
        help="only forceatlas2_layout, on G(n, 4n) for these comma-separated n",
    )
    args = p.parse_args(argv)
    if args.crossover:
        crossover()
        return
    if args.layout:
        layout([int(n) for n in args.layout.split(",")], args.seed)
        return
    only = set(args.only.split(",")) if args.only else None

    import networkx as nx

    import hpgraph

    print(f"networkx {nx.__version__}, hpgraph {hpgraph.__version__}")
    # warm-up: compile (or load from numba's cache) every kernel on a small graph
    run(8, False, 4, args.seed, args.threads)
    if args.hpgraph_only:  # the big graph alone (run under the shared lock)
        run(args.scale, False, args.k, args.seed, args.threads, args.big_weights, only)
        print(f"max RSS {rss_gib():.1f} GiB")
        return
    m_small, small = run(args.nx_scale, True, args.k, args.seed, args.threads, only=only)
    if args.scale != args.nx_scale:
        m_big, big = run(args.scale, False, args.k, args.seed, args.threads, args.big_weights, only)
    else:
        m_big, big = m_small, small
    grow = m_big / m_small
    print(f"\nRatios (> 1: hpgraph faster). NetworkX at kron{args.scale} = its kron{args.nx_scale} "
          f"time x {grow:.1f} (edges) where not timed there.")  # fmt: skip
    head = f"{'function':38s} {'nx/hp1':>8s} {'gb/hp1':>8s} {'hp1/hp2':>8s}"
    print(f"{'':38s} {'kron' + str(args.nx_scale):>26s} | {'kron' + str(args.scale):>26s}")
    print(f"{head} | {'nx*/hp1':>8s} {'hp1 s':>8s} {'hp2 s':>8s} {'hp1/hp2':>8s}")
    for name, r in small.items():
        b = big[name]
        gb = f"{r['gb'] / r['hp1']:8.1f}" if "gb" in r else f"{'-':>8s}"
        nx_big = b["nx"] if "nx" in b else r["nx"] * grow
        print(
            f"{name:38s} {r['nx'] / r['hp1']:8.1f} {gb} {r['hp1'] / r['hp2']:8.1f} | "
            f"{nx_big / b['hp1']:8.1f} {b['hp1']:8.2f} {b['hp2']:8.2f} {b['hp1'] / b['hp2']:8.1f}"
        )
    print(f"max RSS {rss_gib():.1f} GiB")


if __name__ == "__main__":
    main()
