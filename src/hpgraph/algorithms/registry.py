"""Given an algorithm's name, returns everything a front end needs to know about it: the
function, its parameters (type, default, help, choices), its verifier, the report of its
result, its output columns, how the benchmark calls it, and the runtimes it runs on.

This table is the one place where an algorithm is described. ``hpgraph run`` (and the
options of ``hpgraph run --help``, generated from the parameters), ``hpgraph bench``,
``hpgraph demo``, :mod:`hpgraph.bench` and the list in ``docs/algorithms/README.md`` (a
test compares it) all read it; adding a kernel is its module plus one :class:`Algorithm`
entry in :data:`ALGORITHMS` (see "Adding a kernel" in ``docs/algorithms/README.md``).

Nothing here imports a kernel, numpy or numba: functions and verifiers are named as
``"module:attribute"`` and imported when first called, so ``import hpgraph`` and
``hpgraph --help`` stay fast. They are looked up at every use (a dictionary hit and a
``getattr``), so a test that patches ``hpgraph.algorithms.verify.verify_bfs`` is seen.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hpgraph.config import BMLPA_TOLERANCE

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "Param",
    "Verifier",
    "BenchSpec",
    "ReportTable",
    "RUNTIMES",
    "get_algorithm",
    "bench_kernels",
    "resolve",
    "COMMON_ARGUMENTS",
]

#: Runtimes an algorithm can name in :attr:`Algorithm.runtimes`.
RUNTIMES = ("local", "mpi")
#: Arguments every kernel takes besides its own parameters (``hpgraph run`` passes them).
COMMON_ARGUMENTS = ("threads", "runtime", "progress")


def resolve(target):
    """``target`` itself if callable, else the object a ``"module:attribute"`` names."""
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Param:
    """One keyword parameter of an algorithm's function, shown on the command line as
    ``--name`` (underscores become dashes; a bool gives ``--name/--no-name``).

    ``default`` is the function's own default (a test checks it against the signature);
    ``shown`` is what ``--help`` prints as the default when that differs (a function
    default of None that means "the documented value"). ``front_end``: an option of
    ``hpgraph run`` only, not passed to the function but to the entry's ``after_run``
    (for example a picture to draw from the result)."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    shown: Any = None
    front_end: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def help_default(self):
        return self.default if self.shown is None else self.shown


@dataclass(frozen=True)
class Verifier:
    """An independent check of a result. ``function`` (``"module:attribute"``) raises
    :class:`~hpgraph.errors.VerificationError` on a wrong result; ``args(graph, result,
    source, options)`` gives its positional arguments (``options``: the keyword arguments
    the kernel was called with); ``checks`` says what a pass means: a text or a function
    of the result."""

    function: str | Callable
    args: Callable
    checks: str | Callable

    def __call__(self, graph, result, source=None, options=None, *, function=None) -> str:
        """Verify ``result`` (with ``function`` instead of the declared one, if given);
        returns what was checked."""
        check = resolve(function or self.function)
        check(*self.args(graph, result, source, options or {}))
        return self.checks(result) if callable(self.checks) else self.checks


@dataclass(frozen=True)
class BenchSpec:
    """How ``hpgraph bench`` runs an algorithm against the peers (:mod:`hpgraph.bench`).

    ``column``: the result column timed and cross-checked. ``values``: how results
    compare: ``"depth"`` (integers, equal; reached = >= 0), ``"partition"`` (equal up to
    relabelling), ``"real"`` (relative 1e-4), ``"distance"`` (relative 1e-4; reached =
    finite). ``order``: place in the report. ``params``: the :func:`~hpgraph.bench.run_bench`
    keyword arguments passed on to the function. ``brief(result)``: the one-line result
    of ``hpgraph demo``. A peer runs the algorithm when it has a method ``k_<name>``
    (:mod:`hpgraph.bench.peers`)."""

    column: str
    values: str
    order: int
    params: tuple[str, ...] = ()
    brief: Callable | None = None


@dataclass(frozen=True)
class ReportTable:
    """A small table under the report of ``hpgraph run``: a title line, column headers
    (right-justified) and rows of text."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]


@dataclass(frozen=True, eq=False)
class Algorithm:
    """One algorithm, as every front end sees it.

    ``function``: the kernel (a callable, or ``"module:attribute"`` imported on first
    use); it is called ``function(graph, [source,] threads=, runtime=, progress=,
    **params)``. ``needs_source``: takes a source vertex after the graph. ``summary``: one
    line for reports. ``params``: its own keyword parameters (:class:`Param`). ``seeded``:
    takes ``seed=`` (the CLI's ``--seed``, shared with graph generation). ``writes_output``:
    takes ``output=`` and writes its result there itself (streamed). ``wants_weights``:
    generated inputs get edge weights. ``verifier``, ``report(result) -> (rows, table or
    None)``, ``columns`` (of the result file, with the default parameters), ``bench``
    (:class:`BenchSpec`, or None: not benchmarked). ``runtimes``: where it runs;
    ``whole_graph``: every rank needs the whole graph (a peer-level program), not just its
    part. ``after_run(result, graph, options, console)``: called by ``hpgraph run`` after
    the report with the ``front_end`` parameters' values. ``api_only``: keyword parameters
    of the function deliberately left off the command line (arrays, aliases); with
    ``params``, :data:`COMMON_ARGUMENTS`, ``seed`` and ``output`` they account for every
    parameter of the function (a test checks it against the signature)."""

    name: str
    target: Callable | str
    needs_source: bool = False
    summary: str = ""
    params: tuple[Param, ...] = ()
    seeded: bool = False
    writes_output: bool = False
    wants_weights: bool = False
    verifier: Verifier | None = None
    report: Callable | None = None
    columns: tuple[str, ...] = ()
    bench: BenchSpec | None = None
    runtimes: tuple[str, ...] = RUNTIMES
    whole_graph: bool = False
    after_run: Callable | str | None = None
    api_only: tuple[str, ...] = ()

    @property
    def function(self):
        """The kernel (imported on first use)."""
        return resolve(self.target)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def get_algorithm(name: str) -> Algorithm:
    """The entry of ``name`` (any case); InvalidArgumentError naming the choices if none."""
    algo = ALGORITHMS.get(name.lower())
    if algo is None:
        from hpgraph.errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)}"
        )
    return algo


def bench_kernels() -> tuple[str, ...]:
    """The algorithms ``hpgraph bench`` runs, in report order."""
    timed = [a for a in ALGORITHMS.values() if a.bench is not None]
    return tuple(a.name for a in sorted(timed, key=lambda a: a.bench.order))


# ------------------------------------------------------------------- verifier arguments
def _rooted(graph, result, source, options):
    return graph, source, result


def _plain(graph, result, source, options):
    return graph, result


def _pagerank_args(graph, result, source, options):
    meta = result.meta
    return graph, result, meta.get("damping", 0.85), meta.get("iterations", 20)


def _pagerank_checks(result):
    it = result.meta.get("iterations", 20)
    return f"within relative 1e-4 of a SciPy power iteration ({it} iterations)"


def _cdlp_args(graph, result, source, options):
    return graph, result, result.meta.get("iterations", 10)


def _simulation_args(graph, result, source, options):
    return graph, options["labels"], options["pattern"], result


# ---------------------------------------------------------------------------- reports
def _count(n) -> str:
    return f"{int(n):,}"


def _scalar(x):
    return x.item() if hasattr(x, "item") else x


def _reached(result, mask):
    import numpy as np

    g = result.graph
    reached = int(np.count_nonzero(mask))
    return reached, f"{reached:,} of {g.n:,} vertices ({100 * reached / max(g.n, 1):.1f}%)"


def _report_bfs(result):
    depth = result["depth"]
    return [
        ("reached", _reached(result, depth >= 0)[1]),
        ("max depth", _count(depth.max(initial=0))),
    ], None


def _report_sssp(result):
    import numpy as np

    dist = result["distance"]
    fin = np.isfinite(dist)
    return [
        ("reached", _reached(result, fin)[1]),
        ("max distance", f"{dist[fin].max(initial=0.0):.6g}"),
    ], None


def _report_wcc(result):
    import numpy as np

    g = result.graph
    comp = np.asarray(result["component"], dtype=np.int64)
    sizes = np.bincount(comp, minlength=g.n) if g.n else np.zeros(0, np.int64)
    k = int(np.count_nonzero(sizes))
    rows = [("components", _count(k))]
    if k:
        big = int(sizes.max())
        rows.append(("largest", f"{big:,} vertices ({100 * big / max(g.n, 1):.1f}%)"))
        rows.append(("singletons", _count(np.count_nonzero(sizes == 1))))
    return rows, None


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
        [(str(i), str(_scalar(ids[v])), f"{rank[v]:.6g}") for i, v in enumerate(top.tolist(), 1)],
    )
    return [("iterations", it), ("rank sum", f"{rank.sum():.6f}")], table


def _report_lcc(result):
    meta = result.meta
    return [
        ("triangles", _count(meta["triangles"])),
        ("average LCC", f"{meta['average_clustering']:.6g}"),
        ("transitivity", f"{meta['transitivity']:.6g}"),
    ], None


def _report_cdlp(result):
    return [("communities", _count(result.meta["communities"]))], None


def _steps_of(meta):
    if meta.get("update") == "semi-sync":
        return f"sweeps of {meta['colours']} colour classes"
    return "supersteps"


def _report_bmlpa(result):
    meta = result.meta
    conv = "converged" if meta["converged"] else "iteration limit reached"
    rows = [
        ("communities", _count(meta["communities"])),
        ("iterations", f"{meta['iterations']} {_steps_of(meta)} ({conv})"),
        ("overlapping", f"{meta['overlapping_vertices']:,} vertices"),
    ]
    if result.num_communities:
        rows.append(("largest", f"{int(result.sizes.max()):,} members"))
    return rows, None


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
    return f"vertex {_scalar(result.vertex_ids()[i])}"


def _top_edge(result, i):
    cols = result.output_columns()
    return "edge {} -> {}".format(*(_scalar(cols[c][i]) for c in ("source", "target")))


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


def _report_dual(result):
    matched = "yes" if result.matched else "no (some pattern vertex has none)"
    return [("matched", matched), ("pairs", _count(result.meta["pairs"]))], None


def _report_strict(result):
    meta = result.meta
    return [
        ("balls", _count(meta["balls"])),
        ("matches", f"{meta['matches']:,} match subgraphs (radius {meta['radius']})"),
    ], None


def _report_layout(result):
    meta = result.meta
    what = f"{meta['dim']}-D, {meta['iterations']} iterations, {meta['method']} repulsion"
    return [("layout", what)], None


def _layout_picture(result, graph, options, console):
    """``hpgraph run layout --picture out.png``: the rasterised picture of the layout,
    coloured by connected component (hpgraph.viz.render_png)."""
    path = options.get("picture")
    if not path:
        return
    import numpy as np

    from hpgraph.viz import render_png

    coords = np.column_stack([result[c] for c in "xyz" if c in result.columns])
    _, part = _components(graph)
    stats = render_png(path, coords, part, title=f"{graph.name or 'graph'}: layout")
    console.print(f"wrote {path} ({stats['width']}x{stats['height']}, coloured by component)")


def _components(graph):
    import numpy as np
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    g = graph.symmetrized()
    adj = csr_matrix((np.ones(g.indices.shape[0]), g.indices, g.indptr), shape=(g.n, g.n))
    return connected_components(adj, directed=False)


# ----------------------------------------------------------------- demo's one-liners
def _brief_bfs(result):
    reached, _ = _reached(result, result["depth"] >= 0)
    share = 100 * reached / max(result.graph.n, 1)
    return f"reached {reached:,} ({share:.1f}%), max depth {int(result['depth'].max())}"


def _brief_sssp(result):
    import numpy as np

    d = result["distance"]
    fin = np.isfinite(d)
    reached, _ = _reached(result, fin)
    share = 100 * reached / max(result.graph.n, 1)
    return f"reached {reached:,} ({share:.1f}%), max distance {d[fin].max():.4g}"


def _brief_wcc(result):
    import numpy as np

    return f"{_count(np.unique(result['component']).size)} components"


def _brief_pagerank(result):
    import numpy as np

    rank = result["rank"]
    v = int(np.argmax(rank))
    return f"top vertex {_scalar(result.vertex_ids()[v])} (rank {rank[v]:.3g})"


# ----------------------------------------------------------------------- the entries
_A = "hpgraph.algorithms."
_V = _A + "verify:"
_K = Param("k", int, None, "sampled sources, seeded by --seed (exact when not given)")
_NORMALIZED = Param("normalized", bool, True, "divide by the number of (s, t) pairs")
_LABELS = Param("labels", str, None, "vertex label file: '<vertex> <label>' per line")
_PATTERN = Param("pattern", str, None, "pattern file: 'v <id> <label>' and 'e <src> <dst>' lines")
_B_HELP = "belonging threshold: keep labels scoring >= b x the best"
_DUAL_CHECKS = "every pair has its labels and child and parent witnesses"

_ENTRIES = (
    Algorithm(
        "bfs",
        _A + "bfs:bfs",
        True,
        "breadth-first search: depth and parent",
        verifier=Verifier(_V + "verify_bfs", _rooted, "Graph500 BFS rules and Graphalytics depths"),
        report=_report_bfs,
        columns=("vertex", "depth", "parent"),
        bench=BenchSpec("depth", "depth", 1, brief=_brief_bfs),
    ),
    Algorithm(
        "wcc",
        _A + "wcc:wcc",
        False,
        "weakly connected components",
        verifier=Verifier(_V + "verify_wcc", _plain, "components equal SciPy's, up to relabelling"),
        report=_report_wcc,
        columns=("vertex", "component"),
        bench=BenchSpec("component", "partition", 2, brief=_brief_wcc),
    ),
    Algorithm(
        "pagerank",
        _A + "pagerank:pagerank",
        False,
        "PageRank (LDBC Graphalytics definition)",
        (
            Param("damping", float, 0.85, "damping factor d"),
            Param("iterations", int, 20, "iterations (an upper bound with --tolerance)"),
            Param("tolerance", float, None, "stop when the L1 change drops below this"),
        ),
        verifier=Verifier(_V + "verify_pagerank", _pagerank_args, _pagerank_checks),
        report=_report_pagerank,
        columns=("vertex", "rank"),
        bench=BenchSpec("rank", "real", 0, ("damping", "iterations"), _brief_pagerank),
    ),
    Algorithm(
        "sssp",
        _A + "sssp:sssp",
        True,
        "single-source shortest paths: distance and parent",
        wants_weights=True,
        verifier=Verifier(_V + "verify_sssp", _rooted, "Graph500 SSSP rules"),
        report=_report_sssp,
        columns=("vertex", "distance", "parent"),
        bench=BenchSpec("distance", "distance", 3, brief=_brief_sssp),
    ),
    Algorithm(
        "lcc",
        _A + "lcc:lcc",
        False,
        "local clustering coefficient and triangles (LDBC Graphalytics)",
        verifier=Verifier(
            _A + "lcc:verify_lcc",
            _plain,
            "local clustering within relative 1e-9 of SciPy sparse products",
        ),
        report=_report_lcc,
        columns=("vertex", "lcc", "triangles"),
        whole_graph=True,
    ),
    Algorithm(
        "cdlp",
        _A + "cdlp:cdlp",
        False,
        "community detection by label propagation (LDBC Graphalytics)",
        (Param("iterations", int, 10, "synchronous label propagation iterations"),),
        verifier=Verifier(
            _A + "cdlp:verify_cdlp",
            _cdlp_args,
            "labels equal a NumPy implementation of Graphalytics CDLP",
        ),
        report=_report_cdlp,
        columns=("vertex", "label"),
    ),
    Algorithm(
        "bmlpa",
        _A + "bmlpa:bmlpa",
        False,
        "overlapping communities by balanced multi-label propagation (BMLPA)",
        (
            Param(
                "b",
                float,
                None,
                "belonging threshold: keep labels scoring >= b x the best",
                shown=0.1,
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
        whole_graph=True,
    ),
    Algorithm(
        "betweenness",
        _A + "betweenness:betweenness",
        False,
        "vertex betweenness centrality (Brandes; NetworkX 3.6 scaling)",
        (_K, _NORMALIZED, Param("endpoints", bool, False, "count s and t as on the path")),
        seeded=True,
        api_only=("sources", "weighted"),
        report=lambda result: _report_betweenness(result, _top_vertex),
        columns=("vertex", "betweenness"),
        whole_graph=True,
    ),
    Algorithm(
        "edge_betweenness",
        _A + "betweenness:edge_betweenness",
        False,
        "edge betweenness centrality, one row per edge",
        (_K, _NORMALIZED),
        seeded=True,
        api_only=("sources", "weighted"),
        report=lambda result: _report_betweenness(result, _top_edge),
        columns=("source", "target", "betweenness"),
        whole_graph=True,
    ),
    Algorithm(
        "apsp",
        _A + "apsp:apsp",
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
    ),
    Algorithm(
        "dual_simulation",
        _A + "simulation:dual_simulation",
        False,
        "pattern matching by dual simulation: the pattern vertices each vertex matches",
        (_LABELS, _PATTERN),
        api_only=("pattern_labels",),
        verifier=Verifier(_A + "simulation:verify_dual_simulation", _simulation_args, _DUAL_CHECKS),
        report=_report_dual,
        columns=("vertex", "mask"),
    ),
    Algorithm(
        "strict_simulation",
        _A + "simulation:strict_simulation",
        False,
        "pattern matching by strict simulation (Fard et al.): match subgraphs",
        (_LABELS, _PATTERN),
        api_only=("pattern_labels",),
        report=_report_strict,
        columns=("match_id", "centre", "pattern_vertex", "vertex"),
        whole_graph=True,
    ),
    Algorithm(
        "layout",
        _A + "layout:layout",
        False,
        "force-directed layout (Fruchterman-Reingold), 2-D or 3-D",
        (
            Param("dim", int, 2, "2 or 3 dimensions"),
            Param("iterations", int, 100, "iterations (linear cooling)"),
            Param("method", str, "auto", "repulsion: auto, exact, grid, barnes-hut"),
            Param("theta", float, 0.8, "Barnes-Hut opening angle (0.5..1)"),
            Param("gravity", float, None, "pull to the centre (default 1; 0 for grid)"),
            Param("picture", str, None, "also draw the layout to this PNG", front_end=True),
        ),
        seeded=True,
        api_only=("k", "initial"),
        report=_report_layout,
        after_run=_layout_picture,
        columns=("vertex", "x", "y"),
        whole_graph=True,
    ),
)

#: name -> :class:`Algorithm`, in the order the CLI lists them.
ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in _ENTRIES}
