"""Property paths: ``p``, ``^p``, ``p/q``, ``p|q``, ``p+``, ``p*``, ``p?``, negated
property sets (``!p``, ``!(p|q)``, read backwards as ``^!p``) and their nestings, as
relations (subject, object) over id arrays. Inverses are pushed down to the predicates,
so a path read backwards is the same walk over the POS permutation. A negated set takes
the triples whose predicate is not in the set: one pass over the store, or from a few
sources a binary search per other predicate; an inverse inside the set (``!^p``) raises
``Unsupported``: rdflib's parser drops its IRI. A sequence is a chain of sort-merge joins
(each step looked up only from the objects the previous reached; duplicates kept, as
SPARQL's sequence is a join). ``+``, ``*`` and ``?`` take the edges of their inner path
once (as CSR) and run the compiled breadth-first search of :mod:`._closure` from the
needed sources only: the constant end of the pattern, the values the rest of the query
already gave a variable end, or else every node (``*`` includes each node of the graph,
subject or object, reaching itself)."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.table import Table, match_keys
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = ["is_path", "path_table", "path_tree"]


def is_path(term) -> bool:
    from rdflib.paths import Path

    return isinstance(term, Path)


def path_tree(ctx, path, inv=False):
    """The path as nested tuples with inverses pushed to the leaves."""
    from rdflib import URIRef
    from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath

    from hpgraph.rdf.parse import term_key

    if isinstance(path, URIRef):
        return ("edge", ctx.store.lookup(term_key(path)), inv)
    if isinstance(path, InvPath):
        return path_tree(ctx, path.arg, not inv)
    if isinstance(path, SequencePath):
        parts = [path_tree(ctx, a, inv) for a in path.args]
        return ("seq", parts[::-1] if inv else parts)
    if isinstance(path, AlternativePath):
        return ("alt", [path_tree(ctx, a, inv) for a in path.args])
    if isinstance(path, MulPath):
        return ("mul", path_tree(ctx, path.path, inv), path.mod)
    if isinstance(path, NegatedPath):
        forward = [a for a in path.args if isinstance(a, URIRef)]
        backward = [a.arg for a in path.args if isinstance(a, InvPath)]
        if len(forward) + len(backward) != len(path.args) or not all(
            isinstance(a, URIRef) for a in backward
        ):  # rdflib's grammar without the fix of .grammar: ``^`` without its IRI
            raise Unsupported("inverse in a negated property set (!^p, !(p|^q))")
        parts = [
            ("neg", [ctx.store.lookup(term_key(a)) for a in group], flip)
            for group, flip in ((forward, inv), (backward, not inv))
            if group
        ]
        return parts[0] if len(parts) == 1 else ("alt", parts)
    raise Unsupported(f"{type(path).__name__.replace('Path', '').lower()} property path")


def _edges(graph, pid, inv, src):
    """(s, o) of predicate ``pid`` read forwards or backwards, from ``src`` if given."""
    if pid not in graph.pred_range:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    a, b = graph.pred_range[pid]
    rows = graph.pos[a:b] if inv else graph.pso[a:b]
    first, second = (2, 0) if inv else (0, 2)
    if src is not None:
        key = rows[:, first]
        lo = np.searchsorted(key, src, "left")
        cnt = np.searchsorted(key, src, "right") - lo
        idx = np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        rows = rows[idx]
    return np.ascontiguousarray(rows[:, first]), np.ascontiguousarray(rows[:, second])


def _negated(graph, excluded, inv, src):
    """(s, o) of every triple whose predicate is not ``excluded``: from few sources, a
    binary search per other predicate; else one pass over the graph."""
    if src is not None and len(graph.pred_range) * (len(src) + 64) < len(graph.pso):
        parts = [_edges(graph, p, inv, src) for p in graph.pred_range if p not in excluded]
        if not parts:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])
    rows = graph.pso
    first, second = (2, 0) if inv else (0, 2)
    keep = ~np.isin(rows[:, 1], np.array(excluded, np.int64))
    if src is not None:
        keep &= np.isin(rows[:, first], src)
    return rows[keep, first], rows[keep, second]


def _closure(ctx, inner, mod, src):
    from hpgraph.rdf.sparql._closure import reach

    es, eo = _relation(ctx, inner, None)
    nodes = np.unique(np.concatenate([es, eo]))
    ls, lo = np.searchsorted(nodes, es), np.searchsorted(nodes, eo)
    order = np.argsort(ls, kind="stable")
    indptr = np.zeros(len(nodes) + 1, np.int64)
    np.cumsum(np.bincount(ls, minlength=len(nodes)), out=indptr[1:])
    indices = lo[order].astype(np.int64)
    if src is None:
        src = np.unique(es) if mod == "+" else ctx.graph.nodes
    local = np.full(len(src), -1, np.int64)
    if len(nodes):
        pos = np.minimum(np.searchsorted(nodes, src), len(nodes) - 1)
        local = np.where(nodes[pos] == src, pos, -1)
    k, v = reach(indptr, indices, local, mod != "+", mod == "?")
    dst = src[k].copy()
    dst[v >= 0] = nodes[v[v >= 0]]
    return src[k], dst


def _relation(ctx, node, src):
    """(s, o) id arrays of a path tree, only pairs with s in ``src`` (sorted) if given."""
    kind = node[0]
    if kind == "edge":
        return _edges(ctx.graph, node[1], node[2], src)
    if kind == "neg":
        return _negated(ctx.graph, node[1], node[2], src)
    if kind == "alt":
        parts = [_relation(ctx, p, src) for p in node[1]]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    if kind == "seq":
        s, o = _relation(ctx, node[1][0], src)
        for part in node[1][1:]:
            ns, no = _relation(ctx, part, np.unique(o))
            ia, ib = match_keys(o, ns)
            s, o = s[ia], no[ib]
        return s, o
    return _closure(ctx, node[1], node[2], src)


def path_table(ctx, s, path, o, bound: Table) -> Table:
    """The solutions of the pattern ``s path o`` (ints: ids, strs: variables), starting
    from the values ``bound`` (the query's solutions so far) gives a variable end."""
    s_var, o_var = isinstance(s, str), isinstance(o, str)
    sure = set(bound.cols) - bound.maybe
    flip, src = False, None
    if not s_var:
        src = np.array([s], np.int64)
    elif not o_var:
        flip, src = True, np.array([o], np.int64)
    elif s in sure:
        src = np.unique(bound.cols[s])
    elif o in sure:
        flip, src = True, np.unique(bound.cols[o])
    tree = path_tree(ctx, path, inv=flip)
    a, b = _relation(ctx, tree, src)
    if flip:
        a, b = b, a
    keep = np.ones(len(a), bool)
    if not o_var:
        keep &= b == o
    if not s_var:
        keep &= a == s
    if s_var and o_var and s == o:
        keep &= a == b
    a, b = a[keep], b[keep]
    cols = {}
    if o_var:
        cols[o] = b
    if s_var:
        cols[s] = a
    return Table(cols, len(a))
