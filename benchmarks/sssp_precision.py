"""SSSP in float64 and float32 (``dtype``) against the GAP reference's ``sssp``, root by
root: for each root, GAP's ``sssp -n 3`` (its middle trial, reading excluded) and each
precision's best of 3 calls of ``hp.sssp`` (delta-stepping, the numbering ``order="auto"``
picks, parents included; the hub-grouped view built before the timed calls, as the
benchmark harness does), in turn, so that a busy core slows every system of the same
root alike. Also the parent pass alone (one thread), the
work hpgraph does and GAP's ``sssp`` does not (GAP returns distances only).

    .venv/bin/python benchmarks/sssp_precision.py --uniform 1M:16M --gap /tmp/gapbs
    .venv/bin/python benchmarks/sssp_precision.py --kronecker 20 --gap /tmp/gapbs --rounds 3

The graph gets the benchmark's weights (uniform in [0, 1), rounded to multiples of 2^-20,
:func:`hpgraph.bench.gap.quantize_weights`); GAP reads them times 2^20 as int32 and runs
with the same bucket width in those units. Without ``--gap`` only hpgraph is timed.
Prints one line per root and the medians with their ratio to GAP.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
import time

import numpy as np


def _graph(args):
    from hpgraph.bench.gap import quantize_weights
    from hpgraph.bench.graphs import make_graph
    from hpgraph.graph.csr import Graph

    spec = f"kronecker:{args.kronecker}" if args.kronecker else f"uniform:{args.uniform}"
    g, _ = make_graph(spec, weighted=True, seed=args.seed, threads=args.threads)
    return spec, Graph(g.indptr, g.indices, quantize_weights(g.weights), directed=g.directed)


def _gap_time(gap, wsg, delta_units, root):
    env = dict(os.environ, OMP_NUM_THREADS=str(2))
    cmd = [os.path.join(gap, "sssp"), "-f", wsg, "-d", str(delta_units), "-r", str(root)]
    out = subprocess.run(cmd + ["-n", "3"], capture_output=True, text=True, env=env, check=True)
    trials = sorted(float(x) for x in re.findall(r"Trial Time:\s+([\d.]+)", out.stdout))
    return trials[len(trials) // 2]


def _best(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--uniform", default="1M:16M", help="N:M of a uniform graph [1M:16M]")
    p.add_argument("--kronecker", type=int, default=None, help="Kronecker scale instead")
    p.add_argument("--gap", default=None, metavar="DIR", help="GAP's built programs")
    p.add_argument("--roots", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3, help="passes over the roots [3]")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    from hpgraph.algorithms.delta_stepping import _parent_pass, default_delta
    from hpgraph.algorithms.sssp import sssp
    from hpgraph.bench.gap import WEIGHT_SCALE, write_serialized
    from hpgraph.bench.graphs import choose_roots

    name, g = _graph(args)
    roots = [int(r) for r in choose_roots(g, args.roots, args.seed)]
    delta = default_delta(g)
    print(f"{name}: |V|={g.n:,} stored edges {g.num_stored_edges:,}, delta {delta:.3g}, "
          f"roots {roots}, {args.threads} threads")  # fmt: skip
    dtypes = ("float64", "float32")
    times = {k: [] for k in dtypes}
    with tempfile.TemporaryDirectory() as tmp:
        wsg = None
        if args.gap:
            times["gap"] = []
            wsg = write_serialized(g, os.path.join(tmp, "graph.wsg"), weighted=True)
        for dt in dtypes:  # compile, and build the view order="auto" picks
            sssp(g, roots[0], delta=delta, threads=args.threads, dtype=dt)
        for _ in range(args.rounds):
            for r in roots:
                if wsg:
                    times["gap"].append(_gap_time(args.gap, wsg, round(delta * WEIGHT_SCALE), r))
                for key in dtypes:
                    run = lambda: sssp(g, r, delta=delta, threads=args.threads, dtype=key)  # noqa: E731, B023
                    times[key].append(_best(run))
                last = ", ".join(f"{k} {1e3 * t[-1]:.0f} ms" for k, t in times.items())
                print(f"root {r}: {last}", flush=True)
    for key in dtypes:
        line = f"{key}: median {1e3 * np.median(times[key]):.1f} ms"
        if "gap" in times:
            ratio = np.median(np.array(times[key]) / np.array(times["gap"]))
            line += f", {ratio:.2f}x GAP (median of the per-root ratios)"
        print(line)
    if "gap" in times:
        print(f"gap: median {1e3 * np.median(times['gap']):.1f} ms")
    # the parent pass alone, one thread, on the last root's float64 distances (input order)
    dist = sssp(g, roots[-1], delta=delta, threads=1, order="input")["distance"]

    def parents():
        parent = np.full(g.n, g.n, dtype=np.int64)
        parent[roots[-1]] = roots[-1]
        counter = np.zeros(8, dtype=np.int64)
        _parent_pass(g.indptr, g.indices, g.weights, dist, parent, counter, not g.directed)

    print(f"parent pass alone, 1 thread: {1e3 * _best(parents, 5):.1f} ms")


if __name__ == "__main__":
    main()
