"""Betweenness from k sampled sources and all-pairs shortest paths, hpgraph against
NetworKit and igraph (and SciPy for APSP), timed in the same run on the same graphs.

    python benchmarks/betweenness_bench.py [--scale 18] [--k 64] [--threads 2]
                                      [--apsp-scale 12] [--no-igraph]

Betweenness: the Graph500 Kronecker graph (undirected, parallel edges collapsed for the
competitors, as hpgraph collapses them), k sources drawn with numpy's default_rng(seed).
hpgraph and igraph (``Graph.betweenness(sources=...)``, exact subset, one thread) use
exactly those sources; NetworKit's ``EstimateBetweenness(G, k, parallel=True)`` draws
its own k sources and weights the contributions by distance (Sanders et al.), the same
work: k BFS plus k dependency accumulations. APSP: Kronecker ``--apsp-scale``,
unweighted, the dense matrix; NetworKit ``distance.APSP`` (parallel), SciPy
``csgraph.shortest_path(unweighted=True)`` (one thread). One timed run each after an
untimed warm-up of hpgraph (JIT caches); ratios = competitor time / hpgraph time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def simple_edges(g):
    """Each undirected edge once, parallel edges and self-loops dropped."""
    from hpgraph.graph.views import collapsed_view

    ip, ix, _ = collapsed_view(g, weighted=False)
    src = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(ip))
    dst = ix.astype(np.int64)
    keep = src < dst
    return src[keep], dst[keep]


def bench_betweenness(args):
    import networkit as nk

    import hpgraph as hp
    from hpgraph.algorithms.betweenness import betweenness

    g = hp.generators.kronecker(args.scale, seed=args.seed, threads=args.threads)
    src, dst = simple_edges(g)
    print(f"kron{args.scale}: {g.n:,} vertices, {src.size:,} simple undirected edges; "
          f"k = {args.k}, threads = {args.threads}")  # fmt: skip
    sources = np.sort(np.random.default_rng(args.seed).choice(g.n, args.k, replace=False))
    betweenness(g, sources=sources[:2].tolist(), threads=args.threads)  # warm-up (JIT)

    ng = nk.Graph(g.n, False, False)
    ng.addEdges((src.astype(np.uint64), dst.astype(np.uint64)))
    nk.setNumberOfThreads(args.threads)

    r, t_hp = timed(lambda: betweenness(g, sources=sources.tolist(), threads=args.threads))
    rows = [("hpgraph", t_hp, f"{args.threads} peers, BFS Brandes")]

    def run_nk():
        e = nk.centrality.EstimateBetweenness(ng, args.k, False, True)
        e.run()
        return e

    _, t_nk = timed(run_nk)
    rows.append(("networkit", t_nk, f"EstimateBetweenness, {nk.getMaxNumberOfThreads()} threads"))
    if args.igraph:
        import igraph as ig

        ig_g = ig.Graph(n=g.n, edges=list(zip(src.tolist(), dst.tolist(), strict=True)))
        ib, t_ig = timed(lambda: ig_g.betweenness(sources=sources.tolist(), directed=False))
        rows.append(("igraph", t_ig, "betweenness(sources=...), 1 thread"))
        # same definition: igraph's subset sum equals hpgraph's up to one constant factor
        mine = r["betweenness"].copy()
        other = np.asarray(ib)
        nonsrc = np.ones(g.n, bool)
        nonsrc[sources] = False
        sel = nonsrc & (mine > 0)
        ratio = other[sel] / mine[sel]
        rows[-1] = rows[-1][:2] + (
            rows[-1][2] + f"; agrees up to x{np.median(ratio):.6g} "
            f"(spread {np.ptp(ratio) / np.median(ratio):.1e})",
        )
    report("betweenness, k sources", rows, t_hp)
    copy = g.derived(("views.collapsed", False), lambda: None)
    print(f"hpgraph state per peer: 32 B per vertex (dist int32, sigma, coefficient, result "
          f"float64, stack int32) = {32 * g.n / 2**20:.1f} MiB; collapsed graph copy "
          f"{(copy[0].nbytes + copy[1].nbytes) / 2**20:.1f} MiB")  # fmt: skip


def bench_apsp(args):
    import networkit as nk
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    import hpgraph as hp
    from hpgraph.algorithms.apsp import apsp

    g = hp.generators.kronecker(args.apsp_scale, seed=args.seed, threads=args.threads)
    src, dst = simple_edges(g)
    print(f"\nkron{args.apsp_scale}: {g.n:,} vertices, {src.size:,} simple undirected edges; "
          f"dense matrix {8 * g.n * g.n / 2**20:.0f} MiB")  # fmt: skip
    apsp(hp.generators.kronecker(6, seed=1), threads=args.threads)  # warm-up (JIT)
    r, t_hp = timed(lambda: apsp(g, threads=args.threads))
    rows = [("hpgraph", t_hp, f"{args.threads} peers, BFS per source")]
    ng = nk.Graph(g.n, False, False)
    ng.addEdges((src.astype(np.uint64), dst.astype(np.uint64)))

    def run_nk():
        a = nk.distance.APSP(ng)
        a.run()
        return a

    a, t_nk = timed(run_nk)
    rows.append(("networkit", t_nk, "distance.APSP"))
    m = csr_matrix((np.ones(src.size), (src, dst)), shape=(g.n, g.n))
    d, t_sp = timed(lambda: shortest_path(m, directed=False, unweighted=True))
    rows.append(("scipy", t_sp, "csgraph.shortest_path(unweighted=True), 1 thread"))
    assert np.array_equal(d, r.distances), "scipy and hpgraph disagree"
    report("apsp, dense", rows, t_hp)


def report(title, rows, t_hp):
    print(f"{title}:")
    for name, t, note in rows:
        print(f"  {name:10s} {t:8.2f} s  {t / t_hp:6.2f}x  {note}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--apsp-scale", type=int, default=12)
    ap.add_argument("--no-igraph", dest="igraph", action="store_false")
    args = ap.parse_args()
    bench_betweenness(args)
    if args.apsp_scale > 0:
        bench_apsp(args)


if __name__ == "__main__":
    main()
