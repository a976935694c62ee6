"""Graph views (hpgraph.graph.views) against NetworkX on every test shape: the simple
view, the both-directions rows, the locality renumbering, and the caching."""

from __future__ import annotations

from collections import deque

import networkx as nx
import numpy as np
import pytest

from conftest import SHAPE_CASES, make_shape
from hpgraph.graph import Graph
from hpgraph.graph.views import locality_view, simple_rows, simple_view


@pytest.mark.parametrize("shape, directed, weighted", SHAPE_CASES)
def test_simple_view_is_networkx_simple_graph(shape, directed, weighted):
    g = make_shape(shape, directed, weighted)
    src, dst, _ = g.edges()
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    G.add_edges_from((int(a), int(b)) for a, b in zip(src, dst, strict=True) if a != b)
    ip, ix = simple_view(g)
    for v in range(g.n):
        assert ix[ip[v] : ip[v + 1]].tolist() == sorted(G[v])
    assert simple_view(g)[1] is ix and not ix.flags.writeable  # cached, read-only
    # both directions: a reciprocal pair of a directed graph counts twice
    bp, bx = simple_rows(g, both_directions=True)
    for v in range(g.n):
        want = sorted(G[v])
        if directed:
            out = {int(w) for u, w in zip(src, dst, strict=True) if u == v and w != v}
            inn = {int(u) for u, w in zip(src, dst, strict=True) if w == v and u != v}
            want = sorted([u for u in want if u in out] + [u for u in want if u in inn])
        assert bx[bp[v] : bp[v + 1]].tolist() == want


@pytest.mark.parametrize("shape", ["components", "random", "star_isolated"])
def test_locality_view_is_a_renumbering_of_the_simple_view(shape):
    g = make_shape(shape, False, False)
    ip, ix = simple_view(g)
    order, lp, lx = locality_view(g)
    n = g.n
    assert sorted(order.tolist()) == list(range(n))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    for i in range(n):  # row i is the simple row of order[i], renamed, same order
        v = order[i]
        assert lx[lp[i] : lp[i + 1]].tolist() == rank[ix[ip[v] : ip[v + 1]]].tolist()
    want, seen = [], np.zeros(n, dtype=bool)  # breadth-first from the top degree, then
    for r in ([int(np.argmax(np.diff(ip)))] if n else []) + list(range(n)):  # by smallest
        if seen[r]:
            continue
        seen[r], queue = True, deque([r])
        while queue:
            v = queue.popleft()
            want.append(v)
            for u in ix[ip[v] : ip[v + 1]].tolist():
                if not seen[u]:
                    seen[u] = True
                    queue.append(u)
    assert order.tolist() == want


def test_check_weights_names_the_first_bad_edge():
    from hpgraph.errors import InvalidGraphError
    from hpgraph.graph.views import check_weights

    ids = np.array(["a", "b", "c"], dtype=object)
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[1.0, 0.0, -2.0], ids=ids)
    check_weights(Graph.from_edges([0], [1]), "k")  # no weights: passes
    with pytest.raises(InvalidGraphError, match=r"k needs finite, non-negative .* 'c' -> 'a'"):
        check_weights(g, "k")
    with pytest.raises(InvalidGraphError, match=r"positive edge weights; edge 'b' -> 'c'.*hops"):
        check_weights(g, "k", positive=True, hint=" (count hops)")
