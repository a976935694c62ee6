"""Solution tables (columns of term ids, -1 unbound) and their joins: sort-merge inner
join, left join (OPTIONAL), union; row keys folded to one int64."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.terms import Unsupported

__all__ = ["Table", "fold", "rows_unique", "join", "left_join", "union"]


class Table:
    """Columns var -> int64 ids; ``maybe`` are variables that may be unbound (-1)."""

    def __init__(self, cols, n, maybe=frozenset()):
        self.cols = cols
        self.n = n
        self.maybe = set(maybe)

    def take(self, idx):
        return Table({k: v[idx] for k, v in self.cols.items()}, len(idx), self.maybe)


def fold(columns):
    """One int64 key per row, equal exactly where all ``columns`` (id arrays >= -1) are."""
    key = columns[0] + 1
    for col in columns[1:]:
        width = int(col.max(initial=-1)) + 2
        if int(key.max(initial=0)) >= (1 << 62) // max(width, 1):
            key = np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
        key = key * width + (col + 1)
    return key


def rows_unique(columns):
    """(first row of each distinct row, dense row id per row) of a list of columns."""
    uniq, first, inv = np.unique(fold(columns), return_index=True, return_inverse=True)
    return first, inv.reshape(-1)


def _keys(a: Table, b: Table, shared):
    """One int64 key per row of a and of b, equal where the shared variables are."""
    if len(shared) == 1:
        return a.cols[shared[0]], b.cols[shared[0]]
    both = fold([np.concatenate([a.cols[v], b.cols[v]]) for v in shared])
    return both[: a.n], both[a.n :]


def _match(a: Table, b: Table, shared):
    """Sort-merge join: row index pairs (ia, ib) whose shared variables are equal. The
    smaller side is sorted and the larger one binary-searched in it."""
    ka, kb = _keys(a, b, shared)
    if len(ka) < len(kb):
        ib, ia = _probe(ka, kb)
        return ia, ib
    return _probe(kb, ka)


def _probe(build, probe):
    """Index pairs (i in probe, j in build) with equal keys, grouped by i."""
    order = np.argsort(build, kind="stable")
    sk = build[order]
    lo = np.searchsorted(sk, probe, "left")
    hi = np.searchsorted(sk, probe, "right")
    cnt = hi - lo
    ip = np.repeat(np.arange(len(probe), dtype=np.int64), cnt)
    start = np.repeat(lo - np.concatenate([[0], np.cumsum(cnt)[:-1]]), cnt)
    ib = order[start + np.arange(len(ip))] if len(ip) else np.empty(0, np.int64)
    return ip, ib


def _combine(a, b, ia, ib, maybe):
    cols = {k: v[ia] for k, v in a.cols.items()}
    for k, v in b.cols.items():
        if k not in cols:
            cols[k] = np.where(ib >= 0, v[np.maximum(ib, 0)] if len(v) else -1, -1)
    return Table(cols, len(ia), maybe)


def join(a: Table, b: Table) -> Table:
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
        return Table(cols, a.n * b.n, maybe)
    ia, ib = _match(a, b, shared)
    return _combine(a, b, ia, ib, maybe)


def left_join(a: Table, b: Table) -> Table:
    shared = [v for v in a.cols if v in b.cols]
    for v in shared:
        if v in a.maybe or v in b.maybe:
            raise Unsupported(f"OPTIONAL joining on variable ?{v} that may be unbound")
    maybe = a.maybe | b.maybe | (set(b.cols) - set(a.cols))
    if not shared:
        if b.n == 0:
            cols = dict(a.cols)
            cols.update({k: np.full(a.n, -1, np.int64) for k in b.cols})
            return Table(cols, a.n, maybe)
        t = join(a, b)
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


def union(a: Table, b: Table) -> Table:
    names = list(a.cols) + [v for v in b.cols if v not in a.cols]
    cols = {}
    for v in names:
        x = a.cols.get(v, np.full(a.n, -1, np.int64))
        y = b.cols.get(v, np.full(b.n, -1, np.int64))
        cols[v] = np.concatenate([x, y])
    maybe = a.maybe | b.maybe | (set(a.cols) ^ set(b.cols))
    return Table(cols, a.n + b.n, maybe)
