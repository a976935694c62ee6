"""BMLPA's semi-synchronous propagation on a partitioned graph: each MPI rank holds its
own vertices' rows of the simple view, their label sets and those of its *ghosts* (the
remote vertices its rows name), never the whole graph's.

:func:`propagate_part` runs one peer per rank, in one BSP job:

1. **Slots.** The own rows with neighbours as slots (own vertices first, then the
   ghosts in id order: :func:`~hpgraph.algorithms._owners.ghost_slots`), and each owner
   learns which ranks hold which of its vertices as ghosts (its *subscribers*). The
   colouring's rounds (:mod:`.schedule`) give the own vertices their colours, the whole
   graph's first-fit colouring, in the same job.
2. **State.** The ghosts' initial sets come from their owners; one arena state
   (:mod:`.state`) holds own and ghost sets; each ghost gets a row of the own vertices
   next to it, so that a changed ghost marks them dirty.
3. **Sweeps**, as :func:`~hpgraph.algorithms.bmlpa.program._bmlpa_peer_semi` does
   them: a class's dirty own vertices are recomputed (:func:`.propagate._propagate`
   over the own rows), their changed sets are sent to the ranks that hold them as
   ghosts (a hub's leaves that share one set are sent as copies: the reference names a
   vertex the receiver may not hold), and every rank patches its own and its ghosts'
   changed sets into its state and marks their neighbours dirty. A class has no edge
   inside, every sum runs in adjacency order and the rows are the whole view's, so the
   sets are bit for bit those of the local runtime.
4. **Stop** by the update rate: each class's message carries the sender's counts of
   changed and relabelled vertices, so every rank applies the rule to the same totals.
   Or by the paper's counts rule: label counts of the own sets, summed at the end of a
   sweep by ranges of labels (:class:`_LabelCounts`).

Bytes per rank (o own vertices, g ghosts, e own row entries, L labels): the own rows 8
(o + 1) + 4 e (slots) and the ghosts' rows 8 (g + 1) + 4 e' (e' <= e: the own entries
that name ghosts); the state 20 B per slot (own and ghost) + 12 B per label entry, rowmax
8 and memo 8 and dirty 1 B per slot, the colours 4 B per own vertex, subscribers 16 B per
(own vertex, rank holding it); the scores' dense array ``12 L`` (labels are global ids,
vertices' and hashtags'): what is left to cut with a rank-local label dictionary. Moved
per class: 12 B per label entry of each changed set per subscribing rank, 16 B per such
set, 24 B of counts per pair of ranks."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms._owners import every_rank, ghost_slots, joined
from hpgraph.algorithms.bmlpa.program import _count_dirty
from hpgraph.algorithms.bmlpa.propagate import _BIG, _big_row_max, _new_row_max, _propagate
from hpgraph.algorithms.bmlpa.schedule import (
    _class_runs,
    _clear_class,
    _colour_program,
    _mark_neighbours,
)
from hpgraph.algorithms.bmlpa.state import (
    _compact_state,
    _count_labels,
    _counts_after,
    _gather_rows,
    _patch,
    _slot_need,
)
from hpgraph.config import NUMBA_FLAGS
from hpgraph.graph.views import _bfs_renumbered

__all__ = ["propagate_part"]


@njit(**NUMBA_FLAGS)
def _with_ghost_rows(ip, slots, own, ghosts):
    """The own rows (``ip``, ``slots``) followed by a row per ghost listing the own
    vertices next to it, ascending: a CSR over every slot."""
    cnt = np.zeros(ghosts + 1, dtype=np.int64)
    for q in range(ip[own]):
        if slots[q] >= own:
            cnt[slots[q] - own + 1] += 1
    for k in range(ghosts):
        cnt[k + 1] += cnt[k]
    ptr = np.empty(own + ghosts + 1, dtype=np.int64)
    ptr[: own + 1] = ip
    ptr[own + 1 :] = ip[own] + cnt[1:]
    ix = np.empty(ptr[own + ghosts], dtype=np.int32)  # slots < 2**31: a rank holds fewer
    ix[: ip[own]] = slots
    fill = ptr[own : own + ghosts].copy()
    for v in range(own):
        for q in range(ip[v], ip[v + 1]):
            u = slots[q]
            if u >= own:
                ix[fill[u - own]] = v
                fill[u - own] += 1
    return ptr, ix


def _subscribers(asked, slots):
    """Per own slot, the (rank, position in that rank's list) of the ranks holding it as
    a ghost: CSR ``(ptr, rank, position)``."""
    pairs = [(wanted, q) for q, wanted in asked.items()]
    slot = np.concatenate([np.zeros(0, np.int64), *(w for w, _ in pairs)])
    rank = np.concatenate([np.zeros(0, np.int64), *(np.full(w.shape[0], q) for w, q in pairs)])
    pos = np.concatenate([np.zeros(0, np.int64), *(np.arange(w.shape[0]) for w, _ in pairs)])
    order = np.argsort(slot, kind="stable")
    ptr = np.zeros(slots + 1, dtype=np.int64)
    np.cumsum(np.bincount(slot, minlength=slots), out=ptr[1:])
    return ptr, rank[order], pos[order]


@njit(**NUMBA_FLAGS)
def _outgoing(ids, ccnt, clab, ccoef, sub_ptr, sub_rank, sub_pos, parts):
    """The changed sets of ``ids`` (own slots; ``ccnt`` entries each, concatenated; a
    count ``-1 - j``: the same set as ``ids[j]``) for the ranks that hold them, by rank:
    ``(qptr, pos, cnt, eptr, lab, coef)``: rank q gets positions ``pos[qptr[q]:qptr[q +
    1]]`` in its list of this rank's vertices, their counts, and their entries
    ``lab/coef[eptr[q]:eptr[q + 1]]``, every set written out."""
    nid = ids.shape[0]
    start = np.zeros(nid, dtype=np.int64)
    at = 0
    for k in range(nid):
        if ccnt[k] >= 0:
            start[k] = at
            at += ccnt[k]
    qptr = np.zeros(parts + 1, dtype=np.int64)
    eptr = np.zeros(parts + 1, dtype=np.int64)
    for k in range(nid):
        j = k if ccnt[k] >= 0 else -1 - ccnt[k]
        v = ids[k]
        for t in range(sub_ptr[v], sub_ptr[v + 1]):
            qptr[sub_rank[t] + 1] += 1
            eptr[sub_rank[t] + 1] += ccnt[j]
    for q in range(parts):
        qptr[q + 1] += qptr[q]
        eptr[q + 1] += eptr[q]
    pos = np.empty(qptr[parts], dtype=np.int64)
    cnt = np.empty(qptr[parts], dtype=np.int64)
    lab = np.empty(eptr[parts], dtype=np.int32)
    coef = np.empty(eptr[parts], dtype=np.float64)
    qf = qptr[:parts].copy()
    ef = eptr[:parts].copy()
    for k in range(nid):
        j = k if ccnt[k] >= 0 else -1 - ccnt[k]
        m = ccnt[j]
        s = start[j]
        v = ids[k]
        for t in range(sub_ptr[v], sub_ptr[v + 1]):
            q = sub_rank[t]
            pos[qf[q]] = sub_pos[t]
            cnt[qf[q]] = m
            qf[q] += 1
            e = ef[q]
            lab[e : e + m] = clab[s : s + m]
            coef[e : e + m] = ccoef[s : s + m]
            ef[q] += m
    return qptr, pos, cnt, eptr, lab, coef


def _ghost_start(peer, asked, start):
    """The ghosts' initial sets, from their owners: (counts, labels, coefficients) in
    slot order. Each owner sends the sets of the vertices each rank asked for."""
    sptr, slab, scoef = start
    for q, wanted in asked.items():
        ptr, lab, coef = _gather_rows([sptr[:-1], sptr[1:], None, slab, scoef], wanted)
        peer.send(q, np.diff(ptr))
        peer.send(q, lab)
        peer.send(q, coef)
    peer.sync()
    return (
        joined(peer, np.zeros(0, np.int64), 0, 3),
        joined(peer, slab[:0], 1, 3),
        joined(peer, scoef[:0], 2, 3),
    )


def _propagate_program(peer, sp, start, num_labels, b, cap, max_iterations, tolerance, show, kept):
    """One rank's peer (module docstring). ``start``: the own vertices' initial sets as
    CSR (ptr from 0, labels sorted per row, coefficients). Leaves the own vertices' final
    sets in ``kept["sets"]`` (nothing large is returned: the runtime gathers results) and
    returns (stop reason, per-sweep (changed, relabelled, recomputed) totals, colouring
    rounds, colours)."""
    gh = ghost_slots(peer, sp)
    own, ip, slots, _, at, asked = gh
    g = gh.ids.shape[0]
    parts, pid = peer.num_peers, peer.pid
    colour, rounds = _colour_program(peer, sp, gh)
    k = int(every_rank(peer, int(colour.max(initial=-1))).max()) + 1  # colours in all
    gcnt, glab, gcoef = _ghost_start(peer, asked, start)
    state = _compact_state(
        np.concatenate([np.diff(start[0]), gcnt]),
        np.concatenate([start[1], glab]),
        np.concatenate([start[2], gcoef]),
    )
    del gcnt, glab, gcoef
    # slots renumbered breadth-first over own and ghost rows, as the local runtime's
    # locality view does (rows keep their order, so the sums are unchanged): leaves next
    # to their hub, a hub's neighbours together. slot[i]: the number of old slot i
    # (own vertex lo + i, then the ghosts in id order)
    aptr, aix = _with_ghost_rows(ip, slots, own, g)
    del slots
    first = int(np.argmax(np.diff(aptr))) if own + g else 0
    order, aptr, aix = _bfs_renumbered(aptr, aix, first)
    slot = np.empty(own + g, dtype=np.int64)
    slot[order] = np.arange(own + g)
    ptr, lab, coef = _gather_rows(state, order)
    state = _compact_state(np.diff(ptr), lab, coef)
    del ptr, lab, coef
    sub_ptr, sub_rank, sub_pos = _subscribers({q: slot[w] for q, w in asked.items()}, own + g)
    # the ghosts are class k, never updated here
    classes = np.full(own + g, k, dtype=np.int32)
    classes[slot[:own]] = colour
    cptr, rs, re = _class_runs(classes, k + 1, np.zeros(1, np.int64), np.full(1, own + g))
    del order, classes
    dirty = np.ones(own + g, dtype=np.bool_)
    rowmax = np.zeros(own + g, dtype=np.float64)
    if own + g and int((state[1] - state[0]).max()) > _BIG:
        _big_row_max(state[0], state[1], state[4], rowmax)
    memo = np.full(own + g, -1, dtype=np.int64)
    score = np.zeros(num_labels, dtype=np.float64)
    touched = np.empty(num_labels, dtype=np.int32)
    own_live = int(start[0][-1])
    live = int(every_rank(peer, own_live).sum())
    n = sp.n
    counts = None
    if tolerance is None:  # the counts rule: label counts of own sets, summed by range
        counts = _LabelCounts(peer, num_labels, start[1])
    steps = ([], [], [])
    stopped = "max_iterations"
    for it in range(max_iterations):
        changed = relabelled = active = 0
        for c in range(k):
            crs, cre = rs[cptr[c] : cptr[c + 1]], re[cptr[c] : cptr[c + 1]]
            active += _count_dirty(dirty, crs, cre)
            st = state
            ids, ccnt, clab, ccoef, rel = _propagate(
                aptr, aix, st[0], st[1], st[3], st[4], st[0], st[1], st[3], st[4],
                dirty, crs, cre, b, cap, score, touched, rowmax, memo, False, False,
            )  # fmt: skip
            _clear_class(dirty, crs, cre)
            grew = int(_slot_need(st[0], st[1], st[2], ids, ccnt)[1])
            del st
            qptr, pos, cnt, eptr, lab, coef = _outgoing(
                ids, ccnt, clab, ccoef, sub_ptr, sub_rank, sub_pos, parts
            )
            head = np.array([ids.shape[0], int(rel[0]), grew], dtype=np.int64)
            for q in range(parts):
                if q != pid:
                    peer.send(q, head)
                    peer.send(q, pos[qptr[q] : qptr[q + 1]])
                    peer.send(q, cnt[qptr[q] : qptr[q + 1]])
                    peer.send(q, lab[eptr[q] : eptr[q + 1]])
                    peer.send(q, coef[eptr[q] : eptr[q + 1]])
            peer.sync()
            changed += int(head[0])
            relabelled += int(head[1])
            live += grew
            if counts is not None:  # from the own sets before the patch
                st = state
                counts.own = _counts_after(counts.own, st[0], st[1], st[3], ids, ccnt, clab)
                del st
            all_ids, all_cnt, all_lab, all_coef = [ids.astype(np.int64)], [ccnt], [clab], [ccoef]
            got = [a for _, a in peer.messages()]  # 5 arrays per other rank, in rank order
            for i, q in enumerate(r for r in range(parts) if r != pid):
                h, p, m, lb, cf = got[5 * i : 5 * i + 5]
                changed += int(h[0])
                relabelled += int(h[1])
                live += int(h[2])
                all_ids.append(slot[own + at[q] + p])
                all_cnt.append(m)
                all_lab.append(lb)
                all_coef.append(cf)
            del got
            ids, ccnt, clab, ccoef = (
                np.concatenate(x) for x in (all_ids, all_cnt, all_lab, all_coef)
            )
            if ids.shape[0]:  # own sets' references name own ids, which come first
                _new_row_max(ids, ccnt, ccoef, rowmax)
                state = _patch(state, ids, ccnt, clab, ccoef)
                _mark_neighbours(aptr, aix, ids, dirty)
            del ids, ccnt, clab, ccoef, all_ids, all_cnt, all_lab, all_coef
        for x, y in zip(steps, (changed, relabelled, active), strict=True):
            x.append(y)
        if show is not None and pid == 0:
            show(it + 1, changed, live, relabelled)
        if counts is not None:
            if counts.stop(it > 0):
                stopped = "counts"
                break
        elif relabelled == 0 or relabelled < tolerance * n:
            stopped = "rate"
            break
    held = (aptr, aix, *state[:5], rowmax, memo, dirty, score, touched, slot, rs, re)
    held = sum(a.nbytes for a in held) + sum(a.nbytes for a in (sub_ptr, sub_rank, sub_pos))
    kept["sets"] = _gather_rows(state, slot[:own])
    return stopped, steps, rounds, k, (own, g, held)


class _LabelCounts:
    """The paper's stop rule on a partitioned graph. Each rank counts the labels of its
    own vertices' sets (``own``, 4 B per label); at the end of a sweep rank r sums every
    rank's counts of the labels in its range ``[cuts[r], cuts[r + 1])`` and applies the
    rule (:func:`~hpgraph.algorithms.bmlpa.state._stop_rule`) to them, the test whether
    the labels in use changed and the final verdict agreed by two more small exchanges.
    Moved per sweep: 4 B per label per rank (the ranges), 2 flags per pair of ranks."""

    def __init__(self, peer, num_labels, labels):
        self.peer = peer
        self.cuts = (np.arange(peer.num_peers + 1) * num_labels) // peer.num_peers
        self.own = _count_labels(labels, num_labels)
        self.total = self._summed()  # Count(source) of the labels in this rank's range
        self.old_min = np.zeros_like(self.total)

    def _summed(self):
        peer, cuts = self.peer, self.cuts
        for q in range(peer.num_peers):
            if q != peer.pid:
                peer.send(q, self.own[cuts[q] : cuts[q + 1]])
        peer.sync()
        total = self.own[cuts[peer.pid] : cuts[peer.pid + 1]].copy()
        for _, got in peer.messages():
            total += got
        return total

    def _all(self, flag: bool) -> bool:
        """Whether ``flag`` holds on every rank (collective: each rank sends its own)."""
        return bool(every_rank(self.peer, int(flag)).all())

    def stop(self, have_old: bool) -> bool:
        """Whether the rule stops after this sweep (every rank gets the same answer)."""
        new = self._summed()
        same_ids = self._all(np.array_equal(self.total > 0, new > 0))
        least = np.minimum(self.total, new) if same_ids else new
        same = have_old and np.array_equal(least, self.old_min)
        self.old_min, self.total = least, new
        return self._all(same)


def propagate_part(sp, start, num_labels, b, cap, max_iterations, tolerance, runtime, show=None):
    """BMLPA's semi-synchronous sweeps on this rank's part
    ``sp`` of the simple view (:func:`~hpgraph.graph.views.simple_part`), collective
    over the MPI runtime ``runtime`` the part was split for (module docstring).

    ``start``: the own vertices' initial sets (ptr from 0, labels sorted within each row,
    coefficients); ``num_labels`` bounds the label ids; ``b``, ``cap`` (``max_labels``,
    0: none), ``max_iterations`` (sweeps) and ``tolerance`` (None: the counts rule) as in
    :func:`~hpgraph.algorithms.bmlpa.bmlpa`; ``show(sweep, changed, entries,
    relabelled)`` is called on rank 0. Returns ``(ptr, lab, coef)`` of the own vertices'
    final sets, bit for bit the local runtime's, and a dict: ``stopped_by``,
    ``changed``, ``relabelled``, ``recomputed`` (per sweep, whole graph), ``colours``,
    ``colouring_rounds``, ``ranks`` (per rank: its own vertices, its ghosts and the bytes
    of the sweeps' structures at the end), ``stats`` (the job's)."""
    from hpgraph.engine.bsp import run_bsp

    kept = {}
    job = run_bsp(
        _propagate_program,
        args=(sp, start, num_labels, b, cap, max_iterations, tolerance, show, kept),
        runtime=runtime,
    )
    stopped, steps, rounds, k, _ = job.results[0]
    recomputed = np.sum([r[1][2] for r in job.results], axis=0).astype(np.int64).tolist()
    meta = {
        "stopped_by": stopped,
        "changed": steps[0],
        "relabelled": steps[1],
        "recomputed": recomputed if steps[2] else [],
        "colours": k,
        "colouring_rounds": rounds,
        "ranks": [dict(zip(("own", "ghosts", "bytes"), r[4], strict=True)) for r in job.results],
        "stats": job.stats,
    }
    return kept["sets"], meta


def _gathered(rt, *arrays):
    """Every rank's ``arrays`` (each rank its own lengths), concatenated in rank order,
    on every rank."""
    from hpgraph.runtimes.mpi.buffers import allgatherv

    out = []
    for a in arrays:
        a = np.ascontiguousarray(a)
        counts = np.array(rt.comm.allgather(int(a.shape[0])), dtype=np.int64)
        out.append(allgatherv(rt.comm, rt.rowtypes, (a,), counts)[0])
    return out


def cover_of_part(part, initial, b, cap, max_iterations, tolerance, threads, runtime, show, seed=0):
    """:class:`~hpgraph.algorithms.bmlpa.Cover` of the whole graph from this rank's
    part (collective over the part's MPI runtime): the start, the rough cores (with
    ``seed``) or per-vertex labels
    (:func:`~hpgraph.algorithms.bmlpa.initial.initial_part`), the sweeps
    (:func:`propagate_part`) and the post-processing
    (:func:`~hpgraph.algorithms.bmlpa.postprocess_parts.postprocess_part`) each on the
    rank's own rows and ghosts; then the cover is gathered, every rank getting the whole
    graph's, as the other kernels on parts give their columns."""
    import time

    from hpgraph.algorithms.bmlpa import Cover
    from hpgraph.algorithms.bmlpa.initial import check_part_start, initial_part
    from hpgraph.algorithms.bmlpa.postprocess_parts import postprocess_part
    from hpgraph.engine.contract import resolve_for_part
    from hpgraph.graph.views import simple_part

    check_part_start(initial)
    rt, own_rt = resolve_for_part(part, runtime, threads)
    try:
        t0 = time.perf_counter()
        sp = simple_part(part, both_directions=False)
        cores = {}
        ptr, lab, coef, num_labels, names = initial_part(part, initial, seed, rt, sp, cores)
        init_s = time.perf_counter() - t0
        stats, steps = None, {"stopped_by": "no supersteps", "changed": [], "relabelled": []}
        steps.update(recomputed=[], colours=None, ranks=[])
        if part.n and max_iterations:
            (ptr, lab, coef), steps = propagate_part(
                sp, (ptr, lab, coef), num_labels, b, cap, max_iterations, tolerance, rt, show
            )
            stats = steps["stats"]
        t1 = time.perf_counter()
        post = postprocess_part(sp, ptr, lab, coef, num_labels, rt)
        post_s = time.perf_counter() - t1
        counts, comm, coef, sizes, origin = _gathered(
            rt, np.diff(post.ptr), post.comm, post.coef, post.sizes, post.origin
        )
    finally:
        if own_rt:
            rt.close()
    ptr = np.zeros(part.n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return Cover(
        (ptr, comm, coef, sizes, origin, post.nested), names, stats, steps["stopped_by"],
        steps["changed"], steps["relabelled"], steps["recomputed"], steps["colours"], init_s,
        post_s, {"ranks": steps["ranks"], **cores},
    )  # fmt: skip
