"""Solution modifiers and aggregates: ORDER BY (SPARQL term order), DISTINCT, GROUP BY
with COUNT and SAMPLE."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.table import Table, rows_unique
from hpgraph.rdf.sparql.terms import XSD, Unsupported

__all__ = ["order_by", "distinct", "aggregate"]


def _rank(ctx, col, desc):
    uniq, inv = np.unique(col, return_inverse=True)

    def key(i):
        kind, v = ctx.value(int(i))
        order = {"unbound": 0, "bnode": 1, "iri": 2, "num": 3}.get(kind, 4)
        if kind == "num":
            return (order, v, "")
        return (order, 0.0, str(v))

    keys = [key(i) for i in uniq]
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
        if not isinstance(expr, Variable):
            raise Unsupported("ORDER BY on an expression (only variables)")
        col = t.cols.get(str(expr), np.full(t.n, -1, np.int64))
        keys.append(_rank(ctx, col, desc))
    if not keys or t.n == 0:
        return t
    return t.take(np.lexsort(keys[::-1]))


def distinct(t: Table) -> Table:
    if not t.cols or t.n == 0:
        return t.take(np.arange(min(t.n, 1)))
    first, _ = rows_unique(list(t.cols.values()))
    return t.take(np.sort(first))


def aggregate(ctx, node, t: Table) -> Table:
    """The groups of ``t`` (the solutions under ``node.p``, a Group) and their aggregates."""
    from rdflib import Variable

    group = node.p
    keys = []
    for g in group.expr or []:
        if not isinstance(g, Variable):
            raise Unsupported("GROUP BY on an expression")
        keys.append(str(g))
    if keys:
        mat = np.stack([t.cols.get(k, np.full(t.n, -1, np.int64)) for k in keys], axis=1)
        first, inv = rows_unique(list(mat.T))
        groups = mat[first]
    else:
        groups, inv = np.zeros((1, 0), np.int64), np.zeros(t.n, np.int64)
    ng = len(groups)
    cols = {}
    for agg in node.A:
        res = str(agg.res)
        if agg.name == "Aggregate_Sample":
            col = t.cols.get(str(agg.vars), np.full(t.n, -1, np.int64))
            out = np.full(ng, -1, np.int64)
            out[inv[::-1]] = col[::-1]
            cols[res] = out
        elif agg.name == "Aggregate_Count":
            if agg.vars == "*":
                if agg.distinct:
                    raise Unsupported("COUNT(DISTINCT *)")
                counts = np.bincount(inv, minlength=ng)
            else:
                if not isinstance(agg.vars, Variable):
                    raise Unsupported("COUNT of an expression")
                col = t.cols.get(str(agg.vars), np.full(t.n, -1, np.int64))
                ok = col >= 0
                if agg.distinct:
                    first, _ = rows_unique([inv[ok], col[ok]])
                    counts = np.bincount(inv[ok][first], minlength=ng)
                else:
                    counts = np.bincount(inv[ok], minlength=ng)
            cols[res] = np.array(
                [ctx.intern(f'"{int(c)}"^^<{XSD}integer>') for c in counts], np.int64
            )
        else:
            raise Unsupported(agg.name.replace("Aggregate_", "").upper())
    maybe = set(cols)
    return Table(cols, ng, maybe)
