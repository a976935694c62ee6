"""Compiled kernels of NetworkX's two label propagations, step for step, so they give
NetworkX's labels exactly.

Given CSR arrays in NetworkX's vertex and neighbour orders (a vertex's row is ``G[v]``,
each neighbour once, a self-loop included), returns the final label of every vertex
(labels are vertex ids: NetworkX starts each vertex at its position in ``list(G)``):

- :func:`semi_synchronous`: ``label_propagation_communities`` (Cordasco and Gargano's
  semi-synchronous LPA). The colour classes of ``greedy_color(G, "largest_first")`` are
  updated one after the other until every vertex holds one of its most frequent
  neighbour labels; a vertex takes its single most frequent label, or on a tie keeps its
  own if it is among them, else takes the largest (Prec-Max). NetworkX iterates a colour
  class as a Python set, in no fixed order, but no two vertices of a class are
  neighbours, so their order changes nothing. The colouring is
  :func:`hpgraph.algorithms.bmlpa.schedule._greedy` (first fit), in NetworkX's order:
  by descending ``G.degree`` (a self-loop counts twice, parallel edges each), ties in
  vertex order;
- :func:`asynchronous`: ``asyn_lpa_communities`` (Raghavan, Albert and Kumara). Each
  round shuffles the vertices with the caller's ``random.Random`` stream
  (:mod:`hpgraph.nxbackend._mt19937`); a vertex whose label is not among its most
  frequent (weights summed in neighbour order from ``0.0``, as NetworkX's
  ``defaultdict(float)`` sums them) takes ``choice`` of them, listed in the order they
  first occur among its neighbours; rounds repeat until a round changes nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms.bmlpa.schedule import _greedy
from hpgraph.config import NUMBA_FLAGS
from hpgraph.nxbackend._mt19937 import randbelow, shuffle_identity

__all__ = ["asynchronous", "colour_order", "semi_synchronous"]


def colour_order(indptr, indices, degree):
    """The vertices grouped by colour (colour 0 first, each class in vertex order) of
    NetworkX's ``greedy_color(G, "largest_first")``; ``degree`` is ``G.degree``."""
    order = np.argsort(-degree, kind="stable")
    colour, _ = _greedy(indptr, indices, order)
    return np.argsort(colour, kind="stable")


@njit(**NUMBA_FLAGS)
def _count(indptr, indices, weight, label, v, freq, seen, stamp, found):
    """Fills ``found`` with the labels around ``v`` in the order they first occur and
    ``freq`` with their weights; returns how many and the largest weight."""
    k = 0
    for q in range(indptr[v], indptr[v + 1]):
        lab = label[indices[q]]
        if seen[lab] != stamp:
            seen[lab] = stamp
            freq[lab] = 0.0
            found[k] = lab
            k += 1
        freq[lab] += weight[q]
    top = freq[found[0]]
    for t in range(1, k):
        top = max(top, freq[found[t]])
    return k, top


@njit(**NUMBA_FLAGS)
def semi_synchronous(indptr, indices, order):
    """Final labels of ``label_propagation_communities``; ``order`` from
    :func:`colour_order`."""
    n = indptr.shape[0] - 1
    label = np.arange(n)
    ones = np.ones(indices.shape[0])
    freq = np.zeros(n)
    seen = np.full(n, -1, dtype=np.int64)
    found = np.empty(n, dtype=np.int64)
    stamp = 0
    while True:
        done = True
        for v in range(n):
            if indptr[v] == indptr[v + 1]:
                continue
            k, top = _count(indptr, indices, ones, label, v, freq, seen, stamp, found)
            stamp += 1
            if freq[label[v]] != top or seen[label[v]] != stamp - 1:
                done = False
                break
        if done:
            return label
        for v in order:
            if indptr[v] == indptr[v + 1]:
                continue
            k, top = _count(indptr, indices, ones, label, v, freq, seen, stamp, found)
            best = -1
            ties = 0
            own = False
            for t in range(k):
                lab = found[t]
                if freq[lab] == top:
                    ties += 1
                    best = max(best, lab)
                    own = own or lab == label[v]
            if ties == 1 or not own:
                label[v] = best
            stamp += 1


@njit(**NUMBA_FLAGS)
def asynchronous(indptr, indices, weight, state):
    """Final labels of ``asyn_lpa_communities``; ``state`` (the caller's
    ``random.Random``, :func:`hpgraph.nxbackend._mt19937.load`) is advanced as NetworkX
    advances it."""
    n = indptr.shape[0] - 1
    label = np.arange(n)
    freq = np.zeros(n)
    seen = np.full(n, -1, dtype=np.int64)
    found = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.int64)
    stamp = 0
    changed = True
    while changed:
        changed = False
        for v in shuffle_identity(state, n):
            if indptr[v] == indptr[v + 1]:
                continue
            k, top = _count(indptr, indices, weight, label, v, freq, seen, stamp, found)
            nb = 0
            own = False
            for t in range(k):
                lab = found[t]
                if freq[lab] == top:
                    best[nb] = lab
                    nb += 1
                    own = own or lab == label[v]
            if not own:
                label[v] = best[randbelow(state, nb)]
                changed = True
            stamp += 1
    return label
