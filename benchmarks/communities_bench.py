"""The communities application at the seed's scale: generated mention data (default 8M
users, 10M mentions, 20,000 hashtags) written as Parquet, then ``hpgraph communities``
(:func:`hpgraph.apps.communities.run_communities`) from the Parquet file to the report
folder, each stage timed with its peak memory; NetworKit's PLP (non-overlapping label
propagation) on the same user graph, timed in the same run, is the yardstick.

    flock /tmp/hpgraph-big.lock .venv/bin/python benchmarks/communities_bench.py
    .venv/bin/python benchmarks/communities_bench.py --n 300000 --m 400000
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8_000_000)
    ap.add_argument("--m", type=int, default=10_000_000)
    ap.add_argument("--hashtags", type=int, default=20_000)
    ap.add_argument("--b", type=float, default=0.1)
    ap.add_argument("--dim", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="report folder (default: a temporary one)")
    args = ap.parse_args()

    import networkit as nk

    from hpgraph.apps.communities import run_communities
    from hpgraph.generators.mention import mention_data
    from hpgraph.graph.views import simple_view

    work = Path(tempfile.mkdtemp(prefix="hpgraph-communities-"))
    try:
        t0 = time.perf_counter()
        mentions, _ = mention_data(args.n, args.m, hashtags=args.hashtags, seed=args.seed)
        path = work / "mentions.parquet"
        mentions.write(path)
        mib = path.stat().st_size / 2**20
        print(f"generated and wrote {args.n:,} users / {args.m:,} mentions in "
              f"{time.perf_counter() - t0:.1f} s ({mib:.0f} MiB)")  # fmt: skip
        del mentions
        out = Path(args.out) if args.out else work / "report"
        t0 = time.perf_counter()
        rep = run_communities(
            path, out, b=args.b, dim=args.dim, threads=args.threads, force=True, seed=args.seed
        )
        total = time.perf_counter() - t0
        # the yardstick: NetworKit PLP on the same undirected simple graph, same threads
        g = rep.results["mentions"].graph
        ip, ix = simple_view(g)
        src = np.repeat(np.arange(g.n, dtype=np.uint64), np.diff(ip))
        keep = src < ix
        G = nk.GraphFromCoo(
            (np.ones(int(keep.sum())), (src[keep], ix[keep].astype(np.uint64))), n=g.n
        )
        nk.setNumberOfThreads(args.threads)
        t0 = time.perf_counter()
        plp = nk.community.PLP(G)
        plp.run()
        plp_s = time.perf_counter() - t0
        stages = rep.summary["stages"]
        print(json.dumps({"total_s": total, "plp_s": plp_s, "stages": stages}))
        print(f"\nPLP {plp_s:.1f} s ({plp.getPartition().numberOfSubsets():,} communities, "
              f"{plp.numberOfIterations()} iterations)")  # fmt: skip
        print("| stage | s | x PLP | peak RSS MiB |")
        print("|---|---|---|---|")
        for name, row in stages.items():
            print(f"| {name} | {row['seconds']:.1f} | {row['seconds'] / plp_s:.1f} | "
                  f"{row['peak_rss_mib']:,} |")  # fmt: skip
        print(f"| whole pipeline (Parquet in, report out) | {total:.1f} | {total / plp_s:.1f} | "
              f"{max(r['peak_rss_mib'] for r in stages.values()):,} |")  # fmt: skip
        c = rep.summary["communities"]
        print(f"\n{c['count']:,} communities, {c['with_leaders']:,} with leaders, "
              f"{c['iterations']} {'sweeps' if c['update'] == 'semi-sync' else 'supersteps'} "
              f"(stopped by {c['stopped_by']}); page "
              f"{stages['pictures']['page_bytes'] / 2**20:.1f} MiB")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
