"""Local clustering coefficient on a Graph500 Kronecker graph (undirected): hpgraph's lcc
against NetworKit's LocalClusteringCoefficient (turbo: its degree-ordered variant) and
igraph's transitivity_local_undirected, all in this run, on the same graph, with the
same thread count (igraph runs on one thread: it has no parallel LCC).

Each trial times every system in turn (interleaved, so load drifts hit all alike); the
report gives the median per system and the ratio competitor time / hpgraph time (> 1:
hpgraph is faster). hpgraph is timed twice per trial: "cold" on a fresh Graph object, so
the time includes deriving its degree-ordered view (the competitors get theirs,
NetworKit's Graph with multi-edges and loops removed and igraph's simplified Graph,
untimed), and "warm" with that view cached. Results are checked against both
competitors (max |difference| of LCC).

    python benchmarks/lcc_bench.py [--scale 18] [--threads 2] [--trials 3] [--turbo-off]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--turbo-off", action="store_true", help="also time NetworKit without turbo (slow)"
    )
    args = ap.parse_args(argv)
    print("command: python " + " ".join(sys.argv), flush=True)

    import igraph as ig
    import networkit as nk

    import hpgraph as hp
    from hpgraph.algorithms.lcc import lcc
    from hpgraph.graph import Graph

    t, g = timed(
        lambda: hp.generators.kronecker(
            args.scale, edge_factor=args.edge_factor, seed=args.seed, threads=args.threads
        )
    )
    print(f"graph: {g!r}, generated in {t:.2f} s; {args.threads} threads", flush=True)
    lcc(hp.generators.kronecker(8, seed=1), threads=args.threads)  # compile or load kernels

    src, dst, _ = g.edges()
    keep = src < dst  # each undirected edge once, loops dropped
    s, d = src[keep], dst[keep]
    nk.setNumberOfThreads(args.threads)
    G = nk.Graph(g.n, False, False)
    G.addEdges((s.astype(np.uint64), d.astype(np.uint64)))
    G.removeMultiEdges()
    I = ig.Graph(n=g.n, edges=np.stack([s, d], axis=1), directed=False).simplify()
    print(f"simple view: {G.numberOfEdges():,} edges (networkit), {I.ecount():,} (igraph)")

    def nk_lcc(turbo):
        a = nk.centrality.LocalClusteringCoefficient(G, turbo=turbo)
        a.run()
        return np.asarray(a.scores())

    systems = {
        "hpgraph cold": lambda: lcc(
            Graph(g.indptr, g.indices, directed=False), threads=args.threads
        ),
        "hpgraph warm": lambda: lcc(g, threads=args.threads),
        "networkit turbo": lambda: nk_lcc(True),
        "igraph": lambda: np.asarray(I.transitivity_local_undirected(mode="zero")),
    }
    if args.turbo_off:
        systems["networkit"] = lambda: nk_lcc(False)
    times = {k: [] for k in systems}
    outputs = {}
    for trial in range(args.trials):
        for name, fn in systems.items():
            t, out = timed(fn)
            times[name].append(t)
            outputs[name] = out
        print(f"trial {trial}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in times.items()))

    ours = outputs["hpgraph warm"]
    for name, out in outputs.items():
        if name.startswith("hpgraph"):
            continue
        diff = float(np.max(np.abs(out - ours["lcc"]))) if g.n else 0.0
        print(f"max |lcc - {name}| = {diff:.2e}")
    print(f"triangles {ours.meta['triangles']:,}, transitivity {ours.meta['transitivity']:.6f}")

    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\nmedian of {args.trials} trials, {args.threads} threads")
    print(f"{'system':<18}{'seconds':>10}{'vs cold':>10}{'vs warm':>10}")
    for name, t in med.items():
        print(
            f"{name:<18}{t:>10.3f}{t / med['hpgraph cold']:>10.2f}{t / med['hpgraph warm']:>10.2f}"
        )
    print("ratios: competitor time / hpgraph time (> 1: hpgraph is faster)")


if __name__ == "__main__":
    main()
