"""SSSP on MPI: Bellman-Ford against delta-stepping in bucket-synchronous supersteps at
several bucket widths, each rank holding only its part of the graph.

    .venv/bin/mpiexec -n 2 .venv/bin/python benchmarks/sssp_mpi_bench.py --uniform 1M:16M
    .venv/bin/mpiexec -n 2 .venv/bin/python benchmarks/sssp_mpi_bench.py --kronecker 20

Every rank makes the same seeded weighted graph and keeps its part
(:func:`hpgraph.runtimes.mpi.parts.split_graph`); the source is the vertex of highest
out-degree. Each run is timed between barriers after one untimed call (median of
``--trials``); rank 0 prints the time, the supersteps and the messages of each, and
checks that every run gives Bellman-Ford's distances bit for bit. Widths are in multiples
of the shared-memory default (:func:`hpgraph.algorithms.delta_stepping.default_delta`);
the supersteps form's default is :data:`hpgraph.algorithms.sssp.SUPERSTEP_WIDEN` of them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--uniform", default="1M:16M", help="N:M of a uniform graph [1M:16M]")
    p.add_argument("--kronecker", type=int, default=None, help="Kronecker scale instead")
    p.add_argument("--widths", default="1,4,16,64", help="widths, x the default [1,4,16,64]")
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)

    from mpi4py import MPI

    from hpgraph.algorithms import sssp
    from hpgraph.algorithms.delta_stepping import default_delta
    from hpgraph.bench.graphs import make_graph
    from hpgraph.runtimes.mpi import MPIRuntime
    from hpgraph.runtimes.mpi.parts import split_graph

    comm = MPI.COMM_WORLD
    rt = MPIRuntime()
    spec = f"kronecker:{args.kronecker}" if args.kronecker else f"uniform:{args.uniform}"
    g, _ = make_graph(spec, weighted=True, seed=args.seed, threads=1)
    part = split_graph(g, comm)
    src = int(np.argmax(np.diff(g.indptr)))
    d0 = default_delta(g)
    runs = [("bellman-ford", None, None)]
    runs += [("delta-stepping", float(f), d0 * float(f)) for f in args.widths.split(",")]
    if comm.rank == 0:
        print(f"{spec}, {comm.size} ranks, source {src}, default width {d0:.4g}", flush=True)
    want = None
    for variant, factor, delta in runs:
        sssp(part, src, variant=variant, runtime=rt, delta=delta)
        times = []
        for _ in range(args.trials):
            comm.Barrier()
            t = time.perf_counter()
            r = sssp(part, src, variant=variant, runtime=rt, delta=delta)
            comm.Barrier()
            times.append(time.perf_counter() - t)
        want = r["distance"] if want is None else want
        same = bool(np.array_equal(r["distance"], want))
        sent = sum(s.messages_local + s.messages_remote for s in r.stats.supersteps)
        if comm.rank == 0:
            name = variant if factor is None else f"{variant} x{factor:g}"
            print(f"{name}: median {np.median(times):.3f} s, {r.meta['supersteps']} supersteps, "
                  f"{sent / 1e6:.1f}M messages, same distances: {same}", flush=True)  # fmt: skip
        if not same:
            raise SystemExit(f"{variant} x{factor}: distances differ from Bellman-Ford's")


if __name__ == "__main__":
    main()
