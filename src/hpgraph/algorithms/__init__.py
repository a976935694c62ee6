"""Graph kernels, each a BSP program (a vertex program, or a peer-level ``run_bsp``
program where the vertex model does not fit) with a verifier or an outside reference in
the tests. Every kernel runs on every runtime (``runtime=None``: local threads;
``runtime="mpi"``) with no runtime-specific code.

``ALGORITHMS`` maps a name to its :class:`Algorithm` entry (function, whether it needs a
source vertex, and the options the CLI exposes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hpgraph.algorithms.apsp import apsp
from hpgraph.algorithms.betweenness import betweenness, edge_betweenness
from hpgraph.algorithms.bfs import bfs
from hpgraph.algorithms.bmlpa import bmlpa, read_vertex_labels
from hpgraph.algorithms.cdlp import cdlp, verify_cdlp
from hpgraph.algorithms.community_quality import overlapping_modularity, overlapping_nmi
from hpgraph.algorithms.layout import layout, layout_quality
from hpgraph.algorithms.lcc import lcc, transitivity, triangle_count, verify_lcc
from hpgraph.algorithms.pagerank import pagerank
from hpgraph.algorithms.simulation import (
    dual_simulation,
    strict_simulation,
    verify_dual_simulation,
)
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
    "lcc",
    "triangle_count",
    "transitivity",
    "cdlp",
    "bmlpa",
    "read_vertex_labels",
    "overlapping_nmi",
    "overlapping_modularity",
    "betweenness",
    "edge_betweenness",
    "apsp",
    "dual_simulation",
    "strict_simulation",
    "layout",
    "layout_quality",
    "verify_bfs",
    "verify_wcc",
    "verify_pagerank",
    "verify_sssp",
    "verify_lcc",
    "verify_cdlp",
    "verify_dual_simulation",
]


@dataclass(frozen=True)
class Algorithm:
    name: str
    function: object
    needs_source: bool
    summary: str
    options: dict = field(default_factory=dict)  #: option -> (type, default, help)
    #: takes ``seed=`` (the CLI passes its ``--seed``, shared with graph generation)
    seeded: bool = False
    #: takes ``output=`` and writes its own result there (streamed, too big to hold)
    writes_output: bool = False


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
    "lcc": Algorithm(
        "lcc", lcc, False, "local clustering coefficient and triangles (LDBC Graphalytics)"
    ),
    "cdlp": Algorithm(
        "cdlp",
        cdlp,
        False,
        "community detection by label propagation (LDBC Graphalytics)",
        {"iterations": (int, 10, "synchronous label propagation iterations")},
    ),
    "bmlpa": Algorithm(
        "bmlpa",
        bmlpa,
        False,
        "overlapping communities by balanced multi-label propagation (BMLPA)",
        {
            "b": (float, 0.1, "belonging threshold: keep labels scoring >= b x the best"),
            "initial": (str, "rough-cores", "rough-cores, or a vertex -> labels file"),
            "max_labels": (int, None, "cap on labels per vertex (not in the paper)"),
            "max_iterations": (int, 100, "iteration limit"),
        },
        seeded=True,
    ),
    "betweenness": Algorithm(
        "betweenness",
        betweenness,
        False,
        "vertex betweenness centrality (Brandes; NetworkX 3.6 scaling)",
        {
            "k": (int, None, "sampled sources, seeded by --seed (exact when not given)"),
            "normalized": (bool, True, "divide by the number of (s, t) pairs"),
            "endpoints": (bool, False, "count s and t as on the path"),
        },
        seeded=True,
    ),
    "edge_betweenness": Algorithm(
        "edge_betweenness",
        edge_betweenness,
        False,
        "edge betweenness centrality, one row per edge",
        {
            "k": (int, None, "sampled sources, seeded by --seed (exact when not given)"),
            "normalized": (bool, True, "divide by the number of (s, t) pairs"),
        },
        seeded=True,
    ),
    "apsp": Algorithm(
        "apsp",
        apsp,
        False,
        "all-pairs shortest path distances (dense in memory, or streamed to --output)",
        {
            "block": (int, None, "sources per streamed block"),
            "max_memory": (int, None, "bytes the dense n x n matrix may take"),
        },
        writes_output=True,
    ),
    "dual_simulation": Algorithm(
        "dual_simulation",
        dual_simulation,
        False,
        "pattern matching by dual simulation: the pattern vertices each vertex matches",
        {
            "labels": (str, None, "vertex label file: '<vertex> <label>' per line"),
            "pattern": (str, None, "pattern file: 'v <id> <label>' and 'e <src> <dst>' lines"),
        },
    ),
    "strict_simulation": Algorithm(
        "strict_simulation",
        strict_simulation,
        False,
        "pattern matching by strict simulation (Fard et al.): match subgraphs",
        {
            "labels": (str, None, "vertex label file: '<vertex> <label>' per line"),
            "pattern": (str, None, "pattern file: 'v <id> <label>' and 'e <src> <dst>' lines"),
        },
    ),
    "layout": Algorithm(
        "layout",
        layout,
        False,
        "force-directed layout (Fruchterman-Reingold), 2-D or 3-D",
        {
            "dim": (int, 2, "2 or 3 dimensions"),
            "iterations": (int, 100, "iterations (linear cooling)"),
            "method": (str, "auto", "repulsion: auto, exact, grid, barnes-hut"),
            "theta": (float, 0.8, "Barnes-Hut opening angle (0.5..1)"),
            "gravity": (float, None, "pull to the centre (default 1; 0 for grid)"),
        },
        seeded=True,
    ),
}
