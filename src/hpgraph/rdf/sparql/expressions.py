"""SPARQL expressions for FILTER, BIND, SELECT expressions, ORDER BY and HAVING, the
value of one operator given its operands' values: comparisons (xsd:dateTime by instant,
:mod:`.dates`), IN / NOT IN, &&, ||, !, arithmetic (+ - * / with numeric type
promotion), bound, isIRI, isLiteral, isBlank, isNumeric, sameTerm, STR, LANG, DATATYPE,
IF, COALESCE, STRLANG, STRDT, IRI / URI, NOW, RAND, UUID, STRUUID, BNODE(), EXISTS / NOT
EXISTS (answered per row by :mod:`.exists`), and the string and numeric functions of
:mod:`.functions`. Values are (kind, value) pairs; None is an error. :mod:`.columns`
evaluates an expression over a solution table."""

from __future__ import annotations

import datetime
import operator
import random
import re
import uuid

from hpgraph.rdf.parse import canonical_literal
from hpgraph.rdf.sparql.dates import datetime_order, temporal_type
from hpgraph.rdf.sparql.exists import EXISTS, exists_key, expr_leaves
from hpgraph.rdf.sparql.functions import ABSENT, BUILTINS
from hpgraph.rdf.sparql.numeric import XSD, arith, number_key
from hpgraph.rdf.sparql.terms import Unsupported, split_literal

__all__ = [
    "expr_vars",
    "evaluate",
    "apply_op",
    "arguments",
    "constant",
    "str_value",
    "ebv",
    "value_key",
]

_LITERALS = ("num", "bool", "str", "lang", "typed")
_RDF_LANG = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def expr_vars(e, out):
    """Add to ``out`` the variables ``e`` reads and the hidden column of each of its
    EXISTS nodes; returns ``out``."""
    for leaf in expr_leaves(e):
        out.add(exists_key(leaf) if isinstance(leaf, dict) else str(leaf))
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
        return constant(ctx, e)
    if getattr(e, "name", None) in EXISTS:
        hit = row.get(exists_key(e))
        return None if hit is None else ("bool", bool(hit) == (e.name == "Builtin_EXISTS"))
    return apply_op(ctx, e, lambda x: evaluate(ctx, x, row))


def constant(ctx, term):
    """The value of a constant of the query, read once per query."""
    from hpgraph.rdf.parse import term_key

    v = ctx.constants.get(id(term))
    if v is None:
        v = ctx.constants[id(term)] = ctx.value(ctx.intern(term_key(term)))
    return v


def apply_op(ctx, e, ev):
    """The value of the operator or function ``e`` whose operands' values ``ev`` gives."""
    name = getattr(e, "name", type(e).__name__)
    builtin = BUILTINS.get(name)
    if builtin is not None:
        return builtin[1](*(ABSENT if x is None else ev(x) for x in arguments(e, builtin[0])))
    if name == "Builtin_STR":
        return str_value(ctx, ev(e.arg))
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


def arguments(e, names):
    """The operand expressions of a function (None where an optional one is left out)."""
    out = []
    for n in names:
        if n.startswith("*"):
            v = getattr(e, n[1:])
            out.extend(v if isinstance(v, list) else [])  # CONCAT(): rdflib gives rdf:nil
        else:
            out.append(getattr(e, n))
    return out


def str_value(ctx, v):
    if v is None or v[0] in ("unbound", "bnode"):
        return None
    return ("str", v[1] if v[0] == "iri" else split_literal(_key(ctx, v))[0])


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


#: Functions giving a fresh value on each call (evaluated once per row by :mod:`.columns`).
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
