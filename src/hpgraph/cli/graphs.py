"""``hpgraph generate``, ``hpgraph info``, ``hpgraph convert``: making, describing and
converting graph files."""

from __future__ import annotations

import os
import time

import click

from hpgraph.cli._common import (
    check_output_folder,
    console,
    count_option,
    fmt_bytes,
    fmt_seconds,
    graph_facts,
    graph_output_format,
    kv_lines,
    load_input,
    load_options,
    threads_option,
    write_graph,
)

__all__ = ["generate", "info", "convert"]


def _written(path, fmt, seconds) -> str:
    return f"wrote {path} ({fmt}, {fmt_bytes(os.path.getsize(path))}) in {fmt_seconds(seconds)}"


def _lost_vertices_note(graph, fmt) -> str | None:
    """Edge lists and Parquet edge tables cannot hold isolated vertices; say so when some
    exist."""
    if fmt not in ("edgelist", "parquet") or graph.n == 0:
        return None
    import numpy as np

    deg = graph.out_degree()
    if graph.directed:
        deg = deg + np.bincount(graph.indices, minlength=graph.n)
    lost = int(np.count_nonzero(deg == 0))
    if not lost:
        return None
    what = "edge list" if fmt == "edgelist" else "Parquet edge table"
    return f"note: {lost:,} isolated vertices are not in the {what} (only .hpgc keeps them)"


def _write(out, graph, path, fmt) -> None:
    """Write ``graph`` to ``path`` in ``fmt`` and print the file, its size and the time,
    then the isolated vertices an edge list or a Parquet table loses."""
    t0 = time.perf_counter()
    write_graph(graph, path)
    out.print(_written(path, fmt, time.perf_counter() - t0))
    note = _lost_vertices_note(graph, fmt)
    if note:
        out.print(note)


@click.command(short_help="Generate a Kronecker, uniform random or mention graph.")
@click.argument(
    "kind", type=click.Choice(["kronecker", "uniform", "mention"], case_sensitive=False)
)
@click.option("--scale", "-s", type=click.IntRange(0, 40), help="kronecker: 2^SCALE vertices.")
@click.option(
    "--edge-factor",
    "-e",
    type=click.IntRange(min=0),
    default=None,
    help="Edges per vertex. [kronecker default: 16]",
)
@click.option(
    "--vertices", "-n", help="uniform, mention: number of vertices/users (1000, 1M, 2^20 ...)."
)
@click.option("--edges", "-m", help="uniform, mention: number of edges/mentions.")
@count_option("--hashtags", default=20_000, help="mention: number of distinct hashtags.")
@click.option(
    "--topics",
    type=click.IntRange(min=1),
    default=None,
    help="mention: planted topics. [default: hashtags / 20, at most core users / 50]",
)
@count_option("--seed", default=0, minimum=0)
@click.option("--weighted", is_flag=True, help="Uniform [0, 1) edge weights (Graph500 SSSP).")
@click.option("--directed", is_flag=True, help="A directed graph. [default: undirected]")
@threads_option
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    help="Write the graph: .hpgc (binary, memory-mapped when read), .parquet, or an edge "
    "list (.el, .txt, .csv, .tsv; .gz compresses); mention data: .parquet, .tsv or .txt "
    "(.gz compresses). [default: print its statistics only]",
)
def generate(
    kind,
    scale,
    edge_factor,
    vertices,
    edges,
    hashtags,
    topics,
    seed,
    weighted,
    directed,
    threads,
    output,
):
    """Generate a graph; deterministic for a seed, whatever the thread count.

    \b
    kronecker: the Graph500 Kronecker graph, 2^SCALE vertices, EDGE_FACTOR * 2^SCALE edges
               (self-loops and parallel edges kept, as in Graph500)
    uniform:   G(n, m), both endpoints of every edge uniform at random
    mention:   Twitter-like mention data (user i mentioned user j, with the tweet's
               hashtags) with planted topics; see docs/mentions.md

    \b
    Examples:
      hpgraph generate kronecker --scale 20 -o kron20.hpgc
      hpgraph generate uniform --vertices 1M --edges 16M --weighted -o urand.parquet
      hpgraph generate mention -n 8M -m 10M --hashtags 20000 -o mentions.parquet
    """
    from hpgraph.bench import parse_graph_spec
    from hpgraph.generators import kronecker, uniform_random

    kind = kind.lower()
    if kind == "mention":
        if scale is not None or edge_factor is not None or weighted or directed:
            raise click.UsageError(
                "mention takes --vertices, --edges, --hashtags, --topics (not --scale, "
                "--edge-factor, --weighted, --directed)"
            )
        if vertices is None or edges is None:
            raise click.UsageError("mention needs --vertices and --edges")
        n = parse_graph_spec(f"uniform:{vertices}:0")["n"]
        m = parse_graph_spec(f"uniform:0:{edges}")["m"]
        _generate_mentions(n, m, hashtags, topics, seed, output)
        return
    if kind == "kronecker":
        if scale is None:
            raise click.UsageError("kronecker needs --scale")
        if vertices is not None or edges is not None:
            raise click.UsageError(
                "kronecker takes --scale (and --edge-factor), not --vertices/--edges"
            )
    else:
        if scale is not None:
            raise click.UsageError("uniform takes --vertices and --edges, not --scale")
        if vertices is None or (edges is None) == (edge_factor is None):
            raise click.UsageError("uniform needs --vertices and one of --edges, --edge-factor")
    fmt = graph_output_format(output) if output else None

    t0 = time.perf_counter()
    kw = {"seed": seed, "weighted": weighted, "directed": directed, "threads": threads}
    if kind == "kronecker":
        g = kronecker(scale, 16 if edge_factor is None else edge_factor, **kw)
    else:
        n = parse_graph_spec(f"uniform:{vertices}:0")["n"]
        m = parse_graph_spec(f"uniform:0:{edges}")["m"] if edges is not None else edge_factor * n
        g = uniform_random(n, m, **kw)
    made = time.perf_counter() - t0

    out = console()
    out.print(kv_lines([*graph_facts(g), ("generated in", fmt_seconds(made))]))
    if output:
        _write(out, g, output, fmt)


def _generate_mentions(n, m, hashtags, topics, seed, output) -> None:
    import numpy as np

    from hpgraph.generators.mention import mention_tweets
    from hpgraph.io.mentions import mention_format, write_mentions

    fmt = None
    if output:
        fmt = mention_format(output)
        check_output_folder(output)
    t0 = time.perf_counter()
    t = mention_tweets(n, m, hashtags=hashtags, topics=topics, seed=seed)
    made = time.perf_counter() - t0
    counts = np.diff(t.tag_ptr)
    tagged = int(np.count_nonzero(counts))
    degree = np.bincount(t.src, minlength=n) + np.bincount(t.dst, minlength=n)
    indeg = np.bincount(t.dst, minlength=n)
    used = int(np.count_nonzero(np.bincount(t.tag_ids, minlength=hashtags)))
    multi = int(np.count_nonzero(np.diff(t.planted.user_ptr)[t.planted.core] > 1))
    core = int(t.planted.core.sum())
    rows = [
        ("users", f"{n:,} ({core:,} in the topic core)"),
        ("mentions", f"{m:,} (directed, parallel mentions kept)"),
        ("hashtags", f"{hashtags:,} ({used:,} used)"),
        ("with hashtags", f"{tagged:,} mentions ({tagged / m:.1%}), {t.tag_ids.size:,} tags"),
        ("topics", f"{t.planted.num_topics:,} ({multi:,} core users in 2 or 3)"),
        ("degree 1", f"{np.count_nonzero(degree == 1) / n:.1%} of the users"),
        ("max in-degree", f"{int(indeg.max()):,}"),
        ("generated in", fmt_seconds(made)),
    ]
    out = console()
    out.print(kv_lines(rows))
    if output:
        t0 = time.perf_counter()
        write_mentions(output, t.src, t.dst, t.tag_ptr, t.tag_ids, t.tag_names)
        out.print(_written(output, f"mentions, {fmt.lstrip('.')}", time.perf_counter() - t0))


@click.command(short_help="Describe a graph: sizes, degrees, self-loops, memory.")
@click.argument("input")
@load_options
def info(input, directed, weighted, fmt, no_cache, seed):
    """Describe INPUT (a graph file or a generator spec such as kronecker:16): vertices,
    edges, degrees, isolated vertices, self-loops, and the memory its CSR arrays take.

    A text or Parquet file is parsed once; its binary form (INPUT.hpgc, or under
    ~/.cache/hpgraph when the folder is read-only) is reused while the file is unchanged.
    """
    g, _, how = load_input(
        input, directed=directed, weighted=weighted, fmt=fmt, cache=not no_cache, seed=seed
    )
    console().print(kv_lines([("input", f"{input} ({how})"), *graph_facts(g)]))


@click.command(short_help="Convert a graph between .hpgc, Parquet and edge lists.")
@click.argument("input")
@click.argument("output", type=click.Path(dir_okay=False))
@click.option(
    "--order",
    type=click.Choice(["input", "hubs"]),
    default="input",
    show_default=True,
    help="Vertex numbering of a .hpgc OUTPUT: the input's, or hubs first (high "
    "out-degrees first, grouped by their power of two), which speeds up PageRank, SSSP "
    "and BFS on skewed graphs with no view built beside the graph; ids keep the input's.",
)
@threads_option
@load_options
def convert(input, output, order, threads, directed, weighted, fmt, no_cache, seed):
    """Read INPUT (any readable format, or a generator spec) and write OUTPUT in the format
    its extension names: .hpgc, .parquet, or an edge list (.el, .txt, .edges, .edgelist,
    .csv, .tsv, .snap; optionally .gz). Edge lists and Parquet keep user ids but lose
    isolated vertices.
    """
    from hpgraph.errors import InvalidArgumentError

    if os.path.exists(output) and os.path.exists(input) and os.path.samefile(input, output):
        raise InvalidArgumentError(f"{output}: the output would overwrite the input")
    out_fmt = graph_output_format(output)
    if order == "hubs" and out_fmt != "hpgc":
        raise InvalidArgumentError(
            f"{output}: --order hubs writes .hpgc only (an edge list or Parquet file names "
            "vertices by their ids, and reading it numbers them in id order)"
        )
    g, _, how = load_input(
        input, directed=directed, weighted=weighted, fmt=fmt, cache=not no_cache, seed=seed
    )
    out = console()
    kind = "directed" if g.directed else "undirected"
    w = ", weighted" if g.weighted else ""
    out.print(f"{input}: {g.n:,} vertices, {g.num_edges:,} edges, {kind}{w}; {how}")
    if order == "hubs":
        t0 = time.perf_counter()
        h = g.renumbered("hubs", threads=threads)
        what = "already numbered hubs first" if h is g else "numbered hubs first in"
        took = "" if h is g else " " + fmt_seconds(time.perf_counter() - t0)
        out.print(f"{what}{took}")
        g = h
    _write(out, g, output, out_fmt)
