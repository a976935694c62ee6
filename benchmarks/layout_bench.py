"""Fruchterman-Reingold layout benchmark: hpgraph against igraph on the same graph in the
same run, with the quality measures of both.

Graph: a random geometric graph (n points uniform in the unit square, joined when closer
than sqrt(degree / (pi n)): mean degree about ``degree``), undirected, fixed seed; its
good drawings are known (the points themselves), so the quality measures mean something.

    .venv/bin/python benchmarks/layout_bench.py --n 100000 --threads 2

igraph's ``layout_fruchterman_reingold(niter=100, grid="grid")`` runs at ``--igraph-n``
vertices (default: the same graph when a 10k trial extrapolates under ``--igraph-budget``
seconds, else the 10k graph); NetworkX's spring_layout (dense O(n^2) per iteration) is
timed at ``--nx-n`` vertices only, against hpgraph on the same small graph.
"""

from __future__ import annotations

import argparse
import importlib
import math
import time

import numpy as np
from scipy.spatial import cKDTree

from hpgraph.graph import Graph

# the module itself: the package re-exports the function under the same name
L = importlib.import_module("hpgraph.algorithms.layout")
BH = importlib.import_module("hpgraph.algorithms.layout.barnes_hut")


def geometric(n, degree, seed):
    pts = np.random.default_rng(seed).random((n, 2))
    pairs = cKDTree(pts).query_pairs(math.sqrt(degree / (math.pi * n)), output_type="ndarray")
    return Graph.from_edges(pairs[:, 0], pairs[:, 1], n=n, directed=False, name=f"rgg{n}")


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def fmt(q):
    return f"ratio {q['neighbour_ratio']:.3f}  edge-cv {q['edge_length_cv']:.3f}"


def hp_bytes_per_vertex(g, res, peers):
    """Bytes per vertex of the arrays one iteration holds (Barnes-Hut, per peer copy of
    the positions and the tree, summed over peers), measured on the final layout."""
    x = np.column_stack([res[c] for c in res.columns])
    n, dim = x.shape
    p3 = np.zeros((n, 3))
    p3[:, :dim] = x
    _, _, nn, _, _ = BH._bh_build(p3, dim, 0.8)
    # per peer: its positions, the 3-wide copy, Morton keys + the radix sort's 4 arrays,
    # Morton-ordered positions, the slot map; tree nodes (int row, float row, size)
    per_peer = n * (8 * dim + 24 + 40 + 24 + 8) + nn * (48 + 64 + 8)
    own = n * (8 + 24 + 8 * dim)  # ids, disp, new positions: split over the peers
    return (peers * per_peer + own) / n, nn


def run_igraph(g, iters):
    import igraph as ig

    s, d, _ = g.edges()
    keep = s < d
    G = ig.Graph(n=g.n, edges=np.column_stack([s[keep], d[keep]]).tolist())
    lay, t = timed(lambda: G.layout_fruchterman_reingold(niter=iters, grid="grid", seed=None))
    return np.array(lay.coords), t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--degree", type=float, default=8.0)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--igraph-n", type=int, default=None)
    ap.add_argument("--igraph-budget", type=float, default=300.0)
    ap.add_argument("--nx-n", type=int, default=2000, help="0: skip NetworkX")
    ap.add_argument("--methods", default="barnes-hut,grid")
    a = ap.parse_args()

    g = geometric(a.n, a.degree, a.seed)
    print(f"graph {g.name}: {g.n:,} vertices, {g.num_edges:,} edges; {a.iterations} "
          f"iterations, {a.threads} threads")  # fmt: skip
    L.layout(geometric(500, 8, 0), iterations=2, method="barnes-hut")  # compile / load
    L.layout(geometric(500, 8, 0), iterations=2, method="grid")
    rows = {}
    for method in a.methods.split(","):
        res, t = timed(lambda m=method: L.layout(g, method=m, iterations=a.iterations,
                                                 threads=a.threads))  # fmt: skip
        q = L.layout_quality(g, res)
        rows[method] = t
        print(f"hpgraph {method:10s} {t:8.2f} s   {fmt(q)}")
    bpv, nn = hp_bytes_per_vertex(g, res, a.threads)
    print(
        f"hpgraph memory: about {bpv:.0f} B per vertex with {a.threads} peers "
        f"({nn:,} tree nodes); the graph itself: {g.memory_bytes() / g.n:.0f} B per vertex"
    )

    ig_n = a.igraph_n
    if ig_n is None:
        small = geometric(10_000, a.degree, a.seed)
        _, t10 = run_igraph(small, a.iterations)
        guess = t10 * a.n / 10_000
        ig_n = a.n if guess < a.igraph_budget else 10_000
        print(f"igraph 10k trial {t10:.2f} s -> {a.n:,} estimated {guess:.0f} s")
    gi = g if ig_n == a.n else geometric(ig_n, a.degree, a.seed)
    coords, t_ig = run_igraph(gi, a.iterations)
    q_ig = L.layout_quality(gi, coords)
    if gi is g:
        print(
            f"igraph  grid FR   {t_ig:8.2f} s   {fmt(q_ig)}   "
            f"(hpgraph / igraph time: {next(iter(rows.values())) / t_ig:.2f})"
        )
    else:
        res, t = timed(lambda: L.layout(gi, iterations=a.iterations, threads=a.threads,
                                        method="barnes-hut"))  # fmt: skip
        print(
            f"at {ig_n:,}: igraph grid FR {t_ig:.2f} s {fmt(q_ig)}; hpgraph barnes-hut "
            f"{t:.2f} s {fmt(L.layout_quality(gi, res))}; ratio {t / t_ig:.2f}"
        )

    if a.nx_n:
        import networkx as nx

        gs = geometric(a.nx_n, a.degree, a.seed)
        s, d, _ = gs.edges()
        G = nx.Graph()
        G.add_nodes_from(range(gs.n))
        G.add_edges_from(zip(s.tolist(), d.tolist(), strict=True))
        pos, t_nx = timed(lambda: nx.spring_layout(G, iterations=a.iterations, seed=a.seed))
        res, t = timed(lambda: L.layout(gs, iterations=a.iterations, threads=a.threads))
        print(f"at {a.nx_n:,}: networkx spring_layout {t_nx:.2f} s {fmt(L.layout_quality(gs, pos))}"
              f"; hpgraph {res.meta['method']} {t:.2f} s {fmt(L.layout_quality(gs, res))}; "
              f"ratio {t / t_nx:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
