"""BMLPA's peer-level BSP program: vertex chunks per peer, the active set, the
exchange of changed sets, the stop rules."""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from hpgraph.algorithms.bmlpa.propagate import _BIG, _big_row_max, _new_row_max, _propagate
from hpgraph.algorithms.bmlpa.schedule import _class_runs, _clear_class, _mark_neighbours
from hpgraph.algorithms.bmlpa.state import (
    _compact_state,
    _compacted,
    _count_labels,
    _counts_after,
    _gather_rows,
    _make_room,
    _needs_compaction,
    _patch,
    _slot_need,
    _stop_rule,
    _write_sets,
)
from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


@njit(**NUMBA_FLAGS)
def _range_cut(indptr, parts, part, alpha):
    """First vertex of ``part`` when ``alpha * vertices + edges`` is split evenly."""
    n = indptr.shape[0] - 1
    target = (alpha * n + indptr[n]) * part / parts
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if alpha * mid + indptr[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


# chunks per peer: peers take every parts-th chunk, so the heavy region that breadth-first
# numbering puts first (a hub's neighbourhood) is shared out instead of landing on peer 0
_CHUNKS_PER_PEER = 64


def _chunks(indptr, parts):
    """(starts, ends) of ``_CHUNKS_PER_PEER * parts`` chunks balanced on ``2 * vertices +
    edges``; chunk k belongs to peer ``k % parts``."""
    k = _CHUNKS_PER_PEER * parts
    cuts = np.array([_range_cut(indptr, k, i, 2.0) for i in range(1, k)], dtype=np.int64)
    n = indptr.shape[0] - 1
    return np.concatenate([[0], cuts]), np.concatenate([cuts, [n]])


def _assemble(pieces, starts, ends, parts):
    """(counts, labels, coefficients) in vertex order from every peer's sets of all its
    vertices, ``pieces[p] = (counts, labels, coefficients)`` over peer p's chunks."""
    if parts == 1:
        return pieces[0]
    vcut = [
        np.concatenate([[0], np.cumsum(ends[p::parts] - starts[p::parts])]) for p in range(parts)
    ]
    ecut = [np.concatenate([[0], np.cumsum(pc[0])]) for pc in pieces]
    out = ([], [], [])
    for k in range(starts.shape[0]):
        p, j = k % parts, k // parts
        v0, v1 = vcut[p][j], vcut[p][j + 1]
        e0, e1 = ecut[p][v0], ecut[p][v1]
        out[0].append(pieces[p][0][v0:v1])
        out[1].append(pieces[p][1][e0:e1])
        out[2].append(pieces[p][2][e0:e1])
    return tuple(np.concatenate(x) for x in out)


@njit(**NUMBA_FLAGS)
def _active_chunks(indptr, indices, starts, ends, ids, mark):
    """(active, count): active[v] for the vertices of the chunks: v has a neighbour in
    ``ids`` (the vertices whose set differs from two supersteps before); count: how many
    of them. Pushes from ``ids`` when their edges are fewer than the chunks', else scans
    the chunks against ``mark`` (a false bool array of n, left false)."""
    n = indptr.shape[0] - 1
    active = np.zeros(n, dtype=np.bool_)
    work = 0
    for k in range(ids.shape[0]):
        u = ids[k]
        work += indptr[u + 1] - indptr[u]
    mine = 0
    for ci in range(starts.shape[0]):
        mine += indptr[ends[ci]] - indptr[starts[ci]]
    if work <= mine:
        for k in range(ids.shape[0]):
            u = ids[k]
            for q in range(indptr[u], indptr[u + 1]):
                active[indices[q]] = True  # others' vertices too: never read
    else:
        for k in range(ids.shape[0]):
            mark[ids[k]] = True
        for ci in range(starts.shape[0]):
            for v in range(starts[ci], ends[ci]):
                for q in range(indptr[v], indptr[v + 1]):
                    if mark[indices[q]]:
                        active[v] = True
                        break
        for k in range(ids.shape[0]):
            mark[ids[k]] = False
    count = 0
    for ci in range(starts.shape[0]):
        for v in range(starts[ci], ends[ci]):
            count += active[v]
    return active, count


def _bmlpa_peer(peer, indptr, indices, state, num_labels, b, cap, max_iterations, tolerance, show):
    """The BSP program: one vertex range per peer; returns its range's final sets.

    Synchronous propagation swings with period 2 on bipartite pieces (stars, chains), so
    work is skipped against the state two supersteps back, not the last one: a vertex
    none of whose neighbours' sets differ from two supersteps ago gets, bit for bit, its
    own set of two supersteps ago (the update is a function of the neighbours' sets).
    Each superstep therefore computes ``dest`` from ``source`` for the *active* vertices
    only, and builds it by patching ``prev`` (the state before ``source``) with the sets
    that differ from it; those vertices make the next superstep's active set.

    Stop rules: ``tolerance`` None is the paper's counts rule (keeps ``source``); a number
    is the seed's update-rate rule (keeps ``dest``): stop once fewer than ``tolerance * n``
    vertices hold labels (ids, not coefficients) that differ from two supersteps back, or
    none does."""
    ptr, lab, coef = state
    n = indptr.shape[0] - 1
    pid, parts = peer.pid, peer.num_peers
    starts, ends = _chunks(indptr, parts)
    mine = starts[pid::parts].copy(), ends[pid::parts].copy()
    own = np.concatenate([np.arange(a, e) for a, e in zip(*mine, strict=True)])  # my vertices
    size = own.shape[0]
    score = np.zeros(num_labels, dtype=np.float64)  # 8 B per label, per peer
    touched = np.empty(num_labels, dtype=np.int32)
    rowmax = np.empty(n, dtype=np.float64)  # read only for the big sets (> _BIG entries)
    memo = np.full(n, -1, dtype=np.int64)  # the leaf memo of _propagate: 8 B per vertex
    mark = np.zeros(n, dtype=np.bool_)
    everyone = np.ones(n, dtype=np.bool_)
    # own copies: states are patched in place, and the local runtime shares the input
    cur = prev = _compact_state(np.diff(ptr), lab.copy(), coef.copy())
    largest = int(cur[2].max()) if n else 0  # a bound on the largest set
    if tolerance is None:  # the counts rule's label counts: 12 B per label
        cnt = cnt_prev = _count_labels(lab, num_labels)
        old_min = np.zeros(num_labels, dtype=np.int32)
    changed_per_step = []
    relabelled_per_step = []
    active_per_step = []  # this peer's recomputed vertices
    stopped = "max_iterations"
    counts_rule = tolerance is None
    last_changed = n
    diff = None
    for it in range(max_iterations):
        # the first two supersteps have no state two supersteps back: all are active
        if it < 2:
            active, count = everyone, size
        else:
            active, count = _active_chunks(indptr, indices, *mine, diff, mark)
        active_per_step.append(int(count))
        # while most vertices differ (early supersteps), ship every vertex's set and
        # build a fresh state: no patching pass; the choice uses the global count of
        # the last superstep, so every peer makes the same one
        full = 2 * last_changed > n
        msg = _propagate(
            indptr, indices, cur[0], cur[1], cur[3], cur[4], prev[0], prev[1], prev[3],
            prev[4], active, *mine, b, cap, score, touched, rowmax, memo,
            largest > _BIG, full,
        )  # fmt: skip
        if full:  # the state before source is not needed to build a fresh one: free it
            prev = None
        for q in range(parts):
            for a in msg:
                peer.send(q, a)
        peer.sync()
        got = [a for _, a in peer.messages()]  # 5 arrays per peer, peers in order
        ids = np.concatenate(got[0::5]) if parts > 1 else got[0]
        if full:  # every vertex's set, by chunk: into vertex order
            pieces = [got[5 * q + 1 : 5 * q + 4] for q in range(parts)]
            ccnt, clab, ccoef = _assemble(pieces, starts, ends, parts)
        else:  # the changed vertices' sets, in the order of ids
            ccnt, clab, ccoef = (
                np.concatenate(got[i::5]) if parts > 1 else got[i] for i in (1, 2, 3)
            )
            if parts > 1:  # a count -1 - j names ids[j] of its own peer's list
                _shift_shared(ccnt, np.array([a.shape[0] for a in got[0::5]]))
        last_changed = int(ids.shape[0])
        relabelled = int(sum(int(a[0]) for a in got[4::5]))
        changed_per_step.append(last_changed)
        relabelled_per_step.append(relabelled)
        if show is not None and pid == 0:
            show(it + 1, last_changed, cur[6], relabelled)
        if counts_rule:
            if full:
                new_cnt = _count_labels(clab, num_labels)
            else:
                new_cnt = _counts_after(cnt_prev, prev[0], prev[1], prev[3], ids, ccnt, clab)
            if _stop_rule(cnt, new_cnt, old_min, it > 0):
                stopped = "counts"
                break
        if ccnt.shape[0]:
            largest = max(int(ccnt.max()), 0 if full else largest)
        new = _compact_state(ccnt, clab, ccoef) if full else _patch(prev, ids, ccnt, clab, ccoef)
        prev, cur = cur, new
        if counts_rule:
            cnt_prev, cnt = cnt, new_cnt
        diff = ids
        del msg, got, ccnt, clab, ccoef, new
        if not counts_rule and (relabelled == 0 or relabelled < tolerance * n):
            stopped = "rate"
            break
    ptr, lab, coef = _gather_rows(cur, own)
    steps = (changed_per_step, relabelled_per_step, active_per_step)
    return (np.diff(ptr), lab, coef), stopped, steps


class SharedState:
    """The label state the peers of one address space share under ``update="semi-sync"``
    (the local runtime's peers are threads of one process; each MPI rank has its own):
    one arena instead of one per peer. The first peer to arrive builds it and becomes the
    *keeper*: it alone grows, compacts or replaces the arena, and keeps the counts rule's
    label counts. Each peer writes its own new sets into it (disjoint vertices, disjoint
    arena ranges); the keeper writes those of peers that do not share it (other MPI
    ranks'). Barriers separate writing from reading. Create one per run."""

    def __init__(self):
        self._lock = threading.Lock()
        self.state = None
        self.dirty = None  # per vertex: a neighbour's set changed since its last update
        self.counts = None  # the counts rule's label counts, kept by the keeper
        self._keeper = None
        self._members = set()  # complete once every peer has passed its first barrier

    def join(self, pid, build):
        """Whether peer ``pid`` keeps the state (``build()`` makes it, once: the state,
        the dirty flags and the counts rule's label counts or None)."""
        with self._lock:
            self._members.add(pid)
            if self._keeper is None:
                self.state, self.dirty, self.counts = build()
                self._keeper = pid
            return self._keeper == pid

    def saved(self, used, live) -> dict:
        """What a checkpoint keeps of it (engine/peer_checkpoint.py) between two sweeps:
        the arena, its ``used`` and ``live`` entries (every peer's own count: the
        keeper may not have stored them yet), the dirty flags, the label counts."""
        out = dict(zip(_ARENA, self.state[:5], strict=True))
        out.update(used=used, live=live, dirty=self.dirty, counts=self.counts)
        return out

    def writer(self, q):
        """The peer that writes peer ``q``'s new sets into this state."""
        return q if q in self._members else self._keeper


#: the arrays of a label state, by name (state.py: ``_compact_state``)
_ARENA = ("beg", "fin", "room", "lab", "coef")


def _restored(saved: dict):
    """(state, dirty, counts) from :meth:`SharedState.saved`."""
    state = [saved[k] for k in _ARENA] + [int(saved["used"]), int(saved["live"])]
    return state, saved["dirty"], saved["counts"]


def _bmlpa_peer_semi(
    peer, indptr, indices, state, num_labels, b, cap, max_iterations, tolerance, show, colour,
    shared,
):  # fmt: skip
    """The semi-synchronous BSP program (``update="semi-sync"``): a sweep updates the
    colour classes in turn, one superstep each; a class is computed from the state the
    classes before it left (in this sweep) and after it (in the last), and the state is
    patched with the class's changed sets before the next class starts. So a sweep costs
    one recomputation per vertex, as a synchronous superstep does, but labels cross a
    class boundary within the sweep and nothing swings with period 2.

    The peers of one address space share one state (``shared``, a :class:`SharedState`):
    after each class's exchange every peer writes its own changed sets into it, in place
    or at the arena's end from an offset that every peer computes alike from the
    messages (the keeper grows the arena first, behind one more barrier, when they do not
    fit; on MPI it writes the other ranks' sets), then a second barrier lets everyone
    read it again; a half-dead arena is compacted by the keeper behind a third. A vertex
    is recomputed only when a neighbour's set changed since its own last update
    (``dirty``: set when a neighbour changes, cleared when its class is updated);
    otherwise its new set is its current one, bit for bit. Stop rules per sweep:
    ``tolerance`` is the update-rate rule against the sets one sweep back; None is the
    paper's counts rule on the label counts before and after the sweep. Both keep the
    last sweep's sets."""
    ptr, lab, coef = state
    n = indptr.shape[0] - 1
    pid, parts = peer.pid, peer.num_peers
    starts, ends = _chunks(indptr, parts)
    mine = starts[pid::parts].copy(), ends[pid::parts].copy()
    own = np.concatenate([np.arange(a, e) for a, e in zip(*mine, strict=True)])
    k = int(colour.max()) + 1 if n else 0
    cptr, rs, re = _class_runs(colour, k, *mine)
    score = np.zeros(num_labels, dtype=np.float64)
    touched = np.empty(num_labels, dtype=np.int32)
    rowmax = np.empty(n, dtype=np.float64)
    memo = np.full(n, -1, dtype=np.int64)
    counts_rule = tolerance is None
    saved = peer.resumed  # a checkpoint's values at the top of a sweep, or None

    def build():
        if saved is not None:
            return _restored(peer.resumed_shared)
        counts = _count_labels(lab, num_labels) if counts_rule else None
        fresh = _compact_state(np.diff(ptr), lab.copy(), coef.copy())
        return fresh, np.ones(n, dtype=np.bool_), counts

    keeper = shared.join(pid, build)
    # shared: a peer reads and clears only its own vertices' flags, before the exchange;
    # the writer of a peer's sets marks their neighbours, after it
    dirty = shared.dirty
    # the big sets' largest coefficients, kept up to date from the messages: one pass
    # over every vertex per class (in _propagate) would cost O(n) per class
    st = shared.state
    if n and int((st[1] - st[0]).max()) > _BIG:
        _big_row_max(st[0], st[1], st[4], rowmax)
    used, live = st[5], st[6]  # the same on every peer, kept by each
    del st
    old_min = np.zeros(num_labels, dtype=np.int32) if counts_rule else None
    changed_per_step, relabelled_per_step, active_per_step = [], [], []
    start = 0
    if saved is not None:
        start, old_min = saved["sweep"], saved["old_min"]
        changed_per_step, relabelled_per_step, active_per_step = saved["steps"]
    stopped = "max_iterations"
    first = pid == peer.local_peers[0]
    for it in range(start, max_iterations):
        # a sweep starts from the shared state and these values alone: a resume starts here
        mine_now = {"sweep": it, "old_min": old_min,
                    "steps": (changed_per_step, relabelled_per_step, active_per_step)}  # fmt: skip
        peer.checkpoint(mine_now, shared.saved(used, live) if first else None)
        changed = relabelled = active = 0
        cnt_start = shared.counts
        for c in range(k):
            cur = shared.state
            crs, cre = rs[cptr[c] : cptr[c + 1]], re[cptr[c] : cptr[c + 1]]
            active += _count_dirty(dirty, crs, cre)
            msg = _propagate(
                indptr, indices, cur[0], cur[1], cur[3], cur[4], cur[0], cur[1], cur[3],
                cur[4], dirty, crs, cre, b, cap, score, touched, rowmax, memo,
                False, False,
            )  # fmt: skip
            _clear_class(dirty, crs, cre)
            # (arena entries past the end my sets need, change in live entries), from the
            # state before anyone writes: every peer learns every offset from the messages
            need = _slot_need(cur[0], cur[1], cur[2], msg[0], msg[1])
            room = cur[3].shape[0]
            for q in range(parts):
                for a in (*msg, need):
                    peer.send(q, a)
            del msg, cur
            peer.sync()
            got = [a for _, a in peer.messages()]  # 6 arrays per peer, peers in order
            needs = np.array([got[6 * q + 5] for q in range(parts)]).reshape(parts, 2)
            grown = used + int(needs[:, 0].sum()) > room
            if keeper:
                if counts_rule:  # from the sets before the writes
                    for q in range(parts):
                        st = shared.state
                        ids, ccnt, clab = got[6 * q : 6 * q + 3]
                        shared.counts = _counts_after(
                            shared.counts, st[0], st[1], st[3], ids, ccnt, clab
                        )
                if grown:
                    shared.state = _make_room(shared.state, int(needs[:, 0].sum()))
            if grown or counts_rule:
                peer.sync()  # the arena is ready for the writes
            st = shared.state
            at = used
            for q in range(parts):  # each peer's sets in turn: no concatenated copy
                ids, ccnt, clab, ccoef, rel, _ = got[6 * q : 6 * q + 6]
                got[6 * q : 6 * q + 6] = [None] * 6
                relabelled += int(rel[0])
                changed += int(ids.shape[0])
                if ids.shape[0]:
                    _new_row_max(ids, ccnt, ccoef, rowmax)
                    if shared.writer(q) == pid:
                        _write_sets(st[0], st[1], st[2], st[3], st[4], at, ids, ccnt, clab, ccoef)
                        _mark_neighbours(indptr, indices, ids, dirty)
                at += int(needs[q, 0])
                del ids, ccnt, clab, ccoef
            used, live = at, live + int(needs[:, 1].sum())
            del st
            peer.sync()  # every set is written: every peer may read the state again
            if keeper:
                shared.state = shared.state[:5] + [used, live]
            if _needs_compaction(used, live):
                if keeper:
                    shared.state = _compacted(shared.state)
                peer.sync()
                used = live
        changed_per_step.append(changed)
        relabelled_per_step.append(relabelled)
        active_per_step.append(active)
        if show is not None and pid == 0:
            show(it + 1, changed, live, relabelled)  # every peer's own count: the keeper
            # may not have stored its count in the shared state yet
        if counts_rule:
            if _stop_rule(cnt_start, shared.counts, old_min, it > 0):
                stopped = "counts"
                break
        elif relabelled == 0 or relabelled < tolerance * n:
            stopped = "rate"
            break
    ptr, lab, coef = _gather_rows(shared.state, own)
    steps = (changed_per_step, relabelled_per_step, active_per_step)
    return (np.diff(ptr), lab, coef), stopped, steps


@njit(**NUMBA_FLAGS)
def _shift_shared(ccnt, sizes):
    """Counts ``-1 - j`` ("the same set as ``ids[j]``", j in its peer's list) of lists of
    ``sizes`` concatenated, made to index the concatenation, in place."""
    k = 0
    off = 0
    for q in range(sizes.shape[0]):
        for _ in range(sizes[q]):
            if ccnt[k] < 0:
                ccnt[k] -= off
            k += 1
        off += sizes[q]


@njit(**NUMBA_FLAGS)
def _count_dirty(dirty, rs, re):
    count = 0
    for i in range(rs.shape[0]):
        for v in range(rs[i], re[i]):
            count += dirty[v]
    return count
