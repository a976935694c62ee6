"""Graph kernels, each a vertex program on the BSP engine plus a verifier.

``ALGORITHMS`` maps a name to its :class:`Algorithm` entry (function, whether it needs a
source vertex, and the options the CLI exposes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hpgraph.algorithms.bfs import bfs
from hpgraph.algorithms.pagerank import pagerank
from hpgraph.algorithms.sssp import sssp
from hpgraph.algorithms.verify import verify_bfs, verify_pagerank, verify_sssp, verify_wcc
from hpgraph.algorithms.wcc import wcc

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "bfs",
    "wcc",
    "pagerank",
    "sssp",
    "verify_bfs",
    "verify_wcc",
    "verify_pagerank",
    "verify_sssp",
]


@dataclass(frozen=True)
class Algorithm:
    name: str
    function: object
    needs_source: bool
    summary: str
    options: dict = field(default_factory=dict)  #: option -> (type, default, help)


ALGORITHMS = {
    "bfs": Algorithm("bfs", bfs, True, "breadth-first search: depth and parent"),
    "wcc": Algorithm("wcc", wcc, False, "weakly connected components"),
    "pagerank": Algorithm(
        "pagerank",
        pagerank,
        False,
        "PageRank (LDBC Graphalytics definition)",
        {
            "damping": (float, 0.85, "damping factor d"),
            "iterations": (int, 20, "iterations (an upper bound with --tolerance)"),
            "tolerance": (float, None, "stop when the L1 change drops below this"),
        },
    ),
    "sssp": Algorithm("sssp", sssp, True, "single-source shortest paths: distance and parent"),
}
