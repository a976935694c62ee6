"""``hpgraph run ALGORITHM INPUT``: one kernel on one graph, with a short report, the
per-superstep statistics, verification and the per-vertex results written to CSV/Parquet.

The algorithms and their options come from :data:`hpgraph.algorithms.ALGORITHMS`; their
options (``--damping`` ...) are added to the command the first time it parses or shows
help, so that ``hpgraph --help`` does not import the kernels.
"""

from __future__ import annotations

import sys
import time

import click

from hpgraph.cli._common import (
    console,
    fmt_count,
    fmt_seconds,
    fmt_si,
    kv_lines,
    load_input,
    load_options,
    plural,
    python_scalar,
    threads_option,
)

__all__ = ["run", "result_summary", "stats_table", "verify_result"]

_OPT_PREFIX = "algo_"
_RESULT_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


class _RunCommand(click.Command):
    """``run``, whose algorithm options are read from the registry on first use."""

    def get_params(self, ctx):
        if not getattr(self, "_algorithm_options_added", False):
            self._algorithm_options_added = True
            self.params.extend(_algorithm_options({p.name for p in self.params}))
        return super().get_params(ctx)


def _algorithm_options(taken) -> list[click.Option]:
    """One ``--name`` option per option any algorithm declares, default None (so that the
    algorithm's own default applies and a stray option can be told apart)."""
    from hpgraph.algorithms import ALGORITHMS

    merged: dict[str, tuple[type, list]] = {}
    for algo in ALGORITHMS.values():
        for opt, (typ, default, text) in algo.options.items():
            merged.setdefault(opt, (typ, []))[1].append((algo.name, default, text))
    options = []
    for opt, (typ, uses) in merged.items():
        flag = opt.replace("_", "-")
        if opt in taken:  # a registry option must not shadow one of run's own
            raise RuntimeError(f"algorithm option {opt!r} clashes with an option of 'run'")
        text = "; ".join(f"{name}: {t}" + ("" if d is None else f" [{d}]") for name, d, t in uses)
        decls = [f"--{flag}/--no-{flag}"] if typ is bool else [f"--{flag}"]
        options.append(
            click.Option(
                [*decls, _OPT_PREFIX + opt], type=typ, default=None, show_default=False, help=text
            )
        )
    return options


@click.command(
    cls=_RunCommand,
    short_help="Run an algorithm (bfs, pagerank, lcc, betweenness, bmlpa, ...) on a graph.",
)
@click.argument("algorithm")
@click.argument("input")
@click.option(
    "--source",
    "-s",
    help="bfs/sssp: the source vertex, in the input's ids. [default: the vertex of "
    "highest out-degree]",
)
@threads_option
@click.option("--stats", is_flag=True, help="Print the per-superstep statistics table.")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show a live superstep line. [default: when stdout is a terminal]",
)
@click.option("--verify", is_flag=True, help="Check the result with the algorithm's verifier.")
@click.option(
    "--ranks",
    type=click.IntRange(min=1),
    help="Run on the MPI runtime with this many ranks, started with mpiexec.",
)
@click.option(
    "--aggregation",
    type=click.Choice(["direct", "node"]),
    help="MPI: how messages cross between ranks. direct: every rank to every rank; "
    "node: through one leader rank per node, one bundle per destination node. "
    "[default: $HPGRAPH_MPI_AGGREGATION or direct]",
)
@click.option(
    "--runtime",
    "runtime_name",
    type=click.Choice(["local", "mpi"]),
    default="local",
    show_default=True,
    help="local: threads; mpi: one part per rank (when started by mpiexec).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    help="Write the per-vertex results: .csv (.csv.gz) or .parquet; column 'vertex' "
    "holds the input's ids.",
)
@click.option(
    "--parts",
    is_flag=True,
    help="MPI: every rank writes its own vertices' rows to OUTPUT with .partNNNNN "
    "before the extension (in parallel), instead of rank 0 writing all.",
)
@load_options
def run(
    algorithm,
    input,
    source,
    threads,
    stats,
    progress,
    verify,
    ranks,
    aggregation,
    runtime_name,
    output,
    parts,
    **options,
):
    """Run ALGORITHM on INPUT (a graph file, or a generated graph such as kronecker:16
    or uniform:1M:16M) on the local runtime, and report the time, supersteps, EVPS and
    a summary of the result. ALGORITHM: bfs, wcc, pagerank, sssp, lcc, cdlp, bmlpa,
    betweenness, edge_betweenness, apsp, dual_simulation, strict_simulation, layout.

    \b
    Examples:
      hpgraph run pagerank kron16.hpgc --damping 0.9 --iterations 30 -o ranks.csv
      hpgraph run bfs roads.el --source 42 --verify --stats
      hpgraph run sssp kronecker:14 --verify     (generated graphs get weights for sssp)
      hpgraph run betweenness kronecker:14 --k 64 --seed 3 -o bc.parquet
      hpgraph run bmlpa mentions.el --b 0.1 --initial hashtags.txt -o cover.csv
      hpgraph run strict_simulation g.el --labels labels.txt --pattern triangle.pat
      hpgraph run apsp roads.el -o distances.parquet   (streamed, source blocks)
    """
    from hpgraph.algorithms import ALGORITHMS
    from hpgraph.errors import InvalidArgumentError

    if ranks is not None:
        sys.exit(_launch_mpi(ranks))
    load = {k: options.pop(k) for k in ("directed", "weighted", "fmt", "no_cache", "seed")}
    name = algorithm.lower()
    algo = ALGORITHMS.get(name)
    if algo is None:
        raise InvalidArgumentError(
            f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}"
        )
    given = {k[len(_OPT_PREFIX) :]: v for k, v in options.items() if v is not None}
    stray = [k for k in given if k not in algo.options]
    if stray:
        own = ", ".join(f"--{o.replace('_', '-')}" for o in algo.options) or "none"
        raise click.UsageError(
            f"--{stray[0].replace('_', '-')} does not apply to {name} (its options: {own})"
        )
    if source is not None and not algo.needs_source:
        rooted = ", ".join(a for a, x in ALGORITHMS.items() if x.needs_source)
        raise click.UsageError(f"--source applies only to {rooted}, not {name}")
    if output is not None and not algo.writes_output:
        _check_result_path(output)
    if progress is None:
        progress = sys.stdout.isatty()

    graph, _, how = load_input(
        input,
        directed=load["directed"],
        weighted=load["weighted"],
        fmt=load["fmt"],
        cache=not load["no_cache"],
        seed=load["seed"],
        threads=threads,
        generated_weighted=(name == "sssp"),
    )
    args, source_row = (), None
    if algo.needs_source:
        uid, source_row = _resolve_source(graph, source, input)
        args = (uid,)

    runtime = None
    if runtime_name == "mpi":
        from hpgraph.runtimes.mpi import MPIRuntime

        # --threads: threads per rank (hybrid ranks x threads); one when not given
        runtime = MPIRuntime(threads=threads or 1, aggregation=aggregation)
    elif aggregation is not None or parts:
        flag = "--aggregation" if aggregation is not None else "--parts"
        raise click.UsageError(f"{flag} applies to the MPI runtime (--ranks)")
    if algo.seeded:
        given["seed"] = load["seed"]
    if algo.writes_output:  # streamed by the kernel itself (e.g. apsp to Parquet)
        given["output"], output = output, None
    t0 = time.perf_counter()
    result = algo.function(
        graph, *args, threads=threads, runtime=runtime, progress=progress, **given
    )
    elapsed = time.perf_counter() - t0
    written = None
    if output is not None and parts:
        written = _write_rank_part(result, output, graph, runtime)
        output = None
    if runtime is not None and not runtime.is_root:
        return  # every rank holds the result; rank 0 reports and writes it

    out = console()
    rows = [
        ("algorithm", f"{name}: {algo.summary}"),
        ("graph", _graph_line(graph, input, how)),
    ]
    if source_row:
        rows.append(source_row)
    job = result.stats
    rows += _timing_rows(graph, result, elapsed, runtime)
    summary, table = result_summary(name, result)
    rows += summary
    out.print(kv_lines(rows))
    if table is not None:
        out.print(table)
    if stats:
        if job is None:
            out.print("no per-superstep statistics: this kernel does not run on the BSP engine")
        else:
            out.print(stats_table(job))
    if output is not None:
        from hpgraph.io import write_result

        t0 = time.perf_counter()
        # covers are written one row per (vertex, community), as the user reads them
        rows = _Rows(result.to_rows()) if hasattr(result, "to_rows") else result
        write_result(rows, output)
        cols = ", ".join(rows.output_columns())
        out.print(f"wrote {output} ({cols}) in {fmt_seconds(time.perf_counter() - t0)}")
    if written is not None:
        out.print(f"wrote {runtime.size} parts like {written} (one per rank, in parallel)")
    if verify:
        from hpgraph.errors import VerificationError

        t0 = time.perf_counter()
        try:
            what = verify_result(name, graph, result, args[0] if args else None, given)
        except VerificationError:
            out.print("verified: FAILED")
            raise
        out.print(f"verified: yes, {what} ({fmt_seconds(time.perf_counter() - t0)})")


class _Rows:
    """Ready-made output columns, for :func:`hpgraph.io.write_result`."""

    def __init__(self, columns):
        self._columns = columns

    def output_columns(self):
        return self._columns


def _write_rank_part(result, output, graph, runtime) -> str:
    """Write this rank's rows of ``result`` to OUTPUT.partNNNNN.ext; returns the path."""
    from hpgraph.io import write_result

    name = str(output)
    low = name.lower()
    ext = next(e for e in sorted(_RESULT_SUFFIXES, key=len, reverse=True) if low.endswith(e))
    path = f"{name[: len(name) - len(ext)]}.part{runtime.rank:05d}{ext}"
    lo, hi = runtime.rank_range(graph)

    class _Rows:  # the rows [lo, hi) of the result, as write_result reads them
        def output_columns(self):
            return {k: v[lo:hi] for k, v in result.output_columns().items()}

    write_result(_Rows(), path)
    runtime.comm.Barrier()  # every part is there when rank 0 reports
    return path


def _launch_mpi(ranks: int) -> int:
    """Re-run this command under ``mpiexec -n ranks`` on the MPI runtime; its exit code."""
    import os
    import subprocess

    from hpgraph.runtimes.mpi import mpiexec_path

    mpiexec = mpiexec_path()
    argv, skip = [], False
    for arg in sys.argv[1:]:  # drop --ranks N / --ranks=N, force the MPI runtime
        if skip:
            skip = False
            continue
        if arg == "--ranks":
            skip = True
            continue
        if arg.startswith("--ranks="):
            continue
        argv.append(arg)
    cmd = [mpiexec, "-n", str(ranks), sys.executable, "-m", "hpgraph.cli.main", *argv]
    cmd += ["--runtime", "mpi"]
    return subprocess.call(cmd, env=dict(os.environ))


def _resolve_source(graph, source, input):
    """(source in the input's ids, report row): ``source`` (a string from the command
    line, resolved by :meth:`Graph.vertex_index`) or the vertex of highest out-degree."""
    import numpy as np

    from hpgraph.errors import InvalidArgumentError

    if graph.n == 0:
        raise InvalidArgumentError(f"{input}: the graph has no vertices, so no source")
    if source is None:
        deg = graph.out_degree()
        s = int(np.argmax(deg))
        why = f" (default: the vertex of highest out-degree, {int(deg[s]):,})"
    else:
        s = graph.vertex_index(source)
        why = ""
    uid = python_scalar(graph.user_ids()[s])
    return uid, ("source", f"{uid}{why}")


def _timing_rows(graph, result, elapsed, runtime=None):
    """Runtime, time (with the engine's setup), supersteps and EVPS rows."""
    job = result.stats
    rows = []
    setup = 0.0
    time_text = fmt_seconds(elapsed)
    if job is not None:
        setup = job.setup_s
        if runtime is not None and runtime.name == "mpi":
            where = f"mpi, {plural(runtime.size, 'rank')}"
            if runtime.threads > 1:
                where += f" x {plural(runtime.threads, 'thread')}"
            rows.append(("runtime", f"{where}, {runtime.aggregation} exchange"))
        else:
            unit = "rank" if job.runtime == "mpi" else "thread"
            rows.append(("runtime", f"{job.runtime}, {plural(job.parts, unit)}"))
        if setup > 0:  # peer-level kernels compile inside their program: no setup phase
            time_text += (
                f" (setup {fmt_seconds(setup)}: partitioning, kernel compile or cache load)"
            )
    rows.append(("time", time_text))
    if "supersteps" in result.meta:
        rows.append(("supersteps", fmt_count(result.meta["supersteps"])))
    run_s = elapsed - setup
    evps = (graph.n + graph.num_edges) / run_s if run_s > 0 else float("nan")
    rows.append(("EVPS", f"{fmt_si(evps)}  (|V| + |E|) / (time - setup)"))
    return rows


def _check_result_path(path) -> None:
    from hpgraph.cli._common import check_output_folder
    from hpgraph.errors import InvalidArgumentError

    if not str(path).lower().endswith(_RESULT_SUFFIXES):
        raise InvalidArgumentError(
            f"cannot tell the result format of {str(path)!r} from its extension; use "
            ".csv, .csv.gz or .parquet"
        )
    check_output_folder(path)


def _graph_line(graph, input, how) -> str:
    kind = "directed" if graph.directed else "undirected"
    w = "weighted" if graph.weighted else "unweighted"
    return (
        f"{graph.name or input}: {graph.n:,} vertices, {graph.num_edges:,} edges, "
        f"{kind}, {w}; {how}"
    )


def result_summary(name, result):
    """(rows, extra table or None) summarising a result for the report."""
    import numpy as np

    g = result.graph
    n = max(g.n, 1)
    rows = []
    table = None
    if name == "bfs":
        depth = result["depth"]
        reached = int(np.count_nonzero(depth >= 0))
        rows.append(("reached", f"{reached:,} of {g.n:,} vertices ({100 * reached / n:.1f}%)"))
        rows.append(("max depth", fmt_count(depth.max(initial=0))))
    elif name == "sssp":
        dist = result["distance"]
        fin = np.isfinite(dist)
        reached = int(np.count_nonzero(fin))
        rows.append(("reached", f"{reached:,} of {g.n:,} vertices ({100 * reached / n:.1f}%)"))
        rows.append(("max distance", f"{dist[fin].max(initial=0.0):.6g}"))
    elif name == "wcc":
        comp = np.asarray(result["component"], dtype=np.int64)
        sizes = np.bincount(comp, minlength=g.n) if g.n else np.zeros(0, np.int64)
        k = int(np.count_nonzero(sizes))
        rows.append(("components", fmt_count(k)))
        if k:
            rows.append(
                ("largest", f"{int(sizes.max()):,} vertices ({100 * sizes.max() / n:.1f}%)")
            )
            rows.append(("singletons", fmt_count(np.count_nonzero(sizes == 1))))
    elif name == "pagerank":
        rank = result["rank"]
        meta = result.meta
        it = f"{meta.get('iterations', '?')}"
        if meta.get("converged"):
            it += " (converged: the L1 change fell below --tolerance)"
        rows.append(("iterations", it))
        rows.append(("rank sum", f"{rank.sum():.6f}"))
        table = _top_ranks(result, 5)
    elif name == "lcc":
        meta = result.meta
        rows.append(("triangles", fmt_count(meta["triangles"])))
        rows.append(("average LCC", f"{meta['average_clustering']:.6g}"))
        rows.append(("transitivity", f"{meta['transitivity']:.6g}"))
    elif name in ("cdlp", "bmlpa"):
        rows.append(("communities", fmt_count(result.meta["communities"])))
        if name == "bmlpa":
            meta = result.meta
            conv = "converged" if meta["converged"] else "iteration limit reached"
            rows.append(("iterations", f"{meta['iterations']} ({conv})"))
            rows.append(("overlapping", f"{meta['overlapping_vertices']:,} vertices"))
            if result.num_communities:
                rows.append(("largest", f"{int(result.sizes.max()):,} members"))
    elif name in ("betweenness", "edge_betweenness"):
        col = result["betweenness"]
        how = "exact" if result.meta.get("k") is None else f"{result.meta['k']} sampled sources"
        rows.append(("sources", how))
        if col.size:
            top = int(np.argmax(col))
            what = (
                f"vertex {python_scalar(result.vertex_ids()[top])}"
                if name == "betweenness"
                else "edge {} -> {}".format(
                    *(python_scalar(result.output_columns()[c][top]) for c in ("source", "target"))
                )
            )
            rows.append(("highest", f"{what} ({col[top]:.6g})"))
    elif name == "apsp":
        meta = result.meta
        if result.distances is None:
            rows.append(("streamed", f"{meta.get('pairs', 0):,} pairs to {result.path}"))
        else:
            fin = np.isfinite(result.distances)
            rows.append(("finite pairs", f"{int(fin.sum()):,} of {g.n * g.n:,}"))
            rows.append(("diameter", f"{result.distances[fin].max(initial=0.0):.6g}"))
    elif name == "dual_simulation":
        rows.append(("matched", "yes" if result.matched else "no (some pattern vertex has none)"))
        rows.append(("pairs", fmt_count(result.meta["pairs"])))
    elif name == "strict_simulation":
        meta = result.meta
        rows.append(("balls", fmt_count(meta["balls"])))
        rows.append(("matches", f"{meta['matches']:,} match subgraphs (radius {meta['radius']})"))
    elif name == "layout":
        meta = result.meta
        what = f"{meta['dim']}-D, {meta['iterations']} iterations, {meta['method']} repulsion"
        rows.append(("layout", what))
    else:
        rows.append(("columns", ", ".join(result.columns)))
    return rows, table


def _top_ranks(result, k):
    import numpy as np
    from rich import box
    from rich.table import Table

    rank = result["rank"]
    top = np.argsort(-rank, kind="stable")[:k]
    ids = result.vertex_ids()
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    t.add_column("#", justify="right")
    t.add_column("vertex", justify="right")
    t.add_column("rank", justify="right")
    for i, v in enumerate(top.tolist(), 1):
        t.add_row(str(i), str(python_scalar(ids[v])), f"{rank[v]:.6g}")
    return _titled(f"top {len(top)} vertices by rank", t)


def _titled(title, table):
    """The table under a title line (a table's own title wraps to the table's width)."""
    from rich.console import Group
    from rich.text import Text

    return Group(Text(title), table)


def stats_table(job):
    """The per-superstep table of a :class:`~hpgraph.engine.stats.JobStats`, with totals."""
    from rich import box
    from rich.table import Table

    title = (
        f"supersteps ({job.runtime} runtime, {plural(job.parts, 'part')}; setup "
        f"{job.setup_s * 1e3:.1f} ms, total {job.total_s * 1e3:.1f} ms)"
    )
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, show_footer=True)
    tot = job.totals()
    local = sum(s.messages_local for s in job.supersteps)
    remote = sum(s.messages_remote for s in job.supersteps)
    cols = [
        ("superstep", "total"),
        ("active", fmt_count(sum(s.active for s in job.supersteps))),
        ("msgs local", fmt_count(local)),
        ("msgs remote", fmt_count(remote)),
        ("bytes", fmt_count(tot["bytes"])),
        ("mode", ""),
        ("compute ms", f"{tot['compute_s'] * 1e3:.2f}"),
        ("comm ms", f"{tot['communication_s'] * 1e3:.2f}"),
        ("barrier ms", f"{tot['barrier_s'] * 1e3:.2f}"),
    ]
    for header, footer in cols:
        t.add_column(header, footer=footer, justify="left" if header == "mode" else "right")
    for s in job.supersteps:
        t.add_row(
            str(s.superstep),
            fmt_count(s.active),
            fmt_count(s.messages_local),
            fmt_count(s.messages_remote),
            fmt_count(s.bytes_local + s.bytes_remote),
            s.mode,
            f"{s.compute_s * 1e3:.2f}",
            f"{s.communication_s * 1e3:.2f}",
            f"{s.barrier_s * 1e3:.2f}",
        )
    return _titled(title, t)


def verify_result(name, graph, result, source=None, options=None) -> str:
    """Run the verifier of ``name`` on ``result``; returns what was checked, raises
    :class:`~hpgraph.errors.VerificationError` if the result is wrong."""
    from hpgraph.algorithms import verify as v

    if name == "bfs":
        v.verify_bfs(graph, source, result)
        return "Graph500 BFS rules and Graphalytics depths"
    if name == "sssp":
        v.verify_sssp(graph, source, result)
        return "Graph500 SSSP rules"
    if name == "wcc":
        v.verify_wcc(graph, result)
        return "components equal SciPy's, up to relabelling"
    if name == "pagerank":
        d = result.meta.get("damping", 0.85)
        it = result.meta.get("iterations", 20)
        v.verify_pagerank(graph, result, d, it)
        return f"within relative 1e-4 of a SciPy power iteration ({it} iterations)"
    if name == "lcc":
        from hpgraph.algorithms.lcc import verify_lcc

        verify_lcc(graph, result)
        return "local clustering within relative 1e-9 of SciPy sparse products"
    if name == "cdlp":
        from hpgraph.algorithms.cdlp import verify_cdlp

        verify_cdlp(graph, result, result.meta.get("iterations", 10))
        return "labels equal a NumPy implementation of Graphalytics CDLP"
    if name == "dual_simulation":
        from hpgraph.algorithms.simulation import verify_dual_simulation

        verify_dual_simulation(graph, options["labels"], options["pattern"], result)
        return "every pair has its labels and child and parent witnesses"
    from hpgraph.errors import InvalidArgumentError

    raise InvalidArgumentError(f"no verifier for {name!r}")
