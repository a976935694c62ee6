"""What the commands share: reading an INPUT (a file or a generator spec), writing a graph
by extension, the graph's vital statistics, rich consoles and number formatting.

Only click is imported at module level; numpy and hpgraph's heavy modules load inside the
functions, so that ``hpgraph --help`` stays fast.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from dataclasses import dataclass

import click

__all__ = [
    "CommandFailed",
    "State",
    "load_options",
    "threads_option",
    "count_option",
    "load_input",
    "graph_output_format",
    "write_graph",
    "graph_facts",
    "console",
    "kv_lines",
    "fmt_count",
    "fmt_seconds",
    "fmt_si",
    "fmt_bytes",
    "plural",
    "python_scalar",
]

#: Generator kinds a spec may name (see :func:`hpgraph.bench.parse_graph_spec`).
_SPEC_KINDS = ("kronecker", "kron", "uniform", "urand")
#: Extensions of graph files that can be written, for messages.
GRAPH_OUTPUTS = (
    ".hpgc, .parquet, or an edge list (.el, .txt, .edges, .edgelist, .csv, .tsv, .snap; "
    "optionally .gz)"
)


class CommandFailed(Exception):
    """A command ran but its outcome is a failure (exit code 1): a kernel that did not
    verify or raised, in ``demo`` or ``bench``. The details were printed already."""


@dataclass
class State:
    """Options of the ``hpgraph`` group, seen by every command as ``ctx.obj``."""

    debug: bool = False


# ---------------------------------------------------------------------------- options
def load_options(f):
    """``--directed/--undirected``, ``--weighted/--unweighted``, ``--format``,
    ``--no-cache``, ``--seed``."""
    f = click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="Seed of a generated INPUT (kronecker:S, uniform:N:M) and of the randomised "
        "kernels (betweenness --k sampling, bmlpa, layout).",
    )(f)
    f = click.option(
        "--format",
        "fmt",
        type=click.Choice(["edgelist", "mtx", "parquet", "hpgc"]),
        default=None,
        help="Format of the INPUT file. [default: from its extension]",
    )(f)
    f = click.option(
        "--no-cache",
        is_flag=True,
        help="Parse a text or Parquet INPUT even if its cached binary form (.hpgc) is "
        "fresh, and write no cache.",
    )(f)
    f = click.option(
        "--weighted/--unweighted",
        default=None,
        help="Require edge weights / drop them. [default: use weights when the input has "
        "them; generated graphs are unweighted, except for sssp]",
    )(f)
    f = click.option(
        "--directed/--undirected",
        default=None,
        help="Read the edges as directed / undirected. [default: the format decides: "
        "undirected for edge lists and Parquet, the header for Matrix Market, as stored "
        "for .hpgc; generated graphs are undirected]",
    )(f)
    return f


def threads_option(f):
    return click.option(
        "--threads",
        "-t",
        type=click.IntRange(min=1),
        default=None,
        help="Threads per process: the local runtime's threads, or each MPI rank's with "
        "--ranks. [default: all cores, or HPGRAPH_THREADS; 1 per rank with --ranks]",
    )(f)


def count_option(*decls, default, minimum=1, help=None):
    """A whole-number option of at least ``minimum``, its default shown by ``--help``."""
    return click.option(
        *decls, type=click.IntRange(min=minimum), default=default, show_default=True, help=help
    )


# ----------------------------------------------------------------------------- input
def _is_spec(text: str) -> bool:
    kind, sep, _ = text.partition(":")
    return bool(sep) and kind.lower() in _SPEC_KINDS


def load_input(
    spec: str,
    *,
    directed=None,
    weighted=None,
    fmt=None,
    cache=True,
    seed=0,
    threads=None,
    generated_weighted=False,
    mpi=False,
    partitioned=False,
):
    """``(graph, seconds, how)`` for INPUT: an existing file (any format
    :func:`hpgraph.io.load_graph` reads; ``file:PATH`` also works) or a generator spec
    ``kronecker:SCALE[:EDGE_FACTOR]`` / ``uniform:N:M`` (counts take k/M/G or ``2^k``).
    A generated graph is weighted when ``weighted`` is True, or when it is None and
    ``generated_weighted``. ``how`` says where the graph came from, for reports. ``mpi``:
    every MPI rank calls this, and a text edge list is parsed in parallel
    (:func:`hpgraph.runtimes.mpi.ingest.load_graph_mpi`); with ``partitioned`` each rank
    keeps only its own rows (a :class:`~hpgraph.graph.part.PartGraph`)."""
    path = spec[5:] if spec.startswith("file:") else spec
    if os.path.exists(path) or not _is_spec(spec):
        if not os.path.exists(path):
            raise FileNotFoundError(
                errno.ENOENT,
                "no such file (nor a generator spec such as kronecker:16 or uniform:1M:16M)",
                path,
            )
        from hpgraph.errors import GraphFormatError
        from hpgraph.io import detect_format, load_graph

        if fmt is None:
            try:
                fmt = detect_format(path)
            except GraphFormatError:
                fmt = None
        if os.path.isdir(path) and fmt != "parquet":
            raise IsADirectoryError(
                errno.EISDIR, "is a folder, not a graph file (a Parquet dataset folder "
                "needs a name ending in .parquet, or --format parquet)", path,
            )  # fmt: skip
        if fmt is None:
            raise GraphFormatError(
                "cannot tell the format from the extension (.el, .txt, .edges, .csv, "
                ".tsv, .mtx, optionally .gz; .parquet; .hpgc); name it with --format",
                path,
            )
        t0 = time.perf_counter()
        kw = {"format": fmt, "directed": directed, "weighted": weighted, "cache": cache}
        if mpi:
            from hpgraph.runtimes.mpi.ingest import load_graph_mpi

            g = load_graph_mpi(path, partitioned=partitioned, **kw)
        else:
            g = load_graph(path, **kw)
        dt = time.perf_counter() - t0
        if not g.name:
            g.name = os.path.basename(path)
        return g, dt, f"{fmt}, read in {fmt_seconds(dt)}"

    from hpgraph.bench import parse_graph_spec
    from hpgraph.generators import kronecker, uniform_random

    d = parse_graph_spec(spec)
    w = bool(weighted) if weighted is not None else bool(generated_weighted)
    kw = {"seed": seed, "weighted": w, "directed": bool(directed), "threads": threads}
    t0 = time.perf_counter()
    if d["kind"] == "kronecker":
        g = kronecker(d["scale"], d["edge_factor"], **kw)
    else:
        g = uniform_random(d["n"], d["m"], **kw)
    if partitioned:  # every rank generated the whole graph: keep its own rows
        from hpgraph.runtimes.mpi.parts import split_graph

        g = split_graph(g)
    dt = time.perf_counter() - t0
    return g, dt, f"generated (seed {seed}) in {fmt_seconds(dt)}"


# ---------------------------------------------------------------------------- output
def graph_output_format(path) -> str:
    """``"hpgc"``, ``"parquet"`` or ``"edgelist"`` from ``path``'s extension; raises
    InvalidArgumentError for anything else. Also checks that the folder exists, so that a
    long computation does not end in a failed write."""
    from hpgraph.errors import GraphFormatError, InvalidArgumentError
    from hpgraph.io import detect_format

    try:
        fmt = detect_format(path)
    except GraphFormatError:
        raise InvalidArgumentError(
            f"cannot tell the output format of {str(path)!r} from its extension; use "
            + GRAPH_OUTPUTS
        ) from None
    if fmt == "mtx":
        raise InvalidArgumentError(
            f"{path}: writing Matrix Market is not supported; use " + GRAPH_OUTPUTS
        )
    check_output_folder(path)
    return fmt


def check_output_folder(path) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, "no such folder for the output", folder)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not an output file", str(path))


def write_graph(graph, path) -> str:
    """Write ``graph`` in the format its extension names; returns the format."""
    from hpgraph import io

    fmt = graph_output_format(path)
    if fmt == "hpgc":
        io.save_binary(graph, path)
    elif fmt == "parquet":
        io.write_parquet_edges(graph, path)
    else:
        io.write_edgelist(graph, path)
    return fmt


# ------------------------------------------------------------------------- reporting
def graph_facts(graph) -> list[tuple[str, str]]:
    """Rows (label, value) describing ``graph``: sizes, kind, degrees, memory."""
    import numpy as np

    from hpgraph.graph.hub_order import is_hub_grouped

    n, m = graph.n, graph.num_stored_edges
    out_deg = graph.out_degree()
    src = np.repeat(np.arange(n, dtype=graph.indices.dtype), out_deg)
    loops = int(np.count_nonzero(src == graph.indices))
    del src
    if graph.directed:
        in_deg = np.bincount(graph.indices, minlength=n)
        isolated = int(np.count_nonzero((out_deg == 0) & (in_deg == 0)))
    else:
        isolated = int(np.count_nonzero(out_deg == 0))
    ids = graph.ids
    if ids is None:
        id_kind = "integers 0..n-1"
    elif np.asarray(ids).dtype == object:
        id_kind = "strings"
    else:
        id_kind = "integers"
    mem = graph.memory_bytes()

    def degrees(d):
        if n == 0:
            return "-"
        return f"min {int(d.min()):,}, mean {d.mean():.2f}, max {int(d.max()):,}"

    rows = [
        ("name", graph.name or "-"),
        ("vertices", fmt_count(n)),
        ("edges", fmt_count(graph.num_edges) + ("" if graph.directed else " (undirected)")),
        ("stored edges", fmt_count(m) + ("" if graph.directed else " (both directions)")),
        ("directed", "yes" if graph.directed else "no"),
        ("weighted", "yes" if graph.weighted else "no"),
        ("vertex ids", id_kind),
    ]
    if graph.directed:
        rows += [("out-degree", degrees(out_deg)), ("in-degree", degrees(in_deg))]
    else:
        rows.append(("degree", degrees(out_deg)))
    rows += [("isolated vertices", fmt_count(isolated)), ("self-loops", fmt_count(loops))]
    spans = n and int(out_deg.max()).bit_length() > max(int(out_deg.min()), 1).bit_length()
    if spans and is_hub_grouped(graph):  # more than one group, and in their order
        rows.append(("vertex order", "hubs first (PageRank and SSSP need no view)"))
    if graph.weighted and m:
        w = graph.weights
        rows.append(("weights", f"min {w.min():.6g}, max {w.max():.6g}"))
    per_edge = f", {mem / m:.1f} B per stored edge" if m else ""
    rows.append(("memory", f"{fmt_bytes(mem)} ({mem:,} B{per_edge})"))
    return rows


def console(stderr: bool = False):
    """A rich console on stdout (or stderr); wide enough for the tables when the stream
    is not a terminal (a file, a pipe, a test runner). No markup: printed text holds
    user data (paths, ids) that may contain brackets."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    tty = hasattr(stream, "isatty") and stream.isatty()
    return Console(stderr=stderr, width=None if tty else 160, highlight=False, markup=False)


def kv_lines(rows) -> str:
    """(label, value) rows as aligned text lines."""
    rows = list(rows)
    w = max((len(label) for label, _ in rows), default=0)
    return "\n".join(f"{label:<{w}}  {value}" for label, value in rows)


def fmt_count(n) -> str:
    return f"{int(n):,}"


def fmt_seconds(s) -> str:
    if s != s:  # NaN
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1.0:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_si(x) -> str:
    if x is None or x != x:
        return "-"
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def fmt_bytes(b) -> str:
    b = float(b)
    for div, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if b >= div:
            return f"{b / div:.1f} {unit}"
    return f"{int(b)} B"


def plural(k: int, word: str) -> str:
    return f"{k:,} {word}" if k == 1 else f"{k:,} {word}s"


def python_scalar(x):
    """A numpy scalar as the Python value (ints, floats, strings print plainly)."""
    return x.item() if hasattr(x, "item") else x
