"""BMLPA's rough cores on a partitioned graph: each MPI rank holds its own vertices' rows
of the simple view (a :class:`~hpgraph.graph.part.PartGraph` from
:func:`~hpgraph.graph.views.simple_part`) and fetches its ghosts' rows once.

Given a part, returns the cores whose first vertex this rank owns and the initial label
rows of its own vertices: exactly the whole graph's
:func:`~hpgraph.algorithms.bmlpa.initial._cores` (same cores, members, member order and
labels). The sequential greedy visits the vertices of degree >= 3 by descending degree
(ties by the seed's key); a vertex i still free takes j, its free neighbour of largest
degree, and a greedy clique of their common neighbours
(:func:`~hpgraph.algorithms.bmlpa.initial._core_of`); the members stop being free. A
core lies in N[i] and i's choice reads the free flags of N[i], so i depends only on the
earlier vertices within two hops. Variant: the deterministic greedy in rounds of
Blelloch, Fineman and Shun ("Greedy sequential maximal independent set and matching are
parallel on average", SPAA 2012): in a round every undecided vertex with no undecided
earlier vertex within two hops decides; their closed neighbourhoods share no free
vertex, so their cores are the sequential ones. Two exact refinements (free flags only
fall) cut the rounds eightfold on a 3,000-user mention graph (162 to 21): the two hops
run through free vertices only (a write to a vertex no longer free changes nothing), and
a vertex that stops being free, or has no free neighbour it shares a triangle with (a
core's j is a free neighbour with a common neighbour), is decided at once: the greedy
skips it whenever it comes. One peer per rank (``run_bsp``):

0. Slots (:func:`~hpgraph.algorithms._owners.ghost_slots`); owners send their ghosts'
   degrees, and each rank asks for the rows of the ghosts next to its own vertices of
   degree >= 3 (the only ones whose cores it builds); owners send them; each row keeps
   the rank's locals only (own vertices and ghosts: a core of an own vertex lies in its
   row), as slots, sorted.
1. Rounds of three supersteps: (a) each own free vertex's min of the priorities
   (position in the greedy's order; decided vertices none) over its closed
   neighbourhood, the changed ones sent to the ranks holding it as a ghost, with the
   count of own undecided vertices (none left anywhere: stop); (b) each own undecided
   vertex whose min of those over its closed neighbourhood is its own priority decides:
   its core, its ghost members sent to their owners with the core's label (its first
   vertex); (c) owners mark them not free and send the changed states (priority, free)
   to the ranks holding them as ghosts (a state one round old only delays a vertex:
   priorities only rise). Round 1 computes every min; later rounds redo only those an
   event can change (both mins only rise, so only where the slot that changed held the
   min), and a count per vertex of its free triangle neighbours finds the skips. The
   rounds are counted (``rounds``); the order is by degree, not random, so the paper's
   O(log^2 n) bound is not promised: the 2M-user mention graph takes 335 rounds
   (docs/algorithms/bmlpa.md).

Bytes per rank (o own vertices, g ghosts, e own row entries, f entries of the fetched
ghost rows, n vertices in all): own rows as slots 8 (o + 1) + 8 e (from
``ghost_slots``); the fetched rows 8 per row + 4 per entry (f) while received, kept as
locals 8 (o + g + 1) + 4 (e + kept f); the ghosts' own neighbours 8 (g + 1) + 5 per own
entry naming a ghost; a triangle flag 1 per own entry; degree, key, priority, its last
seen value and the first min 8 each and the free flag and its last seen value 1 each
per slot (42 (o + g)); the second min and the count 8 each and a mark 2 per own vertex;
the seeded key of every vertex, 8 n, while the locals' are taken (the same permutation
as the whole graph's); subscribers 16 per (own vertex, rank holding it); the labels 12
per (own vertex, core) pair. On the 2M mention graph at 2 ranks: 158-162 MB per rank in
the rounds. Moved: 8 per ghost (degrees), 4 per row asked for and its row (8 + 4 per
entry); per round 16 per changed min and per changed state for each rank holding the
vertex, 16 per ghost member of a core (80 MB in all on the 2M graph at 2 ranks)."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms._owners import ghost_slots, joined, to_owners
from hpgraph.algorithms.bmlpa.initial import _contains, _core_of, _labels_of_pairs
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
def _ghost_neighbours(ptr, ix, tri, own, g):
    """Per ghost, the own vertices whose rows name it, and the pair's triangle flag:
    CSR (rptr, rix, rtri) over ghosts."""
    rptr = np.zeros(g + 1, dtype=np.int64)
    for q in range(ptr[own]):
        if ix[q] >= own:
            rptr[ix[q] - own + 1] += 1
    for k in range(g):
        rptr[k + 1] += rptr[k]
    rix = np.empty(rptr[g], dtype=np.int32)
    rtri = np.empty(rptr[g], dtype=np.bool_)
    fill = rptr[:g].copy()
    for v in range(own):
        for q in range(ptr[v], ptr[v + 1]):
            u = ix[q]
            if u >= own:
                rix[fill[u - own]] = v
                rtri[fill[u - own]] = tri[q]
                fill[u - own] += 1
    return rptr, rix, rtri


@njit(**NUMBA_FLAGS)
def _grow(a, k):
    """``a`` with room for index k."""
    if k < a.shape[0]:
        return a
    out = np.empty(2 * a.shape[0] + 16, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(**NUMBA_FLAGS)
def _on_free(events, ptr, ix, tri, rptr, rix, rtri, own, cnt, prio):
    """Slots ``events`` stopped being free: each own vertex next to one in a triangle
    has a free triangle neighbour fewer (``cnt``); an undecided one left with none is
    skipped (it can no longer build a core: a core's j is a free neighbour with a common
    neighbour, and free flags only fall). Returns those skipped."""
    out = np.empty(16, dtype=np.int64)
    k = 0
    for u in events:
        if u < own:
            a, e, rows, flags = ptr[u], ptr[u + 1], ix, tri
        else:
            a, e, rows, flags = rptr[u - own], rptr[u - own + 1], rix, rtri
        for q in range(a, e):
            v = rows[q]
            if v < own and flags[q]:
                cnt[v] -= 1
                if cnt[v] == 0 and prio[v] != _NONE:
                    prio[v] = _NONE
                    out = _grow(out, k)
                    out[k] = v
                    k += 1
    return out[:k]


@njit(**NUMBA_FLAGS)
def _recompute(ev, old, ptr, ix, rptr, rix, own, watch, value, out, mark, free):
    """Own vertices x in the closed neighbourhood of a slot u of ``ev`` with
    ``watch[x]`` whose ``out[x]`` was u's old ``value`` (``old``; none: nothing to redo),
    or x = u own and no longer ``free`` (where given): each gets ``out[x]`` again, the
    min of ``value`` over its closed neighbourhood (none where ``watch[x]`` is False).
    Returns (those whose value changed, their old values)."""
    cand = np.empty(16, dtype=np.int64)
    nc = 0
    for t in range(ev.shape[0]):
        u = ev[t]
        p = old[t]
        dropped = u < own and free.shape[0] > 0 and not free[u]
        if p == _NONE and not dropped:
            continue
        if u < own:
            a, e = ptr[u] - 1, ptr[u + 1]
        else:
            a, e = rptr[u - own], rptr[u - own + 1]
        for q in range(a, e):
            if u < own:
                x = u if q < ptr[u] else ix[q]
            else:
                x = rix[q]
            if x < own and not mark[x] and ((watch[x] and out[x] == p) or (x == u and dropped)):
                mark[x] = True
                cand = _grow(cand, nc)
                cand[nc] = x
                nc += 1
    changed = np.empty(nc, dtype=np.int64)
    was = np.empty(nc, dtype=np.int64)
    k = 0
    for t in range(nc):
        x = cand[t]
        mark[x] = False
        m = _NONE
        if watch[x]:
            m = value[x]
            for q in range(ptr[x], ptr[x + 1]):
                m = min(m, value[ix[q]])
        if m != out[x]:
            changed[k] = x
            was[k] = out[x]
            k += 1
            out[x] = m
    return changed[:k], was[:k]


@njit(**NUMBA_FLAGS)
def _in_triangles(ptr, ix, own):
    """Per own row entry (v, u): whether v and u have a common neighbour. Rows of degree
    >= 3 intersect u's row (which holds the locals at least, all v's can share); rows
    of degree < 3 copy the flag of (u, v) from own u's row when u has degree >= 3 (no
    count reads the others)."""
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
    for v in range(own):
        if ptr[v + 1] - ptr[v] >= 3:
            continue
        for q in range(ptr[v], ptr[v + 1]):
            u = ix[q]
            if u < own and ptr[u + 1] - ptr[u] >= 3:
                tri[q] = tri[ptr[u] + np.searchsorted(ix[ptr[u] : ptr[u + 1]], v)]
    return tri


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
    tri = _in_triangles(ptr, ix, own)
    rptr, rix, rtri = _ghost_neighbours(ptr, ix, tri, own, slots_ - own)
    # each own vertex's free neighbours in a triangle with it; undecided without: skipped
    row_of = np.repeat(np.arange(own, dtype=np.int64), np.diff(ptr[: own + 1]))
    cnt = np.bincount(row_of[tri], minlength=own).astype(np.int64)
    del row_of
    skipped = np.flatnonzero((cnt == 0) & (prio[:own] != _NONE))
    prio[skipped] = _NONE
    left = int((prio[:own] != _NONE).sum())  # own undecided
    seen_prio, seen_free = prio.copy(), free.copy()  # the states the mins were made from
    # -1: round 1 redoes every own min, and sends them all
    m1 = np.concatenate([np.full(own, -1), np.full(slots_ - own, _NONE)]).astype(np.int64)
    m2 = np.full(own, -1, dtype=np.int64)
    mark = np.zeros(own, dtype=np.bool_)
    none = np.zeros(0, dtype=np.bool_)
    ev, old = np.arange(own, dtype=np.int64), np.full(own, -1, dtype=np.int64)
    events = np.zeros(0, dtype=np.int64)  # slots whose state changed last round
    sub_ptr, sub_rank, sub_pos = _subscribers(gh.asked, own)
    gid = np.concatenate([np.arange(lo, sp.hi, dtype=np.int64), ids.astype(np.int64)])
    mem_slot, mem_head = [], []  # (own vertex, core label) pairs
    c_prio, c_len, c_mem = [], [], []
    rounds = 0
    while True:
        # (a) fallen free flags (and the skips they cause), risen priorities: the own
        # mins they can change are redone and sent to the ranks holding them as ghosts
        if rounds:
            gone = events[free[events] != seen_free[events]]
            seen_free[gone] = False
            more = _on_free(gone, ptr, ix, tri, rptr, rix, rtri, own, cnt, prio)
            skipped = np.concatenate([skipped, more])
            left -= int(more.shape[0])
            ev = np.unique(np.concatenate([events, more]))
            ev = ev[(prio[ev] != seen_prio[ev]) | ((ev < own) & np.isin(ev, gone))]
            old = seen_prio[ev]
            seen_prio[ev] = prio[ev]
        ch, was = _recompute(ev, old, ptr, ix, rptr, rix, own, free, prio, m1, mark, free)
        qptr, pos, val = _by_subscriber(ch, m1[ch], sub_ptr, sub_rank, sub_pos, parts)
        for q in range(parts):
            if q != pid:
                peer.send(q, np.array([left], dtype=np.int64))
                peer.send(q, pos[qptr[q] : qptr[q + 1]])
                peer.send(q, val[qptr[q] : qptr[q + 1]])
        peer.sync()
        got = [a for _, a in peer.messages()]
        undecided = left
        m_ev, m_old = [ch], [was]
        for k, q in enumerate(r for r in range(parts) if r != pid):
            undecided += int(got[3 * k][0])
            s = own + at[q] + got[3 * k + 1]
            m_ev.append(s)
            m_old.append(m1[s])
            m1[s] = got[3 * k + 2]
        if undecided == 0:
            break
        rounds += 1
        # (b) the vertices first within two hops (through free ones) decide
        m_ev, m_old = np.concatenate(m_ev), np.concatenate(m_old)
        und = prio[:own] != _NONE  # only the undecided's second mins are kept
        redo, _ = _recompute(m_ev, m_old, ptr, ix, rptr, rix, own, und, m1, m2, mark, none)
        dec = redo[(m2[redo] == prio[redo]) & (prio[redo] != _NONE)]
        dec = dec[np.argsort(prio[dec])]
        heads_prio = prio[dec]
        cptr, mem = _decide(ptr, ix, deg, key, n, free, dec)
        prio[dec] = _NONE
        left -= int(dec.shape[0])
        first = mem[cptr[:-1]]
        c_prio.append(heads_prio[np.isin(dec, first)])
        c_len.append(np.diff(cptr))
        c_mem.append(gid[mem])
        heads = np.repeat(gid[first], np.diff(cptr))
        ours = mem < own
        mem_slot.append(mem[ours])
        mem_head.append(heads[ours])
        theirs = np.argsort(gid[mem[~ours]], kind="stable")
        tid, thead = gid[mem[~ours]][theirs], heads[~ours][theirs]
        to_owners(peer, tid, np.searchsorted(tid, sp.rank_offsets))
        to_owners(peer, thead, np.searchsorted(tid, sp.rank_offsets))
        peer.sync()
        # (c) owners mark their members not free; changed states to the ghosts' holders
        got = [a for _, a in peer.messages()]
        mid = np.concatenate([tid[:0], *got[0::2]]) - lo
        mem_slot.append(mid)
        mem_head.append(np.concatenate([thead[:0], *got[1::2]]))
        free[mid] = False
        ch = np.unique(np.concatenate([skipped, dec, mem[ours], mid]))
        gone = ch[(prio[ch] != _NONE) & ~free[ch]]  # undecided members: skipped
        left -= int(gone.shape[0])
        prio[gone] = _NONE
        state = np.where(free[ch], prio[ch], -1)
        qptr, pos, val = _by_subscriber(ch, state, sub_ptr, sub_rank, sub_pos, parts)
        to_owners(peer, pos, qptr)
        to_owners(peer, val, qptr)
        peer.sync()
        events = [ch, mem[~ours]]  # ghost members are not free here already
        got = peer.messages()
        for k in range(0, len(got), 2):
            q = got[k][0]
            s, state = own + at[q] + got[k][1], got[k + 1][1]
            prio[s] = np.where(state < 0, _NONE, state)
            free[s] = state >= 0
            events.append(s)
        events = np.unique(np.concatenate(events))
        skipped = np.zeros(0, dtype=np.int64)
    mem_slot = np.concatenate([np.zeros(0, np.int64), *mem_slot]).astype(np.int64)
    mem_head = np.concatenate([np.zeros(0, np.int64), *mem_head])
    kept["labels"] = _labels_of_pairs(own, lo, mem_slot, mem_head)
    c_len = np.concatenate([np.zeros(0, np.int64), *c_len])
    cptr = np.zeros(c_len.shape[0] + 1, dtype=np.int64)
    np.cumsum(c_len, out=cptr[1:])
    kept["cores"] = (
        np.concatenate([np.zeros(0, np.int64), *c_prio]),
        cptr,
        np.concatenate([np.zeros(0, np.int64), *c_mem]),
    )
    held = (ptr, ix, rptr, rix, rtri, tri, cnt, deg, key, prio, free, seen_prio, seen_free)
    held += (m1, m2, mark, gid, sub_ptr, sub_rank, sub_pos)
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
