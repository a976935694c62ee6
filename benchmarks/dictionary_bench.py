"""What numbering string vertex ids costs each rank of a parallel read (issue 14).

Every rank parses its share of a string-id edge list (:mod:`hpgraph.io.scan`), then the
ranks number their ids (:func:`hpgraph.runtimes.mpi.assemble.renumber`: the distributed
dictionary) and every rank gets every vertex's name
(:func:`hpgraph.runtimes.mpi.dictionary.gather_names`); one process numbers them as the
one-process reader does (:func:`hpgraph.io.chunk_ids.chunk_ids`). Measured per rank:
the peak RSS over those steps above the RSS before them (``VmHWM`` reset through
``/proc/self/clear_refs``), what is still held after them (the numbered endpoints and
the names, and what the allocators keep), and the seconds. Run on a tree from before
the dictionary (``PYTHONPATH=<old>/src``), the same script measures the gathered union
it replaced (there ``renumber`` gives the names itself).

    flock /tmp/hpgraph-big.lock .venv/bin/python benchmarks/dictionary_bench.py --ranks 1 2 4

Each figure is the largest rank's, the median of ``--trials`` runs (the allocators'
caching makes single runs vary by several MiB).

The edge list is partition_bench's ``--strings`` one (Kronecker edges as generated, ids
written ``u<id>``), written once to ``--folder``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

_JOB = r"""
import json, re, sys, time
from mpi4py import MPI
from hpgraph.io.chunk_ids import chunk_ids
from hpgraph.io.scan import scan_share
from hpgraph.io.shares import share_range
from hpgraph.runtimes.mpi.assemble import renumber
try:
    from hpgraph.runtimes.mpi.dictionary import gather_names
except ImportError:  # a tree from before the dictionary: renumber gives the names
    gather_names = None


def mib(key):
    text = open("/proc/self/status").read()
    return int(re.search(key + r":\s+(\d+)", text).group(1)) / 1024


comm = MPI.COMM_WORLD
path = sys.argv[1]
start, end = share_range(path, comm.Get_rank(), comm.Get_size())
scan = scan_share(path, start, end, keep_weights=False, str_ids=True)
columns = [scan.src, scan.dst]
del scan
comm.Barrier()
before = mib("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # VmHWM := VmRSS
t0 = time.perf_counter()
if comm.Get_size() == 1:
    s, d, ids, n = chunk_ids(columns[0], columns[1], False)
else:
    s, d, ids, n = renumber(comm, MPI, columns, False)
    if gather_names is not None:
        ids = gather_names(comm, MPI, ids)
comm.Barrier()
seconds = time.perf_counter() - t0
got = comm.gather((mib("VmHWM") - before, mib("VmRSS") - before, seconds))
endpoints = 2 * comm.allreduce(len(s))
if comm.Get_rank() == 0:
    print("RESULT " + json.dumps({"n": n, "endpoints": endpoints, "ranks": got}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edge-factor", type=int, default=2)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--folder", default="/tmp/hpgraph-ingest")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from partition_bench import _write

    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"kron{args.scale}e{args.edge_factor}s.el"
    if not path.exists():
        _write(path, args.scale, args.edge_factor, strings=True)
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    one = None
    for p in args.ranks:
        runs = [_run(mpiexec, p, path) for _ in range(args.trials)]
        res = runs[0]
        peak, held, secs = (
            statistics.median(max(r[k] for r in run["ranks"]) for run in runs) for k in range(3)
        )
        one = peak if one is None else one
        print(
            f"{p} rank(s): {res['n']:,} names, {res['endpoints']:,} endpoints; peak above "
            f"before {peak:6.1f} MiB (x{peak / one:.2f} of the first row), held after "
            f"{held:6.1f} MiB, {secs:.2f} s (max rank)",
            flush=True,
        )


def _run(mpiexec, ranks, path):
    """One run's result: names, endpoints and every rank's (peak, held, seconds)."""
    cmd = [mpiexec, "-n", str(ranks), sys.executable, "-c", _JOB, str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"{ranks} ranks failed:\n{out.stdout}\n{out.stderr}")
    return json.loads(out.stdout.split("RESULT ", 1)[1].splitlines()[0])


if __name__ == "__main__":
    main()
