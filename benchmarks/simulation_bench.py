"""Dual and strict simulation on a labelled Graph500 Kronecker graph.

No PyPI package has strict simulation, so its time is reported on its own. Dual
simulation is compared with a vectorised numpy/scipy fix-point timed in the same run on
the same graph (a boolean n x |Vq| relation; per pattern edge (u, w) one sparse
matrix-vector product keeps the candidates of u with a child in sim(w), one with the
transpose keeps those of w with a parent in sim(u), until nothing changes), and the two
relations must be equal.

    python benchmarks/simulation_bench.py [--scale 16] [--labels 4] [--threads 2] [--trials 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def scipy_dual(graph, init, pat):
    """The reference fix-point; returns (masks, rounds)."""
    import scipy.sparse as sp

    n, k = graph.n, pat.k
    a = sp.csr_matrix(
        (np.ones(graph.indices.shape[0], np.float32), graph.indices, graph.indptr), shape=(n, n)
    )
    at = a.T.tocsr()
    s = ((init[:, None] >> np.arange(k)) & 1).astype(bool)
    edges = list(zip(pat.src.tolist(), pat.dst.tolist(), strict=True))
    rounds = 0
    while True:
        rounds += 1
        before = int(s.sum())
        for u, w in edges:
            s[:, u] &= (a @ s[:, w].astype(np.float32)) > 0
            s[:, w] &= (at @ s[:, u].astype(np.float32)) > 0
        if int(s.sum()) == before:
            break
    masks = (s.astype(np.int64) << np.arange(k)).sum(axis=1)
    return masks, rounds


def timed(fn, trials):
    out, times = None, []
    for _ in range(trials):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--labels", type=int, default=4, help="distinct vertex labels")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    import hpgraph as hp
    from hpgraph.algorithms.simulation import (
        Pattern,
        _initial_masks,
        dual_simulation,
        strict_simulation,
    )

    g = hp.generators.kronecker(args.scale, seed=args.seed, directed=True)
    labels = np.random.default_rng(args.seed).integers(0, args.labels, g.n)
    # a directed triangle with a tail: 4 vertices, 4 edges, diameter 2
    pat = Pattern(("a", "b", "c", "d"), (0, 1, 2, 3), [0, 1, 2, 2], [1, 2, 0, 3])
    print(
        f"kron{args.scale} directed: {g.n:,} vertices, {g.num_edges:,} edges; "
        f"{args.labels} labels uniform at random (seed {args.seed}); pattern: a -> b -> c -> a, "
        f"c -> d, labels 0..3, diameter {pat.diameter}; local runtime, {args.threads} threads; "
        f"median of {args.trials} after an untimed warm-up"
    )
    init = _initial_masks(g, labels, pat)

    dual_simulation(g, labels, pat, threads=args.threads)  # warm-up: kernels, message graph
    d, t_dual = timed(lambda: dual_simulation(g, labels, pat, threads=args.threads), args.trials)
    (ref, rounds), t_ref = timed(lambda: scipy_dual(g, init, pat), args.trials)
    assert np.array_equal(ref, d["mask"]), "dual simulation differs from the scipy fix-point"
    tot = d.stats.totals()
    print(
        f"dual simulation  hpgraph {t_dual * 1e3:8.1f} ms  supersteps {d.meta['supersteps']}, "
        f"messages {int(tot['messages']):,}, pairs {d.meta['pairs']:,} of "
        f"{int(sum(bin(x).count('1') for x in init.tolist())):,} label-compatible"
    )
    print(
        f"                 scipy   {t_ref * 1e3:8.1f} ms  ({rounds} rounds of "
        f"{2 * pat.src.size} SpMVs)  ->  hpgraph / scipy = {t_dual / t_ref:.2f}"
    )

    strict_simulation(g, labels, pat, threads=args.threads)  # warm-up
    s, t_strict = timed(
        lambda: strict_simulation(g, labels, pat, threads=args.threads), args.trials
    )
    m = s.meta
    ball_s = s.ball_stats.total_s if s.ball_stats is not None else 0.0
    bsp_msgs = sum(x.messages for x in s.ball_stats.supersteps) if s.ball_stats else 0
    balls = max(m["balls"], 1)
    print(
        f"strict sim.      hpgraph {t_strict * 1e3:8.1f} ms  (ball phase {ball_s * 1e3:.1f}); "
        f"balls {m['balls']:,}, mean ball {m['ball_vertices'] / balls:.1f} vertices and "
        f"{m['ball_edges'] / balls:.1f} edges, matches {m['matches']:,} "
        f"({m['matches_found']:,} before removing duplicates); ball phase: "
        f"{m.get('ball_supersteps', 0)} superstep, {bsp_msgs} messages"
    )
    mg = g.derived(("dual_simulation_messages",), lambda: None)
    print(
        f"memory: graph {g.memory_bytes() / g.num_edges:.1f} B/edge; message graph "
        f"{mg.memory_bytes() / g.num_edges:.1f} B/edge (with its in-edges); values "
        f"{8 * (1 + pat.k)} B/vertex"
    )


if __name__ == "__main__":
    main()
