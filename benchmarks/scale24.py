"""The issue's memory target: Graph500 Kronecker scale 24 (16.7M vertices, 268M undirected
edges) generated once into the binary form, then loaded (memory-mapped) in a fresh process
that runs PageRank, BFS and WCC; prints times and the peak resident memory per edge.

    python benchmarks/scale24.py [--scale 24] [--threads 2] [--path /tmp/kron24.hpgc]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time


def peak_rss_bytes() -> int:
    """This process's peak resident memory. /proc's VmHWM starts afresh at exec, where
    getrusage's ru_maxrss would still include the parent's peak at fork time."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def generate(scale, path, threads):
    import hpgraph as hp

    t0 = time.perf_counter()
    g = hp.generators.kronecker(scale, seed=0, threads=threads)
    t1 = time.perf_counter()
    hp.io.save_binary(g, path)
    print(
        f"generated kron{scale}: {g.n:,} vertices, {g.num_edges:,} edges in {t1 - t0:.1f} s; "
        f"saved in {time.perf_counter() - t1:.1f} s; peak RSS {peak_rss_bytes() / 2**30:.2f} GiB"
        f" ({peak_rss_bytes() / g.num_edges:.1f} B per edge)",
        flush=True,
    )


def run_kernels(path, threads):
    import numpy as np

    import hpgraph as hp

    t0 = time.perf_counter()
    g = hp.io.load_binary(path, mmap=True)
    print(f"loaded {g!r} in {time.perf_counter() - t0:.3f} s (memory-mapped)", flush=True)
    source = int(np.argmax(g.out_degree()))
    for name, fn, args in (
        ("pagerank", hp.pagerank, ()),
        ("bfs", hp.bfs, (source,)),
        ("wcc", hp.wcc, ()),
    ):
        t0 = time.perf_counter()
        r = fn(g, *args, threads=threads)
        el = time.perf_counter() - t0
        print(
            f"{name}: {el:.2f} s ({r.stats.setup_s:.2f} s setup), {r.meta}; "
            f"peak RSS so far {peak_rss_bytes() / 2**30:.2f} GiB "
            f"({peak_rss_bytes() / g.num_edges:.1f} B per edge)",
            flush=True,
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--path", default=None)
    ap.add_argument("--kernels-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    path = a.path or f"/tmp/kron{a.scale}.hpgc"
    if a.kernels_only:
        run_kernels(path, a.threads)
        return
    if not os.path.exists(path):
        generate(a.scale, path, a.threads)
    # a fresh process: its peak memory is the load and the kernels only
    cmd = [sys.executable, __file__, "--kernels-only", "--path", path, "--threads", str(a.threads)]
    sys.exit(subprocess.call(cmd))


if __name__ == "__main__":
    main()
