"""Basic graph patterns. Each triple pattern is a row range of the PSO or POS permutation,
binary-searched on its constants (a view, no copy); patterns are joined smallest first
(the exact range lengths are the statistics), always one connected to what is joined
already. A pattern much larger than the part joined so far is not scanned: the distinct
values the joined part gives a shared variable are binary-searched in the permutation
sorted by that variable (an index nested-loop join) and only those rows are joined.

A BGP joined with a table the query computed elsewhere (a VALUES block, a sub-SELECT, the
bindings an EXISTS tests) takes that table as a *seed*: one more relation in the join
order, by its row count, so a small seed is joined first and narrows the lookups of the
patterns after it.

The MPI executor (:mod:`hpgraph.rdf.mpi`) builds on the same pieces: the plan
(:func:`bgp_plan`, :func:`pattern_terms`), the patterns over a rank's own rows
(:class:`Pattern`, :func:`pattern_over`, :class:`Seed`) and :func:`join_pattern`."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.paths import is_path, path_table
from hpgraph.rdf.sparql.table import Table, join
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = [
    "bgp",
    "bgp_plan",
    "join_pattern",
    "join_patterns",
    "Pattern",
    "pattern_over",
    "pattern_terms",
    "Seed",
]

#: A pattern is looked up rather than scanned when it has this many times more rows than
#: the joined part.
LOOKUP_RATIO = 8
#: How many BGP plans a store, and how many patterns a graph, keeps (then all are dropped).
PLANS_KEPT = 4096
#: A pattern keeps its whole range's solution table up to this many rows.
KEEP_TABLE = 64


class Pattern:
    """One triple pattern over a graph (:class:`~hpgraph.rdf.triples.Triples`): terms are
    ints (ids) or str (variable names); ``g``: the variable naming the graph of each row,
    over the quads of several graphs (``GRAPH ?g { ... }``). Built once per graph and
    terms (:func:`pattern_over`): it only reads the graph's arrays."""

    def __init__(self, graph, s, p, o, g=None):
        self.graph = graph
        self.terms = (s, p, o)
        self.columns = [*enumerate(self.terms), *([(3, g)] if g is not None else [])]
        self.vars = {t for _, t in self.columns if isinstance(t, str)}
        self.rows = graph.pso[:0]
        sure = set()  # columns whose constant every row of the range has
        absent = any(isinstance(t, int) and t < 0 for t in self.terms)  # no rows
        if not absent and isinstance(p, int):
            if p in graph.pred_range:
                a, b = graph.pred_range[p]
                sure.add(1)
                if isinstance(s, int):
                    rows = graph.pso[a:b]
                    lo, hi = np.searchsorted(rows[:, 0], [s, s + 1])
                    self.rows = rows[lo:hi]
                    sure.add(0)
                else:
                    rows = graph.pos[a:b]
                    if isinstance(o, int):
                        lo, hi = np.searchsorted(rows[:, 2], [o, o + 1])
                        rows = rows[lo:hi]
                        sure.add(2)
                    self.rows = rows
        elif not absent:
            self.rows = graph.pso
        self._sorted = {}  # variable -> _sorted_by(variable)
        self._table = None  # table() of the whole range, when small
        self.seen = {}  # variable -> its first column
        self.checks = []  # (column, constant id or other column) a row must match
        for col, t in self.columns:
            if isinstance(t, int):
                if col not in sure:
                    self.checks.append((col, t, False))
            elif t in self.seen:
                self.checks.append((col, self.seen[t], True))
            else:
                self.seen[t] = col

    @property
    def n(self) -> int:
        return len(self.rows)

    def table(self, rows=None) -> Table:
        """The solutions of the pattern among ``rows`` (default: its whole range; the
        rows :meth:`lookup` picks from have the range's constants too). The whole
        range's table is kept when it is small (read-only columns: a selective query's
        first pattern, built once, not per run)."""
        if rows is None:
            if self._table is not None:
                return self._table
            table = self._table_of(self.rows)
            if table.n <= KEEP_TABLE:
                for col in table.cols.values():
                    col.flags.writeable = False
                self._table = table
            return table
        return self._table_of(rows)

    def _table_of(self, rows) -> Table:
        if self.checks:
            mask = np.ones(len(rows), bool)
            for col, other, is_col in self.checks:
                mask &= rows[:, col] == (rows[:, other] if is_col else other)
            if not mask.all():
                rows = rows[mask]
        return Table({v: np.ascontiguousarray(rows[:, c]) for v, c in self.seen.items()}, len(rows))

    def lookup(self, var, values):
        """The solutions whose ``var`` is one of the sorted ``values``, found by binary
        search; None where no permutation range is sorted by ``var``."""
        sorted_by = self._sorted.get(var)
        if sorted_by is None:
            sorted_by = self._sorted[var] = self._sorted_by(var)
        if sorted_by is False:
            return None
        rows, keys = sorted_by
        lo = keys.searchsorted(values, "left")  # array methods: numpy's function forms
        cnt = keys.searchsorted(values, "right") - lo  # cost 1-3 us more each
        if cnt.max(initial=0) <= 1:  # each value in at most one row
            return self._table_of(rows[lo[cnt > 0]])
        ends = cnt.cumsum()
        idx = (lo - ends + cnt).repeat(cnt) + np.arange(ends[-1])
        return self._table_of(rows[idx])

    def extend(self, result: Table, var):
        """``result`` joined with the pattern, ``var`` its only shared variable, found by
        binary search of each row's value; None where that would not give the rows of
        :meth:`lookup` + ``join`` in the same order: a value in several rows of the
        pattern while ``var`` is not strictly increasing in ``result`` (with at most one
        row per value both give ``result``'s order), a range not sorted by ``var``, rows
        to check for constants."""
        sorted_by = self._sorted.get(var)
        if sorted_by is None:
            sorted_by = self._sorted[var] = self._sorted_by(var)
        if sorted_by is False or self.checks:
            return None
        rows, keys = sorted_by
        x = result.cols[var]
        lo = keys.searchsorted(x, "left")
        cnt = keys.searchsorted(x, "right") - lo
        # a few rows: Python's min/max of a list cost less than numpy's reductions
        least, most = (min(c), max(c)) if 0 < len(c := cnt.tolist()) <= 64 else (0, None)
        if most is None:
            most = cnt.max(initial=0)
        if least == most == 1:  # each row has exactly one partner: result's rows kept
            cols = dict(result.cols)
            idx = lo
        else:
            if most <= 1:
                ia = cnt.nonzero()[0]
                idx = lo[ia]
            elif (x[1:] > x[:-1]).all():
                ends = cnt.cumsum()
                ia = np.arange(len(x)).repeat(cnt)
                idx = (lo - ends + cnt).repeat(cnt) + np.arange(ends[-1])
            else:
                return None
            cols = {k: v[ia] for k, v in result.cols.items()}
        for v, c in self.seen.items():
            if v != var:
                cols[v] = rows[idx, c]
        return Table(cols, len(idx), result.maybe)

    def _sorted_by(self, var):
        """(rows, their ``var`` column) of the permutation range sorted by ``var``, or
        False where there is none."""
        s, p, o = self.terms
        if not isinstance(p, int) or self.n == 0:
            return False
        a, b = self.graph.pred_range[p]
        if var == s:  # (p, o) range of POS, or p range of PSO: sorted by s
            rows, col = (self.rows if isinstance(o, int) else self.graph.pso[a:b]), 0
        elif var == o:  # (p, s) range of PSO, or p range of POS: sorted by o
            rows, col = (self.rows if isinstance(s, int) else self.graph.pos[a:b]), 2
        else:
            return False
        return rows, rows[:, col]


def pattern_terms(ctx, triple, intern=False):
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


class Seed:
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
    cluster = ctx.store.cluster
    if cluster is not None:  # the store is spread over MPI ranks (hpgraph.rdf.mpi)
        return cluster.bgp(ctx, triples, seed)
    paths, terms = bgp_plan(ctx, triples)
    result = join_patterns(ctx.graph, ctx.graph_var, terms, seed)
    for s, path, o in paths:
        s, o = pattern_terms(ctx, (s, o), intern=True)
        result = join(result, path_table(ctx, s, path, o, result))
    return result


def bgp_plan(ctx, triples):
    """The BGP ``triples`` split into its property-path patterns and the term ids of its
    other patterns, kept per store for the translated query (as a prepared statement
    keeps its plan): the ids of the constants are looked up once, not per run. Keyed by
    the algebra's list of triples, held by the entry so that its id is not reused."""
    plans = ctx.store.plans
    entry = plans.get(id(triples))
    if entry is not None and entry[0] is triples:
        return entry[1]
    plan = (
        [t for t in triples if is_path(t[1])],
        [tuple(pattern_terms(ctx, t)) for t in triples if not is_path(t[1])],
    )
    if len(plans) >= PLANS_KEPT:
        plans.clear()
    plans[id(triples)] = (triples, plan)
    return plan


def pattern_over(graph, terms, graph_var) -> Pattern:
    """The pattern of ``terms`` over ``graph``, kept in the graph's memo: its row range
    is binary-searched once per graph, not per query."""
    key = (*terms, graph_var)
    pattern = graph.memo.get(key)
    if pattern is None:
        if len(graph.memo) >= PLANS_KEPT:
            graph.memo.clear()
        pattern = graph.memo[key] = Pattern(graph, *terms, graph_var)
    return pattern


def join_patterns(graph, graph_var, terms, seed) -> Table:
    """The patterns of ``terms`` (and ``seed``) over ``graph`` joined in :func:`_order`;
    without a seed the order depends on the graph's pattern sizes only and is kept in the
    graph's memo with the patterns (keyed by the plan's list of terms, held by the
    entry)."""
    if seed is None:
        key = ("order", id(terms), graph_var)
        entry = graph.memo.get(key)
        if entry is None or entry[0] is not terms:
            entry = (terms, _order([pattern_over(graph, t, graph_var) for t in terms]))
            if len(graph.memo) >= PLANS_KEPT:
                graph.memo.clear()
            graph.memo[key] = entry
        patterns = entry[1]
    else:
        patterns = _order([*(pattern_over(graph, t, graph_var) for t in terms), Seed(seed)])
    if not patterns:
        return Table({}, 1)
    result = patterns[0].table()
    for pattern in patterns[1:]:
        result = join_pattern(result, pattern)
    return result


def _order(patterns) -> list:
    """Patterns (and seeds) in join order: the smallest first, then always the smallest
    one sharing a variable with those before it (the smallest of the rest where none
    does)."""
    rest = sorted(patterns, key=lambda t: t.n)
    if not rest:
        return rest
    order = [rest.pop(0)]
    bound = set(order[0].vars)
    while rest:
        connected = [i for i, t in enumerate(rest) if bound & t.vars]
        order.append(rest.pop(connected[0] if connected else 0))
        bound |= order[-1].vars
    return order


def join_pattern(result: Table, pattern) -> Table:
    """``result`` joined with a pattern (or a seed): a pattern much larger than
    ``result`` is looked up from ``result``'s values of a shared variable, not scanned.
    The MPI executor (:mod:`hpgraph.rdf.mpi`) joins each rank's rows with it too."""
    part = joined = None
    if result.n * LOOKUP_RATIO < pattern.n and isinstance(pattern, Pattern):
        shared = pattern.vars & set(result.cols)
        for var in sorted(shared - result.maybe):
            if shared == {var}:
                joined = pattern.extend(result, var)
                if joined is not None:
                    break
            part = pattern.lookup(var, _distinct(result.cols[var]))
            if part is not None:
                break
    if joined is None:
        joined = join(result, pattern.table() if part is None else part)
    return joined


def _distinct(col):
    """The sorted distinct values of an id column (a Python set below 64 values, where
    ``np.unique``'s fixed cost is most of the work)."""
    if len(col) <= 64:
        return np.array(sorted(set(col.tolist())), np.int64)
    return np.unique(col)
