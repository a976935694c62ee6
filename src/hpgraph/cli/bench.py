"""``hpgraph bench`` (the benchmark harness, :func:`hpgraph.bench.run_bench`) and
``hpgraph demo`` (generate a Kronecker graph, run every kernel once after a warm-up,
verify each, print one table)."""

from __future__ import annotations

import contextlib
import os
import time
import traceback

import click

from hpgraph.algorithms.registry import ALGORITHMS, bench_kernels
from hpgraph.cli._common import (
    CommandFailed,
    console,
    count_option,
    fmt_bytes,
    fmt_count,
    fmt_seconds,
    fmt_si,
    plural,
    threads_option,
)

#: "bfs/sssp": the benchmarked kernels that take a source (roots), for the help texts.
_ROOTED = "/".join(k for k in bench_kernels() if ALGORITHMS[k].needs_source)
#: The kernels ``hpgraph bench`` and ``hpgraph demo`` run when none are named.
_CORE = tuple(k for k in bench_kernels() if ALGORITHMS[k].bench.core)

__all__ = ["bench", "demo"]


@click.command(short_help="Time hpgraph's kernels against the installed PyPI competitors.")
@click.argument("graphs", nargs=-1, metavar="[GRAPH]...")
@click.option(
    "--kernels",
    "-k",
    default=",".join(_CORE),
    show_default=True,
    help=f"Comma-separated kernels, of {','.join(bench_kernels())}.",
)
@count_option(
    "--trials",
    default=3,
    help=f"Timed runs per kernel (per root for {_ROOTED}), after one warm-up.",
)
@threads_option
@count_option(
    "--roots",
    default=8,
    help=f"{_ROOTED} sources per graph (Graph500 rule: an edge that is not a loop).",
)
@click.option(
    "--verify/--no-verify",
    default=True,
    show_default=True,
    help="Check hpgraph's results with its verifiers.",
)
@click.option(
    "--competitors",
    default=None,
    help="Comma-separated competitor libraries: scipy, graphblas, "
    "networkit, igraph, scikit-network, networkx. [default: every importable one]",
)
# the old name of --competitors, still accepted (hidden; a note on stderr when used)
@click.option("--peers", "old_peers", default=None, hidden=True)
@count_option("--seed", default=0, minimum=0)
@click.option("--damping", type=float, default=0.85, show_default=True)
@count_option("--iterations", default=20, minimum=0, help="PageRank iterations.")
@click.option(
    "--dtype",
    type=click.Choice(ALGORITHMS["pagerank"].param("dtype").choices),
    default=ALGORITHMS["pagerank"].param("dtype").default,
    show_default=True,
    help="Precision of hpgraph's PageRank ranks and SSSP distances; float32 as GAP keeps them.",
)
# the old name of --dtype, still accepted (hidden)
@click.option(
    "--pagerank-dtype",
    "old_dtype",
    type=click.Choice(ALGORITHMS["pagerank"].param("dtype").choices),
    default=None,
    hidden=True,
)
@click.option(
    "--order",
    type=click.Choice(ALGORITHMS["pagerank"].param("order").choices),
    default=ALGORITHMS["pagerank"].param("order").default,
    show_default=True,
    help="Vertex numbering of hpgraph's PageRank and SSSP: hubs runs them on the "
    "hub-grouped view, built before the timed calls (its time in the row's note).",
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False), help="Also write the report: .md or .csv."
)
@click.option(
    "--gap",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    metavar="DIR",
    help="Also time the GAP Benchmark Suite's programs built in DIR (github sbeamer/gapbs, "
    "make) on the same graphs; see docs/benchmarks.md.",
)
def bench(
    graphs,
    kernels,
    trials,
    threads,
    roots,
    verify,
    competitors,
    old_peers,
    seed,
    damping,
    iterations,
    dtype,
    old_dtype,
    order,
    output,
    gap,
):
    """Time hpgraph's kernels and every importable competitor library (SciPy,
    python-graphblas, NetworKit, igraph, scikit-network, NetworkX on small graphs) on the
    same GRAPHs, in the same process; verify hpgraph's results and cross-check the
    competitors'.

    GRAPH: kronecker:SCALE[:EDGE_FACTOR], uniform:N:M (counts take k/M/G or 2^k), or a
    graph file. [default: kronecker:16]. The competitors come with:
    pip install 'hpgraph[competitors]'. With --gap DIR, GAP's bfs, pr_spmv, cc and sssp
    run on the same graphs (written in GAP's serialized form) with as many OpenMP threads.

    \b
    Example:
      hpgraph bench kronecker:18 uniform:256k:4M --kernels bfs,pagerank --threads 2 -o bench.md
    """
    if old_peers is not None:
        console(stderr=True).print("hpgraph bench: --peers is now --competitors")
    names = competitors or old_peers
    if threads:
        # OpenMP competitors without a thread setting (igraph's PRPACK) use the same count;
        # set before any competitor loads its OpenMP runtime
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    from hpgraph.bench import run_bench

    report = run_bench(
        kernels=kernels,
        graphs=list(graphs) or ["kronecker:16"],
        trials=trials,
        threads=threads,
        roots=roots,
        verify=verify,
        out=output,
        competitors=[c.strip() for c in names.split(",") if c.strip()] if names else None,
        seed=seed,
        damping=damping,
        iterations=iterations,
        dtype=old_dtype or dtype,
        order=order,
        gap=gap,
    )
    if not report.ok:
        n = len(report.failures)
        raise CommandFailed(f"{n} hpgraph kernel run(s) failed: {'; '.join(report.failures)}")


def _status(con, text):
    """A transient spinner on a terminal; nothing otherwise."""
    return con.status(text) if con.is_terminal else contextlib.nullcontext()


@click.command(short_help="Generate a Kronecker graph; run and verify every kernel.")
@click.option(
    "--scale", type=click.IntRange(1, 30), default=16, show_default=True, help="2^SCALE vertices."
)
@count_option("--edge-factor", default=16)
@threads_option
@count_option("--seed", default=0, minimum=0)
@click.pass_obj
def demo(state, scale, edge_factor, threads, seed):
    """Generate the Graph500 Kronecker graph of 2^SCALE vertices, run PageRank, BFS, WCC
    (on it) and SSSP (on a copy with uniform [0, 1) weights) on the local runtime, verify
    each result, and print one table. Exit code 1 if any kernel fails or does not verify.

    Each kernel runs once untimed first (the first run on a machine compiles it with numba,
    which takes seconds; later runs load it from the cache), then once timed.
    """
    import numpy as np
    from rich import box
    from rich.table import Table

    from hpgraph._version import __version__
    from hpgraph.cli.run import verify_result
    from hpgraph.config import DEFAULT_THREADS
    from hpgraph.errors import VerificationError
    from hpgraph.generators import kronecker
    from hpgraph.graph import Graph

    out, err = console(), console(stderr=True)
    nthreads = threads or DEFAULT_THREADS
    out.print(
        f"hpgraph {__version__} demo: Graph500 Kronecker graph, scale {scale}, edge factor "
        f"{edge_factor}, seed {seed}; local runtime, {plural(nthreads, 'thread')}"
    )
    with _status(err, "generating the graph ..."):
        t0 = time.perf_counter()
        wg = kronecker(scale, edge_factor, seed=seed, weighted=True, threads=threads)
        gen_s = time.perf_counter() - t0
    # the same edges without weights (a view: the arrays are shared)
    g = Graph(wg.indptr, wg.indices, None, directed=wg.directed, ids=wg.ids, name=wg.name)
    size = g.n + g.num_edges
    out.print(
        f"{g.name}: {g.n:,} vertices, {g.num_edges:,} undirected edges, generated in "
        f"{fmt_seconds(gen_s)}; CSR {fmt_bytes(g.memory_bytes())} "
        f"({fmt_bytes(wg.memory_bytes())} with weights)"
    )
    source = int(np.argmax(g.out_degree()))
    out.print(
        f"bfs/sssp source: vertex {source} (the highest degree, {int(g.out_degree()[source]):,})"
    )

    plan = [
        (a.name, wg if a.wants_weights else g, (source,) if a.needs_source else ())
        for a in map(ALGORITHMS.get, _CORE)
    ]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for col in ("kernel", "time", "supersteps", "EVPS", "result", "verified"):
        right = col in ("time", "supersteps", "EVPS")
        table.add_column(col, justify="right" if right else "left")
    failures = []
    for name, graph, args in plan:
        algo = ALGORITHMS[name]
        fn = algo.function
        try:
            with _status(err, f"{name}: warm-up (compiles on the first run) ..."):
                fn(graph, *args, threads=threads)
            with _status(err, f"{name}: timed run ..."):
                t0 = time.perf_counter()
                result = fn(graph, *args, threads=threads)
                dt = time.perf_counter() - t0
        except Exception as exc:
            if state.debug:
                traceback.print_exc()
            what = f"{type(exc).__name__}: {exc}"
            failures.append(f"{name}: {what}")
            first = what.splitlines()[0]
            table.add_row(
                name, "-", "-", "-", first[:77] + "..." if len(first) > 80 else first, "ERROR"
            )
            continue
        try:
            with _status(err, f"{name}: verifying ..."):
                verify_result(name, graph, result, args[0] if args else None)
            verified = "yes"
        except VerificationError as exc:
            failures.append(f"{name}: {exc}")
            verified = "FAILED"
        table.add_row(
            name,
            fmt_seconds(dt),
            fmt_count(result.meta.get("supersteps", 0)),
            fmt_si(size / dt if dt > 0 else float("nan")),
            algo.bench.brief(result) if algo.bench.brief else "",
            verified,
        )
    out.print(table)
    out.print("time: one run after an untimed warm-up; EVPS = (|V| + |E|) / time")
    out.print("verified: Graph500 rules (bfs, sssp), LDBC Graphalytics references (pagerank, wcc)")
    if failures:
        for f in failures:
            err.print(f"failed: {f}")
        raise CommandFailed(f"{len(failures)} of {len(plan)} kernels failed")
    out.print(f"all {len(plan)} kernels verified. Next: hpgraph run --help, hpgraph bench --help")


@click.command(
    short_help="CBench: barrier and message times of a runtime (the seed's benchmark).",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def cbench(args):
    """CBench: T tasks each send N messages of M bytes to P random partners per superstep,
    for I supersteps, on the local, MPI or hama (ZooKeeper barrier, TCP messages) runtime;
    or a sweep over T or M on several runtimes writing CSV and PNG (times, and speedups
    over hama); or --mode pingpong (latency and bandwidth between two tasks). Options:
    --mode {cbench,pingpong} --runtime {local,mpi,hama} --runtimes LIST -T -P -N -M -I
    --seed --sweep {tasks,bytes} --task-counts LIST --sizes LIST --iters N
    --zookeeper HOST:PORT --out PREFIX (see hpgraph cbench --help)."""
    from hpgraph.bench.cbench import main as cbench_main

    code = cbench_main(list(args))
    if code:
        raise SystemExit(code)
