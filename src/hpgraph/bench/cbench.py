"""CBench, the communication benchmark of the Hama-on-InfiniBand study (seed 000, table 2),
on hpgraph's peer-level BSP API, so it measures exactly the barrier and message layers a
runtime provides.

Parameters: ``T`` tasks, each talking to ``P`` partners (other tasks) chosen at random
(seeded), sending ``N`` messages of ``M`` bytes to each of them per superstep, for ``I``
supersteps.
Reported per superstep: barrier time and communication time (mean over tasks), then the
median and the 10th-90th percentile spread over supersteps (the first superstep, which
pays for warm-up, is left out).

Sweeps, as in the study's figures 4 and 5: tasks (P = T, N = 1, M = 1024) and message
size (fixed T, P = T, N = 1, M = 64 B .. 1 MiB); each writes a CSV and, when matplotlib is
installed, a PNG of the times per runtime.

Runtimes: ``local`` (threads), ``mpi`` (one task per rank: :func:`main` started by
``mpiexec``; ``hpgraph cbench --runtime mpi`` starts it for you) and ``hama`` (one process
per task, the ZooKeeper barrier and TCP messaging of the study's baseline,
:mod:`hpgraph.runtimes.hama`; a ZooKeeper server is started for the run unless one is
given). The sweeps run every runtime asked for and also plot the speedup of each over
``hama``, like the study's figures 4 and 5 (MPI over the ZooKeeper/RPC Hama).

``--mode pingpong`` runs :mod:`hpgraph.bench.pingpong` instead: latency and bandwidth
between two tasks over message sizes, on each runtime's transport.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from dataclasses import asdict, dataclass

import numpy as np

from hpgraph.bench._rows import write_rows

__all__ = ["CBenchResult", "cbench", "sweep", "speedups", "main", "RUNTIMES"]

#: What ``--runtime`` / ``--runtimes`` accept.
RUNTIMES = ("local", "mpi", "hama")


@dataclass
class CBenchResult:
    runtime: str
    tasks: int
    partners: int
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

    @property
    def peers(self) -> int:
        """The old name of :attr:`partners`."""
        return self.partners


def _program(peer, partners, msgs, size, supersteps, seed):
    rng = np.random.default_rng([seed, peer.pid])
    others = np.array([q for q in range(peer.num_peers) if q != peer.pid] or [peer.pid])
    payload = np.zeros(size, dtype=np.uint8)
    for _ in range(supersteps):
        targets = rng.choice(others, size=min(partners, others.size), replace=False)
        for q in targets:
            for _ in range(msgs):
                peer.send(int(q), payload)
        peer.sync()
        for _, p in peer.messages():  # a receiver touches what it got
            if p.shape[0] != size:
                raise AssertionError("CBench payload of the wrong size")
    return None


def cbench(runtime="local", tasks=2, partners=None, msgs=1, size=1024, supersteps=200, seed=0,
           zookeeper=None, *, peers=None):  # fmt: skip
    """Run CBench once; returns a :class:`CBenchResult` (on MPI: on every rank).
    ``partners``: the tasks each task sends to (default and at most: all the others;
    ``peers`` is its old name, still accepted). ``zookeeper``: ``"host:port"`` for the
    hama runtime (None: see :class:`~hpgraph.runtimes.hama.HamaRuntime`)."""
    from hpgraph.engine import run_bsp
    from hpgraph.errors import InvalidArgumentError

    if runtime not in RUNTIMES:
        raise InvalidArgumentError(f"unknown CBench runtime {runtime!r}; one of {RUNTIMES}")
    if peers is not None:  # the old name of partners
        if partners is not None:
            raise InvalidArgumentError("give partners= or its old name peers=, not both")
        partners = peers
    if runtime == "mpi":  # one task per rank
        from hpgraph.runtimes.mpi import MPIRuntime

        tasks = MPIRuntime().size
    partners = tasks - 1 if partners is None else min(partners, max(tasks - 1, 1))
    args = (partners, msgs, size, supersteps, seed)
    if runtime == "mpi":
        res = run_bsp(_program, args=args, runtime="mpi")
    elif runtime == "hama":
        from hpgraph.runtimes.hama import HamaRuntime

        res = run_bsp(_program, peers=tasks, args=args, runtime=HamaRuntime(zookeeper))
    else:
        res = run_bsp(_program, peers=tasks, args=args)
    rows = res.stats.supersteps[1:] or res.stats.supersteps
    bar = np.array([r.barrier_s for r in rows])
    com = np.array([r.communication_s for r in rows])
    first = res.stats.supersteps[0]
    return CBenchResult(
        runtime=runtime,
        tasks=tasks,
        partners=partners,
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


def _run_one(runtime, tasks, partners, msgs, size, supersteps, seed, zookeeper=None):
    """One CBench run: local threads in this process, hama task processes launched from
    this process, or MPI ranks under mpiexec."""
    if runtime != "mpi":
        return cbench(runtime, tasks, partners, msgs, size, supersteps, seed, zookeeper)
    from hpgraph.runtimes.mpi import mpiexec_path

    cmd = [mpiexec_path(), "-n", str(tasks), sys.executable, "-m", "hpgraph.bench.cbench"]
    cmd += ["--runtime", "mpi", "-P", str(partners if partners is not None else tasks - 1)]
    cmd += ["-N", str(msgs), "-M", str(size), "-I", str(supersteps), "--seed", str(seed)]
    cmd += ["--csv-row"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"CBench under mpiexec failed:\n{out.stderr[-2000:]}")
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("CBENCH ")][-1]
    kinds = [type(v) for v in asdict(_TYPES).values()]  # str, int or float per field
    return CBenchResult(*[k(v) for k, v in zip(kinds, line.split()[1:], strict=True)])


_TYPES = CBenchResult("", 0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0)


@contextlib.contextmanager
def _zookeeper_for(runtimes, zookeeper):
    """The server the hama runs use: the one given, ``$HPGRAPH_ZOOKEEPER``, or one started
    here for all of them (None when no hama run is asked for)."""
    address = zookeeper or os.environ.get("HPGRAPH_ZOOKEEPER")
    if "hama" not in runtimes or address:
        yield address
        return
    from hpgraph.runtimes.zookeeper import start_zookeeper

    with start_zookeeper() as server:
        yield server.address


def sweep(kind, runtimes=RUNTIMES, tasks=(2, 4, 8, 16), sizes=None, fixed_tasks=4,
          supersteps=200, seed=0, out_prefix="cbench", zookeeper=None):  # fmt: skip
    """The study's sweeps: ``kind="tasks"`` (P = T, N = 1, M = 1024) or ``"bytes"``
    (T = fixed_tasks, P = T, M = 64 B .. 1 MiB), on each of ``runtimes``. Writes
    ``<out_prefix>-<kind>.csv`` and, when matplotlib is there, a PNG of the times (and,
    with ``hama`` among the runtimes, of the speedups over it); returns the results."""
    sizes = sizes or [64 * 4**k for k in range(8)]  # 64 B .. 1 MiB
    points = [(t, 1024) for t in tasks] if kind == "tasks" else [(fixed_tasks, m) for m in sizes]
    results = []
    with _zookeeper_for(runtimes, zookeeper) as zk:
        # the runtimes take turns at each point, so a ratio compares runs made moments
        # apart (under the same load), not minutes apart
        for t, m in points:
            for rt in runtimes:
                results.append(_run_one(rt, t, t - 1, 1, m, supersteps, seed, zk))
    order = {rt: i for i, rt in enumerate(runtimes)}
    results.sort(key=lambda r: order[r.runtime])  # stable: by runtime, then by point
    write_rows(f"{out_prefix}-{kind}.csv", CBenchResult, results)
    _plot(kind, results, f"{out_prefix}-{kind}.png")
    return results


def _x_of(kind):
    return (lambda r: r.tasks) if kind == "tasks" else (lambda r: r.bytes)


def speedups(kind, results, base="hama"):
    """``[(x, runtime, barrier speedup, communication speedup), ...]``: the ``base``
    runtime's median time over each other runtime's, at each T (or M) both measured."""
    x_of = _x_of(kind)
    ref = {x_of(r): r for r in results if r.runtime == base}
    out = []
    for r in results:
        b = ref.get(x_of(r))
        if r.runtime == base or b is None:
            continue
        out.append((x_of(r), r.runtime, _ratio(b.barrier_median_s, r.barrier_median_s),
                    _ratio(b.comm_median_s, r.comm_median_s)))  # fmt: skip
    return out


def _ratio(a, b):
    return a / b if b > 0 else float("inf")


def _pyplot():
    """matplotlib's pyplot on the Agg backend, or None where matplotlib is missing (the
    sweep then writes its CSV only)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _plot(kind, results, path):
    plt = _pyplot()
    if plt is None:
        return None
    x_of = _x_of(kind)
    ups = speedups(kind, results)
    rows_n = 2 if ups else 1
    fig, axes = plt.subplots(rows_n, 2, figsize=(10, 4 * rows_n), squeeze=False)
    for rt in [r for r in RUNTIMES if any(x.runtime == r for x in results)]:
        rows = [r for r in results if r.runtime == rt]
        xs = [x_of(r) for r in rows]
        axes[0][0].plot(xs, [r.barrier_median_s * 1e6 for r in rows], marker="o", label=rt)
        axes[0][1].plot(xs, [r.comm_median_s * 1e6 for r in rows], marker="o", label=rt)
        if ups and rt != "hama":
            mine = [u for u in ups if u[1] == rt]
            axes[1][0].plot([u[0] for u in mine], [u[2] for u in mine], marker="o", label=rt)
            axes[1][1].plot([u[0] for u in mine], [u[3] for u in mine], marker="o", label=rt)
    xlabel = "tasks T" if kind == "tasks" else "message bytes M"
    for i, what in enumerate(("barrier", "communication")):
        ax = axes[0][i]
        ax.set_ylabel(f"{what} time per superstep (us, median)")
        if ups:
            axes[1][i].set_ylabel(f"{what} speedup over hama (x)")
            axes[1][i].axhline(1.0, color="grey", lw=0.8)
        for ax in (axes[r][i] for r in range(rows_n)):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.legend()
            ax.grid(True, alpha=0.3)
    fig.suptitle(f"CBench {kind} sweep (N = 1, P = T - 1)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _runtime_list(text):
    names = [r.strip() for r in text.split(",") if r.strip()]
    bad = [r for r in names if r not in RUNTIMES]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"runtimes must be among {','.join(RUNTIMES)}")
    return names


def _int_list(text):
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a comma-separated list of integers: {text}"
        ) from None
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"values must be >= 1: {text}")
    return vals


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's one-line errors (no usage block)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv=None):
    ap = _Parser(prog="hpgraph cbench", description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["cbench", "pingpong"], default="cbench")
    ap.add_argument("--runtime", choices=RUNTIMES, default="local")
    ap.add_argument(
        "--runtimes",
        type=_runtime_list,
        default=None,
        help="for sweeps and ping-pong (default: local,mpi,hama)",
    )
    ap.add_argument("-T", "--tasks", type=int, default=None, help="default 2 (bytes sweep: 4)")
    ap.add_argument(
        "-P", "--partners", type=int, default=None, help="tasks each task sends to (default: T - 1)"
    )
    # the old name of --partners, still accepted
    ap.add_argument("--peers", dest="partners", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("-N", "--msgs", type=int, default=1)
    ap.add_argument("-M", "--bytes", type=int, default=1024)
    ap.add_argument("-I", "--supersteps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sweep", choices=["tasks", "bytes"], default=None)
    ap.add_argument(
        "--task-counts",
        type=_int_list,
        default=[2, 4, 8, 16],
        help="T values of the tasks sweep (default 2,4,8,16)",
    )
    ap.add_argument(
        "--sizes",
        type=_int_list,
        default=None,
        help="M values of the bytes sweep or ping-pong (default 64..1M, 8..2M)",
    )
    ap.add_argument("--iters", type=int, default=0, help="ping-pong round trips (0: auto)")
    ap.add_argument(
        "--zookeeper",
        default=None,
        metavar="HOST:PORT",
        help="hama: a running ZooKeeper (default: $HPGRAPH_ZOOKEEPER, else one "
        "started for the run)",
    )
    ap.add_argument(
        "--aggregation",
        choices=["direct", "node"],
        default=None,
        help="mpi: messages rank to rank (direct) or through one leader per node (node); "
        "sets $HPGRAPH_MPI_AGGREGATION for the ranks (HPGRAPH_MPI_RANKS_PER_NODE=k "
        "emulates nodes of k ranks on one machine)",
    )
    ap.add_argument("--out", default="cbench", help="file prefix for sweep CSV/PNG")
    ap.add_argument("--csv-row", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.aggregation is not None:  # read by MPIRuntime in the ranks mpiexec starts
        os.environ["HPGRAPH_MPI_AGGREGATION"] = a.aggregation
    for name in ("tasks", "msgs", "bytes", "supersteps"):
        if getattr(a, name) is not None and getattr(a, name) < 1:
            ap.error(f"--{name} must be >= 1")
    if a.iters < 0:
        ap.error("--iters must be >= 0")
    runtimes = a.runtimes or list(RUNTIMES)
    several = a.mode == "pingpong" or a.sweep
    if "hama" in (runtimes if several else [a.runtime]):  # before any other runtime runs
        from hpgraph.runtimes.hama.runtime import require_packages

        require_packages()
    if a.mode == "pingpong":
        from hpgraph.bench import pingpong as pp

        results = []
        for rt in runtimes:
            results += pp.pingpong(rt, a.sizes or pp.DEFAULT_SIZES, a.iters or None)
        pp.print_results(results)
        print("wrote " + ", ".join(pp.write_results(results, a.out)))
        return 0
    if a.sweep:
        rows = sweep(a.sweep, runtimes=runtimes, tasks=a.task_counts, sizes=a.sizes,
                     fixed_tasks=a.tasks or 4, supersteps=a.supersteps,
                     seed=a.seed, out_prefix=a.out, zookeeper=a.zookeeper)  # fmt: skip
        _print(rows)
        _print_speedups(a.sweep, rows)
        png = f", {a.out}-{a.sweep}.png" if _pyplot() is not None else ""
        print(f"wrote {a.out}-{a.sweep}.csv{png}")
        return 0
    if a.csv_row:  # inside mpiexec: every rank runs, rank 0 reports one machine line
        r = cbench("mpi", a.tasks or 2, a.partners, a.msgs, a.bytes, a.supersteps, a.seed)
        if os.environ.get("PMI_RANK", "0") == "0":
            print("CBENCH " + " ".join(str(v) for v in asdict(r).values()), flush=True)
        return 0
    r = _run_one(a.runtime, a.tasks or 2, a.partners, a.msgs, a.bytes, a.supersteps, a.seed,
                 a.zookeeper)  # fmt: skip
    _print([r])
    return 0


def _print_speedups(kind, rows):
    ups = speedups(kind, rows)
    if not ups:
        return
    what = "T" if kind == "tasks" else "M"
    print(f"speedup over hama (hama median / runtime median): {what}, runtime, barrier, comm")
    for x, rt, b, c in ups:
        print(f"{x:>8} {rt:8} {b:>9.1f}x {c:>9.1f}x")


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
        print(
            f"{r.runtime:8} {r.tasks:>3} {r.partners:>3} {r.msgs:>3} {r.bytes:>8} {b:>26} {c:>26}"
        )


if __name__ == "__main__":
    sys.exit(main())
