"""Basic graph patterns. Each triple pattern is a row range of the PSO or POS permutation,
binary-searched on its constants (a view, no copy); patterns are joined smallest first
(the exact range lengths are the statistics), always one connected to what is joined
already. A pattern much larger than the part joined so far is not scanned: the distinct
values the joined part gives a shared variable are binary-searched in the permutation
sorted by that variable (an index nested-loop join) and only those rows are joined.

A BGP joined with a table the query computed elsewhere (a VALUES block, a sub-SELECT, the
bindings an EXISTS tests) takes that table as a *seed*: one more relation in the join
order, by its row count, so a small seed is joined first and narrows the lookups of the
patterns after it."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.paths import is_path, path_table
from hpgraph.rdf.sparql.table import Table, join
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = ["bgp"]

#: A pattern is looked up rather than scanned when it has this many times more rows than
#: the joined part.
LOOKUP_RATIO = 8


class _Pattern:
    """One triple pattern over a graph (:class:`~hpgraph.rdf.triples.Triples`): terms are
    ints (ids) or str (variable names); ``g``: the variable naming the graph of each row,
    over the quads of several graphs (``GRAPH ?g { ... }``)."""

    def __init__(self, graph, s, p, o, g=None):
        self.graph = graph
        self.terms = (s, p, o)
        self.columns = [*enumerate(self.terms), *([(3, g)] if g is not None else [])]
        self.vars = {t for _, t in self.columns if isinstance(t, str)}
        self.rows = graph.pso[:0]
        if any(isinstance(t, int) and t < 0 for t in self.terms):
            return
        if isinstance(p, int):
            if p not in graph.pred_range:
                return
            a, b = graph.pred_range[p]
            if isinstance(s, int):
                rows = graph.pso[a:b]
                lo, hi = np.searchsorted(rows[:, 0], [s, s + 1])
                rows = rows[lo:hi]
            else:
                rows = graph.pos[a:b]
                if isinstance(o, int):
                    lo, hi = np.searchsorted(rows[:, 2], [o, o + 1])
                    rows = rows[lo:hi]
        else:
            rows = graph.pso
        self.rows = rows

    @property
    def n(self) -> int:
        return len(self.rows)

    def table(self, rows=None) -> Table:
        """The solutions of the pattern among ``rows`` (default: its whole range)."""
        rows = self.rows if rows is None else rows
        mask = np.ones(len(rows), bool)
        seen = {}
        for col, t in self.columns:
            if isinstance(t, int):
                mask &= rows[:, col] == t
            elif t in seen:
                mask &= rows[:, col] == rows[:, seen[t]]
            else:
                seen[t] = col
        if not mask.all():
            rows = rows[mask]
        return Table({v: np.ascontiguousarray(rows[:, c]) for v, c in seen.items()}, len(rows))

    def lookup(self, var, values):
        """The solutions whose ``var`` is one of the sorted ``values``, found by binary
        search; None where no permutation range is sorted by ``var``."""
        s, p, o = self.terms
        if not isinstance(p, int) or self.n == 0:
            return None
        a, b = self.graph.pred_range[p]
        if var == s:  # (p, o) range of POS, or p range of PSO: sorted by s
            rows, col = (self.rows if isinstance(o, int) else self.graph.pso[a:b]), 0
        elif var == o:  # (p, s) range of PSO, or p range of POS: sorted by o
            rows, col = (self.rows if isinstance(s, int) else self.graph.pos[a:b]), 2
        else:
            return None
        lo = np.searchsorted(rows[:, col], values, "left")
        cnt = np.searchsorted(rows[:, col], values, "right") - lo
        idx = np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        return self.table(rows[idx])


def _terms(ctx, triple, intern=False):
    """Variable names and term ids of a triple pattern; a constant absent from the store is
    -1, or with ``intern`` a new id (a zero-length path still reaches it)."""
    from rdflib import Variable

    from hpgraph.rdf.parse import term_key

    terms = []
    for t in triple:
        if isinstance(t, Variable):
            terms.append(str(t))
        elif type(t).__name__ == "BNode":
            terms.append("_bnode_" + str(t))  # blank node in a query acts as a variable
        elif hasattr(t, "n3") and type(t).__name__ in ("URIRef", "Literal"):
            key = term_key(t)
            terms.append(ctx.intern(key) if intern else ctx.store.lookup(key))
        else:
            raise Unsupported(f"term {t!r} in a triple pattern")
    return terms


class _Seed:
    """A solution table taking part in a BGP's join order like a pattern."""

    def __init__(self, table: Table):
        self.seed = table
        self.vars = set(table.cols)
        self.n = table.n

    def table(self) -> Table:
        return self.seed


def bgp(ctx, triples, seed: Table | None = None) -> Table:
    """The solutions of a BGP (joined with ``seed`` if given): its triple patterns joined,
    then its property-path patterns (each walked from what the patterns before it bound)."""
    paths = [t for t in triples if is_path(t[1])]
    triples = [t for t in triples if not is_path(t[1])]
    result = _patterns(ctx, triples, seed)
    for s, path, o in paths:
        s, o = _terms(ctx, (s, o), intern=True)
        result = join(result, path_table(ctx, s, path, o, result))
    return result


def _patterns(ctx, triples, seed) -> Table:
    patterns = [_Pattern(ctx.graph, *_terms(ctx, t), ctx.graph_var) for t in triples]
    if seed is not None:
        patterns.append(_Seed(seed))
    if not patterns:
        return Table({}, 1)
    patterns.sort(key=lambda t: t.n)
    result = patterns.pop(0).table()
    while patterns:
        bound = set(result.cols)
        connected = [i for i, t in enumerate(patterns) if bound & t.vars]
        pattern = patterns.pop(connected[0] if connected else 0)
        part = None
        if connected and result.n * LOOKUP_RATIO < pattern.n and isinstance(pattern, _Pattern):
            for var in sorted((pattern.vars & bound) - result.maybe):
                part = pattern.lookup(var, np.unique(result.cols[var]))
                if part is not None:
                    break
        result = join(result, pattern.table() if part is None else part)
    return result
