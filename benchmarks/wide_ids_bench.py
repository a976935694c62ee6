"""Per-rank memory of numbering wide integer ids together (issue 14): each of P MPI ranks
takes its share of a Graph500 Kronecker edge list whose ids are multiplied by a large
odd 64-bit constant (wrapping, so the ids span all of int64 and no presence bitmap
fits), sorts its distinct ids, and the ranks number them together
(:meth:`hpgraph.runtimes.mpi.assemble._Ranks.number`, the sample sort of
:mod:`hpgraph.runtimes.mpi.samplesort`). Printed per rank: the traced peak of that step
(``tracemalloc``: numpy's and Python's allocations, not MPI's own buffers) in bytes per
id of the whole graph and per distinct id of the rank's share, and the ids it keeps.

    .venv/bin/python benchmarks/wide_ids_bench.py --scale 19 --ranks 2 4
"""

from __future__ import annotations

import argparse
import subprocess
import sys

_CHILD = r"""
import json, sys, tracemalloc
import numpy as np
from mpi4py import MPI
from hpgraph.generators.kronecker import kronecker_edges
from hpgraph.runtimes.mpi.assemble import _Ranks
comm = MPI.COMM_WORLD
r, P = comm.Get_rank(), comm.Get_size()
s, d = kronecker_edges(int(sys.argv[1]), seed=1)[:2]
a, b = s.shape[0] * r // P, s.shape[0] * (r + 1) // P
odd = np.uint64(0x9E3779B97F4A7C15)
with np.errstate(over="ignore"):
    local = np.unique((np.concatenate([s[a:b], d[a:b]]).astype(np.uint64) * odd).view(np.int64))
del s, d
comm.Barrier()
tracemalloc.start()
numbers, kept, n = _Ranks(comm, MPI).number(local)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
rows = comm.gather((r, local.shape[0], kept.shape[0], peak), root=0)
if r == 0:
    for rank, mine, kept, peak in rows:
        print(json.dumps({"ranks": P, "rank": rank, "ids": n, "share_ids": mine, "kept": kept,
                          "peak_mib": round(peak / 2**20, 2), "b_per_id": round(peak / n, 1),
                          "b_per_share_id": round(peak / mine, 1)}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=19)
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    args = ap.parse_args()
    from hpgraph.launcher import mpiexec_path

    for p in args.ranks:
        cmd = [mpiexec_path(), "-n", str(p), sys.executable, "-c", _CHILD, str(args.scale)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            print(line)


if __name__ == "__main__":
    main()
