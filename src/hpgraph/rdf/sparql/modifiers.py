"""Solution modifiers and aggregates: ORDER BY (SPARQL term order, variables or
expressions), DISTINCT, GROUP BY with COUNT (``*``, DISTINCT too), SUM, AVG, MIN, MAX,
SAMPLE and GROUP_CONCAT, each of a variable or of an expression (evaluated once per
distinct combination of its variables); HAVING is a FILTER over the groups, done by the
caller."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.parse import canonical_literal
from hpgraph.rdf.sparql.columns import expr_column
from hpgraph.rdf.sparql.dates import datetime_order
from hpgraph.rdf.sparql.numeric import XSD
from hpgraph.rdf.sparql.sums import group_avg, group_sum
from hpgraph.rdf.sparql.table import Table, rows_unique
from hpgraph.rdf.sparql.terms import Unsupported, split_literal

__all__ = ["order_by", "distinct", "aggregate"]


def _rank(ctx, col, desc):
    """Rank of each value in SPARQL's term order (xsd:dateTime and xsd:date values by
    their instant, after the numbers)."""
    uniq, inv = np.unique(col, return_inverse=True)
    values = [ctx.value(int(i)) for i in uniq]
    instants = datetime_order(values)

    def key(j):
        kind, v = values[j]
        order = {"unbound": 0, "bnode": 1, "iri": 2, "num": 3}.get(kind, 5)
        if kind == "num":
            return (order, v, "", "")
        if order < 5:
            return (order, 0, v or "", "")
        if j in instants:
            return (4, 0, instants[j], "")
        lex, lang, dt = split_literal(ctx.term(int(uniq[j])))
        return (order, 0, lex, lang or dt or "")

    keys = [key(j) for j in range(len(uniq))]
    order = sorted(range(len(uniq)), key=lambda j: keys[j])
    rank = np.empty(len(uniq), np.int64)
    r = 0
    for pos, j in enumerate(order):
        if pos and keys[j] != keys[order[pos - 1]]:
            r += 1
        rank[j] = r
    out = rank[inv.reshape(-1)]
    return -out if desc else out


def order_by(ctx, conditions, t: Table) -> Table:
    from rdflib import Variable

    keys = []
    for c in conditions:
        expr, desc = c, False
        if getattr(c, "name", None) == "OrderCondition":
            expr, desc = c.expr, c.order == "DESC"
        if isinstance(expr, Variable):
            col = t.column(str(expr))
        else:
            col = expr_column(ctx, expr, t)
        keys.append(_rank(ctx, col, desc))
    if not keys or t.n == 0:
        return t
    return t.take(np.lexsort(keys[::-1]))


def distinct(t: Table) -> Table:
    if not t.cols or t.n == 0:
        return t.take(np.arange(min(t.n, 1)))
    first, _ = rows_unique(list(t.cols.values()))
    return t.take(np.sort(first))


def _extreme(ctx, col, inv, ng, largest):
    """MIN or MAX per group in SPARQL's term order; unbound where a group has an unbound
    value or no value."""
    rank = _rank(ctx, col, largest)
    out = np.full(ng, -1, np.int64)
    if len(col) == 0:
        return out
    best = np.full(ng, np.iinfo(np.int64).max)
    np.minimum.at(best, inv, rank)
    hit = rank == best[inv]
    out[inv[hit]] = col[hit]
    unbound = np.zeros(ng, bool)
    unbound[inv[col < 0]] = True
    out[unbound] = -1
    return out


def aggregate(ctx, node, t: Table) -> Table:
    """The groups of ``t`` (the solutions under ``node.p``, a Group) and their aggregates."""
    from rdflib import Variable

    group = node.p
    unnamed = _unnamed_keys(group.p)
    keys = []
    for g in group.expr or []:
        if isinstance(g, Variable):
            keys.append(t.column(str(g)))
        else:  # GROUP BY (expr) (rdflib: None, its Extend below) or GROUP BY f(...)
            if g is None and not unnamed:
                raise Unsupported("GROUP BY (expr) in this form")
            keys.append(expr_column(ctx, unnamed.pop(0) if g is None else g, t))
    if keys:
        mat = np.stack(keys, axis=1)
        first, inv = rows_unique(list(mat.T))
        groups = mat[first]
    else:
        groups, inv = np.zeros((1, 0), np.int64), np.zeros(t.n, np.int64)
    ng = len(groups)
    cols = {}
    for agg in node.A:
        res = str(agg.res)
        kind = agg.name.replace("Aggregate_", "").upper()
        if kind == "COUNT" and agg.vars == "*":
            rows = inv
            if agg.distinct:
                first, _ = rows_unique([inv, *t.cols.values()])
                rows = inv[first]
            cols[res] = _integers(ctx, np.bincount(rows, minlength=ng))
            continue
        if kind not in ("COUNT", "SUM", "AVG", "MIN", "MAX", "SAMPLE", "GROUPCONCAT"):
            raise Unsupported(kind)
        if isinstance(agg.vars, Variable):
            col = t.column(str(agg.vars))
        else:  # an error in the expression leaves the value unbound
            col = expr_column(ctx, agg.vars, t)
        rows = inv
        if agg.get("distinct") and kind != "SAMPLE":
            first, _ = rows_unique([inv, col])
            rows, col = inv[first], col[first]
        if kind == "SAMPLE":
            out = np.full(ng, -1, np.int64)
            out[rows[::-1]] = col[::-1]
            cols[res] = out
        elif kind == "COUNT":
            out = _integers(ctx, np.bincount(rows[col >= 0], minlength=ng))
            if not isinstance(agg.vars, Variable):  # an error in the expression: unbound
                out[np.unique(rows[col < 0])] = -1
            cols[res] = out
        elif kind in ("MIN", "MAX"):
            cols[res] = _extreme(ctx, col, rows, ng, kind == "MAX")
        elif kind == "GROUPCONCAT":
            sep = " " if agg.separator is None else str(agg.separator)
            cols[res] = _group_concat(ctx, col, rows, ng, sep)
        else:
            fn = group_sum if kind == "SUM" else group_avg
            cols[res] = fn(ctx, col, rows, ng)
    maybe = set(cols)
    return Table(cols, ng, maybe)


def _group_concat(ctx, col, inv, ng, sep):
    """GROUP_CONCAT per group: the string literals joined in row order, tagged when every
    one has the same language tag; unbound where a group has another value or an unbound
    one (as pyoxigraph); "" for an empty group. Each distinct term is read once."""
    uniq, uinv = np.unique(col, return_inverse=True)
    strings = []
    for i in uniq.tolist():
        kind, v = ctx.value(i)
        strings.append((v, None) if kind == "str" else v if kind == "lang" else None)
    parts = [[] for _ in range(ng)]
    bad = np.zeros(ng, bool)
    for g, j in zip(inv.tolist(), uinv.reshape(-1).tolist(), strict=True):
        if strings[j] is None:
            bad[g] = True
        else:
            parts[g].append(strings[j])
    out = np.full(ng, -1, np.int64)
    for g in np.flatnonzero(~bad).tolist():
        langs = {lang for _, lang in parts[g]}
        lang = langs.pop() if len(langs) == 1 else None
        out[g] = ctx.intern(canonical_literal(sep.join(s for s, _ in parts[g]), lang))
    return out


def _unnamed_keys(node):
    """The expressions of ``GROUP BY (expr)`` without AS: rdflib puts each in an Extend
    with no variable right under the Group (innermost first) and a None in its keys."""
    out = []
    while getattr(node, "name", None) == "Extend":
        if node.var is None:
            out.append(node.expr)
        node = node.p
    return out[::-1]


def _integers(ctx, counts):
    return np.array([ctx.intern(f'"{int(c)}"^^<{XSD}integer>') for c in counts], np.int64)
