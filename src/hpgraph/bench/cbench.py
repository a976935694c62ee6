"""CBench, the communication benchmark of the Hama-on-InfiniBand study (seed 000, table 2),
on hpgraph's peer-level BSP API, so it measures exactly the barrier and message layers a
runtime provides.

Parameters: ``T`` tasks, each talking to ``P`` peers chosen at random (seeded), sending
``N`` messages of ``M`` bytes to each of them per superstep, for ``I`` supersteps.
Reported per superstep: barrier time and communication time (mean over tasks), then the
median and the 10th-90th percentile spread over supersteps (the first superstep, which
pays for warm-up, is left out).

Sweeps, as in the study's figures 4 and 5: tasks (P = T, N = 1, M = 1024) and message
size (fixed T, P = T, N = 1, M = 64 B .. 1 MiB); each writes a CSV and, when matplotlib is
installed, a PNG of the times per runtime.

On the ``mpi`` runtime there is one task per rank: :func:`main` started by ``mpiexec``
(``hpgraph cbench --runtime mpi`` starts it for you). The distributed-model runtime of the
study (ZooKeeper barrier, TCP messaging) is not in hpgraph yet, so the sweeps compare the
local and MPI runtimes only.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
from dataclasses import asdict, dataclass

import numpy as np

__all__ = ["CBenchResult", "cbench", "sweep", "main"]


@dataclass
class CBenchResult:
    runtime: str
    tasks: int
    peers: int
    msgs: int
    bytes: int
    supersteps: int
    barrier_median_s: float
    barrier_p10_s: float
    barrier_p90_s: float
    comm_median_s: float
    comm_p10_s: float
    comm_p90_s: float
    bytes_per_superstep: int


def _program(peer, peers, msgs, size, supersteps, seed):
    rng = np.random.default_rng([seed, peer.pid])
    others = np.array([q for q in range(peer.num_peers) if q != peer.pid] or [peer.pid])
    payload = np.zeros(size, dtype=np.uint8)
    for _ in range(supersteps):
        targets = rng.choice(others, size=min(peers, others.size), replace=False)
        for q in targets:
            for _ in range(msgs):
                peer.send(int(q), payload)
        peer.sync()
        for _, p in peer.messages():  # a receiver touches what it got
            if p.shape[0] != size:
                raise AssertionError("CBench payload of the wrong size")
    return None


def cbench(runtime="local", tasks=2, peers=None, msgs=1, size=1024, supersteps=200, seed=0):
    """Run CBench once; returns a :class:`CBenchResult` (on MPI: on every rank)."""
    from hpgraph.engine import run_bsp

    if runtime == "mpi":  # one task per rank
        from hpgraph.runtimes.mpi import MPIRuntime

        tasks = MPIRuntime().size
    peers = tasks - 1 if peers is None else min(peers, max(tasks - 1, 1))
    if runtime == "mpi":
        res = run_bsp(_program, args=(peers, msgs, size, supersteps, seed), runtime="mpi")
    else:
        res = run_bsp(_program, peers=tasks, args=(peers, msgs, size, supersteps, seed))
    rows = res.stats.supersteps[1:] or res.stats.supersteps
    bar = np.array([r.barrier_s for r in rows])
    com = np.array([r.communication_s for r in rows])
    first = res.stats.supersteps[0]
    return CBenchResult(
        runtime=runtime,
        tasks=tasks,
        peers=peers,
        msgs=msgs,
        bytes=size,
        supersteps=supersteps,
        barrier_median_s=float(np.median(bar)),
        barrier_p10_s=float(np.percentile(bar, 10)),
        barrier_p90_s=float(np.percentile(bar, 90)),
        comm_median_s=float(np.median(com)),
        comm_p10_s=float(np.percentile(com, 10)),
        comm_p90_s=float(np.percentile(com, 90)),
        bytes_per_superstep=int(first.bytes_local + first.bytes_remote),
    )


def _run_one(runtime, tasks, peers, msgs, size, supersteps, seed):
    """One CBench run, in this process (local) or under mpiexec (mpi)."""
    if runtime != "mpi":
        return cbench("local", tasks, peers, msgs, size, supersteps, seed)
    from hpgraph.runtimes.mpi import mpiexec_path

    cmd = [mpiexec_path(), "-n", str(tasks), sys.executable, "-m", "hpgraph.bench.cbench"]
    cmd += ["--runtime", "mpi", "-P", str(peers if peers is not None else tasks - 1)]
    cmd += ["-N", str(msgs), "-M", str(size), "-I", str(supersteps), "--seed", str(seed)]
    cmd += ["--csv-row"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"CBench under mpiexec failed:\n{out.stderr[-2000:]}")
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("CBENCH ")][-1]
    kinds = [type(v) for v in asdict(_TYPES).values()]  # str, int or float per field
    return CBenchResult(*[k(v) for k, v in zip(kinds, line.split()[1:], strict=True)])


_TYPES = CBenchResult("", 0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0)


def sweep(kind, runtimes=("local", "mpi"), tasks=(2, 4, 8, 16), sizes=None, fixed_tasks=4,
          supersteps=200, seed=0, out_prefix="cbench"):  # fmt: skip
    """The study's sweeps: ``kind="tasks"`` (P = T, N = 1, M = 1024) or ``"bytes"``
    (T = fixed_tasks, P = T, M = 64 B .. 1 MiB). Writes ``<out_prefix>-<kind>.csv`` and a
    PNG when matplotlib is there; returns the results."""
    sizes = sizes or [64 * 4**k for k in range(8)]  # 64 B .. 1 MiB
    results = []
    for rt in runtimes:
        if kind == "tasks":
            for t in tasks:
                results.append(_run_one(rt, t, t - 1, 1, 1024, supersteps, seed))
        else:
            for m in sizes:
                results.append(_run_one(rt, fixed_tasks, fixed_tasks - 1, 1, m, supersteps, seed))
    path = f"{out_prefix}-{kind}.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(CBenchResult.__dataclass_fields__))
        w.writeheader()
        for r in results:
            w.writerow(asdict(r))
    _plot(kind, results, f"{out_prefix}-{kind}.png")
    return results


def _plot(kind, results, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    x_of = (lambda r: r.tasks) if kind == "tasks" else (lambda r: r.bytes)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for rt in sorted({r.runtime for r in results}):
        rows = [r for r in results if r.runtime == rt]
        xs = [x_of(r) for r in rows]
        axes[0].plot(xs, [r.barrier_median_s * 1e6 for r in rows], marker="o", label=rt)
        axes[1].plot(xs, [r.comm_median_s * 1e6 for r in rows], marker="o", label=rt)
    for ax, what in zip(axes, ("barrier", "communication"), strict=True):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("tasks T" if kind == "tasks" else "message bytes M")
        ax.set_ylabel(f"{what} time per superstep (us, median)")
        ax.legend()
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"CBench {kind} sweep (N = 1, P = T)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(prog="hpgraph cbench", description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", choices=["local", "mpi"], default="local")
    ap.add_argument("-T", "--tasks", type=int, default=2)
    ap.add_argument("-P", "--peers", type=int, default=None, help="default: T - 1")
    ap.add_argument("-N", "--msgs", type=int, default=1)
    ap.add_argument("-M", "--bytes", type=int, default=1024)
    ap.add_argument("-I", "--supersteps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sweep", choices=["tasks", "bytes"], default=None)
    ap.add_argument("--out", default="cbench", help="file prefix for sweep CSV/PNG")
    ap.add_argument("--csv-row", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    for name in ("tasks", "msgs", "bytes", "supersteps"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be >= 1")
    if a.sweep:
        rows = sweep(a.sweep, supersteps=a.supersteps, seed=a.seed, out_prefix=a.out)
        _print(rows)
        print(f"wrote {a.out}-{a.sweep}.csv")
        return 0
    if a.csv_row:  # inside mpiexec: every rank runs, rank 0 reports one machine line
        r = cbench("mpi", a.tasks, a.peers, a.msgs, a.bytes, a.supersteps, a.seed)
        if os.environ.get("PMI_RANK", "0") == "0":
            print("CBENCH " + " ".join(str(v) for v in asdict(r).values()), flush=True)
        return 0
    r = _run_one(a.runtime, a.tasks, a.peers, a.msgs, a.bytes, a.supersteps, a.seed)
    _print([r])
    return 0


def _spread(median, p10, p90):
    return f"{median * 1e6:.1f} ({p10 * 1e6:.1f}-{p90 * 1e6:.1f})"


def _print(rows):
    print(
        f"{'runtime':8} {'T':>3} {'P':>3} {'N':>3} {'M':>8} {'barrier us (p10-p90)':>26} "
        f"{'comm us (p10-p90)':>26}"
    )
    for r in rows:
        b = _spread(r.barrier_median_s, r.barrier_p10_s, r.barrier_p90_s)
        c = _spread(r.comm_median_s, r.comm_p10_s, r.comm_p90_s)
        print(f"{r.runtime:8} {r.tasks:>3} {r.peers:>3} {r.msgs:>3} {r.bytes:>8} {b:>26} {c:>26}")


if __name__ == "__main__":
    sys.exit(main())
