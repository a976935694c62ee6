"""EXISTS and NOT EXISTS: for each row of a solution table, whether the pattern has a
solution once the row's bindings are substituted into it (SPARQL 1.1, 18.6).

Evaluated for all rows at once: the distinct combinations of the outer variables the
pattern mentions become a seed table (each with a row number), the pattern is evaluated
joined with the seed (a BGP takes the seed into its join order, a FILTER in the pattern
sees the seed's bindings, as substitution gives), and a row exists where its combination
survives. OPTIONAL is seeded on both sides, MINUS on its left side, GRAPH inside (one
named graph at a time); a MINUS whose right side, a BIND or a sub-SELECT that mentions an
outer variable raises ``Unsupported`` (substitution and a join differ there)."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.table import Table, join, left_join, minus, rows_unique, union
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = ["EXISTS", "exists_key", "expr_leaves", "pattern_vars", "exists_columns"]

EXISTS = ("Builtin_EXISTS", "Builtin_NOTEXISTS")
_ROW = "\0row"


def exists_key(node) -> str:
    """The hidden column holding one EXISTS node's answer per row."""
    return f"\0exists{id(node)}"


def pattern_vars(node, out):
    """Every variable name mentioned anywhere in an algebra node."""
    from rdflib import Variable

    if isinstance(node, Variable):
        out.add(str(node))
    elif isinstance(node, dict):  # a VALUES row maps variables (keys) to terms
        for k, v in node.items():
            if k != "_vars":
                pattern_vars(k, out)
                pattern_vars(v, out)
    elif isinstance(node, (list, tuple)):
        for v in node:
            pattern_vars(v, out)
    return out


def expr_leaves(e):
    """The variables and the EXISTS / NOT EXISTS nodes of an expression, in tree order;
    the patterns inside EXISTS are not entered (their own evaluation reads them)."""
    from rdflib import Variable

    if isinstance(e, Variable) or getattr(e, "name", None) in EXISTS:
        yield e
    elif isinstance(e, dict):
        for v in e.values():
            yield from expr_leaves(v)
    elif isinstance(e, list):
        for v in e:
            yield from expr_leaves(v)


def exists_columns(ctx, e, t: Table) -> dict:
    """{hidden column: 0/1 per row of ``t``} for each EXISTS node of ``e``."""
    nodes = [n for n in expr_leaves(e) if isinstance(n, dict)]
    return {exists_key(n): _exists(ctx, n.graph, t).astype(np.int64) for n in nodes}


def _exists(ctx, graph, t: Table):
    from hpgraph.rdf.sparql.algebra import eval_node

    if getattr(graph, "name", None) is None or graph.name.startswith("GroupGraphPattern"):
        raise Unsupported("EXISTS pattern in this form")
    outer = sorted(pattern_vars(graph, set()) & set(t.cols))
    if not outer or t.n == 0:
        return np.full(t.n, eval_node(ctx, graph).n > 0)
    first, inv = rows_unique([t.cols[v] for v in outer])
    cols = {v: t.cols[v][first] for v in outer}
    cols[_ROW] = np.arange(len(first), dtype=np.int64)
    seed = Table(cols, len(first), {v for v in outer if v in t.maybe})
    found = _seeded(ctx, graph, seed, set(outer))
    hit = np.zeros(len(first), bool)
    hit[found.cols[_ROW]] = True
    return hit[inv]


def _seeded(ctx, node, seed: Table, outer) -> Table:
    """The solutions of ``node`` joined with ``seed``, the outer bindings substituted."""
    import functools

    from hpgraph.rdf.sparql.algebra import eval_node
    from hpgraph.rdf.sparql.bgp import bgp
    from hpgraph.rdf.sparql.columns import filter_mask, filter_rows
    from hpgraph.rdf.sparql.graphs import graph_pattern

    name = node.name
    if name == "BGP":
        return bgp(ctx, node.triples, seed)
    if name == "Join":
        return join(_seeded(ctx, node.p1, seed, outer), _seeded(ctx, node.p2, seed, outer))
    if name == "Union":
        return union(_seeded(ctx, node.p1, seed, outer), _seeded(ctx, node.p2, seed, outer))
    if name == "Filter":
        inner = _seeded(ctx, node.p, seed, outer)
        if getattr(node.expr, "name", None) == "TrueFilter":
            return inner
        return filter_rows(ctx, node.expr, inner)
    if name == "LeftJoin":
        keep = None
        if node.expr is not None and getattr(node.expr, "name", None) != "TrueFilter":
            keep = functools.partial(filter_mask, ctx, node.expr)
        left = _seeded(ctx, node.p1, seed, outer)
        return left_join(left, _seeded(ctx, node.p2, seed, outer), keep)
    if name == "Minus" and not pattern_vars(node.p2, set()) & outer:
        return minus(_seeded(ctx, node.p1, seed, outer), eval_node(ctx, node.p2))
    if name == "ToMultiSet" and not isinstance(node.p, list):
        return _seeded(ctx, node.p, seed, outer)
    if name == "Graph":
        return graph_pattern(ctx, node, lambda c, p, s: _seeded(c, p, s, outer), seed)
    if name in ("values", "ToMultiSet") or not pattern_vars(node, set()) & outer:
        return join(seed, eval_node(ctx, node))
    raise Unsupported(f"EXISTS over {name} using a variable bound outside it")
