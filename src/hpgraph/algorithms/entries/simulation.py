"""Registry entries of graph pattern matching: ``dual_simulation`` and
``strict_simulation``, with their verifier arguments and reports."""

from __future__ import annotations

from hpgraph.algorithms.entries._common import KERNELS, count
from hpgraph.algorithms.entries.base import Algorithm, Param, Verifier

__all__ = ["DUAL_SIMULATION", "STRICT_SIMULATION"]

#: The inputs both matchers read.
_LABELS = Param("labels", str, None, "vertex label file: '<vertex> <label>' per line")
_PATTERN = Param("pattern", str, None, "pattern file: 'v <id> <label>' and 'e <src> <dst>' lines")
_DUAL_CHECKS = "every pair has its labels and child and parent witnesses"


def _simulation_args(graph, result, source, options):
    return graph, options["labels"], options["pattern"], result


def _report_dual(result):
    matched = "yes" if result.matched else "no (some pattern vertex has none)"
    return [("matched", matched), ("pairs", count(result.meta["pairs"]))], None


def _report_strict(result):
    meta = result.meta
    return [
        ("balls", count(meta["balls"])),
        ("matches", f"{meta['matches']:,} match subgraphs (radius {meta['radius']})"),
    ], None


DUAL_SIMULATION = Algorithm(
    "dual_simulation",
    KERNELS + "simulation:dual_simulation",
    False,
    "pattern matching by dual simulation: the pattern vertices each vertex matches",
    (_LABELS, _PATTERN),
    api_only=("pattern_labels",),
    verifier=Verifier(
        KERNELS + "simulation:verify_dual_simulation", _simulation_args, _DUAL_CHECKS
    ),
    report=_report_dual,
    columns=("vertex", "mask"),
)

STRICT_SIMULATION = Algorithm(
    "strict_simulation",
    KERNELS + "simulation:strict_simulation",
    False,
    "pattern matching by strict simulation (Fard et al.): match subgraphs",
    (_LABELS, _PATTERN),
    api_only=("pattern_labels",),
    report=_report_strict,
    columns=("match_id", "centre", "pattern_vertex", "vertex"),
    whole_graph=True,
)
