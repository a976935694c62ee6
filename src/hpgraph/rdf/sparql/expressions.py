"""SPARQL expressions for FILTER, BIND, SELECT expressions, ORDER BY and HAVING:
comparisons, IN / NOT IN, &&, ||, !, arithmetic (+ - * / with numeric type promotion),
bound, isIRI, isLiteral, isBlank, isNumeric, sameTerm, STR, LANG, DATATYPE, IF, COALESCE,
STRLANG, STRDT, IRI / URI, NOW, RAND, UUID, STRUUID, BNODE(), EXISTS / NOT EXISTS, and
the string and numeric functions of :mod:`.functions`. An expression is evaluated once
per distinct combination of the variables it reads, not per row (a function of one
variable: once per distinct term; one calling RAND, UUID, STRUUID or BNODE: per row),
one operator node at a time over all those combinations (the tree is walked once); a
FILTER's top-level ``&&`` operands are evaluated apart, each over its own variables, and
EXISTS for all rows at once (:mod:`.exists`)."""

from __future__ import annotations

import datetime
import functools
import operator
import random
import re
import uuid

import numpy as np

from hpgraph.rdf.parse import canonical_literal
from hpgraph.rdf.sparql.exists import EXISTS, exists_columns, exists_key
from hpgraph.rdf.sparql.functions import ABSENT, BUILTINS, datetime_order, temporal_type
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


_ORDER = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


def _compare(op, x, y):
    """SPARQL comparison of two (kind, value); None is a type error."""
    kx, vx = x
    ky, vy = y
    if kx == "unbound" or ky == "unbound":
        return None
    if kx == ky and kx in ("num", "str", "bool"):
        return _ORDER[op](vx, vy)
    same = tuple(x) == tuple(y)
    tx, ty = temporal_type(x), temporal_type(y)
    if tx and ty:  # by instant (raises Unsupported where that is not done here)
        if tx != ty:
            raise Unsupported(f"comparison of xsd:{tx} with xsd:{ty} values")
        keys = datetime_order([x, y])
        return _ORDER[op](keys[0], keys[1])
    if op not in ("=", "!="):
        return None
    if not same and kx in _LITERALS and ky in _LITERALS:
        if (kx == "typed" and not tx) or (ky == "typed" and not ty):
            return None  # a literal of a datatype not understood: equal only as the same term
    return same if op == "=" else not same


def _arithmetic(e, ev):
    """An AdditiveExpression or MultiplicativeExpression, left to right."""
    acc = ev(e.expr)
    for op, other in zip(e.op, e.other, strict=True):
        y = ev(other)
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

    if isinstance(e, Variable):
        return ctx.value(row.get(str(e), -1))
    if isinstance(e, (URIRef, Literal)):
        return _constant(ctx, e)
    if getattr(e, "name", None) in EXISTS:
        hit = row.get(exists_key(e))
        return None if hit is None else ("bool", bool(hit) == (e.name == "Builtin_EXISTS"))
    return _apply(ctx, e, lambda x: evaluate(ctx, x, row))


def _constant(ctx, term):
    """The value of a constant of the query, read once per query."""
    from hpgraph.rdf.parse import term_key

    v = ctx.constants.get(id(term))
    if v is None:
        v = ctx.constants[id(term)] = ctx.value(ctx.intern(term_key(term)))
    return v


def _apply(ctx, e, ev):
    """The value of the operator or function ``e`` whose operands' values ``ev`` gives."""
    name = getattr(e, "name", type(e).__name__)
    builtin = BUILTINS.get(name)
    if builtin is not None:
        return builtin[1](*(ABSENT if x is None else ev(x) for x in _arguments(e, builtin[0])))
    if name == "Builtin_STR":
        return _str(ctx, ev(e.arg))
    if name == "RelationalExpression" and str(e.op) in ("IN", "NOT IN"):
        return _member(e, ev)
    if name == "RelationalExpression":
        if e.other is None or isinstance(e.other, list):
            raise Unsupported(f"operator {e.op}")
        x, y = ev(e.expr), ev(e.other)
        r = None if x is None or y is None else _compare(str(e.op), x, y)
        return None if r is None else ("bool", r)
    if name in ("AdditiveExpression", "MultiplicativeExpression"):
        return _arithmetic(e, ev)
    if name in ("UnaryMinus", "UnaryPlus"):
        v = ev(e.expr)
        if v is None or v[0] != "num":
            return None
        return ("num", -v[1] if name == "UnaryMinus" else v[1])
    if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
        vals = [ebv(ev(x)) for x in [e.expr, *e.other]]
        if name == "ConditionalAndExpression":
            if any(v is False for v in vals):
                return ("bool", False)
            return None if any(v is None for v in vals) else ("bool", True)
        if any(v is True for v in vals):
            return ("bool", True)
        return None if any(v is None for v in vals) else ("bool", False)
    if name == "UnaryNot":
        v = ebv(ev(e.expr))
        return None if v is None else ("bool", not v)
    if name == "Builtin_BOUND":
        return ("bool", ev(e.arg)[0] != "unbound")
    if name in (
        "Builtin_isIRI",
        "Builtin_isURI",
        "Builtin_isLITERAL",
        "Builtin_isBLANK",
        "Builtin_isNUMERIC",
    ):
        v = ev(e.arg)
        if v is None or v[0] == "unbound":
            return None
        kinds = {
            "Builtin_isLITERAL": _LITERALS,
            "Builtin_isBLANK": ("bnode",),
            "Builtin_isNUMERIC": ("num",),
        }
        return ("bool", v[0] in kinds.get(name, ("iri",)))
    if name == "Builtin_sameTerm":
        x, y = ev(e.arg1), ev(e.arg2)
        if x is None or y is None or "unbound" in (x[0], y[0]):
            return None
        return ("bool", tuple(x) == tuple(y))
    if name == "Builtin_LANG":
        v = ev(e.arg)
        if v is None or v[0] not in _LITERALS:
            return None
        return ("str", v[1][1] if v[0] == "lang" else "")
    if name == "Builtin_DATATYPE":
        v = ev(e.arg)
        if v is None or v[0] not in _LITERALS:
            return None
        _, lang, dt = split_literal(_key(ctx, v))
        return ("iri", dt or (_RDF_LANG if lang else XSD + "string"))
    if name == "Builtin_IF":
        cond = ebv(ev(e.arg1))
        if cond is None:
            return None
        return ev(e.arg2 if cond else e.arg3)
    if name == "Builtin_COALESCE":
        for arg in e.arg:
            v = ev(arg)
            if v is not None and v[0] != "unbound":
                return v
        return None
    if name in _FRESH:
        if name == "Builtin_BNODE" and e.arg is not None:
            raise Unsupported("BNODE(string)")
        return _FRESH[name]()
    if name == "Builtin_NOW":
        if ctx.now is None:
            stamp = datetime.datetime.now(datetime.UTC).isoformat()
            ctx.now = ctx.value(
                ctx.intern(canonical_literal(stamp.replace("+00:00", "Z"), None, XSD + "dateTime"))
            )
        return ctx.now
    if name in ("Builtin_IRI", "Builtin_URI"):
        return _iri(ctx, ev(e.arg))
    if name in ("Builtin_STRLANG", "Builtin_STRDT"):
        return _literal(ctx, name, ev(e.arg1), ev(e.arg2))
    raise Unsupported(f"expression {name.replace('Builtin_', '')}")


def _arguments(e, names):
    """The operand expressions of a function (None where an optional one is left out)."""
    out = []
    for n in names:
        if n.startswith("*"):
            v = getattr(e, n[1:])
            out.extend(v if isinstance(v, list) else [])  # CONCAT(): rdflib gives rdf:nil
        else:
            out.append(getattr(e, n))
    return out


def _str(ctx, v):
    if v is None or v[0] in ("unbound", "bnode"):
        return None
    return ("str", v[1] if v[0] == "iri" else split_literal(_key(ctx, v))[0])


def _str_of_term(ctx, i):
    """STR of the term ``i`` read from its key."""
    if i < 0:
        return None
    key = ctx.term(i)
    if key[0] == "<":
        return ("str", key[1:-1])
    return None if key[0] == "_" else ("str", split_literal(key)[0])


def _member(e, ev):
    """``x IN (...)``: true if equal to one, else an error if a comparison errs, else
    false; NOT IN its negation."""
    x = ev(e.expr)
    error = False
    for other in e.other if isinstance(e.other, list) else []:  # IN (): rdflib gives rdf:nil
        y = ev(other)
        r = None if x is None or y is None else _compare("=", x, y)
        if r:
            return ("bool", str(e.op) == "IN")
        error = error or r is None
    return None if error else ("bool", str(e.op) != "IN")


#: Functions giving a fresh value on each call (evaluated once per row, see _per_row).
_FRESH = {
    "Builtin_RAND": lambda: ("num", random.random()),
    "Builtin_UUID": lambda: ("iri", f"urn:uuid:{uuid.uuid4()}"),
    "Builtin_STRUUID": lambda: ("str", str(uuid.uuid4())),
    "Builtin_BNODE": lambda: ("bnode", f"b{uuid.uuid4().hex}"),
}
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_NOT_IN_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def _iri(ctx, v):
    """IRI(x): an IRI as itself; a simple literal holding an absolute IRI as that IRI; a
    relative one is an error without BASE (as pyoxigraph) and unsupported with one."""
    if v is None or v[0] == "iri":
        return v
    if v[0] != "str" or _NOT_IN_IRI.search(v[1]):
        return None
    if _ABSOLUTE.match(v[1]):
        return ("iri", v[1])
    if ctx.base is not None:
        raise Unsupported("IRI() of a relative IRI under BASE")
    return None


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
        out = [_constant(ctx, e)] * n
    elif name in EXISTS:
        want = name == "Builtin_EXISTS"
        out = [("bool", bool(h) == want) for h in cols[exists_key(e)]]
    elif name == "Builtin_STR" and isinstance(e.arg, Variable) and str(e.arg) in cols:
        out = [_str_of_term(ctx, i) for i in cols[str(e.arg)]]  # no value built per term
    elif name == "Builtin_STR":
        out = [_str(ctx, v) for v in _vector(ctx, e.arg, cols, n, memo)]
    elif name in BUILTINS:
        names, fn = BUILTINS[name]
        args = [
            [ABSENT] * n if x is None else _vector(ctx, x, cols, n, memo)
            for x in _arguments(e, names)
        ]
        out = [fn(*vals) for vals in zip(*args, strict=True)] if args else [fn()] * n
    else:
        vectors = {id(x): _vector(ctx, x, cols, n, memo) for x in _operands(e)}
        node = _Node(e)
        node.name = name
        out = [_apply(ctx, node, functools.partial(_pick, vectors, k)) for k in range(n)]
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
