"""``python -m hpgraph.bench``: see :mod:`hpgraph.bench` for what it measures."""

from __future__ import annotations

import argparse
import os
import sys

from hpgraph.algorithms.registry import ALGORITHMS, bench_kernels
from hpgraph.errors import HPGraphError

__all__ = ["main", "build_parser"]


def _split(values):
    return [v for item in values or [] for v in item.split(",") if v]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m hpgraph.bench",
        description="Time hpgraph's kernels against the installed PyPI competitors on the "
        "same graphs, in the same process.",
    )
    core = ",".join(k for k in bench_kernels() if ALGORITHMS[k].bench.core)
    p.add_argument(
        "graphs",
        nargs="*",
        metavar="GRAPH",
        help="as `hpgraph bench` takes them: kronecker:SCALE[:EF], uniform:N:M or a graph "
        "file (also --kronecker, --uniform, --graph) [kronecker:16]",
    )
    p.add_argument(
        "--kernels",
        default=None,
        help=f"comma-separated, of {','.join(bench_kernels())} [{core}]",
    )
    p.add_argument(
        "--kronecker",
        action="append",
        metavar="SCALE[:EF]",
        help="Graph500 Kronecker graph(s), e.g. 16 or 20:16; repeat or comma-separate",
    )
    p.add_argument(
        "--uniform",
        action="append",
        metavar="N:M",
        help="uniform random graph(s), e.g. 1000000:16000000 or 1M:16M",
    )
    p.add_argument("--graph", action="append", metavar="PATH", help="a graph file")
    p.add_argument("--trials", type=int, default=3, help="timed runs (per root) [3]")
    p.add_argument("--threads", type=int, default=None, help="threads [all cores]")
    p.add_argument("--roots", type=int, default=8, help="BFS/SSSP roots per graph [8]")
    p.add_argument("--no-verify", dest="verify", action="store_false")
    p.add_argument("--competitors", default=None, help="comma-separated competitor libraries [all]")
    # the option's old name, still accepted
    p.add_argument("--peers", dest="competitors", default=None, help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, default=20, help="PageRank iterations [20]")
    p.add_argument("--damping", type=float, default=0.85)
    p.add_argument(
        "--dtype",
        choices=ALGORITHMS["pagerank"].param("dtype").choices,
        default=ALGORITHMS["pagerank"].param("dtype").default,
        help="precision of hpgraph's PageRank ranks and SSSP distances; float32 as GAP "
        "keeps them [float64]",
    )
    # the option's old name, still accepted
    p.add_argument("--pagerank-dtype", dest="dtype", help=argparse.SUPPRESS,
                   choices=ALGORITHMS["pagerank"].param("dtype").choices)  # fmt: skip
    p.add_argument(
        "--order",
        choices=ALGORITHMS["pagerank"].param("order").choices,
        default=ALGORITHMS["pagerank"].param("order").default,
        help="vertex numbering of hpgraph's PageRank and SSSP; hubs: the hub-grouped view "
        "(built before the timed calls) [auto]",
    )
    p.add_argument("--out", "--output", "-o", default=None, help="write a .md or .csv report")
    p.add_argument(
        "--gap",
        default=None,
        metavar="DIR",
        help="also time the GAP Benchmark Suite's programs built in DIR, on the same graphs",
    )
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.threads:
        # OpenMP competitors without a thread setting (igraph's PRPACK) use the same count;
        # set before any competitor loads its OpenMP runtime
        os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    from hpgraph.bench.harness import run_bench

    graphs = list(args.graphs)
    graphs += [f"kronecker:{s}" for s in _split(args.kronecker)]
    graphs += [f"uniform:{s}" for s in _split(args.uniform)]
    graphs += [f"file:{s}" for s in _split(args.graph)]
    if not graphs:
        graphs = ["kronecker:16"]
    try:
        report = run_bench(
            kernels=args.kernels,
            graphs=graphs,
            trials=args.trials,
            threads=args.threads,
            roots=args.roots,
            verify=args.verify,
            out=args.out,
            competitors=_split([args.competitors]) if args.competitors else None,
            seed=args.seed,
            damping=args.damping,
            iterations=args.iterations,
            dtype=args.dtype,
            order=args.order,
            gap=args.gap,
        )
    except HPGraphError as exc:
        print(f"hpgraph bench: error: {exc}", file=sys.stderr)
        return 2
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
