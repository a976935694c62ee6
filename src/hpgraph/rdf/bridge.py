"""Given a store, predicates and one of its RDF graphs (default: the default graph),
returns the subgraph of those triples as an ``hpgraph.graph.Graph`` whose vertex ids are
the terms (IRIs, blank nodes)."""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__ = ["subgraph"]


def subgraph(store, predicates, *, directed=True, graph=None):
    from hpgraph.graph.csr import Graph

    triples = store.graph(graph)
    if isinstance(predicates, str):
        predicates = [predicates]
    parts = []
    for iri in predicates:
        key = iri if iri.startswith("<") else "<" + iri + ">"
        pid = store.lookup(key)
        if pid < 0 or pid not in triples.pred_range:
            where = "the store" if graph is None else f"graph {graph}"
            raise InvalidArgumentError(f"predicate {key} is not in {where}")
        a, b = triples.pred_range[pid]
        parts.append(triples.pso[a:b])
    edges = np.concatenate(parts)
    is_lit = np.fromiter((t.startswith('"') for t in store.terms), bool, len(store.terms))
    edges = edges[~is_lit[edges[:, 2]]]
    verts, inv = np.unique(np.concatenate([edges[:, 0], edges[:, 2]]), return_inverse=True)
    m = len(edges)
    ids = np.array(  # object dtype: string ids, as the graph writers expect
        [store.terms[v][1:-1] if store.terms[v].startswith("<") else store.terms[v] for v in verts],
        dtype=object,
    )
    return Graph.from_edges(inv[:m], inv[m:], n=len(verts), directed=directed, ids=ids)
