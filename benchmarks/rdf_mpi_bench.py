"""The 14 LUBM queries on MPI ranks against one process, in the same run; prints a
Markdown table (best of ``--trials`` after a first run, milliseconds), the ratio
one process / ranks, and the bytes each rank holds.

LUBM(N) is generated and loaded with univ-bench inference into a store directory (or
``--store DIR`` is reused), then ``mpiexec -n RANKS`` runs this file again as the
worker: rank 0 times each query on the whole store in one process (the other ranks
idle, sleeping between polls), then on the store spread over the ranks
(:class:`hpgraph.rdf.mpi.DistributedStore`), and checks that the rows are equal.

    flock /tmp/hpgraph-big.lock .venv/bin/python benchmarks/rdf_mpi_bench.py --lubm 5 --ranks 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def best(fn, trials):
    """(seconds of the first run, best of ``trials`` more, the last result)."""
    t0 = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t0
    times = []
    for _ in range(trials):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return first, min(times), out


def _rows(store, result):
    from hpgraph.rdf.sparql import to_table

    table = to_table(store, result.variables, result.solutions)
    return sorted(zip(*(table.column(v).to_pylist() for v in table.column_names), strict=True))


def worker(path, trials):
    """Under mpiexec: time the queries in one process (rank 0) and on the ranks."""
    from mpi4py import MPI

    from hpgraph.rdf import Store
    from hpgraph.rdf.lubm.queries import QUERIES
    from hpgraph.rdf.mpi import DistributedStore
    from hpgraph.rdf.sparql import run_query

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    whole = timings = None
    if rank == 0:
        t0 = time.perf_counter()
        whole = Store.open(path)
        opened = time.perf_counter() - t0
        timings = {n: best(lambda t=t: run_query(whole, t), trials) for n, t in QUERIES.items()}
    comm.Barrier()
    t0 = time.perf_counter()
    dist = DistributedStore.open(path, comm=comm)
    comm.Barrier()
    spread = time.perf_counter() - t0
    held = comm.gather(dist.nbytes(), root=0)
    rows = {}
    for name, text in QUERIES.items():
        got = best(lambda t=text: dist.query(t), trials)
        if rank == 0:
            rows[name] = got
    if rank != 0:
        return
    print(f"| query | rows | one process first (ms) | one process (ms) | {size} ranks first "
          f"(ms) | {size} ranks (ms) | one process / {size} ranks |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name in QUERIES:
        f1, b1, want = timings[name]
        f2, b2, got = rows[name]
        a, b = _rows(whole, want), _rows(dist.store, got)
        if a != b:
            raise SystemExit(f"{name}: {len(b)} rows on {size} ranks, {len(a)} in one process")
        print(f"| {name} | {len(a):,} | {f1 * 1e3:.1f} | {b1 * 1e3:.2f} | {f2 * 1e3:.1f} | "
              f"{b2 * 1e3:.2f} | {b1 / b2:.2f} |")  # fmt: skip
    whole_bytes = whole.default.pso.nbytes + whole.default.pos.nbytes
    print(f"\nopen: one process {opened:.2f} s, {size} ranks {spread:.2f} s")
    print(f"one process: {len(whole):,} triples, {whole_bytes / 2**20:.1f} MiB of PSO + POS")
    for r, h in enumerate(held):
        words = f", dictionary {h['dictionary'] / 2**20:.1f} MiB" if h["dictionary"] else ""
        print(f"rank {r}: {h['triples'] / 2**20:.1f} MiB of PSO + POS{words}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lubm", type=int, default=5, metavar="N")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--store", help="an existing store directory (else LUBM(N) is built)")
    ap.add_argument("--worker", metavar="STORE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.trials)
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store
        if store is None:
            from hpgraph.rdf import Store
            from hpgraph.rdf.lubm import generate_lubm

            data = Path(tmp) / "lubm.nt"
            generate_lubm(data, args.lubm, args.seed)
            store = str(Path(tmp) / "store")
            Store.load(data, infer="univ-bench").save(store)
            print(f"LUBM({args.lubm}), seed {args.seed}, with univ-bench inference\n")
        mpiexec = Path(sys.executable).parent / "mpiexec"
        cmd = [str(mpiexec), "-n", str(args.ranks), sys.executable, __file__]
        cmd += ["--worker", store, "--trials", str(args.trials)]
        sys.exit(subprocess.call(cmd, env=dict(os.environ)))


if __name__ == "__main__":
    main()
