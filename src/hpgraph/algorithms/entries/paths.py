"""Registry entries of traversals and paths: ``bfs``, ``wcc``, ``sssp``, ``apsp``, with
their reports and the one-line results of ``hpgraph demo``."""

from __future__ import annotations

from hpgraph.algorithms.entries._common import (
    KERNELS,
    ORDER,
    VERIFY,
    count,
    dtype_param,
    plain,
    precision_row,
    reached,
    rooted,
)
from hpgraph.algorithms.entries.base import Algorithm, BenchSpec, GapRun, Param, Verifier

__all__ = ["BFS", "WCC", "SSSP", "APSP"]

#: ``--variant``: which algorithm computes a kernel (one option for every kernel that has
#: several; each kernel takes its own and says so for the others)
VARIANTS = ("auto", "afforest", "hashmin", "delta-stepping", "bellman-ford")


def _report_bfs(result):
    depth = result["depth"]
    return [
        ("reached", reached(result, depth >= 0)[1]),
        ("max depth", count(depth.max(initial=0))),
    ], None


def _brief_bfs(result):
    n, _ = reached(result, result["depth"] >= 0)
    share = 100 * n / max(result.graph.n, 1)
    return f"reached {n:,} ({share:.1f}%), max depth {int(result['depth'].max())}"


def _report_wcc(result):
    import numpy as np

    g = result.graph
    comp = np.asarray(result["component"], dtype=np.int64)
    sizes = np.bincount(comp, minlength=g.n) if g.n else np.zeros(0, np.int64)
    k = int(np.count_nonzero(sizes))
    rows = [("components", count(k))]
    if k:
        big = int(sizes.max())
        rows.append(("largest", f"{big:,} vertices ({100 * big / max(g.n, 1):.1f}%)"))
        rows.append(("singletons", count(np.count_nonzero(sizes == 1))))
    return rows, None


def _brief_wcc(result):
    import numpy as np

    return f"{count(np.unique(result['component']).size)} components"


def _report_sssp(result):
    import numpy as np

    dist = result["distance"]
    fin = np.isfinite(dist)
    meta = result.meta
    how = meta.get("variant", "")
    if how == "delta-stepping":
        form = f"{meta['rounds']:,} rounds" if "rounds" in meta else "in supersteps"
        how += f" ({form}, bucket width {meta['delta']:.4g})"
    return [
        ("variant", how),
        ("reached", reached(result, fin)[1]),
        ("max distance", f"{dist[fin].max(initial=0.0):.6g}"),
    ] + precision_row(result, "each weight rounded to float32 and added in float32"), None


def _brief_sssp(result):
    import numpy as np

    d = result["distance"]
    fin = np.isfinite(d)
    n, _ = reached(result, fin)
    share = 100 * n / max(result.graph.n, 1)
    return f"reached {n:,} ({share:.1f}%), max distance {d[fin].max():.4g}"


def _report_apsp(result):
    import numpy as np

    if result.distances is None:
        return [("streamed", f"{result.meta.get('pairs', 0):,} pairs to {result.path}")], None
    n = result.graph.n
    fin = np.isfinite(result.distances)
    return [
        ("finite pairs", f"{int(fin.sum()):,} of {n * n:,}"),
        ("diameter", f"{result.distances[fin].max(initial=0.0):.6g}"),
    ], None


BFS = Algorithm(
    "bfs",
    KERNELS + "bfs:bfs",
    True,
    "breadth-first search: depth and parent",
    verifier=Verifier(VERIFY + "verify_bfs", rooted, "Graph500 BFS rules and Graphalytics depths"),
    report=_report_bfs,
    columns=("vertex", "depth", "parent"),
    bench=BenchSpec(
        "depth",
        "depth",
        1,
        brief=_brief_bfs,
        gap=GapRun("bfs", count=r"BFS Tree has (\d+) nodes"),
    ),
    partitioned=True,
    checkpoints=True,
)

WCC = Algorithm(
    "wcc",
    KERNELS + "wcc:wcc",
    False,
    "weakly connected components",
    (
        Param(
            "variant",
            str,
            "auto",
            "afforest (GAP's: sampled hooking; on MPI per rank's rows with boundary merges) or "
            "hashmin (the vertex program); auto: afforest, or hashmin with checkpoints",
            choices=VARIANTS,
        ),
    ),
    verifier=Verifier(VERIFY + "verify_wcc", plain, "components equal SciPy's, up to relabelling"),
    report=_report_wcc,
    columns=("vertex", "component"),
    bench=BenchSpec(
        "component",
        "partition",
        2,
        brief=_brief_wcc,
        gap=GapRun("cc", count=r"There are (\d+) components"),  # Afforest
    ),
    partitioned=True,  # both variants
    checkpoints=True,
)

SSSP = Algorithm(
    "sssp",
    KERNELS + "sssp:sssp",
    True,
    "single-source shortest paths: distance and parent",
    (
        Param(
            "variant",
            str,
            "auto",
            "delta-stepping (threads sharing memory on the local runtime, bucket-synchronous "
            "supersteps elsewhere and with checkpoints) or bellman-ford; auto: delta-stepping",
            choices=VARIANTS,
        ),
        Param(
            "delta",
            float,
            None,
            "delta-stepping's bucket width (default: mean weight / 2 / mean degree, 16x "
            "that in supersteps)",
        ),
        dtype_param("distance"),
        ORDER,
    ),
    wants_weights=True,
    verifier=Verifier(VERIFY + "verify_sssp", rooted, "Graph500 SSSP rules"),
    report=_report_sssp,
    columns=("vertex", "distance", "parent"),
    bench=BenchSpec(
        "distance",
        "distance",
        3,
        ("dtype", "order"),
        brief=_brief_sssp,
        gap=GapRun("sssp", ("-d", "{delta}"), r"SSSP Tree reaches (\d+) nodes"),
    ),
    checkpoints=True,
    partitioned=True,  # the vertex programs (bucket-synchronous, bellman-ford)
)

APSP = Algorithm(
    "apsp",
    KERNELS + "apsp:apsp",
    False,
    "all-pairs shortest path distances (dense in memory, or streamed to --output)",
    (
        Param("block", int, None, "sources per streamed block"),
        Param("max_memory", int, None, "bytes the dense n x n matrix may take"),
    ),
    writes_output=True,
    api_only=("weighted",),
    report=_report_apsp,
    columns=("source", "target", "distance"),
    whole_graph=True,
)
