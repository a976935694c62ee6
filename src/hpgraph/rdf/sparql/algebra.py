"""The walk over rdflib's SPARQL algebra: each node evaluated to a solution table; parse
and syntax errors become one-line ``InvalidArgumentError``s."""

from __future__ import annotations

import functools
import re

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.rdf.sparql.bgp import bgp
from hpgraph.rdf.sparql.columns import expr_column, filter_mask, filter_rows
from hpgraph.rdf.sparql.forms import Result, construct, describe
from hpgraph.rdf.sparql.grammar import fix_negated_inverse, keep_false_filters, star_variables
from hpgraph.rdf.sparql.graphs import choose_dataset, graph_pattern
from hpgraph.rdf.sparql.modifiers import aggregate, distinct, order_by
from hpgraph.rdf.sparql.table import Table, join, left_join, minus, union
from hpgraph.rdf.sparql.terms import Ctx, Unsupported

__all__ = ["eval_node", "translate", "run_query"]


def eval_node(ctx, node) -> Table:
    name = node.name
    if name == "BGP":
        return bgp(ctx, node.triples)
    if name == "Join":
        return _join(ctx, node.p1, node.p2)
    if name == "LeftJoin":
        expr = node.expr
        keep = None
        if expr is not None and getattr(expr, "name", None) != "TrueFilter":
            keep = functools.partial(filter_mask, ctx, expr)
        return left_join(eval_node(ctx, node.p1), eval_node(ctx, node.p2), keep)
    if name == "Minus":
        return minus(eval_node(ctx, node.p1), eval_node(ctx, node.p2))
    if name == "values":
        return values(ctx, node.res)
    if name == "Union":
        return union(eval_node(ctx, node.p1), eval_node(ctx, node.p2))
    if name == "Filter":
        if getattr(node.expr, "name", None) == "TrueFilter":
            return eval_node(ctx, node.p)
        return filter_rows(ctx, node.expr, eval_node(ctx, node.p))
    if name == "Project":
        t = eval_node(ctx, node.p)
        cols = {v: t.column(v) for v in map(str, node.PV)}
        return Table(cols, t.n, {v for v in cols if v in t.maybe or v not in t.cols})
    if name == "Distinct" or name == "Reduced":
        return distinct(eval_node(ctx, node.p))
    if name == "Slice":
        t = eval_node(ctx, node.p)
        start = node.start or 0
        stop = t.n if node.length is None else min(t.n, start + node.length)
        return t.take(np.arange(min(start, t.n), max(stop, min(start, t.n))))
    if name == "OrderBy":
        return order_by(ctx, node.expr, eval_node(ctx, node.p))
    if name == "ToMultiSet":
        if isinstance(node.p, list):  # rdflib's form of an empty VALUES block
            return values(ctx, node.p)
        return eval_node(ctx, node.p)
    if name == "AggregateJoin":
        if getattr(node.p, "name", None) != "Group":
            raise Unsupported("aggregate without GROUP")
        return aggregate(ctx, node, eval_node(ctx, node.p.p))
    if name == "Extend":
        from rdflib import Variable

        t = eval_node(ctx, node.p)
        if node.var is None:  # rdflib's form of GROUP BY (expr): the aggregate reads expr
            return t
        if str(node.var) in t.cols:
            raise InvalidArgumentError(f"SPARQL error: ?{node.var} is bound already (BIND / AS)")
        cols = dict(t.cols)
        if isinstance(node.expr, Variable):
            cols[str(node.var)] = t.column(str(node.expr))
        else:
            cols[str(node.var)] = expr_column(ctx, node.expr, t)
        return Table(cols, t.n, t.maybe | {str(node.var)})
    if name == "Graph":
        return graph_pattern(ctx, node, _evaluate)
    names = {
        "Group": "GROUP BY",
        "ServiceGraphPattern": "SERVICE",
    }
    raise Unsupported(names.get(name, name))


def _evaluate(ctx, node, seed) -> Table:
    """The solutions of ``node`` joined with ``seed`` (None: none); a BGP takes the seed
    into its join order."""
    if seed is None:
        return eval_node(ctx, node)
    if node.name == "BGP":
        return bgp(ctx, node.triples, seed)
    return join(eval_node(ctx, node), seed)


def _join(ctx, p1, p2) -> Table:
    """A join; where one side is a BGP, the other side's table is its seed (it takes part
    in the BGP's join order, so a small VALUES block narrows the patterns' lookups)."""
    if p2.name == "BGP" and p1.name != "BGP":
        return bgp(ctx, p2.triples, eval_node(ctx, p1))
    if p1.name == "BGP" and p2.name != "BGP":
        return bgp(ctx, p1.triples, eval_node(ctx, p2))
    return join(eval_node(ctx, p1), eval_node(ctx, p2))


def values(ctx, rows) -> Table:
    """A VALUES block: one row per binding, UNDEF unbound."""
    from hpgraph.rdf.parse import term_key

    names = sorted({str(v) for r in rows for v in r})
    cols = {v: np.full(len(rows), -1, np.int64) for v in names}
    for i, r in enumerate(rows):
        for v, term in r.items():
            if term != "UNDEF":
                cols[str(v)][i] = ctx.intern(term_key(term))
    maybe = {v for v in names if (cols[v] < 0).any()}
    return Table(cols, len(rows), maybe)


@functools.lru_cache(maxsize=256)
def translate(text: str):
    """rdflib's algebra of the query ``text`` and its BASE IRI (or None), cached per
    text: rdflib's parser takes 5-30 ms for a LUBM query, more than most of them take to
    run. The executor only reads it."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    fix_negated_inverse()
    try:
        parsed = parseQuery(text)
        if parsed[1].name == "DescribeQuery" and "var" not in parsed[1]:
            raise Unsupported("DESCRIBE * (rdflib cannot translate it; name the variables)")
        keep_false_filters(parsed)
        star = None
        if parsed[1].name == "SelectQuery" and not dict.get(parsed[1], "projection"):
            star = star_variables(parsed[1])
        query = translateQuery(parsed)
        if star is not None:
            _project_star(query.algebra, star)
        if _empty_template(parsed[1]):  # rdflib gives None, as for CONSTRUCT WHERE
            query.algebra["template"] = []
        _attributes(query.algebra, set())
        return query.algebra, query.prologue.base or None
    except InvalidArgumentError:
        raise
    except Exception as exc:  # pyparsing and rdflib raise several types
        update = _UPDATE.match(text)
        if update:
            raise Unsupported(
                f"SPARQL Update ({update.group(1).upper()}): hpgraph answers queries (SELECT, "
                "ASK, CONSTRUCT, DESCRIBE); load changed data with hpgraph rdf load"
            ) from None
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise InvalidArgumentError(f"SPARQL syntax error: {msg[:200]}") from None


def _project_star(algebra, variables) -> None:
    """Make ``SELECT *``'s projection ``variables`` (rdflib's are a set's order) in the
    translated query and its Project node, under any LIMIT / OFFSET and DISTINCT."""
    algebra["PV"] = variables
    node = algebra.p
    while node.name in ("Slice", "Distinct", "Reduced"):
        node = node.p
    node["PV"] = list(variables)


def _attributes(node, seen) -> None:
    """Give every node of a translated algebra its entries as plain attributes, as
    rdflib's ``CompValue.__getattr__`` returns them when no evaluation context is set
    (``ctx`` None, which is also set here, as rdflib's ``Expr.eval`` leaves it): that
    lookup costs 2-6 us (a ``KeyError`` raised and caught inside), and a selective query
    reads a few dozen attributes. An entry whose name the class or the node already has
    as an attribute (``name``, dict methods) is left alone, as rdflib's lookup finds
    those first too, and so is rdflib's bookkeeping (``_vars``), which a later
    translation rewrites on the nodes all queries share (``TrueFilter``). The executor
    never changes the algebra (see :func:`translate`)."""
    from rdflib.plugins.sparql.parserutils import CompValue

    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, CompValue):
        attrs = vars(node)
        for key, value in dict.items(node):
            if (
                isinstance(key, str)
                and not key.startswith("_")
                and key not in attrs
                and not hasattr(type(node), key)
            ):
                attrs[key] = value
        attrs.setdefault("ctx", None)
        children = dict.values(node)
    elif isinstance(node, (list, tuple)):
        children = node
    else:
        return
    for child in children:
        _attributes(child, seen)


#: a SPARQL Update request: its first operation's keyword, after any prologue
_UPDATE = re.compile(
    r"\s*(?:(?:PREFIX\s+\S*:\s*<[^>]*>|BASE\s+<[^>]*>)\s*)*"
    r"(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b",
    re.IGNORECASE,
)


def _empty_template(parsed) -> bool:
    """Whether a parsed query is ``CONSTRUCT { } WHERE { ... }`` (the short form
    ``CONSTRUCT WHERE { ... }`` reads its template from a pseudo group pattern)."""
    if parsed.name != "ConstructQuery" or "template" in parsed:
        return False
    where = dict.get(parsed, "where")
    return getattr(where, "name", None) != "FakeGroupGraphPatten"


def run_query(store, text: str, *, union: bool = False) -> Result:
    """Parse, translate and execute ``text`` (SELECT, ASK, CONSTRUCT or DESCRIBE) on
    ``store``; ``union``: the default graph is the merge of all graphs (pyoxigraph's
    ``use_default_graph_as_union``) unless the query has FROM / FROM NAMED."""
    algebra, base = translate(text)
    ctx = Ctx(store)
    ctx.base = base
    choose_dataset(ctx, dict.get(algebra, "datasetClause"), union)
    kind = algebra.name
    if kind == "DescribeQuery":
        table = Table({}, 1) if algebra.p is None else eval_node(ctx, algebra.p)
        return describe(ctx, algebra.PV, table)
    table = eval_node(ctx, algebra.p)
    if kind == "AskQuery":
        return Result("ask", [], None, table.n > 0)
    if kind == "ConstructQuery":
        return construct(ctx, algebra.template, algebra.p, table)
    variables = [str(v) for v in algebra.PV]
    cols = [table.column(v) for v in variables]
    return Result("select", variables, (cols, table.n, ctx))
