"""``hpgraph run ALGORITHM INPUT``: one kernel on one graph, with a short report, the
per-superstep statistics, verification and the per-vertex results written to CSV/Parquet.

Everything about an algorithm comes from its entry in :data:`hpgraph.algorithms.ALGORITHMS`
(:mod:`hpgraph.algorithms.registry`): the function, the options (``--damping`` ...,
generated from its parameters when the command first parses or shows help), the report,
the verifier. The registry imports no kernel, so ``hpgraph --help`` stays fast.
"""

from __future__ import annotations

import os
import sys
import time

import click

from hpgraph.algorithms.registry import ALGORITHMS, RUNTIMES, get_algorithm, resolve
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
from hpgraph.cli.checkpoint import checkpoint_options, make_checkpoints
from hpgraph.launcher import relaunch

__all__ = ["run", "param_option", "result_summary", "stats_table", "verify_result"]

_OPT_PREFIX = "algo_"
_RESULT_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


class _RunCommand(click.Command):
    """``run``, whose algorithm options and help come from the registry (read again when
    an entry changes, as a test or a plugin may add one)."""

    _registry_key: tuple = ()
    _generated: list = []

    def get_params(self, ctx):
        key = tuple(ALGORITHMS.values())
        if key != self._registry_key:
            own = [p for p in self.params if p not in self._generated]
            self._generated = _algorithm_options({p.name for p in own})
            self.params = [*own, *self._generated]
            self._registry_key = key
        return super().get_params(ctx)

    @property
    def help(self):
        return self._help.format(algorithms=", ".join(ALGORITHMS))

    @help.setter
    def help(self, text):
        self._help = text


def param_option(param, *, help=None, dest=None) -> click.Option:
    """The click option of a registry :class:`~hpgraph.algorithms.Param` (``--name``, or
    ``--name/--no-name`` for a bool), default None so that the function's own default
    applies and an option given can be told from one left out. For front ends that expose
    an algorithm's parameters (``hpgraph run``, ``hpgraph communities``)."""
    flag = param.flag
    decls = [f"{flag}/--no-{flag[2:]}"] if param.type is bool else [flag]
    if dest is not None:
        decls.append(dest)
    typ = click.Choice(param.choices) if param.choices else param.type
    if help is None:
        help = param.help + ("" if param.help_default is None else f" [{param.help_default}]")
    return click.Option(decls, type=typ, default=None, show_default=False, help=help)


def _algorithm_options(taken) -> list[click.Option]:
    """One option per parameter name any algorithm declares; its help lists each
    algorithm's use (``pagerank: ... [20]; cdlp: ... [10]``)."""
    merged: dict[str, list] = {}
    for algo in ALGORITHMS.values():
        for param in algo.params:
            uses = merged.setdefault(param.name, [])
            if uses and (param.type, param.choices) != (uses[0][1].type, uses[0][1].choices):
                raise RuntimeError(
                    f"algorithm option {param.name!r}: {algo.name} declares another type or "
                    f"choices than {uses[0][0]}"
                )
            uses.append((algo.name, param))
    options = []
    for name, uses in merged.items():
        if name in taken:  # a registry option must not shadow one of run's own
            raise RuntimeError(f"algorithm option {name!r} clashes with an option of 'run'")
        text = "; ".join(
            f"{a}: {p.help}" + ("" if p.help_default is None else f" [{p.help_default}]")
            for a, p in uses
        )
        options.append(param_option(uses[0][1], help=text, dest=_OPT_PREFIX + name))
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
    help=f"{'/'.join(a.name for a in ALGORITHMS.values() if a.needs_source)}: the source "
    "vertex, in the input's ids. [default: the vertex of highest out-degree]",
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
    type=click.Choice(list(RUNTIMES)),
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
@checkpoint_options
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
    a summary of the result. ALGORITHM: {algorithms}.

    \b
    Examples:
      hpgraph run pagerank kron16.hpgc --damping 0.9 --iterations 30 -o ranks.csv
      hpgraph run bfs roads.el --source 42 --verify --stats
      hpgraph run sssp kronecker:14 --verify     (generated graphs get weights for sssp)
      hpgraph run betweenness kronecker:14 --k 64 --seed 3 -o bc.parquet
      hpgraph run bmlpa mentions.el --b 0.1 --initial hashtags.txt -o cover.csv
      hpgraph run strict_simulation g.el --labels labels.txt --pattern triangle.pat
      hpgraph run apsp roads.el -o distances.parquet   (streamed, source blocks)
      hpgraph run pagerank g.hpgc --checkpoint /dev/shm/ck --checkpoint-every 5 --resume
    """
    if options["max_restarts"] or options["checkpoint_dir"]:  # a hung job must end
        os.environ.setdefault("HPGRAPH_TIMEOUT", "600")  # (runtimes/stall.py)
    if options["max_restarts"]:  # a supervisor reruns the whole command (the launch)
        from hpgraph.cli.checkpoint import supervise

        sys.exit(supervise(options["max_restarts"]))
    if ranks is not None:
        sys.exit(relaunch(ranks, sys.argv[1:]))
    checkpoints = make_checkpoints(options)
    load = {k: options.pop(k) for k in ("directed", "weighted", "fmt", "no_cache", "seed")}
    algo = get_algorithm(algorithm)
    name = algo.name
    given = {k[len(_OPT_PREFIX) :]: v for k, v in options.items() if v is not None}
    stray = [k for k in given if algo.param(k) is None]
    if stray:
        flags = (["--source"] if algo.needs_source else []) + [p.flag for p in algo.params]
        own = ", ".join(flags) or "none"
        raise click.UsageError(
            f"--{stray[0].replace('_', '-')} does not apply to {name} (its options: {own})"
        )
    if source is not None and not algo.needs_source:
        rooted = ", ".join(a for a, x in ALGORITHMS.items() if x.needs_source)
        raise click.UsageError(f"--source applies only to {rooted}, not {name}")
    if runtime_name not in algo.runtimes:
        raise click.UsageError(
            f"{name} does not run on the {runtime_name} runtime (only {', '.join(algo.runtimes)})"
        )
    # front-end options go to the entry's after_run, not to the function
    front = {p.name: given.pop(p.name, p.default) for p in algo.params if p.front_end}
    if output is not None and not algo.writes_output:
        _check_result_path(output)
    function = algo.function  # imports the kernel's module: not in the timed region
    if checkpoints is not None:
        if not algo.checkpoints:
            takes = ", ".join(a for a, x in ALGORITHMS.items() if x.checkpoints)
            raise click.UsageError(f"checkpoints apply to {takes}, not {name}")
        given["checkpoint"] = checkpoints
    if progress is None:
        progress = sys.stdout.isatty()

    # BMLPA on parts: rough cores or labels per vertex, semi-sync sweeps, no checkpoints;
    # a label file, sync supersteps or checkpoints need the whole graph on every rank
    whole = name == "bmlpa" and (
        checkpoints is not None
        or given.get("update", "semi-sync") != "semi-sync"
        or given.get("initial", "rough-cores") != "rough-cores"
    )
    graph, _, how = load_input(
        input,
        directed=load["directed"],
        weighted=load["weighted"],
        fmt=load["fmt"],
        cache=not load["no_cache"],
        seed=load["seed"],
        threads=threads,
        generated_weighted=algo.wants_weights,
        mpi=runtime_name == "mpi",
        # ranks hold only their rows, unless the kernel or the verifier needs them all
        partitioned=runtime_name == "mpi" and algo.partitioned and not verify and not whole,
    )
    args, source_row = (), None
    if algo.needs_source:
        uid, source_row = _resolve_source(graph, source, input)
        args = (uid,)

    runtime = None
    if runtime_name == "mpi":
        from hpgraph.runtimes import resolve_runtime

        # --threads: threads per rank (hybrid ranks x threads); Slurm's -c, else one
        runtime = resolve_runtime("mpi", threads, aggregation=aggregation)[0]
    elif aggregation is not None or parts:
        flag = "--aggregation" if aggregation is not None else "--parts"
        raise click.UsageError(f"{flag} applies to the MPI runtime (--ranks)")
    if algo.seeded:
        given["seed"] = load["seed"]
    if algo.writes_output:  # streamed by the kernel itself (e.g. apsp to Parquet)
        given["output"], output = output, None
    t0 = time.perf_counter()
    result = function(graph, *args, threads=threads, runtime=runtime, progress=progress, **given)
    elapsed = time.perf_counter() - t0
    written = summary = None
    wrote = ()  # (columns, seconds) of an output written collectively
    if output is not None and parts:
        written = _write_rank_part(result, output, graph, runtime)
        output = None
    if getattr(graph, "own_ids", None) is not None:
        # a part holding only its own vertices' ids: every rank answers the report's and
        # the output's questions for the ids it holds, rank 0 writes
        summary = result_summary(name, result)
        if output is not None and hasattr(result, "to_rows"):
            # a cover, one row per (vertex, community): the ids are gathered (collective)
            # and rank 0 writes them
            rows = _Rows(result.to_rows())
            if runtime.is_root:
                from hpgraph.io import write_result

                t0 = time.perf_counter()
                wrote = (write_result(rows, output), time.perf_counter() - t0)
        elif output is not None:
            from hpgraph.io import write_result

            t0 = time.perf_counter()
            wrote = (write_result(result, output), time.perf_counter() - t0)
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
    if checkpoints is not None and checkpoints.resume:
        rows.append(("resumed", _resumed_text(checkpoints)))
    summary, table = summary or result_summary(name, result)
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

        if not wrote:
            t0 = time.perf_counter()
            # covers are written one row per (vertex, community), as the user reads them
            rows = _Rows(result.to_rows()) if hasattr(result, "to_rows") else result
            wrote = (write_result(rows, output), time.perf_counter() - t0)
        out.print(f"wrote {output} ({', '.join(wrote[0])}) in {fmt_seconds(wrote[1])}")
    if written is not None:
        out.print(f"wrote {runtime.size} parts like {written} (one per rank, in parallel)")
    if algo.after_run is not None:
        resolve(algo.after_run)(result, graph, front, out)
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
    write_result(_Rows(result.output_columns((lo, hi))), path)
    runtime.comm.Barrier()  # every part is there when rank 0 reports
    return path


def _resolve_source(graph, source, input):
    """(source in the input's ids, report row): ``source`` (a string from the command
    line, resolved by :meth:`Graph.vertex_index`) or the vertex of highest out-degree."""
    import numpy as np

    from hpgraph.errors import InvalidArgumentError
    from hpgraph.graph.part import is_part

    if graph.n == 0:
        raise InvalidArgumentError(f"{input}: the graph has no vertices, so no source")
    if source is None:
        if is_part(graph):  # each rank knows its own rows' degrees
            from hpgraph.runtimes.mpi.parts import highest_degree_vertex

            s, deg_s = highest_degree_vertex(graph)
        else:
            deg = graph.out_degree()
            s = int(np.argmax(deg))
            deg_s = int(deg[s])
        why = f" (default: the vertex of highest out-degree, {deg_s:,})"
    else:
        s = graph.vertex_index(source)
        why = ""
    uid = python_scalar(graph.user_ids()[s])
    return uid, ("source", f"{uid}{why}")


def _resumed_text(checkpoints) -> str:
    """Where a ``--resume`` run started: the checkpoint's superstep and folder, or why
    from the beginning."""
    if checkpoints.resumed_from is None:
        return f"no usable checkpoint in {checkpoints.dir}: started from superstep 0"
    ss, folder = checkpoints.resumed_from
    return f"from superstep {ss:,} ({folder})"


def _timing_rows(graph, result, elapsed, runtime=None):
    """Runtime, time (with the engine's setup), supersteps and EVPS rows."""
    from hpgraph.graph.part import is_part

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
            held = "own rows per rank" if is_part(graph) else "whole graph per rank"
            rows.append(("runtime", f"{where}, {runtime.aggregation} exchange, {held}"))
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
    how = "(|V| + |E|) / (time - setup)" if setup > 0 else "(|V| + |E|) / time"
    rows.append(("EVPS", f"{fmt_si(evps)}  {how}"))
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
    """(rows, extra table or None) summarising a result for the report: the registry
    entry's ``report``, or the result's columns."""
    algo = ALGORITHMS.get(name)
    if algo is None or algo.report is None:
        return [("columns", ", ".join(result.columns))], None
    rows, table = algo.report(result)
    return rows, None if table is None else _report_table(table)


def _report_table(table):
    """A :class:`~hpgraph.algorithms.ReportTable` as a rich table under its title."""
    from rich import box
    from rich.table import Table

    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for col in table.columns:
        t.add_column(col, justify="right")
    for row in table.rows:
        t.add_row(*row)
    return _titled(table.title, t)


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
    algo = ALGORITHMS.get(name)
    if algo is None or algo.verifier is None:
        from hpgraph.errors import InvalidArgumentError

        raise InvalidArgumentError(f"no verifier for {name!r}")
    return algo.verifier(graph, result, source, options)
