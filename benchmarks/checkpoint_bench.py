"""What superstep checkpoints cost: PageRank (20 iterations) on a Kronecker graph without
checkpoints, with one every ``--every`` supersteps to the RAM tier (``/dev/shm``), and
with the RAM tier drained to a disk folder in the background, timed in the same run,
trials interleaved. ``--kernel bmlpa``: BMLPA (b = 0.1, semi-sync, hashtag labels) on
generated mention data of ``--users`` users and 1.25 mentions per user, a checkpoint
every ``--every`` sweeps (a peer-level program: engine/peer_checkpoint.py).

Prints per mode the best and median superstep-loop seconds of ``--trials`` warm calls
(setup, the kernel compile, excluded), all trials, the ratios to no checkpoints, and the
size of one checkpoint. Run it alone (``mpiexec -n 2`` for two ranks: rank 0 prints):

    .venv/bin/python benchmarks/checkpoint_bench.py --scale 18 --threads 2
    mpiexec -n 2 .venv/bin/python benchmarks/checkpoint_bench.py --scale 18 --mpi
    .venv/bin/python benchmarks/checkpoint_bench.py --kernel bmlpa --users 1000000 --every 2
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from pathlib import Path


def _loop_seconds(result) -> float:
    return result.stats.total_s - result.stats.setup_s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--threads", type=int, default=2, help="threads (per rank with --mpi)")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--ram", default="/dev/shm/hpgraph-checkpoint-bench")
    ap.add_argument("--disk", default=None, help="drain folder [a temporary folder on /tmp]")
    ap.add_argument("--mpi", action="store_true", help="the MPI runtime (under mpiexec)")
    ap.add_argument("--kernel", choices=["pagerank", "bmlpa"], default="pagerank")
    ap.add_argument("--users", type=int, default=1_000_000, help="bmlpa: mention data users")
    args = ap.parse_args()

    import numpy as np

    from hpgraph.algorithms.pagerank import pagerank
    from hpgraph.engine.checkpoint import Checkpoints, complete_checkpoints
    from hpgraph.generators import kronecker

    rt = None
    if args.mpi:
        from hpgraph.runtimes.mpi import MPIRuntime

        rt = MPIRuntime(threads=args.threads)
    root = rt is None or rt.is_root
    if args.kernel == "bmlpa":
        from hpgraph.algorithms.bmlpa import bmlpa
        from hpgraph.generators.mention import mention_data

        mentions, _ = mention_data(args.users, args.users * 5 // 4, seed=0)
        g, labels = mentions.graph, mentions.initial_labels()
        what = f"BMLPA b = 0.1, mention data {args.users:,} users"
    else:
        g = kronecker(args.scale, seed=0)
        what = f"PageRank 20 iterations, kronecker {args.scale}"
    ram = Path(args.ram)
    disk_tmp = None
    if args.disk is None and root:
        disk_tmp = tempfile.mkdtemp(prefix="hpgraph-checkpoint-drain-", dir="/tmp")
    disk = Path(args.disk or disk_tmp or "")
    if rt is not None:  # every rank drains to the same folder name (rank 0 copies)
        disk = Path(rt.comm.bcast(str(disk), root=0))

    def clean():
        if root:
            shutil.rmtree(ram, ignore_errors=True)
            shutil.rmtree(disk, ignore_errors=True)
        if rt is not None:
            rt.allreduce(np.zeros(1))

    modes = {
        "none": lambda: None,
        f"RAM every {args.every}": lambda: Checkpoints(ram, every=args.every),
        f"RAM every {args.every} + drain": lambda: Checkpoints(ram, every=args.every, drain=disk),
    }
    if args.kernel == "bmlpa":  # propagation only: the peer-level job's own time

        def run(ck):
            res = bmlpa(g, b=0.1, initial=labels, threads=args.threads, runtime=rt, checkpoint=ck)
            return res.stats.total_s

    else:

        def run(ck):
            res = pagerank(g, iterations=20, threads=args.threads, runtime=rt, checkpoint=ck)
            return _loop_seconds(res)

    run(None)  # compile and warm up
    times = {m: [] for m in modes}
    size = 0
    for _ in range(args.trials):
        for name, make in modes.items():
            clean()
            times[name].append(run(make()))
            if name != "none" and root:
                found = complete_checkpoints(ram)
                size = sum(f["bytes"] for f in found[-1][2]["files"].values())
    clean()
    if disk_tmp:
        shutil.rmtree(disk_tmp, ignore_errors=True)
    if not root:
        return
    where = f"mpi, {rt.size} ranks x {args.threads}" if rt else f"local, {args.threads} threads"
    print(f"{what} ({g.n:,} vertices, "
          f"{g.num_stored_edges:,} stored edges), {where}; "
          f"one checkpoint {size / 2**20:.1f} MiB")  # fmt: skip
    best0, med0 = min(times["none"]), statistics.median(times["none"])
    print("| mode | loop s best | median | all trials | x none (best) | x none (median) |")
    print("|---|---|---|---|---|---|")
    for name, ts in times.items():
        best, med = min(ts), statistics.median(ts)
        alls = ", ".join(f"{t:.2f}" for t in ts)
        ratios = f"{best / best0:.3f} | {med / med0:.3f}"
        print(f"| {name} | {best:.2f} | {med:.2f} | {alls} | {ratios} |")


if __name__ == "__main__":
    main()
