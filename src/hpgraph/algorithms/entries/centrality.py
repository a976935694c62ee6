"""Registry entries of centralities: ``pagerank``, ``betweenness`` and
``edge_betweenness``, with their verifier arguments and reports."""

from __future__ import annotations

from hpgraph.algorithms.entries._common import (
    KERNELS,
    ORDER,
    VERIFY,
    dtype_param,
    precision_row,
    scalar,
)
from hpgraph.algorithms.entries.base import (
    Algorithm,
    BenchSpec,
    GapRun,
    Param,
    ReportTable,
    Verifier,
)

__all__ = ["PAGERANK", "BETWEENNESS", "EDGE_BETWEENNESS"]


def _pagerank_args(graph, result, source, options):
    meta = result.meta
    return graph, result, meta.get("damping", 0.85), meta.get("iterations", 20)


def _pagerank_checks(result):
    it = result.meta.get("iterations", 20)
    return f"within relative 1e-4 of a SciPy power iteration ({it} iterations)"


def _report_pagerank(result):
    import numpy as np

    rank, meta = result["rank"], result.meta
    it = f"{meta.get('iterations', '?')}"
    if meta.get("converged"):
        it += " (converged: the L1 change fell below --tolerance)"
    top = np.argsort(-rank, kind="stable")[:5]
    ids = result.vertex_ids()
    table = ReportTable(
        f"top {len(top)} vertices by rank",
        ("#", "vertex", "rank"),
        [(str(i), str(scalar(ids[v])), f"{rank[v]:.6g}") for i, v in enumerate(top.tolist(), 1)],
    )
    rows = [("iterations", it), ("rank sum", f"{rank.sum():.6f}")]
    rows += precision_row(result, "ranks and sums; within about 2e-5 of double")
    if meta.get("order") == "hubs":
        rows.append(("vertex order", "hubs first (the hub-grouped view, cached on the graph)"))
    elif meta.get("order") == "own":
        rows.append(("vertex order", "hubs first (the graph's own numbering)"))
    return rows, table


def _brief_pagerank(result):
    import numpy as np

    rank = result["rank"]
    v = int(np.argmax(rank))
    hubs = ", hubs first" if result.meta.get("order") in ("hubs", "own") else ""
    return f"top vertex {scalar(result.vertex_ids()[v])} (rank {rank[v]:.3g}){hubs}"


def _report_betweenness(result, what):
    import numpy as np

    col = result["betweenness"]
    k = result.meta.get("k")
    rows = [("sources", "exact" if k is None else f"{k} sampled sources")]
    if col.size:
        top = int(np.argmax(col))
        rows.append(("highest", f"{what(result, top)} ({col[top]:.6g})"))
    return rows, None


def _top_vertex(result, i):
    return f"vertex {scalar(result.vertex_ids()[i])}"


def _top_edge(result, i):
    cols = result.output_columns()
    return "edge {} -> {}".format(*(scalar(cols[c][i]) for c in ("source", "target")))


PAGERANK = Algorithm(
    "pagerank",
    KERNELS + "pagerank:pagerank",
    False,
    "PageRank (LDBC Graphalytics definition)",
    (
        Param("damping", float, 0.85, "damping factor d"),
        Param("iterations", int, 20, "iterations (an upper bound with --tolerance)"),
        Param("tolerance", float, None, "stop when the L1 change drops below this"),
        dtype_param("rank"),
        ORDER,
    ),
    verifier=Verifier(VERIFY + "verify_pagerank", _pagerank_args, _pagerank_checks),
    report=_report_pagerank,
    columns=("vertex", "rank"),
    bench=BenchSpec(
        "rank",
        "real",
        0,
        ("damping", "iterations", "dtype", "order"),
        _brief_pagerank,
        # pr_spmv: GAP's Jacobi (pull SpMV) PageRank; its pr is Gauss-Seidel. -t 0: no
        # early stop, exactly the iterations asked for
        gap=GapRun("pr_spmv", ("-i", "{iterations}", "-t", "0")),
    ),
    partitioned=True,
    checkpoints=True,
)

#: The parameters both betweenness entries take.
_K = Param("k", int, None, "sampled sources, seeded by --seed (exact when not given)")
_NORMALIZED = Param("normalized", bool, True, "divide by the number of (s, t) pairs")

BETWEENNESS = Algorithm(
    "betweenness",
    KERNELS + "betweenness:betweenness",
    False,
    "vertex betweenness centrality (Brandes; NetworkX 3.6 scaling)",
    (_K, _NORMALIZED, Param("endpoints", bool, False, "count s and t as on the path")),
    seeded=True,
    api_only=("sources", "weighted"),
    report=lambda result: _report_betweenness(result, _top_vertex),
    columns=("vertex", "betweenness"),
    whole_graph=True,
    bench=BenchSpec("betweenness", "real", 6, core=False),
)

EDGE_BETWEENNESS = Algorithm(
    "edge_betweenness",
    KERNELS + "betweenness:edge_betweenness",
    False,
    "edge betweenness centrality, one row per edge",
    (_K, _NORMALIZED),
    seeded=True,
    api_only=("sources", "weighted"),
    report=lambda result: _report_betweenness(result, _top_edge),
    columns=("source", "target", "betweenness"),
    whole_graph=True,
)
