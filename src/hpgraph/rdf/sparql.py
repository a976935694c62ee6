"""Given a store and a SPARQL SELECT query, returns the solutions as columns of term ids.

rdflib parses and translates the query to SPARQL algebra (its evaluator is not used); this
module executes the algebra on columns of int64 ids (``-1`` is unbound): each triple pattern
is a range scan of the PSO or POS permutation, patterns are joined smallest first (exact
pattern counts as statistics, connected patterns preferred) by hash joins. Supported: BGP,
Join, FILTER (comparisons, &&, ||, !, bound, isIRI, isLiteral, isBlank, sameTerm), OPTIONAL
(without an inner filter), UNION, DISTINCT, REDUCED, ORDER BY, LIMIT/OFFSET, GROUP BY with
COUNT. Anything else raises ``InvalidArgumentError`` naming the feature.
"""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.rdf.parse import _unescape

__all__ = ["run_query", "to_table", "format_results"]

_XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMERIC = {
    _XSD + t
    for t in (
        "integer decimal double float int long short byte nonNegativeInteger positiveInteger "
        "negativeInteger nonPositiveInteger unsignedInt unsignedLong unsignedShort unsignedByte"
    ).split()
}


class Unsupported(InvalidArgumentError):
    """A SPARQL feature this executor does not implement."""

    def __init__(self, feature):
        super().__init__(f"SPARQL feature not supported: {feature}")


class _Ctx:
    def __init__(self, store):
        self.store = store
        self.extra: list[str] = []
        self.extra_ids: dict[str, int] = {}
        self._values: dict[int, tuple] = {}

    def term(self, i: int) -> str:
        n = len(self.store.terms)
        return self.store.terms[i] if i < n else self.extra[i - n]

    def intern(self, key: str) -> int:
        i = self.store.lookup(key)
        if i >= 0:
            return i
        if key not in self.extra_ids:
            self.extra_ids[key] = len(self.store.terms) + len(self.extra)
            self.extra.append(key)
        return self.extra_ids[key]

    def value(self, i: int) -> tuple:
        """(kind, value) of a term: kinds unbound, bnode, iri, num, str, lang, typed."""
        if i < 0:
            return ("unbound", None)
        v = self._values.get(i)
        if v is None:
            v = _term_value(self.term(i))
            self._values[i] = v
        return v


def _split_literal(key: str):
    end = key.rfind('"')
    lex = _unescape(key[1:end]) if "\\" in key else key[1:end]
    rest = key[end + 1 :]
    if rest.startswith("@"):
        return lex, rest[1:], None
    if rest.startswith("^^"):
        return lex, None, rest[3:-1]
    return lex, None, None


def _term_value(key: str) -> tuple:
    if key.startswith("<"):
        return ("iri", key[1:-1])
    if key.startswith("_:"):
        return ("bnode", key[2:])
    lex, lang, dt = _split_literal(key)
    if lang:
        return ("lang", (lex, lang))
    if dt is None:
        return ("str", lex)
    if dt in _NUMERIC:
        try:
            return ("num", float(lex))
        except ValueError:
            return ("typed", key)
    return ("typed", key)


# --------------------------------------------------------------------------- tables
class _Table:
    """Columns var -> int64 ids; ``maybe`` are variables that may be unbound (-1)."""

    def __init__(self, cols, n, maybe=frozenset()):
        self.cols = cols
        self.n = n
        self.maybe = set(maybe)

    def take(self, idx):
        return _Table({k: v[idx] for k, v in self.cols.items()}, len(idx), self.maybe)


def _fold(columns):
    """One int64 key per row, equal exactly where all ``columns`` (id arrays >= -1) are."""
    key = columns[0] + 1
    for col in columns[1:]:
        width = int(col.max(initial=-1)) + 2
        if int(key.max(initial=0)) >= (1 << 62) // max(width, 1):
            key = np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
        key = key * width + (col + 1)
    return key


def _rows_unique(columns):
    """(first row of each distinct row, dense row id per row) of a list of columns."""
    uniq, first, inv = np.unique(_fold(columns), return_index=True, return_inverse=True)
    return first, inv.reshape(-1)


def _keys(a: _Table, b: _Table, shared):
    """One int64 key per row of a and of b, equal where the shared variables are."""
    if len(shared) == 1:
        return a.cols[shared[0]], b.cols[shared[0]]
    both = _fold([np.concatenate([a.cols[v], b.cols[v]]) for v in shared])
    return both[: a.n], both[a.n :]


def _match(a: _Table, b: _Table, shared):
    """Sort-merge join: row index pairs (ia, ib) whose shared variables are equal."""
    ka, kb = _keys(a, b, shared)
    order = np.argsort(kb, kind="stable")
    sk = kb[order]
    lo = np.searchsorted(sk, ka, "left")
    hi = np.searchsorted(sk, ka, "right")
    cnt = hi - lo
    ia = np.repeat(np.arange(a.n, dtype=np.int64), cnt)
    start = np.repeat(lo - np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt)
    ib = order[start + np.arange(len(ia))] if len(ia) else np.empty(0, np.int64)
    return ia, ib


def _combine(a, b, ia, ib, maybe):
    cols = {k: v[ia] for k, v in a.cols.items()}
    for k, v in b.cols.items():
        if k not in cols:
            cols[k] = np.where(ib >= 0, v[np.maximum(ib, 0)] if len(v) else -1, -1)
    return _Table(cols, len(ia), maybe)


def _join(a: _Table, b: _Table) -> _Table:
    shared = [v for v in a.cols if v in b.cols]
    for v in shared:
        if v in a.maybe or v in b.maybe:
            raise Unsupported(f"join on variable ?{v} that OPTIONAL may leave unbound")
    maybe = a.maybe | b.maybe
    if not shared:
        ia = np.repeat(np.arange(a.n), b.n)
        ib = np.tile(np.arange(b.n), a.n)
        cols = {k: v[ia] for k, v in a.cols.items()}
        cols.update({k: v[ib] for k, v in b.cols.items()})
        return _Table(cols, a.n * b.n, maybe)
    ia, ib = _match(a, b, shared)
    return _combine(a, b, ia, ib, maybe)


def _left_join(a: _Table, b: _Table) -> _Table:
    shared = [v for v in a.cols if v in b.cols]
    for v in shared:
        if v in a.maybe or v in b.maybe:
            raise Unsupported(f"OPTIONAL joining on variable ?{v} that may be unbound")
    maybe = a.maybe | b.maybe | (set(b.cols) - set(a.cols))
    if not shared:
        if b.n == 0:
            cols = dict(a.cols)
            cols.update({k: np.full(a.n, -1, np.int64) for k in b.cols})
            return _Table(cols, a.n, maybe)
        t = _join(a, b)
        t.maybe = maybe
        return t
    ia, ib = _match(a, b, shared)
    hit = np.zeros(a.n, bool)
    hit[ia] = True
    miss = np.flatnonzero(~hit)
    ia = np.concatenate([ia, miss])
    ib = np.concatenate([ib, np.full(len(miss), -1, np.int64)])
    order = np.argsort(ia, kind="stable")
    return _combine(a, b, ia[order], ib[order], maybe)


def _union(a: _Table, b: _Table) -> _Table:
    names = list(a.cols) + [v for v in b.cols if v not in a.cols]
    cols = {}
    for v in names:
        x = a.cols.get(v, np.full(a.n, -1, np.int64))
        y = b.cols.get(v, np.full(b.n, -1, np.int64))
        cols[v] = np.concatenate([x, y])
    maybe = a.maybe | b.maybe | (set(a.cols) ^ set(b.cols))
    return _Table(cols, a.n + b.n, maybe)


# --------------------------------------------------------------------------- BGP
def _scan(ctx, s, p, o) -> _Table:
    """One triple pattern: terms are ints (ids) or str (variable names)."""
    store = ctx.store
    empty = _Table({v: np.empty(0, np.int64) for v in (s, p, o) if isinstance(v, str)}, 0)
    if any(isinstance(t, int) and t < 0 for t in (s, p, o)):
        return empty
    if isinstance(p, int):
        if p not in store.pred_range:
            return empty
        a, b = store.pred_range[p]
        if isinstance(s, int):
            rows = store.pso[a:b]
            lo, hi = np.searchsorted(rows[:, 0], [s, s + 1])
            rows = rows[lo:hi]
        else:
            rows = store.pos[a:b]
            if isinstance(o, int):
                lo, hi = np.searchsorted(rows[:, 2], [o, o + 1])
                rows = rows[lo:hi]
    else:
        rows = store.pso
    mask = np.ones(len(rows), bool)
    seen = {}
    for col, t in enumerate((s, p, o)):
        if isinstance(t, int):
            mask &= rows[:, col] == t
        elif t in seen:
            mask &= rows[:, col] == rows[:, seen[t]]
        else:
            seen[t] = col
    if not mask.all():
        rows = rows[mask]
    return _Table({v: np.ascontiguousarray(rows[:, c]) for v, c in seen.items()}, len(rows))


def _bgp(ctx, triples) -> _Table:
    from rdflib import Variable

    if not triples:
        return _Table({}, 1)
    parts = []
    for triple in triples:
        terms = []
        for t in triple:
            if isinstance(t, Variable):
                terms.append(str(t))
            else:
                if not hasattr(t, "n3") or type(t).__name__ not in ("URIRef", "Literal", "BNode"):
                    raise Unsupported(f"term {t!r} in a triple pattern")
                if type(t).__name__ == "BNode":
                    terms.append("_bnode_" + str(t))  # blank node in a query acts as a variable
                    continue
                from hpgraph.rdf.parse import term_key

                terms.append(ctx.store.lookup(term_key(t)))
        parts.append(_scan(ctx, *terms))
    # join smallest first, preferring patterns connected to what is joined already
    parts.sort(key=lambda t: t.n)
    result = parts.pop(0)
    while parts:
        bound = set(result.cols)
        connected = [i for i, t in enumerate(parts) if bound & set(t.cols)]
        i = connected[0] if connected else 0
        result = _join(result, parts.pop(i))
    return result


# --------------------------------------------------------------------------- expressions
def _expr_vars(e, out):
    from rdflib import Variable

    if isinstance(e, Variable):
        out.add(str(e))
    elif isinstance(e, dict):
        for v in e.values():
            _expr_vars(v, out)
    elif isinstance(e, list):
        for v in e:
            _expr_vars(v, out)
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


def _eval(ctx, e, row):
    """Evaluate an expression for one binding ``row`` (var -> id); None is an error."""
    from rdflib import Literal, URIRef, Variable

    from hpgraph.rdf.parse import term_key

    if isinstance(e, Variable):
        return ctx.value(row.get(str(e), -1))
    if isinstance(e, (URIRef, Literal)):
        return _term_value(term_key(e))
    name = getattr(e, "name", type(e).__name__)
    if name == "RelationalExpression":
        if e.other is None or isinstance(e.other, list):
            raise Unsupported(f"operator {e.op}")
        x, y = _eval(ctx, e.expr, row), _eval(ctx, e.other, row)
        r = None if x is None or y is None else _compare(str(e.op), x, y)
        return None if r is None else ("bool", r)
    if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
        vals = [_ebv(_eval(ctx, x, row)) for x in [e.expr, *e.other]]
        if name == "ConditionalAndExpression":
            if any(v is False for v in vals):
                return ("bool", False)
            return None if any(v is None for v in vals) else ("bool", True)
        if any(v is True for v in vals):
            return ("bool", True)
        return None if any(v is None for v in vals) else ("bool", False)
    if name == "UnaryNot":
        v = _ebv(_eval(ctx, e.expr, row))
        return None if v is None else ("bool", not v)
    if name == "Builtin_BOUND":
        return ("bool", row.get(str(e.arg), -1) >= 0)
    if name in ("Builtin_isIRI", "Builtin_isURI", "Builtin_isLITERAL", "Builtin_isBLANK"):
        v = _eval(ctx, e.arg, row)
        if v is None or v[0] == "unbound":
            return None
        kinds = {
            "Builtin_isLITERAL": ("num", "str", "lang", "typed"),
            "Builtin_isBLANK": ("bnode",),
        }
        return ("bool", v[0] in kinds.get(name, ("iri",)))
    if name == "Builtin_sameTerm":
        x, y = _eval(ctx, e.arg1, row), _eval(ctx, e.arg2, row)
        if x is None or y is None or "unbound" in (x[0], y[0]):
            return None
        return ("bool", x == y)
    raise Unsupported(f"expression {name}")


def _ebv(v):
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


def _filter(ctx, e, t: _Table) -> _Table:
    names = sorted(_expr_vars(e, set()) & set(t.cols))
    _eval(ctx, e, {})  # raises Unsupported for any unknown construct, even with no rows
    if t.n == 0:
        return t
    if names:
        first, inv = _rows_unique([t.cols[v] for v in names])
        combos = np.stack([t.cols[v][first] for v in names], axis=1)
    else:
        combos, inv = np.zeros((1, 0), np.int64), np.zeros(t.n, np.int64)
    keep = np.array(
        [_ebv(_eval(ctx, e, dict(zip(names, map(int, c), strict=True)))) is True for c in combos],
        bool,
    )
    return t.take(np.flatnonzero(keep[inv.reshape(-1)]))


# --------------------------------------------------------------------------- ordering
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


def _order_by(ctx, conditions, t: _Table) -> _Table:
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


def _distinct(t: _Table) -> _Table:
    if not t.cols or t.n == 0:
        return t.take(np.arange(min(t.n, 1)))
    first, _ = _rows_unique(list(t.cols.values()))
    return t.take(np.sort(first))


# --------------------------------------------------------------------------- group / count
def _aggregate(ctx, node) -> _Table:
    from rdflib import Variable

    group = node.p
    if getattr(group, "name", None) != "Group":
        raise Unsupported("aggregate without GROUP")
    t = _eval_node(ctx, group.p)
    keys = []
    for g in group.expr or []:
        if not isinstance(g, Variable):
            raise Unsupported("GROUP BY on an expression")
        keys.append(str(g))
    if keys:
        mat = np.stack([t.cols.get(k, np.full(t.n, -1, np.int64)) for k in keys], axis=1)
        first, inv = _rows_unique(list(mat.T))
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
                    first, _ = _rows_unique([inv[ok], col[ok]])
                    counts = np.bincount(inv[ok][first], minlength=ng)
                else:
                    counts = np.bincount(inv[ok], minlength=ng)
            cols[res] = np.array(
                [ctx.intern(f'"{int(c)}"^^<{_XSD}integer>') for c in counts], np.int64
            )
        else:
            raise Unsupported(agg.name.replace("Aggregate_", "").upper())
    maybe = set(cols)
    return _Table(cols, ng, maybe)


# --------------------------------------------------------------------------- algebra
def _eval_node(ctx, node) -> _Table:
    from rdflib import Variable

    name = node.name
    if name == "BGP":
        return _bgp(ctx, node.triples)
    if name == "Join":
        return _join(_eval_node(ctx, node.p1), _eval_node(ctx, node.p2))
    if name == "LeftJoin":
        expr = node.expr
        if expr is not None and getattr(expr, "name", None) != "TrueFilter":
            raise Unsupported("FILTER inside OPTIONAL")
        return _left_join(_eval_node(ctx, node.p1), _eval_node(ctx, node.p2))
    if name == "Union":
        return _union(_eval_node(ctx, node.p1), _eval_node(ctx, node.p2))
    if name == "Filter":
        if getattr(node.expr, "name", None) == "TrueFilter":
            return _eval_node(ctx, node.p)
        return _filter(ctx, node.expr, _eval_node(ctx, node.p))
    if name == "Project":
        t = _eval_node(ctx, node.p)
        cols = {str(v): t.cols.get(str(v), np.full(t.n, -1, np.int64)) for v in node.PV}
        return _Table(cols, t.n, {v for v in cols if v in t.maybe or v not in t.cols})
    if name == "Distinct" or name == "Reduced":
        return _distinct(_eval_node(ctx, node.p))
    if name == "Slice":
        t = _eval_node(ctx, node.p)
        start = node.start or 0
        stop = t.n if node.length is None else min(t.n, start + node.length)
        return t.take(np.arange(min(start, t.n), max(stop, min(start, t.n))))
    if name == "OrderBy":
        return _order_by(ctx, node.expr, _eval_node(ctx, node.p))
    if name == "ToMultiSet":
        return _eval_node(ctx, node.p)
    if name == "AggregateJoin":
        return _aggregate(ctx, node)
    if name == "Extend":
        t = _eval_node(ctx, node.p)
        if not isinstance(node.expr, Variable):
            raise Unsupported("BIND / SELECT expressions")
        src = str(node.expr)
        cols = dict(t.cols)
        cols[str(node.var)] = t.cols.get(src, np.full(t.n, -1, np.int64))
        return _Table(cols, t.n, t.maybe | {str(node.var)})
    names = {
        "Minus": "MINUS",
        "Graph": "GRAPH",
        "values": "VALUES",
        "Group": "GROUP BY",
        "ServiceGraphPattern": "SERVICE",
    }
    raise Unsupported(names.get(name, name))


def run_query(store, text: str):
    """Parse, translate and execute ``text``; returns (variable names, ids by column, ctx)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        query = translateQuery(parseQuery(text))
    except InvalidArgumentError:
        raise
    except Exception as exc:  # pyparsing and rdflib raise several types
        msg = " ".join(str(exc).split()) or type(exc).__name__
        raise InvalidArgumentError(f"SPARQL syntax error: {msg[:200]}") from None
    algebra = query.algebra
    if algebra.name != "SelectQuery":
        raise Unsupported(f"{algebra.name} (only SELECT)")
    if algebra.get("datasetClause"):
        raise Unsupported("FROM / FROM NAMED")
    ctx = _Ctx(store)
    table = _eval_node(ctx, algebra.p)
    variables = [str(v) for v in algebra.PV]
    cols = [table.cols.get(v, np.full(table.n, -1, np.int64)) for v in variables]
    return variables, (cols, table.n, ctx)


def to_table(store, variables, result):
    """The result as a pyarrow Table of N-Triples term strings (null when unbound)."""
    import pyarrow as pa

    cols, _n, ctx = result
    arrays = []
    for col in cols:
        uniq, inv = np.unique(col, return_inverse=True)
        strs = np.array([None if i < 0 else ctx.term(int(i)) for i in uniq], dtype=object)
        arrays.append(pa.array(strs[inv.reshape(-1)] if len(col) else [], type=pa.string()))
    return pa.table(dict(zip(variables, arrays, strict=True)))


def _json_term(key):
    kind, val = _term_value(key)
    if kind == "iri":
        return {"type": "uri", "value": val}
    if kind == "bnode":
        return {"type": "bnode", "value": val}
    lex, lang, dt = _split_literal(key)
    out = {"type": "literal", "value": lex}
    if lang:
        out["xml:lang"] = lang
    elif dt:
        out["datatype"] = dt
    return out


def format_results(variables, table, fmt: str) -> str:
    """W3C SPARQL 1.1 results in ``csv``, ``tsv`` or ``json`` from :func:`to_table`'s output."""
    import csv
    import io
    import json

    rows = (
        list(zip(*[table.column(v).to_pylist() for v in variables], strict=True))
        if variables
        else []
    )
    if fmt == "json":
        bindings = [
            {v: _json_term(k) for v, k in zip(variables, row, strict=True) if k is not None}
            for row in rows
        ]
        return json.dumps({"head": {"vars": variables}, "results": {"bindings": bindings}}) + "\n"
    if fmt == "tsv":
        lines = ["\t".join("?" + v for v in variables)]
        lines += ["\t".join("" if k is None else k for k in row) for row in rows]
        return "\n".join(lines) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\r\n")
        w.writerow(variables)
        for row in rows:
            out = []
            for k in row:
                if k is None:
                    out.append("")
                else:
                    kind, val = _term_value(k)
                    if kind in ("iri",):
                        out.append(val)
                    elif kind == "bnode":
                        out.append("_:" + val)
                    else:
                        out.append(_split_literal(k)[0])
            w.writerow(out)
        return buf.getvalue()
    raise InvalidArgumentError(f"unknown result format {fmt!r} (csv, tsv, json)")
