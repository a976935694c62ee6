"""The query forms besides SELECT: a query's result, and the triples CONSTRUCT and DESCRIBE
build from a solution table.

CONSTRUCT instantiates its template once per solution (in solution order, so ORDER BY
with LIMIT chooses which solutions count): a blank node of the template is a new blank
node per solution, and an instance with an unbound variable, a literal subject or a
predicate that is not an IRI is left out (SPARQL 1.1, 16.2). The result is an RDF graph:
each triple once. ``CONSTRUCT WHERE { BGP }`` uses the BGP as its template.

DESCRIBE returns, as pyoxigraph does, every triple of the default graph whose subject is
one of the described resources (the values of the variables named, and the IRIs named
when the WHERE clause has a solution: pyoxigraph describes them per solution),
and, recursively, every triple whose subject is a blank node reached as an object: the
concise bounded description without its reification part. Triples where the resource is
the object are not included."""

from __future__ import annotations

import uuid

import numpy as np

from hpgraph.rdf.sparql.table import Table, rows_unique
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = ["Result", "construct", "describe"]

TRIPLE_COLUMNS = ["subject", "predicate", "object"]


class Result:
    """A query's answer. ``kind``: ``"select"``, ``"ask"`` or ``"graph"`` (CONSTRUCT and
    DESCRIBE: columns subject, predicate, object); ``solutions``: (id columns, rows, ctx)
    for :func:`~hpgraph.rdf.sparql.results.to_table`; ``boolean``: ASK's answer."""

    def __init__(self, kind, variables, solutions, boolean=None):
        self.kind = kind
        self.variables = variables
        self.solutions = solutions
        self.boolean = boolean


def _graph_result(ctx, s, p, o) -> Result:
    """The distinct (s, p, o) rows, in order of first appearance."""
    if len(s):
        first, _ = rows_unique([s, p, o])
        keep = np.sort(first)
        s, p, o = s[keep], p[keep], o[keep]
    return Result("graph", list(TRIPLE_COLUMNS), ([s, p, o], len(s), ctx))


def _template(node):
    """The BGP triples of ``CONSTRUCT WHERE { ... }`` (rdflib gives no template)."""
    while node is not None and node.name != "BGP":
        if node.name not in ("Project", "Slice", "OrderBy", "Distinct", "Reduced"):
            raise Unsupported("CONSTRUCT WHERE with a pattern that is not a basic graph pattern")
        node = node.p
    return [] if node is None else node.triples


def construct(ctx, template, where, table: Table) -> Result:
    """The triples of ``template`` (rdflib triples; None: ``CONSTRUCT WHERE``) instantiated
    by each row of ``table``."""
    from rdflib import BNode, Variable

    from hpgraph.rdf.parse import term_key

    if template is None:
        template = _template(where)
    token = uuid.uuid4().hex[:12]
    labels: dict[str, int] = {}
    parts = []
    for triple in template:
        cols = []
        for t in triple:
            if isinstance(t, Variable):
                cols.append(table.column(str(t)))
            elif isinstance(t, BNode):
                j = labels.setdefault(str(t), len(labels))
                keys = [f"_:c{token}n{j}r{r}" for r in range(table.n)]
                cols.append(np.array([ctx.intern(k) for k in keys], np.int64).reshape(-1))
            else:
                cols.append(np.full(table.n, ctx.intern(term_key(t)), np.int64))
        parts.append(cols)
    if not parts or table.n == 0:
        empty = np.empty(0, np.int64)
        return _graph_result(ctx, empty, empty, empty)
    s, p, o = (np.concatenate([c[i] for c in parts]) for i in range(3))
    keep = (s >= 0) & (p >= 0) & (o >= 0)
    s, p, o = s[keep], p[keep], o[keep]
    kinds = _kinds(ctx, np.concatenate([s, p]))
    keep = (kinds[: len(s)] != '"') & (kinds[len(s) :] == "<")
    return _graph_result(ctx, s[keep], p[keep], o[keep])


def _kinds(ctx, ids):
    """The first character of each id's term: ``<`` IRI, ``_`` blank node, ``"`` literal."""
    uniq, inv = np.unique(ids, return_inverse=True)
    first = np.array([ctx.term(int(i))[0] for i in uniq], dtype="<U1")
    return first[inv.reshape(-1)] if len(ids) else np.empty(0, "<U1")


def describe(ctx, resources, table: Table) -> Result:
    """The triples describing ``resources`` (rdflib IRIs and variables; a variable's values
    come from ``table``) in the default graph."""
    from rdflib import Variable

    from hpgraph.rdf.parse import term_key

    found = []
    for r in resources:
        if isinstance(r, Variable):
            found.append(table.cols.get(str(r), np.empty(0, np.int64)))
        elif table.n:  # as pyoxigraph: an IRI is described once per solution, so not without one
            found.append(np.array([ctx.store.lookup(term_key(r))], np.int64))
    todo = np.unique(np.concatenate(found)) if found else np.empty(0, np.int64)
    todo = todo[todo >= 0]
    pso = ctx.graph.pso
    seen = np.empty(0, np.int64)
    out = []
    while len(todo):
        seen = np.union1d(seen, todo)
        rows = pso[np.isin(pso[:, 0], todo)]
        out.append(rows)
        objects = np.unique(rows[:, 2])
        objects = objects[~np.isin(objects, seen)]
        todo = objects[_kinds(ctx, objects) == "_"] if len(objects) else objects
    rows = np.concatenate(out) if out else np.empty((0, 3), np.int64)
    return _graph_result(ctx, rows[:, 0].copy(), rows[:, 1].copy(), rows[:, 2].copy())
