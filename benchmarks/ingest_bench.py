"""Parallel ingest benchmark (issue 14): a Graph500 Kronecker text edge list read by one
process (``hpgraph.io.read_edgelist``) and by P MPI ranks each parsing a share
(``hpgraph.runtimes.mpi.ingest.read_edgelist_mpi``), in the same run, alternating.

The time is from the first byte read to the graph built on every rank (the slowest
rank, after a barrier), without interpreter start-up and imports; peak RSS is the
largest rank's. Run on a quiet machine:

    .venv/bin/python benchmarks/ingest_bench.py --scale 22 --ranks 1 2 --trials 3

The edge list is written once to ``--folder`` (default /tmp/hpgraph-ingest) as
``kron<scale>.el`` (about 18 B per edge).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

_CHILD = r"""
import json, resource, sys, time
from mpi4py import MPI
from hpgraph.runtimes.mpi.ingest import read_edgelist_mpi
comm = MPI.COMM_WORLD
read_edgelist_mpi(sys.argv[2], comm)  # warm: compiled kernels and the page cache
comm.Barrier()
t0 = time.perf_counter()
g = read_edgelist_mpi(sys.argv[1], comm)
comm.Barrier()
dt = time.perf_counter() - t0
rss = comm.gather(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, root=0)
if comm.Get_rank() == 0:
    print(json.dumps({"seconds": dt, "rss_mib": max(rss), "n": g.n, "m": g.num_edges}))
"""

_SERIAL = r"""
import json, resource, sys, time
from hpgraph.io import read_edgelist
read_edgelist(sys.argv[2])
t0 = time.perf_counter()
g = read_edgelist(sys.argv[1])
dt = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": dt, "rss_mib": rss, "n": g.n, "m": g.num_edges}))
"""


def _write(path: Path, scale: int) -> None:
    from hpgraph.generators import kronecker
    from hpgraph.io import write_edgelist

    t0 = time.perf_counter()
    write_edgelist(kronecker(scale, seed=0, directed=True), path)
    mib = path.stat().st_size / 2**20
    print(f"wrote {path} ({mib:.0f} MiB) in {time.perf_counter() - t0:.0f} s")


def _run(cmd) -> dict:
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(out.stdout + out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--folder", default="/tmp/hpgraph-ingest")
    args = ap.parse_args()
    from hpgraph.runtimes.mpi import mpiexec_path

    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"kron{args.scale}.el"
    warm = folder / "warm.el"
    if not path.exists():
        _write(path, args.scale)
    warm.write_text("0 1\n1 2\n")
    env_py = [sys.executable, "-c"]
    runs = {"1 process": [], **{f"{p} ranks": [] for p in args.ranks}}
    for _ in range(args.trials):
        runs["1 process"].append(_run([*env_py, _SERIAL, str(path), str(warm)]))
        for p in args.ranks:
            cmd = [mpiexec_path(), "-n", str(p), *env_py, _CHILD, str(path), str(warm)]
            runs[f"{p} ranks"].append(_run(cmd))
    base = statistics.median(r["seconds"] for r in runs["1 process"])
    g = runs["1 process"][0]
    print(f"kron{args.scale}: {g['n']:,} vertices, {g['m']:,} edges, "
          f"{path.stat().st_size / 2**20:.0f} MiB; {os.cpu_count()} cores, "
          f"median of {args.trials}")  # fmt: skip
    print("| reader | seconds (median) | all trials | x one process | peak RSS MiB (max rank) |")
    print("|---|---|---|---|---|")
    for name, rs in runs.items():
        t = [r["seconds"] for r in rs]
        med = statistics.median(t)
        trials = ", ".join(f"{x:.2f}" for x in t)
        rss = max(r["rss_mib"] for r in rs)
        print(f"| {name} | {med:.2f} | {trials} | {base / med:.2f} | {rss:,.0f} |")


if __name__ == "__main__":
    main()
