"""Leaders benchmark: betweenness inside every community of a BMLPA cover of generated
mention data, hpgraph's one-batch kernel (hpgraph.algorithms.leaders) against igraph's
``betweenness()`` called once per community's induced subgraph, on the same communities
in the same run (the exact ones, up to ``EXACT_MAX`` members), then the whole stage
(exact and sampled communities) as the communities application runs it.

    .venv/bin/python benchmarks/leaders_bench.py --n 1000000 --m 1250000
    flock /tmp/hpgraph-big.lock \
        .venv/bin/python benchmarks/leaders_bench.py --n 8000000 --m 10000000
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--m", type=int, default=1_250_000)
    ap.add_argument("--b", type=float, default=0.1)
    ap.add_argument("--min-size", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import igraph as ig

    from hpgraph.algorithms.bmlpa import bmlpa
    from hpgraph.algorithms.leaders import EXACT_MAX, community_leaders
    from hpgraph.generators.mention import mention_data
    from hpgraph.graph.views import simple_view

    mentions, _ = mention_data(args.n, args.m, seed=args.seed)
    g = mentions.graph
    t0 = time.perf_counter()
    cover = bmlpa(g, b=args.b, initial=mentions.initial_labels(), max_labels=round(1 / args.b),
                  threads=args.threads)  # fmt: skip
    print(f"{g.n:,} users: BMLPA {time.perf_counter() - t0:.1f} s, "
          f"{cover.num_communities:,} communities")  # fmt: skip
    sizes = cover.sizes
    small = (sizes >= args.min_size) & (sizes <= EXACT_MAX)
    # hpgraph on the exact communities only: a cover holding just their memberships
    keep = small[cover.community_of]
    owner = np.repeat(np.arange(g.n), np.diff(cover.ptr))
    ptr = np.zeros(g.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner[keep], minlength=g.n), out=ptr[1:])
    sub = (ptr, cover.community_of[keep])
    community_leaders(g, sub, min_size=args.min_size, threads=args.threads)  # warm-up
    t0 = time.perf_counter()
    lead = community_leaders(g, sub, min_size=args.min_size, threads=args.threads)
    hp_s = time.perf_counter() - t0
    # igraph: one call per community on its induced subgraph (same simple view)
    ip, ix = simple_view(g)
    src = np.repeat(np.arange(g.n), np.diff(ip))
    keep_e = src < ix
    G = ig.Graph(n=g.n, edges=np.column_stack([src[keep_e], ix[keep_e]]).tolist())
    members = cover.communities()
    ids = np.flatnonzero(small)
    t0 = time.perf_counter()
    best = {}
    for c in ids.tolist():
        h = G.induced_subgraph(members[c].tolist())
        bc = np.asarray(h.betweenness(directed=False))
        s = members[c].size
        if s > 2:
            bc = bc * 2.0 / ((s - 1) * (s - 2))
        best[c] = float(bc.max())
    ig_s = time.perf_counter() - t0
    top = lead.rank == 1
    got = dict(zip(lead.community[top].tolist(), lead.betweenness[top].tolist(), strict=True))
    worst = max(abs(got[c] - best[c]) for c in ids.tolist())
    print(f"exact communities ({args.min_size}..{EXACT_MAX} members): {ids.size:,}; "
          f"hpgraph {hp_s:.2f} s, igraph per community {ig_s:.2f} s: igraph/hpgraph "
          f"{ig_s / hp_s:.1f}x; largest top-betweenness difference {worst:.2e}")  # fmt: skip
    t0 = time.perf_counter()
    full = community_leaders(g, cover, min_size=args.min_size, threads=args.threads)
    print(f"whole stage: {time.perf_counter() - t0:.2f} s, {full.meta['communities']:,} "
          f"communities ({full.meta['sampled_communities']:,} sampled, largest "
          f"{full.meta['largest']:,}), {full.meta['searches']:,} searches, build "
          f"{full.meta['build_s']:.2f} s, Brandes {full.meta['brandes_s']:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
