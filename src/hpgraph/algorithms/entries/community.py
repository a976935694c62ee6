"""Registry entries of clustering and communities: ``lcc``, ``cdlp`` and ``bmlpa``, with
their verifier arguments and reports."""

from __future__ import annotations

from hpgraph.algorithms.entries._common import KERNELS, count, plain
from hpgraph.algorithms.entries.base import Algorithm, BenchSpec, Param, Verifier
from hpgraph.config import BMLPA_TOLERANCE

__all__ = ["LCC", "CDLP", "BMLPA"]


def _report_lcc(result):
    meta = result.meta
    return [
        ("triangles", count(meta["triangles"])),
        ("average LCC", f"{meta['average_clustering']:.6g}"),
        ("transitivity", f"{meta['transitivity']:.6g}"),
    ], None


def _cdlp_args(graph, result, source, options):
    return graph, result, result.meta.get("iterations", 10)


def _report_cdlp(result):
    return [("communities", count(result.meta["communities"]))], None


def _steps_of(meta):
    if meta.get("update") == "semi-sync":
        return f"sweeps of {meta['colours']} colour classes"
    return "supersteps"


def _report_bmlpa(result):
    meta = result.meta
    conv = "converged" if meta["converged"] else "iteration limit reached"
    rows = [
        ("communities", count(meta["communities"])),
        ("iterations", f"{meta['iterations']} {_steps_of(meta)} ({conv})"),
        ("overlapping", f"{meta['overlapping_vertices']:,} vertices"),
    ]
    if result.num_communities:
        rows.append(("largest", f"{int(result.sizes.max()):,} members"))
    return rows, None


LCC = Algorithm(
    "lcc",
    KERNELS + "lcc:lcc",
    False,
    "local clustering coefficient and triangles (LDBC Graphalytics)",
    verifier=Verifier(
        KERNELS + "lcc:verify_lcc",
        plain,
        "local clustering within relative 1e-9 of SciPy sparse products",
    ),
    report=_report_lcc,
    columns=("vertex", "lcc", "triangles"),
    bench=BenchSpec("lcc", "real", 5, core=False),
    partitioned=True,  # ghost rows fetched from their owners (lcc/parts.py)
)

CDLP = Algorithm(
    "cdlp",
    KERNELS + "cdlp:cdlp",
    False,
    "community detection by label propagation (LDBC Graphalytics)",
    (Param("iterations", int, 10, "synchronous label propagation iterations"),),
    verifier=Verifier(
        KERNELS + "cdlp:verify_cdlp",
        _cdlp_args,
        "labels equal a NumPy implementation of Graphalytics CDLP",
    ),
    report=_report_cdlp,
    columns=("vertex", "label"),
    bench=BenchSpec("label", "partition", 4, core=False),  # its 10 iterations
    partitioned=True,
    checkpoints=True,
)

BMLPA = Algorithm(
    "bmlpa",
    KERNELS + "bmlpa:bmlpa",
    False,
    "overlapping communities by balanced multi-label propagation (BMLPA)",
    (
        Param(
            "b", float, None, "belonging threshold: keep labels scoring >= b x the best", shown=0.1
        ),
        Param("initial", str, "rough-cores", "rough-cores, or a vertex -> labels file"),
        Param("max_labels", int, None, "cap on labels per vertex (not in the paper)"),
        Param("max_iterations", int, 100, "iteration limit"),
        Param(
            "stop",
            str,
            "rate",
            "stop rule: rate (the share of vertices whose labels changed falls below "
            "--tolerance) or counts (label counts stop changing, the paper's rule)",
            choices=("rate", "counts"),
        ),
        Param(
            "tolerance",
            float,
            None,
            "update-rate tolerance of --stop rate (0.01 with --update sync)",
            shown=BMLPA_TOLERANCE,
        ),
        Param(
            "update",
            str,
            "semi-sync",
            "semi-sync (colour classes in turn, each from the classes before) or sync "
            "(every vertex from the last superstep, the paper's)",
            choices=("semi-sync", "sync"),
        ),
    ),
    seeded=True,
    api_only=("p",),  # the paper's name for b
    report=_report_bmlpa,
    columns=("vertex", "community", "belonging"),
    checkpoints=True,  # semi-sync sweeps (the default update)
    # rough cores, sweeps and post-processing on each rank's own rows and ghosts
    # (bmlpa/cores_parts.py, parts.py, postprocess_parts.py)
    partitioned=True,
)
