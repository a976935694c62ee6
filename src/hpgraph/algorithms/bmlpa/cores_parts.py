"""BMLPA's rough cores on a partitioned graph: each MPI rank holds its own vertices' rows
of the simple view (a :class:`~hpgraph.graph.part.PartGraph` from
:func:`~hpgraph.graph.views.simple_part`) and fetches its ghosts' rows once.

Given a part, returns the cores whose first vertex this rank owns and the initial label
rows of its own vertices: exactly the whole graph's
:func:`~hpgraph.algorithms.bmlpa.initial._cores` (same cores, members, member order and
labels). The sequential greedy visits the vertices of degree >= 3 by descending degree
(ties by the seed's key); a vertex i still free takes j, its free neighbour of largest
degree, and a greedy clique of their common neighbours
(:func:`~hpgraph.algorithms.bmlpa.initial._core_of`); the members stop being free. A core
lies in N[i] and i's choice reads the free flags of N[i], so i depends only on the
earlier vertices within two hops. Variant: the deterministic greedy in rounds of
Blelloch, Fineman and Shun ("Greedy sequential maximal independent set and matching are
parallel on average", SPAA 2012): in a round every undecided vertex with no undecided
earlier vertex within two hops decides. Their closed neighbourhoods are disjoint, so
their cores are the sequential ones; a vertex that stops being free is decided at once
(the sequential greedy skips it). One peer per rank (``run_bsp``):

0. Slots (:func:`~hpgraph.algorithms._owners.ghost_slots`); owners send their ghosts'
   degrees, and each rank asks for the rows of the ghosts next to its own vertices of
   degree >= 3 (the only ones whose cores it builds); owners send them; each row keeps
   the rank's locals only (own vertices and ghosts: a core of an own vertex lies in its
   row), as slots, sorted.
1. Rounds of three supersteps: (a) each vertex's min of the priorities (position in the
   greedy's order; decided vertices none) over its closed neighbourhood, the changed
   ones sent to the ranks holding it as a ghost, with the count of own undecided
   vertices (none left anywhere: stop); (b) each own undecided vertex whose min of those
   over its closed neighbourhood is its own priority decides: its core, its ghost
   members sent to their owners with the core's label (its first vertex); (c) owners
   mark them not free, and send the changed states (priority, free) to the ranks holding
   them as ghosts. The rounds are counted (``rounds``); the order is by degree, not
   random, so the paper's O(log^2 n) bound is not promised: the 2M mention graph takes
   the rounds docs/algorithms/bmlpa.md reports.

Bytes per rank (o own vertices, g ghosts, e own row entries, f entries of the fetched
ghost rows, c own members of cores, n vertices in all): own rows as slots 8 (o + 1) +
8 e (from ``ghost_slots``); the fetched rows 8 per row + 4 per entry (f) while received,
kept as locals 8 (o + g + 1) + 4 (e + kept f); degree, key, priority and min 8 each and
the free flag 1 per slot (33 (o + g)); the seeded key of every vertex, 8 n, while the
locals' are taken (the same permutation as the whole graph's); subscribers 16 per (own
vertex, rank holding it); the labels 12 per (own vertex, core) pair. Moved: 8 per ghost
(degrees), 4 per row asked for and its row (8 + 4 per entry); per round 16 per changed
min and per changed state for each rank holding the vertex, 16 per ghost member of a
core."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms._owners import ghost_slots, joined, to_owners
from hpgraph.algorithms.bmlpa.initial import _contains, _core_of
from hpgraph.algorithms.bmlpa.parts import _subscribers
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.generators._rng import stream
from hpgraph.graph.views import rows_in_order

__all__ = ["cores_part"]

_NONE = np.iinfo(np.int64).max  # the priority of a decided vertex, or of one not in the order


# ------------------------------------------------------------------ kernels
@njit(**NUMBA_FLAGS)
def _wanted(ip, slots, own, g):
    """The ghosts (by index) next to an own vertex of degree >= 3."""
    need = np.zeros(g, dtype=np.bool_)
    for v in range(own):
        if ip[v + 1] - ip[v] >= 3:
            for q in range(ip[v], ip[v + 1]):
                if slots[q] >= own:
                    need[slots[q] - own] = True
    return np.flatnonzero(need)


@njit(**NUMBA_FLAGS)
def _local_rows(ip, slots, own, ghosts, lo, hi, wanted, lens, ents):
    """Rows of every slot (own, then ghosts) as slots, each sorted: the own rows, and
    row ``own + wanted[k]`` the locals of received row k (``lens[k]`` global ids of
    ``ents``); the other ghost rows empty."""
    g = ghosts.shape[0]
    ptr = np.zeros(own + g + 1, dtype=np.int64)
    for v in range(own):
        ptr[v + 1] = ip[v + 1] - ip[v]
    slot = np.empty(ents.shape[0], dtype=np.int64)
    for t in range(ents.shape[0]):
        w = ents[t]
        if lo <= w < hi:
            slot[t] = w - lo
        else:
            k = np.searchsorted(ghosts, w)
            slot[t] = own + k if k < g and ghosts[k] == w else -1
    at = 0
    for k in range(wanted.shape[0]):
        c = 0
        for t in range(at, at + lens[k]):
            c += slot[t] >= 0
        ptr[own + wanted[k] + 1] = c
        at += lens[k]
    for v in range(own + g):
        ptr[v + 1] += ptr[v]
    ix = np.empty(ptr[own + g], dtype=np.int32)  # slots < 2**31: a rank holds fewer
    for v in range(own):
        row = ix[ptr[v] : ptr[v + 1]]
        row[:] = slots[ip[v] : ip[v + 1]]
        row.sort()
    at = 0
    for k in range(wanted.shape[0]):
        p = ptr[own + wanted[k]]
        for t in range(at, at + lens[k]):
            if slot[t] >= 0:
                ix[p] = slot[t]
                p += 1
        ix[ptr[own + wanted[k]] : p].sort()
        at += lens[k]
    return ptr, ix


@njit(**NUMBA_FLAGS)
def _closed_min(ptr, ix, x, free, rows, out):
    """``out[v] = min(x[v], x[u] for u in row v)`` for the first ``rows`` slots, or
    none where v is not free."""
    for v in range(rows):
        if not free[v]:
            out[v] = _NONE
            continue
        m = x[v]
        for q in range(ptr[v], ptr[v + 1]):
            m = min(m, x[ix[q]])
        out[v] = m


@njit(**NUMBA_FLAGS)
def _in_triangles(ptr, ix, own):
    """Per own row entry (v, u) with v of degree >= 3: whether v and u have a common
    neighbour (u's row holds the locals at least: they are all v's can share)."""
    tri = np.zeros(ptr[own], dtype=np.bool_)
    for v in range(own):
        rv = ix[ptr[v] : ptr[v + 1]]
        if rv.shape[0] < 3:
            continue
        for q in range(ptr[v], ptr[v + 1]):
            u = ix[q]
            ru = ix[ptr[u] : ptr[u + 1]]
            small, large = (rv, ru) if rv.shape[0] <= ru.shape[0] else (ru, rv)
            for x in small:
                if _contains(large, x):
                    tri[q] = True
                    break
    return tri


@njit(**NUMBA_FLAGS)
def _skip_idle(ptr, ix, tri, prio, free, own):
    """Decide (skip) the own undecided vertices that can no longer build a core: no free
    neighbour they share a triangle with (a core's j is a free neighbour with a common
    neighbour, and free flags only fall), so they write nothing whenever they come."""
    for v in range(own):
        if prio[v] != _NONE:
            idle = True
            for q in range(ptr[v], ptr[v + 1]):
                if tri[q] and free[ix[q]]:
                    idle = False
                    break
            if idle:
                prio[v] = _NONE


@njit(**NUMBA_FLAGS)
def _deciders(ptr, ix, prio, m1, own):
    """The own undecided vertices whose priority is the least within two hops (the min
    over the closed neighbourhood of ``m1``, itself such a min), in priority order."""
    out = np.empty(own, dtype=np.int64)
    k = 0
    for v in range(own):
        if prio[v] != _NONE:
            m = m1[v]
            for q in range(ptr[v], ptr[v + 1]):
                m = min(m, m1[ix[q]])
            if m == prio[v]:
                out[k] = v
                k += 1
    out = out[:k]
    return out[np.argsort(prio[out])]


@njit(**NUMBA_FLAGS)
def _decide(ptr, ix, deg, key, n, free, deciders):
    """The cores of ``deciders`` (their closed neighbourhoods are disjoint, so any order
    gives the sequential greedy's), as CSR of slots; their members stop being free."""
    width = 0
    for v in deciders:
        width = max(width, ptr[v + 1] - ptr[v])
    cand = np.empty(width, dtype=np.int64)
    core = np.empty(width + 2, dtype=np.int64)
    cptr = np.zeros(deciders.shape[0] + 1, dtype=np.int64)
    members = np.empty(deciders.shape[0] * 3 + width + 2, dtype=np.int64)
    c = 0
    for i in deciders:
        size = _core_of(i, ptr, ix, deg, key, n, free, cand, core)
        if size >= 3:
            nm = cptr[c]
            if nm + size > members.shape[0]:
                grown = np.empty(2 * members.shape[0] + size, dtype=np.int64)
                grown[:nm] = members[:nm]
                members = grown
            for t in range(size):
                members[nm + t] = core[t]
                free[core[t]] = False
            c += 1
            cptr[c] = nm + size
    return cptr[: c + 1].copy(), members[: cptr[c]].copy()


@njit(**NUMBA_FLAGS)
def _by_subscriber(ch, val, sub_ptr, sub_rank, sub_pos, parts):
    """``val`` of own slots ``ch`` for the ranks holding them as ghosts, by rank: rank q
    gets positions ``pos[qptr[q]:qptr[q + 1]]`` in its ghosts of this rank, and values."""
    qptr = np.zeros(parts + 1, dtype=np.int64)
    for v in ch:
        for t in range(sub_ptr[v], sub_ptr[v + 1]):
            qptr[sub_rank[t] + 1] += 1
    for q in range(parts):
        qptr[q + 1] += qptr[q]
    pos = np.empty(qptr[parts], dtype=np.int64)
    out = np.empty(qptr[parts], dtype=np.int64)
    fill = qptr[:parts].copy()
    for k in range(ch.shape[0]):
        v = ch[k]
        for t in range(sub_ptr[v], sub_ptr[v + 1]):
            q = sub_rank[t]
            pos[fill[q]] = sub_pos[t]
            out[fill[q]] = val[k]
            fill[q] += 1
    return qptr, pos, out


@njit(**NUMBA_FLAGS)
def _own_labels(own, lo, slot, head):
    """Initial label rows of the own vertices from (own slot, core label) pairs, as
    :func:`~hpgraph.algorithms.bmlpa.initial._labels_from_cores` gives the whole graph's:
    each core's label 1/k, or the vertex's own id."""
    k = np.zeros(own, dtype=np.int64)
    for t in range(slot.shape[0]):
        k[slot[t]] += 1
    ptr = np.zeros(own + 1, dtype=np.int64)
    for v in range(own):
        ptr[v + 1] = ptr[v] + max(k[v], 1)
    lab = np.empty(ptr[own], dtype=np.int32)
    fill = ptr[:-1].copy()
    for t in range(slot.shape[0]):
        lab[fill[slot[t]]] = head[t]
        fill[slot[t]] += 1
    coef = np.empty(ptr[own], dtype=np.float64)
    for v in range(own):
        if k[v] == 0:
            lab[ptr[v]] = lo + v
        lab[ptr[v] : ptr[v + 1]].sort()
        coef[ptr[v] : ptr[v + 1]] = 1.0 / (ptr[v + 1] - ptr[v])
    return ptr, lab, coef


# ------------------------------------------------------------------ the program
def _fetch_rows(peer, sp, gh):
    """Superstep 0 of the module docstring: (ghosts' degrees, local rows as slots, row
    entries fetched)."""
    own, ip, slots, ids, at, _ = gh
    lo = sp.lo
    wanted = _wanted(ip, slots, own, ids.shape[0])
    wat = np.searchsorted(wanted, at)
    deg = np.diff(ip)
    for q in range(peer.num_peers):
        if q != peer.pid:
            peer.send(q, deg[gh.asked[q]])
            peer.send(q, ids[wanted[wat[q] : wat[q + 1]]])
    peer.sync()
    gdeg = joined(peer, deg[:0], 0, 2)
    asked_rows = [(q, a) for q, a in peer.messages()][1::2]
    for q, rows in asked_rows:
        rptr, ents = rows_in_order(ip[:-1], ip[1:], sp.own_indices, rows.astype(np.int64) - lo)
        peer.send(q, np.diff(rptr))
        peer.send(q, ents)
    peer.sync()
    lens = joined(peer, deg[:0], 0, 2)
    ents = joined(peer, sp.own_indices[:0], 1, 2)
    ptr, ix = _local_rows(ip, slots, own, ids, lo, sp.hi, wanted, lens, ents)
    return np.concatenate([deg, gdeg]), ptr, ix, int(ents.shape[0])


def _cores_program(peer, sp, seed, kept):
    """One rank's peer (module docstring). Leaves in ``kept``: ``labels`` (the own
    vertices' initial rows) and ``cores`` (priority of each core's first vertex, core
    pointers, members as global ids, of the cores this rank built); returns (rounds,
    (own, ghosts, fetched entries, bytes held in the rounds))."""
    gh = ghost_slots(peer, sp)
    own, ids, at = gh.own, gh.ids, gh.at
    n, lo, parts, pid = sp.n, sp.lo, peer.num_peers, peer.pid
    deg, ptr, ix, fetched = _fetch_rows(peer, sp, gh)
    slots_ = own + ids.shape[0]
    key = np.random.Generator(stream(seed, 0)).permutation(n).astype(np.int64)
    key = np.concatenate([key[lo : sp.hi], key[ids]])  # the locals' keys only
    prio = np.where(deg >= 3, (n - deg) * n + key, _NONE)  # the greedy's order
    free = np.ones(slots_, dtype=np.bool_)
    m1 = np.full(slots_, -1, dtype=np.int64)  # -1: every own min is sent in round 1
    new = np.empty(own, dtype=np.int64)
    tri = _in_triangles(ptr, ix, own)
    sub_ptr, sub_rank, sub_pos = _subscribers(gh.asked, own)
    gid = np.concatenate([np.arange(lo, sp.hi, dtype=np.int64), ids.astype(np.int64)])
    mem_slot, mem_head = [], []  # (own vertex, core label) pairs
    c_prio, c_len, c_mem = [], [], []
    rounds = 0

    def to_subscribers(ch, val):
        qptr, pos, out = _by_subscriber(ch, val, sub_ptr, sub_rank, sub_pos, parts)
        return qptr, pos, out

    while True:
        was_prio, was_free = prio[:own].copy(), free[:own].copy()
        _skip_idle(ptr, ix, tri, prio, free, own)
        # (a) the min of the priorities over each own vertex's closed neighbourhood
        _closed_min(ptr, ix, prio, free, own, new)
        ch = np.flatnonzero(new != m1[:own])
        m1[:own] = new
        left = np.array([int((prio[:own] != _NONE).sum())], dtype=np.int64)
        qptr, pos, val = to_subscribers(ch, new[ch])
        for q in range(parts):
            if q != pid:
                peer.send(q, left)
                peer.send(q, pos[qptr[q] : qptr[q + 1]])
                peer.send(q, val[qptr[q] : qptr[q + 1]])
        peer.sync()
        got = [a for _, a in peer.messages()]
        undecided = int(left[0])
        for k, q in enumerate(r for r in range(parts) if r != pid):
            undecided += int(got[3 * k][0])
            m1[own + at[q] + got[3 * k + 1]] = got[3 * k + 2]
        if undecided == 0:
            break
        rounds += 1
        # (b) the vertices first within two hops decide
        dec = _deciders(ptr, ix, prio, m1, own)
        cptr, mem = _decide(ptr, ix, deg, key, n, free, dec)
        prio[dec] = _NONE
        heads = np.repeat(gid[mem[cptr[:-1]]], np.diff(cptr))
        c_prio.append(was_prio[mem[cptr[:-1]]])
        c_len.append(np.diff(cptr))
        c_mem.append(gid[mem])
        mine = mem < own
        mem_slot.append(mem[mine])
        mem_head.append(heads[mine])
        theirs = np.argsort(gid[mem[~mine]], kind="stable")
        tid, thead = gid[mem[~mine]][theirs], heads[~mine][theirs]
        to_owners(peer, tid, np.searchsorted(tid, sp.rank_offsets))
        to_owners(peer, thead, np.searchsorted(tid, sp.rank_offsets))
        peer.sync()
        # (c) owners mark their members not free; changed states to the ghosts' holders
        got = [a for _, a in peer.messages()]
        mid = np.concatenate([tid[:0], *got[0::2]]) - lo
        mem_slot.append(mid)
        mem_head.append(np.concatenate([thead[:0], *got[1::2]]))
        free[mid] = False
        prio[:own][~free[:own]] = _NONE
        ch = np.flatnonzero((prio[:own] != was_prio) | (free[:own] != was_free))
        qptr, pos, val = to_subscribers(ch, np.where(free[ch], prio[ch], -1))
        to_owners(peer, pos, qptr)
        to_owners(peer, val, qptr)
        peer.sync()
        got = [(q, a) for q, a in peer.messages()]
        for k in range(0, len(got), 2):
            q = got[k][0]
            s, state = own + at[q] + got[k][1], got[k + 1][1]
            prio[s] = np.where(state < 0, _NONE, state)
            free[s] = state >= 0
    mem_slot = np.concatenate([np.zeros(0, np.int64), *mem_slot]).astype(np.int64)
    mem_head = np.concatenate([np.zeros(0, np.int64), *mem_head])
    kept["labels"] = _own_labels(own, lo, mem_slot, mem_head)
    c_len = np.concatenate([np.zeros(0, np.int64), *c_len])
    cptr = np.zeros(c_len.shape[0] + 1, dtype=np.int64)
    np.cumsum(c_len, out=cptr[1:])
    kept["cores"] = (
        np.concatenate([np.zeros(0, np.int64), *c_prio]),
        cptr,
        np.concatenate([np.zeros(0, np.int64), *c_mem]),
    )
    held = (ptr, ix, deg, key, prio, free, m1, new, gid, sub_ptr, sub_rank, sub_pos)
    return rounds, (own, int(ids.shape[0]), fetched, sum(a.nbytes for a in held))


def cores_part(sp, seed, runtime, gather=False):
    """The rough cores of the whole graph from this rank's part ``sp`` of the simple
    view (collective over the MPI runtime ``runtime`` the part was split for; module
    docstring). Returns ``(ptr, lab, coef)``, the own vertices' initial label rows (ptr
    from 0), equal to :func:`~hpgraph.algorithms.bmlpa.initial._labels_from_cores`'s
    rows of them, and a dict: ``rounds``, ``ranks`` (per rank: own vertices, ghosts,
    fetched row entries, bytes held in the rounds), ``stats`` (the job's) and, with
    ``gather``, ``cores``: ``(core_ptr, members)`` of the whole graph, every rank the
    same, equal to :func:`~hpgraph.algorithms.bmlpa.initial._cores`'s."""
    kept = {}
    job = run_bsp(_cores_program, args=(sp, seed, kept), runtime=runtime)
    meta = {
        "rounds": job.results[0][0],
        "ranks": [dict(zip(("own", "ghosts", "fetched", "bytes"), r[1], strict=True))
                  for r in job.results],
        "stats": job.stats,
    }  # fmt: skip
    if gather:
        from hpgraph.algorithms.bmlpa.parts import _gathered

        prio, cptr, mem = kept["cores"]
        prio, lens, mem = _gathered(runtime, prio, np.diff(cptr), mem)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
        order = np.argsort(prio)
        core_ptr, members = rows_in_order(starts, starts + lens, mem, order)
        meta["cores"] = (core_ptr, members)
    return kept["labels"], meta
