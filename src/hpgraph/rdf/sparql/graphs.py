"""Named graphs in queries: the dataset a query reads (its default graph and its named
graphs, chosen by FROM / FROM NAMED) and ``GRAPH <iri> { P }`` / ``GRAPH ?g { P }``.

The default graph semantics follow pyoxigraph's default (and SPARQL's, section 13): without
FROM / FROM NAMED the default graph is the store's default graph only (the quads without
a graph name) and the named graphs are all the store's; with ``union`` (pyoxigraph's
``use_default_graph_as_union``) the default graph is the merge of every graph. A dataset
clause replaces both: the default graph is the merge of the FROM graphs (empty without
one) and the named graphs are the FROM NAMED graphs the store holds (none without one).

``GRAPH ?g { P }``, P made of basic graph patterns without property paths combined by
joins, OPTIONAL, FILTER and UNION (see :func:`_over_quads`), is one evaluation over the
quads of all named graphs of the dataset (:meth:`Triples.quads`: rows sorted by
(p, s, o, g) and (p, o, s, g)), each triple pattern with ``?g`` as a fourth variable, so
the patterns join on it. Any other P is evaluated once per named graph (each graph is a
slice of the store's arrays, so switching costs nothing) joined with ``?g`` bound to the
graph's name, and the results concatenated. A graph name also used in P (``GRAPH ?g {
?g ?p ?o }``) joins as any variable does. ``GRAPH <iri> { P }`` evaluates P in that graph,
or gives no solution when the dataset has no such named graph."""

from __future__ import annotations

import contextlib

import numpy as np

from hpgraph.rdf.sparql.exists import expr_leaves
from hpgraph.rdf.sparql.paths import is_path
from hpgraph.rdf.sparql.table import Table, join, union_all
from hpgraph.rdf.triples import Triples

__all__ = ["choose_dataset", "graph_pattern", "active_graph"]


def choose_dataset(ctx, clauses, union=False) -> None:
    """Set ``ctx.graph`` (the default graph) and ``ctx.named`` from the query's dataset
    clauses (rdflib's ``DatasetClause`` nodes, or None) and the ``union`` option."""
    store = ctx.store
    if not clauses:
        ctx.graph = store.graph("union") if union else store.default
        ctx.named = store.named
        return
    from hpgraph.rdf.parse import term_key

    default, named = {}, {}
    for c in clauses:
        is_default = "default" in c
        gid = store.lookup(term_key(c.default if is_default else c.named))
        if gid in store.named:
            (default if is_default else named)[gid] = store.named[gid]
    ctx.graph = default[next(iter(default))] if len(default) == 1 else store.merged(default)
    ctx.named = dict(sorted(named.items()))


@contextlib.contextmanager
def active_graph(ctx, triples, graph_var=None):
    """Evaluate the patterns inside the block against ``triples`` (quads if
    ``graph_var`` names their graph column)."""
    outer = ctx.graph, ctx.graph_var
    ctx.graph, ctx.graph_var = triples, graph_var
    try:
        yield
    finally:
        ctx.graph, ctx.graph_var = outer


def graph_pattern(ctx, node, evaluate, seed: Table | None = None) -> Table:
    """The solutions of ``GRAPH term { node.p }``; ``evaluate(ctx, pattern, seed)`` gives
    a pattern's solutions joined with a seed table (None: none), ``seed`` the bindings the
    pattern is joined with (EXISTS's outer rows)."""
    from rdflib import Variable

    from hpgraph.rdf.parse import term_key

    term = node.term
    if not isinstance(term, Variable):
        triples = ctx.named.get(ctx.store.lookup(term_key(term)))
        if triples is None:
            return _empty(seed, [])
        with active_graph(ctx, triples):
            return evaluate(ctx, node.p, seed)
    name = str(term)
    if node.p.name == "BGP" and not node.p.triples:  # one solution per graph
        found = Table({name: np.array(list(ctx.named), np.int64)}, len(ctx.named))
        return found if seed is None else join(seed, found)
    if _over_quads(node.p, name):
        whole = ctx.named is ctx.store.named  # else FROM NAMED chose some graphs
        quads = ctx.store.named_quads() if whole else Triples.quads(ctx.named)
        with active_graph(ctx, quads, name):
            return evaluate(ctx, node.p, seed)
    graphs = ctx.named
    if seed is not None and name in seed.cols and name not in seed.maybe:
        wanted = set(np.unique(seed.cols[name]).tolist())
        graphs = {g: t for g, t in graphs.items() if g in wanted}
    parts = []
    for gid, triples in graphs.items():
        bound = Table({name: np.array([gid], np.int64)}, 1)
        with active_graph(ctx, triples):
            parts.append(evaluate(ctx, node.p, bound if seed is None else join(seed, bound)))
    if not parts:
        return _empty(seed, [name])
    return union_all(parts)


def _over_quads(node, name) -> bool:
    """Whether ``node`` gives over the quads of all graphs (every triple pattern with
    ``?name`` as its fourth variable) what it gives in each graph apart joined with
    ``?name``: non-empty BGPs without property paths, combined by Join, OPTIONAL, FILTER
    and UNION, no expression reading ``?name`` or holding EXISTS. (MINUS is not: its two
    sides would share ``?name``, which changes what it removes.)"""
    kind = node.name
    if kind == "BGP":
        return bool(node.triples) and not any(is_path(t[1]) for t in node.triples)
    if kind in ("Join", "Union"):
        return _over_quads(node.p1, name) and _over_quads(node.p2, name)
    if kind == "LeftJoin":
        return _plain(node.expr, name) and all(_over_quads(p, name) for p in (node.p1, node.p2))
    return kind == "Filter" and _plain(node.expr, name) and _over_quads(node.p, name)


def _plain(expr, name) -> bool:
    """Whether a filter neither reads ``?name`` nor holds EXISTS."""
    leaves = expr_leaves(expr) if expr is not None else ()
    return all(not isinstance(v, dict) and str(v) != name for v in leaves)


def _empty(seed, names) -> Table:
    """No solutions, with the seed's columns and ``names``."""
    cols = [*(seed.cols if seed is not None else []), *names]
    return Table({v: np.empty(0, np.int64) for v in cols}, 0)
