"""The benchmark loop: for each graph, hpgraph's kernels (verified), then each
competitor's; then the ratios, the report on the console and in a file.

Which kernels run, how each is called, verified and compared comes from its registry
entry (:data:`hpgraph.algorithms.ALGORITHMS`, its :class:`~hpgraph.algorithms.BenchSpec`).
The graphs are made in :mod:`~hpgraph.bench.graphs`, each system is timed in
:mod:`~hpgraph.bench.timing` and results compared in :mod:`~hpgraph.bench.checks`; the
GAP Benchmark Suite, when given, runs from :mod:`~hpgraph.bench.gap`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hpgraph.algorithms.registry import ALGORITHMS, bench_kernels, resolve
from hpgraph.bench.checks import values_of
from hpgraph.bench.competitors import GraphForms, available_competitors
from hpgraph.bench.gap import WEIGHT_SCALE, GapSuite, gap_kernels, quantize_weights
from hpgraph.bench.graphs import choose_roots, make_graph, parse_graph_spec
from hpgraph.bench.timing import Runner, current_rss_bytes, missing_row, peak_rss_bytes
from hpgraph.config import DEFAULT_THREADS
from hpgraph.errors import InvalidArgumentError

__all__ = [
    "KERNELS",
    "BenchReport",
    "core_kernels",
    "run_bench",
    "parse_graph_spec",
    "make_graph",
]

#: Kernels the harness knows (the registry entries with a ``bench``), in report order, when
#: this module was imported; :func:`run_bench` reads the registry again.
KERNELS = bench_kernels()


def core_kernels() -> tuple[str, ...]:
    """The kernels run when none are named (``BenchSpec.core``), in report order."""
    return tuple(k for k in bench_kernels() if ALGORITHMS[k].bench.core)


# --------------------------------------------------------------------- hpgraph side
def _hpgraph_kernels():
    """({kernel: function}, {kernel: verifier}, why missing): the registry's functions,
    imported here, so that the harness runs while hpgraph's algorithms are being written."""
    try:
        fns = {k: ALGORITHMS[k].function for k in bench_kernels()}
    except Exception as exc:
        return {}, {}, f"hpgraph.algorithms not importable ({type(exc).__name__}: {exc})"
    verifiers = {}
    for k in bench_kernels():
        verifier = ALGORITHMS[k].verifier
        if verifier is not None:
            with contextlib.suppress(Exception):
                verifiers[k] = resolve(verifier.function)
    return fns, verifiers, ""


#: hpgraph's precisions of the kernels that take one (PageRank, SSSP; ``--dtype``)
DTYPES = ALGORITHMS["pagerank"].param("dtype").choices
#: the vertex numberings of the kernels that take ``order`` (``--order``)
ORDERS = ALGORITHMS["pagerank"].param("order").choices


def _source(graph, root):
    """The id by which hpgraph's functions name vertex number ``root`` (GAP and the
    competitors take the number itself)."""
    return int(root) if graph.ids is None else np.asarray(graph.ids)[int(root)].item()


def _hpgraph_call(fn, kernel, graph, params, threads):
    """``run(root)``: one call of hpgraph's ``kernel``, as its registry entry says."""
    algo = ALGORITHMS[kernel]
    kw = {p: params[p] for p in algo.bench.params}
    if algo.needs_source:
        return lambda root: fn(graph, _source(graph, root), threads=threads, **kw)
    return lambda _root: fn(graph, threads=threads, **kw)


def _verify(verifier, kernel, graph, root, result, params):
    source = _source(graph, root) if ALGORITHMS[kernel].needs_source else None
    ALGORITHMS[kernel].verifier(graph, result, source, params, function=verifier)


# ---------------------------------------------------------------------------- report
@dataclass
class BenchReport:
    """What :func:`run_bench` measured: one row per (kernel, graph, system)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    graphs: list[dict[str, Any]] = field(default_factory=list)
    env: dict[str, Any] = field(default_factory=dict)
    #: competitors not run, with the reason
    skipped: dict[str, str] = field(default_factory=dict)
    #: hpgraph kernels that failed (verification or an exception)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def _rel_time_rows(rows):
    """Fill ``ratio`` = system median / hpgraph median per (kernel, graph)."""
    base = {
        (r["kernel"], r["graph"]): r["median_s"]
        for r in rows
        if r["system"] == "hpgraph" and r["median_s"] == r["median_s"]
    }
    for r in rows:
        b = base.get((r["kernel"], r["graph"]))
        ok = b and r["median_s"] == r["median_s"]
        r["ratio"] = r["median_s"] / b if ok else float("nan")


def run_bench(
    kernels=None,
    graphs=("kronecker:16",),
    trials=3,
    threads=None,
    roots=8,
    verify=True,
    out=None,
    *,
    competitors=None,
    seed=0,
    damping=0.85,
    iterations=20,
    dtype="float64",
    order="auto",
    networkx_max_edges=200_000,
    console=None,
    quiet=False,
    peers=None,
    gap=None,
    pagerank_dtype=None,
) -> BenchReport:
    """Run the benchmark and report it (see :mod:`hpgraph.bench`).

    ``kernels``: names from :data:`KERNELS` (or one comma-separated string; default: the
    core ones, :func:`core_kernels`). ``graphs``:
    specs (``"kronecker:16"``, ``"uniform:1M:16M"``, ``"file:PATH"``), ``Graph`` objects or
    ``(name, Graph)`` pairs. ``trials`` timed runs per kernel (per root for BFS/SSSP) after
    one untimed warm-up; ``threads`` for hpgraph and the competitors that have a setting
    (default: all cores); ``roots`` BFS/SSSP sources per graph; ``verify`` runs hpgraph's
    verifiers; ``out`` a ``.md``/``.csv`` path (or None). ``competitors`` restricts the
    competing libraries by name (default: all importable); ``peers`` is its old name, still
    accepted. ``dtype``: the precision of hpgraph's kernels that take one (PageRank's
    ranks, SSSP's distances), ``"float32"`` as GAP keeps them (the competitors stay in
    double); ``pagerank_dtype`` is its old name, still accepted. ``order``: the vertex numbering
    of hpgraph's kernels that take one (PageRank, SSSP; ``"auto"``, ``"hubs"`` or
    ``"input"``: :mod:`hpgraph.algorithms._order`); a view they run on is built before the
    timed calls and its build time goes in the row's note. ``gap``: a directory with the GAP
    Benchmark Suite's built programs, timed on the same graphs (:mod:`hpgraph.bench.gap`).
    Returns the :class:`BenchReport`; ``report.ok`` is False if an hpgraph kernel failed
    or did not verify.
    """
    from hpgraph.bench.report import print_report, write_report

    if kernels is None:
        kernels = core_kernels()
    if isinstance(kernels, str):
        kernels = [k for k in kernels.split(",") if k]
    kernels = [k.strip().lower() for k in kernels]
    known = bench_kernels()
    bad = [k for k in kernels if k not in known]
    if bad or not kernels:
        raise InvalidArgumentError(f"unknown kernels {bad}: choose from {', '.join(known)}")
    if isinstance(graphs, str):
        graphs = [graphs]
    if not graphs:
        raise InvalidArgumentError("no graphs to run on")
    if int(trials) < 1 or int(roots) < 1:
        raise InvalidArgumentError(f"trials and roots must be >= 1, got {trials} and {roots}")
    if out is not None and os.path.splitext(str(out))[1].lower() not in (".md", ".csv"):
        raise InvalidArgumentError(f"--out must end in .md or .csv, got {out!r}")
    if peers is not None:  # the old name of competitors
        if competitors is not None:
            raise InvalidArgumentError("give competitors= or its old name peers=, not both")
        competitors = peers
    threads = int(threads or DEFAULT_THREADS)
    if pagerank_dtype is not None:  # the old name of dtype
        if dtype != "float64":
            raise InvalidArgumentError("give dtype= or its old name pagerank_dtype=, not both")
        dtype = pagerank_dtype
    if dtype not in DTYPES:
        raise InvalidArgumentError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if order not in ORDERS:
        raise InvalidArgumentError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    params = {
        "damping": float(damping),
        "iterations": int(iterations),
        "dtype": dtype,
        "order": order,
    }
    suite = GapSuite(gap) if gap is not None else None
    specs = [parse_graph_spec(s) if isinstance(s, str) else s for s in graphs]

    if console is None and not quiet:
        from rich.console import Console

        console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)

    def log(msg):
        if console is not None and not quiet:
            console.print(msg, highlight=False)

    adapters, skipped = available_competitors(competitors)
    report = BenchReport(skipped=dict(skipped))
    hp, verifiers, hp_missing = _hpgraph_kernels()
    report.env = _environment(threads, trials, roots, seed, params, adapters, hp_missing)
    if suite is not None:
        report.env["gap"] = suite.dir
    for c in adapters:
        report.env["competitors"][c.name]["threads"] = c.set_threads(threads)
    runner = Runner(int(trials), threads)
    rss_start = peak_rss_bytes()

    for i, spec in enumerate(specs):
        taken = {info["graph"] for info in report.graphs}
        gr = _prepare_graph(
            spec, kernels, int(roots), seed, threads, rss_start, i, taken, suite is not None
        )
        report.graphs.append(gr.info)
        log(
            f"[bold]{gr.g.name}[/bold]: |V|={gr.size[0]:,} |E|={gr.size[1]:,} made in "
            f"{gr.info['make_s']:.2f} s, {gr.info['bytes_per_edge']:.1f} B/stored edge, "
            f"roots {gr.info['roots']}"
        )
        # hpgraph first: its verified results are the reference for the competitors
        for kernel in kernels:
            log(f"  hpgraph {kernel} ...")
            _bench_hpgraph(report, runner, gr, kernel, hp, verifiers, hp_missing, verify, params)
        for competitor in adapters:
            if competitor.name == "networkx" and gr.size[1] >= networkx_max_edges:
                why = f"only on graphs with |E| < {networkx_max_edges:,}"
                report.skipped.setdefault("networkx", why)
                continue
            _bench_competitor(report, runner, gr, competitor, kernels, params, log)
        if suite is not None:
            _bench_gap(report, runner, gr, suite, kernels, params, log)
        gr.forms.clear()
        del gr
        gc.collect()

    order = {k: i for i, k in enumerate(kernels)}
    graph_order = {info["graph"]: i for i, info in enumerate(report.graphs)}
    report.rows.sort(key=lambda r: (order[r["kernel"]], graph_order.get(r["graph"], 0)))
    _rel_time_rows(report.rows)
    report.env["peak_rss_end_mb"] = peak_rss_bytes() / 2**20
    if console is not None and not quiet:
        print_report(report, console)
    if out is not None:
        write_report(report, out)
        log(f"wrote {out}")
    return report


@dataclass
class _GraphRun:
    """One benchmark graph and what its runs share."""

    g: Any  # unweighted view (PageRank, BFS, WCC)
    wg: Any  # weighted graph (SSSP) or None
    size: tuple[int, int]  # (|V|, |E|)
    roots: np.ndarray
    info: dict[str, Any]
    forms: GraphForms
    refs: dict[str, Any] = field(default_factory=dict)


def _prepare_graph(
    spec, kernels, nroots, seed, threads, rss_start, index, taken, for_gap
) -> _GraphRun:
    """The graph of ``spec`` and what its runs share; ``for_gap``: weights rounded to
    GAP's integer unit (:func:`~hpgraph.bench.gap.quantize_weights`) for every system."""
    from hpgraph.graph import Graph

    weighted = any(ALGORITHMS[k].wants_weights for k in kernels)
    g, make_s = make_graph(spec, weighted=weighted, seed=seed, threads=threads)
    if for_gap and g.weights is not None:
        w = quantize_weights(g.weights)
        g = Graph(g.indptr, g.indices, w, directed=g.directed, ids=g.ids, name=g.name)
    name = g.name or f"graph{index + 1}"
    if name in taken:  # rows are keyed by graph name
        name = f"{name}#{index + 1}"
    wg = g if g.weighted else None
    if wg is not None or name != g.name:
        # a view (shared arrays) without weights for the unweighted kernels, named
        g = Graph(g.indptr, g.indices, None, directed=g.directed, ids=g.ids, name=name)
    roots = choose_roots(g, nroots, seed)
    size = (g.n, g.num_edges)
    info = {
        "graph": g.name,
        "V": size[0],
        "E": size[1],
        "stored_edges": g.num_stored_edges,
        "directed": g.directed,
        "weighted": wg is not None,
        "make_s": make_s,
        "bytes_per_edge": g.memory_bytes() / max(g.num_stored_edges, 1),
        "bytes_per_edge_weighted": (
            wg.memory_bytes() / max(wg.num_stored_edges, 1) if wg is not None else None
        ),
        "peak_rss_before_mb": rss_start / 2**20,
        "peak_rss_after_make_mb": peak_rss_bytes() / 2**20,
        "roots": (roots if g.ids is None else g.user_ids()[roots]).tolist(),  # by id
        "conversions": {},
    }
    return _GraphRun(g, wg, size, roots, info, GraphForms(g, wg))


def _numbering(g, algo, params, threads):
    """The note on the vertex numbering of a kernel that takes ``order``: "hubs first
    (view built in X s, untimed)" when it runs on the hub-grouped view, which is built
    here, before the timed calls, as the graph itself is (its kernels compiled first, on
    a two-vertex graph of the same kind, so X is the build alone); "hubs first (the
    graph's own numbering)" on a graph numbered so (``hpgraph convert --order hubs``);
    "" otherwise."""
    if "order" not in algo.bench.params or params["order"] == "input":
        return ""
    from hpgraph.algorithms._order import run_order
    from hpgraph.graph import Graph
    from hpgraph.graph.hub_order import hub_view

    w = None if g.weights is None else np.ones(2)
    hub_view(Graph([0, 1, 2], np.array([1, 0], g.indices.dtype), w, directed=g.directed))
    t0 = time.perf_counter()
    on = run_order(g, params["order"], threads=threads)
    if on.order is None:
        return "hubs first (the graph's own numbering)" if on.own else ""
    return f"hubs first (view built in {time.perf_counter() - t0:.2f} s, untimed)"


def _bench_hpgraph(report, runner, gr, kernel, hp, verifiers, hp_missing, verify, params):
    """Time hpgraph's ``kernel`` on ``gr``, verify its first result per root; a row of
    ``report`` (a missing row if it cannot run), a failure if it raised or did not
    verify."""
    g, size = gr.g, gr.size
    algo = ALGORITHMS[kernel]
    kg = gr.wg if algo.wants_weights else g
    if kg is None:
        report.rows.append(missing_row(kernel, g, size, "hpgraph", "graph has no weights"))
        return
    if kernel not in hp:
        why = hp_missing or f"no {kernel} in hpgraph.algorithms.ALGORITHMS"
        report.rows.append(missing_row(kernel, g, size, "hpgraph", why))
        return
    threads = runner.threads
    numbering = _numbering(kg, algo, params, threads)
    call = _hpgraph_call(hp[kernel], kernel, kg, params, threads)
    col = algo.bench.column
    verifier = verifiers.get(kernel)

    def check(root, result):
        if not verify:
            return None
        if verifier is None:
            return True, "no verifier"
        try:
            _verify(verifier, kernel, kg, root, result, params)
        except AssertionError as exc:  # VerificationError is one
            return False, f"FAILED: {exc}"
        return True, "verified"

    try:
        row = runner.time_system(
            "hpgraph", kernel, g, size, call, lambda r: r[col], gr.roots, gr.refs, check, True
        )
    except Exception as exc:
        row = missing_row(kernel, g, size, "hpgraph", f"ERROR {type(exc).__name__}: {exc}")
        report.failures.append(f"{kernel} on {g.name}: {type(exc).__name__}: {exc}")
    else:
        # the precision, where the kernel takes one and it is not the default
        dtype = algo.param("dtype") if "dtype" in algo.bench.params else None
        notes = [params["dtype"]] if dtype and params["dtype"] != dtype.default else []
        row["note"] = ", ".join(notes + ([numbering] if numbering else []))
        if not row["agree"]:
            report.failures.append(f"{kernel} on {g.name}: {row['check']}")
    row["threads"] = f"{threads} threads"
    report.rows.append(row)


def _bench_competitor(report, runner, gr, competitor, kernels, params, log):
    """Convert ``gr`` to ``competitor``'s format (untimed; time and RSS growth go to the
    graph's ``conversions``), then time each of ``kernels`` it has: rows of ``report``."""
    g, size, name = gr.g, gr.size, competitor.name
    todo = [
        k
        for k in kernels
        if competitor.has(k) and (gr.wg is not None or not ALGORITHMS[k].wants_weights)
    ]
    if not todo:
        return
    rss0 = current_rss_bytes()
    t0 = time.perf_counter()
    try:
        competitor.load(gr.forms)
    except Exception as exc:
        gr.info["conversions"][name] = f"ERROR {type(exc).__name__}: {exc}"
        return
    conv = {"seconds": time.perf_counter() - t0}
    rss1 = current_rss_bytes()
    if rss0 is not None and rss1 is not None:
        conv["rss_mb"] = (rss1 - rss0) / 2**20
    gr.info["conversions"][name] = conv
    for kernel in todo:
        log(f"  {name} {kernel} ...")
        try:
            prep = competitor.prepare(kernel, gr.forms, params)
            row = runner.time_system(
                name, kernel, g, size, prep.run, prep.result, gr.roots, gr.refs, None, prep.exact
            )
            row["note"] = prep.note
        except Exception as exc:
            row = missing_row(kernel, g, size, name, f"ERROR {type(exc).__name__}: {exc}")
        row["threads"] = report.env["competitors"][name]["threads"]
        report.rows.append(row)
        prep = None
        gc.collect()
    competitor.unload()
    gc.collect()


def _bench_gap(report, runner, gr, suite, kernels, params, log):
    """Time GAP's programs for ``kernels`` on ``gr`` (written once in GAP's serialized
    form); rows of ``report``, GAP's analysis count checked against the reference."""
    from hpgraph.algorithms.delta_stepping import default_delta

    g, size = gr.g, gr.size
    todo = gap_kernels(kernels)
    missing = suite.missing(todo)
    for kernel in todo:
        algo = ALGORITHMS[kernel]
        kg = gr.wg if algo.wants_weights else g
        if kernel in missing or kg is None:
            why = missing.get(kernel, "graph has no weights")
            report.rows.append(missing_row(kernel, g, size, "gap", why))
            continue
        log(f"  gap {kernel} ...")
        delta = max(1, round(default_delta(kg) * WEIGHT_SCALE)) if algo.wants_weights else 1
        gp = {**params, "delta": delta}
        try:
            path = suite.graph_file(kg, weighted=algo.wants_weights)
            row = _gap_row(runner, gr, suite, kernel, path, gp)
        except Exception as exc:
            row = missing_row(kernel, g, size, "gap", f"ERROR {type(exc).__name__}: {exc}")
        row["threads"] = f"{runner.threads} threads (OMP_NUM_THREADS)"
        report.rows.append(row)
    suite.clear()


def _gap_row(runner, gr, suite, kernel, path, gp):
    """GAP's row of ``kernel``: one run per root; its analysis count against the
    reference's (vertices reached, components)."""
    algo = ALGORITHMS[kernel]
    keys = list(gr.roots) if algo.needs_source else [None]
    kind = values_of(kernel)
    noun = "reached" if kind.reached is not None else "components"
    ref = gr.refs.get(kernel)
    times, checks, agree = {}, [], True
    for key in keys:
        times[key], got = suite.run(kernel, path, runner.trials, runner.threads, gp, key)
        if got is None or ref is None or key not in ref[1]:
            continue
        want = kind.count(ref[1][key])
        agree &= got == want
        checks.append(f"{noun} equal vs {ref[0]}" if got == want else f"{noun} {got} != {want}")
    row = runner.row("gap", kernel, gr.g, gr.size, times, gr.refs, checks, agree)
    args = " ".join(a.format(**gp) for a in algo.bench.gap.args)
    unit = " (weights x 2^20)" if algo.wants_weights else ""
    row["note"] = f"{algo.bench.gap.binary} {args}".strip() + unit
    return row


def _environment(threads, trials, roots, seed, params, adapters, hp_missing):
    import numba

    from hpgraph._version import __version__

    return {
        "hpgraph": __version__,
        "hpgraph_kernels": hp_missing or "available",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "threads": threads,
        "trials": trials,
        "roots": roots,
        "seed": seed,
        "pagerank": f"damping {params['damping']}, {params['iterations']} iterations, "
        f"hpgraph in {params['dtype']}",
        "precision": f"hpgraph's PageRank ranks and SSSP distances in {params['dtype']}",
        "order": f"hpgraph's vertex numbering (PageRank, SSSP): {params['order']}",
        "openmp": ", ".join(
            f"{k}={os.environ[k]}"
            for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")
            if k in os.environ
        )
        or "defaults",
        "competitors": {c.name: {"version": c.version()} for c in adapters},
    }
