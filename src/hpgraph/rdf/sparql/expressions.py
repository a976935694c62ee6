"""FILTER expressions: comparisons, &&, ||, !, bound, isIRI, isLiteral, isBlank, sameTerm,
evaluated once per distinct combination of the variables they read."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.table import Table, rows_unique
from hpgraph.rdf.sparql.terms import Unsupported, term_value

__all__ = ["expr_vars", "evaluate", "ebv", "filter_rows"]


def expr_vars(e, out):
    from rdflib import Variable

    if isinstance(e, Variable):
        out.add(str(e))
    elif isinstance(e, dict):
        for v in e.values():
            expr_vars(v, out)
    elif isinstance(e, list):
        for v in e:
            expr_vars(v, out)
    return out


def _compare(op, x, y):
    """SPARQL comparison of two (kind, value); None is a type error."""
    kx, vx = x
    ky, vy = y
    if kx == "unbound" or ky == "unbound":
        return None
    if kx == ky and kx in ("num", "str"):
        return {
            "=": vx == vy,
            "!=": vx != vy,
            "<": vx < vy,
            ">": vx > vy,
            "<=": vx <= vy,
            ">=": vx >= vy,
        }[op]
    if op not in ("=", "!="):
        return None
    same = x == y
    literal_kinds = ("num", "str", "lang", "typed")
    if not same and kx in literal_kinds and ky in literal_kinds:
        return None
    return same if op == "=" else not same


def evaluate(ctx, e, row):
    """Evaluate an expression for one binding ``row`` (var -> id); None is an error."""
    from rdflib import Literal, URIRef, Variable

    from hpgraph.rdf.parse import term_key

    if isinstance(e, Variable):
        return ctx.value(row.get(str(e), -1))
    if isinstance(e, (URIRef, Literal)):
        return term_value(term_key(e))
    name = getattr(e, "name", type(e).__name__)
    if name == "RelationalExpression":
        if e.other is None or isinstance(e.other, list):
            raise Unsupported(f"operator {e.op}")
        x, y = evaluate(ctx, e.expr, row), evaluate(ctx, e.other, row)
        r = None if x is None or y is None else _compare(str(e.op), x, y)
        return None if r is None else ("bool", r)
    if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
        vals = [ebv(evaluate(ctx, x, row)) for x in [e.expr, *e.other]]
        if name == "ConditionalAndExpression":
            if any(v is False for v in vals):
                return ("bool", False)
            return None if any(v is None for v in vals) else ("bool", True)
        if any(v is True for v in vals):
            return ("bool", True)
        return None if any(v is None for v in vals) else ("bool", False)
    if name == "UnaryNot":
        v = ebv(evaluate(ctx, e.expr, row))
        return None if v is None else ("bool", not v)
    if name == "Builtin_BOUND":
        return ("bool", row.get(str(e.arg), -1) >= 0)
    if name in ("Builtin_isIRI", "Builtin_isURI", "Builtin_isLITERAL", "Builtin_isBLANK"):
        v = evaluate(ctx, e.arg, row)
        if v is None or v[0] == "unbound":
            return None
        kinds = {
            "Builtin_isLITERAL": ("num", "str", "lang", "typed"),
            "Builtin_isBLANK": ("bnode",),
        }
        return ("bool", v[0] in kinds.get(name, ("iri",)))
    if name == "Builtin_sameTerm":
        x, y = evaluate(ctx, e.arg1, row), evaluate(ctx, e.arg2, row)
        if x is None or y is None or "unbound" in (x[0], y[0]):
            return None
        return ("bool", x == y)
    raise Unsupported(f"expression {name}")


def ebv(v):
    if v is None:
        return None
    kind, val = v
    if kind == "bool":
        return val
    if kind == "num":
        return val != 0 and val == val
    if kind == "str":
        return val != ""
    return None


def filter_rows(ctx, e, t: Table) -> Table:
    names = sorted(expr_vars(e, set()) & set(t.cols))
    evaluate(ctx, e, {})  # raises Unsupported for any unknown construct, even with no rows
    if t.n == 0:
        return t
    if names:
        first, inv = rows_unique([t.cols[v] for v in names])
        combos = np.stack([t.cols[v][first] for v in names], axis=1)
    else:
        combos, inv = np.zeros((1, 0), np.int64), np.zeros(t.n, np.int64)
    keep = np.array(
        [ebv(evaluate(ctx, e, dict(zip(names, map(int, c), strict=True)))) is True for c in combos],
        bool,
    )
    return t.take(np.flatnonzero(keep[inv.reshape(-1)]))
