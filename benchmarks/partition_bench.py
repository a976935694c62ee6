"""Partitioned MPI ranks (issue 14): what each rank holds, and what it costs.

For a Graph500 Kronecker text edge list (undirected, read as Graph500 does), every rank
reads its share in parallel and keeps only its own rows (``partitioned=True``), then runs
PageRank (20 iterations) and BFS (from the highest-degree vertex). Measured:

- **per-rank peak memory**, from outside the ranks: each rank runs under
  ``/usr/bin/time -f %M`` (peak RSS). The interpreter's fixed cost (Python, numpy,
  numba, mpi4py, the compiled kernels: the same job on a 2-edge graph) is subtracted;
  the target is at most 1.5 / P of the one-rank figure at P ranks;
- the same with every rank holding the whole graph (``partitioned=False``), to compare;
- **kernel times** of P ranks x 1 thread against the local runtime with P threads on the
  whole graph, in the same run, alternating (median of ``--trials``); the target is
  within 1.3x at P = 2.
- with ``--budget MIB``: **a graph bigger than one rank's budget**. Every rank runs in
  its own memory cgroup of MIB MiB (``scripts/memcap.sh``; the kernel kills a rank that
  goes over): one rank reading the whole graph, P ranks each holding the whole graph,
  and P ranks holding their own rows (P the largest of ``--ranks``), the same job each.

Run on a quiet machine:

    .venv/bin/python benchmarks/partition_bench.py --scale 21 --ranks 1 2 4 --trials 3
    .venv/bin/python benchmarks/partition_bench.py --scale 21 --ranks 4 --budget 480

The edge list is written once to ``--folder`` (default /tmp/hpgraph-ingest) as
``kron<scale>u.el``; with ``--strings`` its ids are strings (``u`` and the integer, so
every vertex is named through the string dictionary) and it is written as
``kron<scale>e<edge factor>s.el``, the edges as generated (shuffled, duplicates kept):

    .venv/bin/python benchmarks/partition_bench.py --strings --scale 18 --edge-factor 6 \
        --ranks 1 2 4 --memory-only
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

# One rank's job (also the local runtime's, with mode "local"): read, run, report.
_JOB = r"""
import json, sys, time
import numpy as np
path, mode, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
from hpgraph.algorithms import bfs, pagerank
if mode == "local":
    from hpgraph.io import read_edgelist
    t0 = time.perf_counter()
    g = read_edgelist(path)
    read_s = time.perf_counter() - t0
    rt, rank, barrier = "local", 0, lambda: None
    source = int(np.argmax(np.diff(g.indptr)))
else:
    from mpi4py import MPI
    from hpgraph.runtimes.mpi import MPIRuntime
    from hpgraph.runtimes.mpi.ingest import load_graph_mpi
    from hpgraph.runtimes.mpi.parts import highest_degree_vertex
    comm = MPI.COMM_WORLD
    rank, barrier = comm.Get_rank(), comm.Barrier
    t0 = time.perf_counter()
    g = load_graph_mpi(path, comm, cache=False, partitioned=mode == "parts")
    barrier()
    read_s = time.perf_counter() - t0
    rt = MPIRuntime(threads=threads)
    if mode == "parts":
        source = highest_degree_vertex(g, comm)[0]
    else:
        source = int(np.argmax(np.diff(g.indptr)))
kw = {"runtime": rt, "threads": threads} if mode == "local" else {"runtime": rt}
pagerank(g, iterations=1, **kw)  # compile (or load) the kernels before the clock
bfs(g, g.user_ids()[source], **kw)
times = {}
for name, fn, args in (("pagerank", pagerank, ()), ("bfs", bfs, (g.user_ids()[source],))):
    barrier()
    t0 = time.perf_counter()
    r = fn(g, *args, **kw)
    barrier()
    times[name] = time.perf_counter() - t0
if rank == 0:
    held = g.memory_bytes()
    print("RESULT " + json.dumps({"read_s": read_s, "n": g.n, "m": g.num_edges, **times,
                                  "rank0_graph_bytes": held}), flush=True)
"""


def _write(path: Path, scale: int, edge_factor: int, strings: bool) -> None:
    from hpgraph.generators import kronecker
    from hpgraph.io import write_edgelist

    t0 = time.perf_counter()
    if strings:
        _write_strings(path, scale, edge_factor)
    else:
        write_edgelist(kronecker(scale, edge_factor, seed=0, directed=False), path)
    mib = path.stat().st_size / 2**20
    print(f"wrote {path} ({mib:,.0f} MiB) in {time.perf_counter() - t0:.1f} s", flush=True)


def _write_strings(path: Path, scale: int, edge_factor: int) -> None:
    """The Kronecker edges as generated, each id written as ``u<id>``."""
    from hpgraph.generators.kronecker import kronecker_edges

    src, dst, _ = kronecker_edges(scale, edge_factor, seed=0)
    step = 1 << 20
    with open(path, "w") as f:
        for a in range(0, src.shape[0], step):
            pairs = zip(src[a : a + step].tolist(), dst[a : a + step].tolist(), strict=True)
            f.write("".join(f"u{x} u{y}\n" for x, y in pairs))


_MEMCAP = Path(__file__).resolve().parent.parent / "scripts" / "memcap.sh"


def _run(path, mode, ranks, threads, budget=None):
    """(result dict, per-rank peak RSS MiB); with a ``budget`` (MiB per rank): (result
    dict or None where a rank was killed or the read refused, peaks, what happened)."""
    py = sys.executable
    timed = ["/usr/bin/time", "-f", "PEAK_KB %M", py, "-c", _JOB, str(path), mode, str(threads)]
    if budget is not None:
        timed = [str(_MEMCAP), str(budget), *timed]
    if mode == "local":
        cmd = timed
    else:
        mpiexec = str(Path(py).parent / "mpiexec")
        cmd = [mpiexec, "-n", str(ranks), *timed]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    peaks = [int(k) / 1024 for k in re.findall(r"PEAK_KB (\d+)", out.stderr)]
    if budget is not None and out.returncode != 0:
        if "memcap.sh: cannot" in out.stderr:
            raise SystemExit(out.stderr.strip())
        refused = re.search(r"(\S+: the whole graph .*? on every rank)", out.stderr)
        return None, peaks, refused.group(1) if refused else f"killed (exit {out.returncode})"
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed:\n{out.stdout}\n{out.stderr}")
    result = json.loads(out.stdout.split("RESULT ", 1)[1].splitlines()[0])
    return (result, peaks) if budget is None else (result, peaks, 0)


def _budget(path, fixed, ranks, budget):
    """Run the job under a per-rank memory budget: one rank, ``ranks`` ranks holding
    the whole graph, ``ranks`` ranks holding their own rows."""
    print(
        f"\nper-rank budget {budget:,} MiB (a memory cgroup per rank; fixed cost "
        f"{fixed:,.0f} MiB, so {budget - fixed:,.0f} MiB for the graph, its read and state)"
    )
    for p, mode in ((1, "parts"), (ranks, "whole"), (ranks, "parts")):
        res, peaks, status = _run(path, mode, p, 1, budget)
        held = "whole graph" if p == 1 or mode == "whole" else "own rows"
        if res is None:
            print(f"  {p} rank(s), {held:11s}: {status}", flush=True)
            continue
        print(
            f"  {p} rank(s), {held:11s}: ran, peak per rank {max(peaks):,.0f} MiB; "
            f"graph on rank 0 {res['rank0_graph_bytes'] / 2**20:,.0f} MiB; PageRank "
            f"{res['pagerank']:.2f} s, BFS {res['bfs']:.3f} s",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=21)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--strings", action="store_true", help="string ids (u<id>)")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--folder", default="/tmp/hpgraph-ingest")
    ap.add_argument("--times-only", action="store_true", help="skip the memory runs")
    ap.add_argument("--memory-only", action="store_true", help="skip the timed runs")
    ap.add_argument("--budget", type=int, help="MiB per rank: only the runs under a budget")
    args = ap.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    if args.strings:
        path = folder / f"kron{args.scale}e{args.edge_factor}s.el"
    elif args.edge_factor != 16:
        path = folder / f"kron{args.scale}e{args.edge_factor}u.el"
    else:
        path = folder / f"kron{args.scale}u.el"
    if not path.exists():
        _write(path, args.scale, args.edge_factor, args.strings)
    tiny = folder / "tiny.el"
    tiny.write_text("0 1\n1 2\n")
    fixed = 0.0 if args.times_only else max(_run(tiny, "parts", 1, 1)[1])
    print(f"fixed cost (interpreter, numpy, numba, mpi4py, kernels): {fixed:,.0f} MiB")
    print(f"graph: {path.name}", flush=True)
    if args.budget is not None:
        _budget(path, fixed, max(args.ranks), args.budget)
        sys.stdout.flush()
        os._exit(0)

    rows = {}
    for p in [] if args.times_only else args.ranks:
        for mode in ("parts", "whole"):
            if p == 1 and mode == "whole":
                continue
            res, peaks = _run(path, mode, p, 1)
            rows[(p, mode)] = (res, max(peaks))
            if not rows:
                print(f"{res['n']:,} vertices, {res['m']:,} edges", flush=True)
            print(
                f"P={p} {mode:5s}: peak per rank {max(peaks):7,.0f} MiB "
                f"(above fixed {max(peaks) - fixed:7,.0f}), read {res['read_s']:.2f} s, "
                f"rank 0 graph {res['rank0_graph_bytes'] / 2**20:,.0f} MiB",
                flush=True,
            )
    one = rows[(1, "parts")][1] - fixed if (1, "parts") in rows else None
    if one is not None:
        print("\nper-rank peak above the fixed cost, as a fraction of one rank's:")
    for (p, mode), (_, peak) in rows.items() if one is not None else ():
        frac = (peak - fixed) / one
        print(f"  P={p} {mode:5s}: {frac:.3f}  (target for parts: <= {1.5 / p:.3f})")

    print(f"\nkernel times, median of {args.trials} (P ranks x 1 thread, parts, against the")
    print("local runtime with P threads on the whole graph, alternating):")
    for p in [] if args.memory_only else [r for r in args.ranks if r > 1]:
        times = {"parts": {"pagerank": [], "bfs": []}, "local": {"pagerank": [], "bfs": []}}
        for _ in range(args.trials):
            for mode in ("parts", "local"):
                res, _ = _run(path, mode, p, 1 if mode == "parts" else p)
                for k in ("pagerank", "bfs"):
                    times[mode][k].append(res[k])
        for k in ("pagerank", "bfs"):
            a = statistics.median(times["parts"][k])
            b = statistics.median(times["local"][k])
            print(f"  P={p} {k:8s}: {p} ranks {a:.3f} s, {p} threads {b:.3f} s, ratio {a / b:.2f}")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
