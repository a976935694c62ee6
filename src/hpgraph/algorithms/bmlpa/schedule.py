"""The semi-synchronous schedule of BMLPA: a greedy colouring of the simple view and,
per peer, the runs of its vertices of each colour.

Given the simple undirected view (CSR), returns one colour per vertex such that no two
neighbours share one. Updating one colour class at a time, each class from the state
left by the classes before it (Cordasco and Gargano, "Community detection via
semi-synchronous label propagation algorithms", 2010), is an asynchronous order that is
the same for every number of peers: the vertices of a class have no neighbour in it, so
they can be updated in parallel from one state and give the same sets in any order.

On a partitioned graph (each MPI rank holding its own vertices' rows),
:func:`colour_part` gives the same colours: first fit in priority order is
Jones-Plassmann colouring with that order as the priorities, since a vertex's colour
depends only on its higher-priority neighbours' (Jones and Plassmann, "A parallel graph
coloring heuristic", 1993). Each rank counts, per own vertex, its neighbours above it;
in a round it colours every own vertex whose count is 0, and in turn the own vertices
that this brings to 0, then sends the colours given to the ranks that neighbour those
vertices, whose arrival lowers the counts there; the rounds repeat until every vertex
is coloured. A chain of decreasing priority that crosses from rank to rank costs a round
per crossing: 36 rounds on 2 ranks and 49 on 4 for a 2M-user mention graph (random ids,
so most edges cross), 1 on one rank. O(entries) work per rank in all, plus a scan of
the ghosts' owners' lists per round.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms._owners import ghost_slots, joined
from hpgraph.config import NUMBA_FLAGS

__all__ = ["greedy_colouring", "colour_part"]


@njit(**NUMBA_FLAGS)
def _greedy(indptr, indices, order):
    """Colours by first fit in ``order``: each vertex takes the smallest colour none of its
    coloured neighbours holds. ``seen[c] == v`` marks colour c as taken around v, so the
    marks need no reset (12 B per vertex in all)."""
    n = indptr.shape[0] - 1
    colour = np.full(n, -1, dtype=np.int32)
    seen = np.full(n + 1, -1, dtype=np.int64)
    k = 0
    for t in range(n):
        v = order[t]
        for q in range(indptr[v], indptr[v + 1]):
            c = colour[indices[q]]
            if c >= 0:
                seen[c] = v
        c = 0
        while seen[c] == v:
            c += 1
        colour[v] = c
        k = max(k, c + 1)
    return colour, k


def greedy_colouring(indptr, indices):
    """``(colour int32 per vertex, number of colours)`` of a simple undirected CSR graph:
    first fit in order of descending degree, ties by vertex id (Welsh and Powell), so a
    graph of degeneracy d gets at most ``max degree + 1`` and in practice about d colours:
    11-15 on LFR graphs of degree 20, 14 on the 1M-user mention graph."""
    return _greedy(indptr, indices, _by_degree(indptr))


@njit(**NUMBA_FLAGS)
def _by_degree(indptr):
    """The vertices by descending degree, ties by id: a stable counting sort, O(n + max
    degree) (``np.argsort`` of 8M degrees takes a second)."""
    n = indptr.shape[0] - 1
    top = 0
    for v in range(n):
        top = max(top, indptr[v + 1] - indptr[v])
    start = np.zeros(top + 2, dtype=np.int64)
    for v in range(n):
        start[top - (indptr[v + 1] - indptr[v]) + 1] += 1
    for d in range(top + 1):
        start[d + 1] += start[d]
    order = np.empty(n, dtype=np.int64)
    for v in range(n):
        k = top - (indptr[v + 1] - indptr[v])
        order[start[k]] = v
        start[k] += 1
    return order


@njit(**NUMBA_FLAGS, inline="always")
def _above(u, v, degree, ids):
    """Whether slot ``u`` comes before slot ``v`` in first-fit order (degree descending,
    then id)."""
    return degree[u] > degree[v] or (degree[u] == degree[v] and ids[u] < ids[v])


@njit(**NUMBA_FLAGS)
def _waits(indptr, slots, degree, ids, own, ghosts):
    """Per own vertex, its neighbours above it (``wait``), and per ghost the own
    vertices below it (a CSR ``gptr``/``gix``): whom a ghost's colour releases."""
    wait = np.zeros(own, dtype=np.int64)
    gptr = np.zeros(ghosts + 1, dtype=np.int64)
    for v in range(own):
        for q in range(indptr[v], indptr[v + 1]):
            u = slots[q]
            if _above(u, v, degree, ids):
                wait[v] += 1
                if u >= own:
                    gptr[u - own + 1] += 1
    for g in range(ghosts):
        gptr[g + 1] += gptr[g]
    gix = np.empty(gptr[ghosts], dtype=np.int64)
    fill = gptr[:ghosts].copy()
    for v in range(own):
        for q in range(indptr[v], indptr[v + 1]):
            u = slots[q]
            if u >= own and _above(u, v, degree, ids):
                gix[fill[u - own]] = v
                fill[u - own] += 1
    return wait, gptr, gix


@njit(**NUMBA_FLAGS)
def _colour_ready(indptr, slots, degree, ids, own, wait, stack, top, colour, seen):
    """Colour the own vertices on ``stack[:top]`` (every neighbour above them coloured)
    and, in turn, every own vertex that this leaves with no uncoloured neighbour above
    it, each with the smallest colour none of its neighbours above holds (their order
    does not matter: a colour depends on those neighbours' alone). Returns the number of
    vertices coloured."""
    done = 0
    while top > 0:
        top -= 1
        v = stack[top]
        for q in range(indptr[v], indptr[v + 1]):
            u = slots[q]
            if _above(u, v, degree, ids) and colour[u] < seen.shape[0]:
                seen[colour[u]] = v  # (v's colour is at most its degree: higher ones
                # of a ghost hub cannot be the smallest free)
        c = 0
        while seen[c] == v:
            c += 1
        colour[v] = c
        done += 1
        for q in range(indptr[v], indptr[v + 1]):
            w = slots[q]
            if w < own and _above(v, w, degree, ids):
                wait[w] -= 1
                if wait[w] == 0:
                    stack[top] = w
                    top += 1
    return done


@njit(**NUMBA_FLAGS)
def _released(gptr, gix, got, wait, stack):
    """Own vertices released by the ghosts ``got`` (just coloured) onto ``stack``;
    returns how many."""
    top = 0
    for i in range(got.shape[0]):
        g = got[i]
        for k in range(gptr[g], gptr[g + 1]):
            w = gix[k]
            wait[w] -= 1
            if wait[w] == 0:
                stack[top] = w
                top += 1
    return top


def _colour_program(peer, sp, gh=None):
    """One rank's rounds (module docstring). ``sp``: this rank's part of the simple view
    (undirected, own rows); ``gh``: its :class:`~hpgraph.algorithms._owners.Ghosts`, if
    the caller has them. Returns (own colours int32, rounds)."""
    own, ip, slots, ghosts, at, asked = ghost_slots(peer, sp) if gh is None else gh
    degree = np.diff(ip)
    for q, wanted in asked.items():  # the owners answer with the degrees
        peer.send(q, degree[wanted])
    peer.sync()
    degree = np.concatenate([degree, joined(peer, degree[:0])])  # by slot
    ids = np.concatenate([np.arange(sp.lo, sp.hi, dtype=np.int64), ghosts.astype(np.int64)])
    wait, gptr, gix = _waits(ip, slots, degree, ids, own, ghosts.shape[0])
    stack = np.flatnonzero(wait == 0)  # room for every own vertex
    stack = np.concatenate([stack, np.empty(own - stack.shape[0], dtype=stack.dtype)])
    top = own - int(np.count_nonzero(wait))
    colour = np.full(own + ghosts.shape[0], -1, dtype=np.int32)
    seen = np.full(int(degree[:own].max(initial=0)) + 2, -1, dtype=np.int64)
    rounds, left = 0, own
    while True:
        rounds += 1
        before = colour[:own] < 0
        left -= _colour_ready(ip, slots, degree, ids, own, wait, stack, top, colour, seen)
        for q, wanted in asked.items():  # the colours given in this round, by position
            new = np.flatnonzero(before[wanted] & (colour[wanted] >= 0))
            peer.send(q, np.concatenate([np.array([left], dtype=np.int64), new]))
            peer.send(q, colour[wanted[new]])
        peer.sync()
        total, arrived = left, []
        for (q, head), (_, got) in zip(*[iter(peer.messages())] * 2, strict=True):
            total += int(head[0])
            colour[own + at[q] + head[1:]] = got
            arrived.append(at[q] + head[1:])
        if total == 0:
            return colour[:own].copy(), rounds
        top = _released(gptr, gix, np.concatenate([np.zeros(0, np.int64), *arrived]), wait, stack)


def colour_part(sp, runtime):
    """``(colour int32 of every vertex, number of colours, rounds)`` on every rank: the
    colours :func:`greedy_colouring` gives the whole graph, from this rank's part ``sp``
    of the simple view (:func:`~hpgraph.graph.views.simple_part`), on the MPI runtime
    the part was split for. Bytes per rank (o own vertices, g ghosts, e own entries): 8 o
    + 8 e (degrees, slots) + 8 (o + g) ids + 4 (o + g) colours + the gathered colours, 4 B
    per vertex of the whole graph; moved: 4 + 8 B per ghost once (ids, degrees), 4 B per
    ghost per round."""
    from hpgraph.engine.bsp import run_bsp

    job = run_bsp(_colour_program, args=(sp,), runtime=runtime)
    colour = np.concatenate([r[0] for r in job.results])
    return colour, int(colour.max(initial=-1)) + 1, job.results[0][1]


@njit(**NUMBA_FLAGS)
def _class_runs(colour, k, starts, ends):
    """The vertices of chunks ``starts[i]..ends[i]-1`` grouped by colour, as runs of
    consecutive ids: ``(ptr, rs, re)``, colour c's runs ``rs/re[ptr[c]:ptr[c+1]]`` in
    vertex order."""
    count = np.zeros(k + 1, dtype=np.int64)
    for ci in range(starts.shape[0]):
        prev = -1
        for v in range(starts[ci], ends[ci]):
            c = colour[v]
            if c != prev:
                count[c + 1] += 1
                prev = c
    ptr = np.cumsum(count)
    rs = np.empty(ptr[k], dtype=np.int64)
    re = np.empty(ptr[k], dtype=np.int64)
    fill = ptr[:k].copy()
    for ci in range(starts.shape[0]):
        v = starts[ci]
        while v < ends[ci]:
            c = colour[v]
            w = v + 1
            while w < ends[ci] and colour[w] == c:
                w += 1
            rs[fill[c]] = v
            re[fill[c]] = w
            fill[c] += 1
            v = w
    return ptr, rs, re


@njit(**NUMBA_FLAGS)
def _clear_class(dirty, rs, re):
    """Mark the vertices of the runs clean (just updated)."""
    for i in range(rs.shape[0]):
        for v in range(rs[i], re[i]):
            dirty[v] = False


@njit(**NUMBA_FLAGS)
def _mark_neighbours(indptr, indices, ids, dirty):
    """Mark dirty every neighbour of the vertices ``ids`` (their sets just changed)."""
    for k in range(ids.shape[0]):
        u = ids[k]
        for q in range(indptr[u], indptr[u + 1]):
            dirty[indices[q]] = True
