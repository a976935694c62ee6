"""Basic graph patterns: each triple pattern a binary-searched range of the PSO or POS
permutation, patterns joined smallest first (exact counts), connected ones preferred."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.table import Table, join
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = ["scan", "bgp"]


def scan(ctx, s, p, o) -> Table:
    """One triple pattern: terms are ints (ids) or str (variable names)."""
    store = ctx.store
    empty = Table({v: np.empty(0, np.int64) for v in (s, p, o) if isinstance(v, str)}, 0)
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
    return Table({v: np.ascontiguousarray(rows[:, c]) for v, c in seen.items()}, len(rows))


def bgp(ctx, triples) -> Table:
    from rdflib import Variable

    if not triples:
        return Table({}, 1)
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
        parts.append(scan(ctx, *terms))
    # join smallest first, preferring patterns connected to what is joined already
    parts.sort(key=lambda t: t.n)
    result = parts.pop(0)
    while parts:
        bound = set(result.cols)
        connected = [i for i, t in enumerate(parts) if bound & set(t.cols)]
        i = connected[0] if connected else 0
        result = join(result, parts.pop(i))
    return result
