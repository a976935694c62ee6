"""An expression evaluated over a solution table: once per distinct combination of the
variables it reads, not per row (a function of one variable: once per distinct term of
the dictionary; one calling RAND, UUID, STRUUID or BNODE: per row), one operator node at
a time over the list of those combinations, so rdflib's expression tree is walked once
per query and each function is applied over zipped operand lists; ``STR(?x)`` is read
straight from the term keys. A FILTER's top-level ``&&`` operands are evaluated apart,
each over its own variables, and EXISTS for all rows at once (:mod:`.exists`)."""

from __future__ import annotations

import functools

import numpy as np

from hpgraph.rdf.sparql.exists import EXISTS, exists_columns, exists_key
from hpgraph.rdf.sparql.expressions import (
    apply_op,
    arguments,
    constant,
    ebv,
    evaluate,
    expr_vars,
    str_value,
    value_key,
)
from hpgraph.rdf.sparql.functions import ABSENT, BUILTINS
from hpgraph.rdf.sparql.table import Table, rows_unique
from hpgraph.rdf.sparql.terms import split_literal

__all__ = ["filter_rows", "filter_mask", "expr_column"]


def _str_of_term(ctx, i):
    """STR of the term ``i`` read from its key."""
    if i < 0:
        return None
    key = ctx.term(i)
    if key[0] == "<":
        return ("str", key[1:-1])
    return None if key[0] == "_" else ("str", split_literal(key)[0])


class _Node(dict):
    """An operator node's operands as plain attributes (rdflib's ``CompValue`` resolves
    each attribute read through several calls; this is read once per row)."""

    __getattr__ = dict.get


def _operands(e):
    """The operand expressions of an operator node."""
    from rdflib import Literal, URIRef, Variable

    for k, v in dict.items(e):
        if k == "_vars":
            continue
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, (Variable, URIRef, Literal)) or hasattr(x, "name"):
                yield x


def _pick(vectors, k, x):
    return vectors[id(x)][k]


def _vector(ctx, e, cols, n, memo):
    """The values of ``e`` for ``n`` bindings (``cols``: variable -> list of ids), one
    operator node at a time: the tree is walked once, not once per binding."""
    from rdflib import Literal, URIRef, Variable

    if id(e) in memo:
        return memo[id(e)]
    name = getattr(e, "name", None)
    if isinstance(e, Variable):
        ids = cols.get(str(e))
        out = [ctx.value(-1)] * n if ids is None else [ctx.value(i) for i in ids]
    elif isinstance(e, (URIRef, Literal)):
        out = [constant(ctx, e)] * n
    elif name in EXISTS:
        want = name == "Builtin_EXISTS"
        out = [("bool", bool(h) == want) for h in cols[exists_key(e)]]
    elif name == "Builtin_STR" and isinstance(e.arg, Variable) and str(e.arg) in cols:
        out = [_str_of_term(ctx, i) for i in cols[str(e.arg)]]  # no value built per term
    elif name == "Builtin_STR":
        out = [str_value(ctx, v) for v in _vector(ctx, e.arg, cols, n, memo)]
    elif name in BUILTINS:
        names, fn = BUILTINS[name]
        args = [
            [ABSENT] * n if x is None else _vector(ctx, x, cols, n, memo)
            for x in arguments(e, names)
        ]
        out = [fn(*vals) for vals in zip(*args, strict=True)] if args else [fn()] * n
    else:
        vectors = {id(x): _vector(ctx, x, cols, n, memo) for x in _operands(e)}
        node = _Node(e)
        node.name = name
        out = [apply_op(ctx, node, functools.partial(_pick, vectors, k)) for k in range(n)]
    memo[id(e)] = out
    return out


def _values(ctx, e, t: Table):
    """(value of ``e`` per distinct combination of the variables it reads, combination
    of each row of ``t``)."""
    evaluate(ctx, e, {})  # raises Unsupported for any unknown construct, even with no rows
    cols = {**t.cols, **exists_columns(ctx, e, t)}
    names = sorted(expr_vars(e, set()) & set(cols))
    if _per_row(e):  # RAND(), UUID() ...: a new value for every row
        cols[_ROW] = np.arange(t.n, dtype=np.int64)
        names.append(_ROW)
    if names:
        first, inv = rows_unique([cols[v] for v in names])
        combos = {v: cols[v][first].tolist() for v in names}
        n = len(first)
    else:
        combos, inv, n = {}, np.zeros(t.n, np.int64), 1
    return _vector(ctx, e, combos, n, {}), inv.reshape(-1)


_ROW = "\0row"
_PER_ROW = {"Builtin_RAND", "Builtin_UUID", "Builtin_STRUUID", "Builtin_BNODE"}


def _per_row(e) -> bool:
    """Whether ``e`` calls a function giving a new value on every call."""
    if getattr(e, "name", None) in _PER_ROW:
        return True
    if isinstance(e, dict):
        return any(_per_row(v) for k, v in dict.items(e) if k != "_vars")
    return isinstance(e, list) and any(_per_row(v) for v in e)


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
    out, inv = _values(ctx, e, t)
    return np.array([ebv(v) is True for v in out], bool)[inv]


def expr_column(ctx, e, t: Table):
    """The term ids of ``e`` on every row of ``t`` (-1 where it raises an error)."""
    if t.n == 0:
        evaluate(ctx, e, {})
        return np.empty(0, np.int64)

    def one(v):
        if v is None or v[0] == "unbound":
            return -1
        i = getattr(v, "id", None)
        return ctx.intern(value_key(v)) if i is None else i

    out, inv = _values(ctx, e, t)
    return np.array([one(v) for v in out], np.int64)[inv]
