"""SPARQL expressions for FILTER, BIND, SELECT expressions, ORDER BY and HAVING:
comparisons, IN / NOT IN, &&, ||, !, arithmetic (+ - * / with numeric type promotion),
bound, isIRI, isLiteral, isBlank, isNumeric, sameTerm, STR, LANG, DATATYPE, IF, COALESCE,
STRLANG, STRDT, EXISTS / NOT EXISTS, and the string and numeric functions of
:mod:`.functions`. An expression is evaluated once per distinct combination of the
variables it reads, not per row (a function of one variable: once per distinct term); a
FILTER's top-level ``&&`` operands are evaluated apart, each over its own variables, and
EXISTS for all rows at once (:mod:`.exists`)."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.parse import canonical_literal
from hpgraph.rdf.sparql.exists import EXISTS, exists_columns, exists_key
from hpgraph.rdf.sparql.functions import BUILTINS
from hpgraph.rdf.sparql.numeric import XSD, arith, number_key
from hpgraph.rdf.sparql.table import Table, rows_unique
from hpgraph.rdf.sparql.terms import Unsupported, split_literal

__all__ = ["expr_vars", "evaluate", "ebv", "filter_rows", "expr_column", "value_key"]

_LITERALS = ("num", "bool", "str", "lang", "typed")
_RDF_LANG = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def expr_vars(e, out):
    from rdflib import Variable

    if isinstance(e, Variable):
        out.add(str(e))
    elif getattr(e, "name", None) in EXISTS:
        out.add(exists_key(e))
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
    if kx == ky and kx in ("num", "str", "bool"):
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
    same = tuple(x) == tuple(y)
    if not same and "typed" in (kx, ky) and kx in _LITERALS and ky in _LITERALS:
        return None  # a literal of a datatype not understood: equal only as the same term
    return same if op == "=" else not same


def _arithmetic(ctx, e, row):
    """An AdditiveExpression or MultiplicativeExpression, left to right."""
    acc = evaluate(ctx, e.expr, row)
    for op, other in zip(e.op, e.other, strict=True):
        y = evaluate(ctx, other, row)
        if acc is None or y is None or acc[0] != "num" or y[0] != "num":
            return None
        r = arith(str(op), acc[1], y[1])
        acc = None if r is None else ("num", r)
    return acc


def _key(ctx, v) -> str:
    """The dictionary key of a value: its own term where it came from one."""
    i = getattr(v, "id", None)
    return value_key(v) if i is None else ctx.term(i)


def evaluate(ctx, e, row):
    """Evaluate an expression for one binding ``row`` (var -> id); None is an error."""
    from rdflib import Literal, URIRef, Variable

    from hpgraph.rdf.parse import term_key

    if isinstance(e, Variable):
        return ctx.value(row.get(str(e), -1))
    if isinstance(e, (URIRef, Literal)):
        return ctx.value(ctx.intern(term_key(e)))
    name = getattr(e, "name", type(e).__name__)
    if name == "RelationalExpression" and str(e.op) in ("IN", "NOT IN"):
        return _member(ctx, e, row)
    if name == "RelationalExpression":
        if e.other is None or isinstance(e.other, list):
            raise Unsupported(f"operator {e.op}")
        x, y = evaluate(ctx, e.expr, row), evaluate(ctx, e.other, row)
        r = None if x is None or y is None else _compare(str(e.op), x, y)
        return None if r is None else ("bool", r)
    if name in ("AdditiveExpression", "MultiplicativeExpression"):
        return _arithmetic(ctx, e, row)
    if name in ("UnaryMinus", "UnaryPlus"):
        v = evaluate(ctx, e.expr, row)
        if v is None or v[0] != "num":
            return None
        return ("num", -v[1] if name == "UnaryMinus" else v[1])
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
    if name in (
        "Builtin_isIRI",
        "Builtin_isURI",
        "Builtin_isLITERAL",
        "Builtin_isBLANK",
        "Builtin_isNUMERIC",
    ):
        v = evaluate(ctx, e.arg, row)
        if v is None or v[0] == "unbound":
            return None
        kinds = {
            "Builtin_isLITERAL": _LITERALS,
            "Builtin_isBLANK": ("bnode",),
            "Builtin_isNUMERIC": ("num",),
        }
        return ("bool", v[0] in kinds.get(name, ("iri",)))
    if name == "Builtin_sameTerm":
        x, y = evaluate(ctx, e.arg1, row), evaluate(ctx, e.arg2, row)
        if x is None or y is None or "unbound" in (x[0], y[0]):
            return None
        return ("bool", tuple(x) == tuple(y))
    if name == "Builtin_STR":
        v = evaluate(ctx, e.arg, row)
        if v is None or v[0] in ("unbound", "bnode"):
            return None
        return ("str", v[1] if v[0] == "iri" else split_literal(_key(ctx, v))[0])
    if name == "Builtin_LANG":
        v = evaluate(ctx, e.arg, row)
        if v is None or v[0] not in _LITERALS:
            return None
        return ("str", v[1][1] if v[0] == "lang" else "")
    if name == "Builtin_DATATYPE":
        v = evaluate(ctx, e.arg, row)
        if v is None or v[0] not in _LITERALS:
            return None
        _, lang, dt = split_literal(_key(ctx, v))
        return ("iri", dt or (_RDF_LANG if lang else XSD + "string"))
    if name == "Builtin_IF":
        cond = ebv(evaluate(ctx, e.arg1, row))
        if cond is None:
            return None
        return evaluate(ctx, e.arg2 if cond else e.arg3, row)
    if name == "Builtin_COALESCE":
        for arg in e.arg:
            v = evaluate(ctx, arg, row)
            if v is not None and v[0] != "unbound":
                return v
        return None
    if name in BUILTINS:
        return BUILTINS[name](lambda x: evaluate(ctx, x, row), e)
    if name in EXISTS:
        hit = row.get(exists_key(e))
        return None if hit is None else ("bool", bool(hit) == (name == "Builtin_EXISTS"))
    if name in ("Builtin_STRLANG", "Builtin_STRDT"):
        return _literal(ctx, name, evaluate(ctx, e.arg1, row), evaluate(ctx, e.arg2, row))
    raise Unsupported(f"expression {name.replace('Builtin_', '')}")


def _member(ctx, e, row):
    """``x IN (...)``: true if equal to one, else an error if a comparison errs, else
    false; NOT IN its negation."""
    x = evaluate(ctx, e.expr, row)
    error = False
    for other in e.other if isinstance(e.other, list) else []:  # IN (): rdflib gives rdf:nil
        y = evaluate(ctx, other, row)
        r = None if x is None or y is None else _compare("=", x, y)
        if r:
            return ("bool", str(e.op) == "IN")
        error = error or r is None
    return None if error else ("bool", str(e.op) != "IN")


def _literal(ctx, name, lex, arg):
    """STRLANG(simple literal, tag) or STRDT(simple literal, datatype IRI)."""
    if lex is None or lex[0] != "str" or arg is None:
        return None
    if name == "Builtin_STRLANG":
        if arg[0] != "str" or not arg[1]:
            return None
        return ctx.value(ctx.intern(canonical_literal(lex[1], arg[1])))
    if arg[0] != "iri":
        return None
    return ctx.value(ctx.intern(canonical_literal(lex[1], None, arg[1])))


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


def value_key(v) -> str:
    """The dictionary key of an expression's value."""
    kind, val = v
    if kind == "iri":
        return "<" + val + ">"
    if kind == "bnode":
        return "_:" + val
    if kind == "num":
        return number_key(val)
    if kind == "bool":
        return canonical_literal("true" if val else "false", None, XSD + "boolean")
    if kind == "str":
        return canonical_literal(val)
    if kind == "lang":
        return canonical_literal(val[0], val[1])
    return val


def _per_combination(ctx, e, t: Table, one):
    """``one(row)`` for each distinct combination of the variables ``e`` reads, spread to
    the rows of ``t``."""
    evaluate(ctx, e, {})  # raises Unsupported for any unknown construct, even with no rows
    cols = t.cols
    if t.n:
        cols = {**t.cols, **exists_columns(ctx, e, t)}
    names = sorted(expr_vars(e, set()) & set(cols))
    if names:
        first, inv = rows_unique([cols[v] for v in names])
        combos = np.stack([cols[v][first] for v in names], axis=1).tolist()
    else:
        combos, inv = [[]], np.zeros(t.n, np.int64)
    out = [one(dict(zip(names, c, strict=True))) for c in combos]
    return out, inv.reshape(-1)


def filter_rows(ctx, e, t: Table) -> Table:
    return t.take(np.flatnonzero(filter_mask(ctx, e, t)))


def filter_mask(ctx, e, t: Table):
    """The rows of ``t`` whose effective boolean value of ``e`` is true."""
    if t.n == 0:
        evaluate(ctx, e, {})
        return np.zeros(0, bool)
    if getattr(e, "name", None) == "ConditionalAndExpression":
        mask = filter_mask(ctx, e.expr, t)
        for other in e.other:
            mask &= filter_mask(ctx, other, t)
        return mask
    out, inv = _per_combination(ctx, e, t, lambda row: ebv(evaluate(ctx, e, row)) is True)
    return np.array(out, bool)[inv]


def expr_column(ctx, e, t: Table):
    """The term ids of ``e`` on every row of ``t`` (-1 where it raises an error)."""
    if t.n == 0:
        evaluate(ctx, e, {})
        return np.empty(0, np.int64)

    def one(row):
        v = evaluate(ctx, e, row)
        if v is None or v[0] == "unbound":
            return -1
        i = getattr(v, "id", None)
        return ctx.intern(value_key(v)) if i is None else i

    out, inv = _per_combination(ctx, e, t, one)
    return np.array(out, np.int64)[inv]
