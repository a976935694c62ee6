"""Multilevel community layout benchmark: hpgraph's community_layout on a mention graph,
against igraph's grid Fruchterman-Reingold (and hpgraph's own Barnes-Hut ``layout``) on
the same graph in the same run, with the quality measures of all.

Graph: ``mention_graph(n, 1.25 n, seed=0)`` (the seed paper's Twitter input shape).
Cover: BMLPA (``b=0.1, max_labels=10``) up to ``--bmlpa-max`` vertices, NetworKit's PLP
(parallel label propagation, 2 threads, its own seeding) above; the cover's time is
printed but not counted in the layout's. Quality: :func:`layout_quality`'s
``neighbour_ratio`` (mean edge length / mean random-pair distance) and
``intra_ratio`` (mean intra-community edge length / mean random-pair distance).

    .venv/bin/python benchmarks/community_layout_bench.py --n 100000 --igraph --flat
    flock /tmp/hpgraph-big.lock /usr/bin/time -v \\
        .venv/bin/python benchmarks/community_layout_bench.py --n 8000000
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from hpgraph.algorithms.community_layout import community_layout
from hpgraph.algorithms.layout import layout, layout_quality
from hpgraph.generators.mention import mention_graph


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def positions(res):
    return np.column_stack([res[c] for c in res.columns])


def intra_ratio(g, x, comm, pairs=200_000, seed=0):
    """Mean length of simple-view edges inside a community / mean random-pair distance."""
    from hpgraph.graph.views import simple_view

    indptr, indices = simple_view(g)
    src = np.repeat(np.arange(g.n), np.diff(indptr))
    keep = (src < indices) & (comm[src] == comm[indices])
    a, b = src[keep], indices[keep]
    intra = float(np.linalg.norm(x[a] - x[b], axis=1).mean()) if a.size else float("nan")
    rng = np.random.default_rng(seed)
    p = rng.integers(0, g.n, pairs)
    q = (p + rng.integers(1, g.n, pairs)) % g.n
    return intra / float(np.linalg.norm(x[p] - x[q], axis=1).mean())


def giant_ratio(g, x, pairs=200_000, seed=0):
    """neighbour_ratio inside the largest connected component only (edges and random
    pairs both in it): unlike the whole-graph ratio, not lowered by drawing the small
    components far apart."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    from hpgraph.graph.views import simple_view

    indptr, indices = simple_view(g)
    adj = csr_matrix((np.ones(indices.shape[0]), indices, indptr), shape=(g.n, g.n))
    _, lab = connected_components(adj, directed=False)
    big = np.flatnonzero(lab == np.bincount(lab).argmax())
    src = np.repeat(np.arange(g.n), np.diff(indptr))
    keep = (src < indices) & (lab[src] == lab[big[0]])
    mean_e = float(np.linalg.norm(x[src[keep]] - x[indices[keep]], axis=1).mean())
    rng = np.random.default_rng(seed)
    p = big[rng.integers(0, big.size, pairs)]
    q = big[rng.integers(0, big.size, pairs)]
    return mean_e / float(np.linalg.norm(x[p] - x[q], axis=1).mean())


def cover_of(g, bmlpa_max, threads):
    if g.n <= bmlpa_max:
        from hpgraph.algorithms.bmlpa import bmlpa

        cov, t = timed(lambda: bmlpa(g, b=0.1, max_labels=10, threads=threads))
        return cov, cov["community"], f"BMLPA b=0.1 max_labels=10 ({t:.1f} s)"
    import networkit as nk

    from hpgraph.graph.views import simple_view

    indptr, indices = simple_view(g)
    src = np.repeat(np.arange(g.n, dtype=np.uint64), np.diff(indptr))
    keep = src < indices
    nk.setNumberOfThreads(threads)
    G = nk.GraphFromCoo(
        (np.ones(int(keep.sum())), (src[keep], indices[keep].astype(np.uint64))),
        n=g.n,
        directed=False,
        weighted=False,
    )
    del src, keep
    plp = nk.community.PLP(G)
    _, t = timed(plp.run)
    comm = np.array(plp.getPartition().getVector(), dtype=np.int64)
    return comm, comm, f"NetworKit PLP ({t:.1f} s)"


def report(name, g, x, comm, t):
    q = layout_quality(g, x)
    print(
        f"{name:28s} {t:8.2f} s   neighbour ratio {q['neighbour_ratio']:.4f}   intra ratio "
        f"{intra_ratio(g, x, comm):.4f}   giant ratio {giant_ratio(g, x):.4f}   edge-cv "
        f"{q['edge_length_cv']:.3f}",
        flush=True,
    )


def peak_rss_gib():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dim", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bmlpa-max", type=int, default=1_000_000)
    ap.add_argument("--igraph", action="store_true", help="also igraph grid FR (100 iter)")
    ap.add_argument("--flat", action="store_true", help="also hpgraph layout (Barnes-Hut)")
    ap.add_argument("--top", type=int, default=1000)
    ap.add_argument("--refine", type=int, default=30)
    ap.add_argument("--png", default=None, help="draw the layout (rasterised) to this file")
    a = ap.parse_args()

    g, t = timed(lambda: mention_graph(a.n, a.n * 5 // 4, seed=0))
    print(f"graph {g.name}: {g.n:,} vertices, {g.num_edges:,} edges ({t:.1f} s); "
          f"{a.threads} threads, load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    cover, comm, how = cover_of(g, a.bmlpa_max, a.threads)
    print(f"cover: {how}, {np.unique(comm).shape[0]:,} communities", flush=True)
    small = mention_graph(2000, 2500, seed=1)
    community_layout(small, np.arange(2000) // 20, dim=a.dim)  # compile / load
    res, t = timed(lambda: community_layout(g, cover, dim=a.dim, threads=a.threads, seed=a.seed,
                                            top=a.top, refine=a.refine))  # fmt: skip
    stages = ", ".join(f"{k[:-2]} {v:.2f}" for k, v in res.meta.items() if k.endswith("_s"))
    print(f"community_layout stages (s): {stages}")
    print(
        f"  {res.meta['communities']:,} communities, {res.meta['coarse_nodes']:,} coarse "
        f"nodes ({res.meta['orphan_bins']} orphan bins); peak RSS so far "
        f"{peak_rss_gib():.2f} GiB",
        flush=True,
    )
    report("hpgraph community_layout", g, positions(res), comm, t)
    if a.png:
        from hpgraph.viz.layout_plot import plot_layout

        plot_layout(res, a.png, communities=comm % 20, edges=g.n <= 20_000)
    if a.flat:
        layout(small, iterations=2)
        flat, t = timed(lambda: layout(g, dim=a.dim, threads=a.threads, seed=a.seed))
        report("hpgraph layout (B-H, 100 it)", g, positions(flat), comm, t)
    if a.igraph:
        import igraph as ig

        s, d, _ = g.edges()
        G = ig.Graph(n=g.n, edges=np.column_stack([s, d]).tolist())
        G.simplify()
        fn = G.layout_fruchterman_reingold
        lay, t = timed(lambda: fn(niter=100, grid="grid", dim=a.dim))
        report("igraph grid FR (100 it)", g, np.array(lay.coords), comm, t)
    print(f"peak RSS {peak_rss_gib():.2f} GiB")


if __name__ == "__main__":
    main()
