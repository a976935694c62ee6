"""``hpgraph rdf load`` and ``hpgraph sparql``: building an RDF store and querying it."""

from __future__ import annotations

import os
import sys
import time

import click

__all__ = ["rdf", "sparql"]


@click.group(short_help="RDF stores: load N-Triples / N-Quads / Turtle / TriG, generate LUBM data.")
def rdf():
    """RDF data: ``hpgraph rdf load DATA -o STORE``; query it with ``hpgraph sparql``;
    ``hpgraph rdf lubm -u N -o OUT.nt`` generates LUBM benchmark data; ``hpgraph rdf graph
    STORE -p IRI -o G.hpgc`` hands a predicate subgraph to ``hpgraph run``."""


@rdf.command(
    "load",
    short_help="Parse N-Triples, N-Quads, Turtle or TriG (.gz too) into a store directory.",
)
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(), help="Store directory to write.")
@click.option(
    "--infer",
    metavar="ONTOLOGY",
    help="Materialise what this ontology (.ttl/.nt, or 'univ-bench' for LUBM's) entails.",
)
def load(data, output, infer):
    """Parse DATA (.nt, .nq, .ttl, .trig, optionally .gz; N-Quads and TriG keep each
    triple's named graph) into the store directory OUTPUT (written to a temporary
    directory and renamed: a failed load leaves nothing). With --infer, the triples the
    ontology entails (RDFS, inverse and transitive properties, LUBM's class definitions)
    are added to each graph."""
    from hpgraph.errors import InvalidArgumentError
    from hpgraph.rdf import Store

    if os.path.exists(output):
        raise InvalidArgumentError(f"{output}: exists already; remove it or pick another name")
    t0 = time.perf_counter()
    store = Store.load(data, infer=infer)
    store.save(output)
    seconds = time.perf_counter() - t0
    k = len(store.named)
    graphs = f" ({k:,} named graph{'' if k == 1 else 's'})" if k else ""
    click.echo(
        f"wrote {output}: {len(store):,} triples{graphs}, {len(store.terms):,} terms "
        f"in {seconds:.2f} s"
    )


@rdf.command("lubm", short_help="Generate LUBM benchmark data as N-Triples.")
@click.option("-u", "--universities", type=int, default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False), help="OUT.nt or OUT.nt.gz"
)
@click.option(
    "--queries",
    type=click.Path(file_okay=False),
    help="Also write the 14 LUBM queries into this folder, as q1.rq .. q14.rq.",
)
def lubm(universities, seed, output, queries):
    """Write LUBM(UNIVERSITIES) data for SEED (deterministic) as N-Triples; query it with
    the univ-bench ontology: ``hpgraph rdf load OUT.nt --infer univ-bench -o STORE``."""
    from hpgraph.rdf.lubm import generate_lubm

    t0 = time.perf_counter()
    n = generate_lubm(output, universities, seed)
    click.echo(f"wrote {output}: {n:,} triples in {time.perf_counter() - t0:.2f} s")
    if queries:
        from pathlib import Path

        from hpgraph.rdf.lubm.queries import QUERIES

        folder = Path(queries)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in QUERIES.items():
            (folder / f"{name.lower()}.rq").write_text(text + "\n")
        click.echo(f"wrote {folder}/q1.rq .. q{len(QUERIES)}.rq (the LUBM queries)")


@rdf.command("graph", short_help="Write the subgraph of chosen predicates as a graph file.")
@click.argument("data", type=click.Path())
@click.option(
    "-p", "--predicate", "predicates", multiple=True, required=True, help="A predicate IRI."
)
@click.option("--undirected", is_flag=True, help="Make the edges undirected.")
@click.option(
    "-g",
    "--graph",
    "graph_name",
    metavar="IRI",
    help="Read this named graph, or 'union' (all graphs merged); default: the default graph.",
)
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False), help=".hpgc, .parquet, .el"
)
def graph(data, predicates, undirected, graph_name, output):
    """Write the triples of DATA (a store or an RDF file) whose predicate is one of the
    given IRIs as a graph whose vertices are the IRIs and blank nodes (literal objects are
    left out), for any kernel: ``hpgraph run pagerank OUTPUT``."""
    from hpgraph.cli._common import graph_output_format, write_graph
    from hpgraph.rdf import Store

    graph_output_format(output)  # a bad extension fails before the load
    store = Store.open(data) if os.path.isdir(data) else Store.load(data)
    g = store.subgraph(list(predicates), directed=not undirected, graph=graph_name)
    write_graph(g, output)
    click.echo(f"wrote {output}: {g.n:,} vertices, {g.num_edges:,} edges")


def _results_format(output) -> str:
    """The results format an output file's extension names (.csv, .tsv, .json), else tsv."""
    ext = os.path.splitext(output or "")[1].lower().lstrip(".")
    return ext if ext in ("csv", "tsv", "json") else "tsv"


@click.command(short_help="Run a SPARQL query on an RDF store or file.")
@click.argument("data", type=click.Path())
@click.option("-e", "--expression", "query", help="The query text.")
@click.option("-q", "--query-file", type=click.Path(dir_okay=False), help="A file with the query.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "tsv", "json"]),
    help="W3C SPARQL 1.1 results format (SELECT, ASK); CONSTRUCT / DESCRIBE write N-Triples. "
    "[default: the extension of -o (.csv, .tsv, .json), else tsv]",
)
@click.option(
    "--union-default-graph",
    is_flag=True,
    help="Query the merge of all graphs as the default graph (unless FROM says otherwise).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write results here.")
@click.option(
    "--ranks",
    type=click.IntRange(min=1),
    help="Answer on this many MPI ranks (started with mpiexec), the triples spread over "
    "them by subject.",
)
@click.option(
    "--runtime",
    "runtime_name",
    type=click.Choice(["local", "mpi"]),
    help="local: one process; mpi: the ranks of mpiexec. [default: mpi when started by "
    "an MPI launcher, else local]",
)
def sparql(data, query, query_file, fmt, union_default_graph, output, ranks, runtime_name):
    """Answer a SPARQL query on DATA, a store directory or an RDF file: SELECT and ASK in
    the W3C results formats, CONSTRUCT and DESCRIBE as N-Triples. The default graph is
    the store's default graph only (as pyoxigraph), all graphs with
    --union-default-graph. With --ranks P (or under mpiexec) each rank holds the triples
    whose subject hashes to it; rank 0 writes the answer, the same as one process's."""
    from hpgraph.errors import InvalidArgumentError, agreed
    from hpgraph.rdf import Store
    from hpgraph.rdf.sparql import (
        format_boolean,
        format_results,
        format_triples,
        run_query,
        to_table,
    )

    if ranks is not None:
        from hpgraph.launcher import relaunch

        sys.exit(relaunch(ranks, sys.argv[1:]))
    if fmt is None:
        fmt = _results_format(output)
    if runtime_name is None:
        from hpgraph.launcher import launched_by_mpi

        runtime_name = "mpi" if launched_by_mpi() else "local"
    try:
        if runtime_name == "mpi":
            from hpgraph.rdf.mpi.launch import mpi_module

            mpi_module()  # MPI started: an error every rank raises alike is printed once
        if (query is None) == (query_file is None):
            raise InvalidArgumentError("give exactly one of -e QUERY or -q FILE")
        if query_file is not None:
            with open(query_file, encoding="utf-8") as fh:
                query = fh.read()
    except (InvalidArgumentError, OSError) as exc:
        raise (agreed(exc) if runtime_name == "mpi" else exc) from None
    if runtime_name == "mpi":
        from hpgraph.rdf.mpi import DistributedStore

        spread = DistributedStore.open(data)
        result = spread.query(query, union=union_default_graph)
        if result is None:  # not rank 0: rank 0 writes the answer
            return
        store = spread.store
    else:
        store = Store.open(data) if os.path.isdir(data) else Store.load(data)
        result = run_query(store, query, union=union_default_graph)
    if result.kind == "ask":
        text = format_boolean(result.boolean, fmt)
    elif result.kind == "graph":
        text = format_triples(to_table(store, result.variables, result.solutions))
    else:
        text = format_results(
            result.variables, to_table(store, result.variables, result.solutions), fmt
        )
    if output:
        with open(output, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=False)
