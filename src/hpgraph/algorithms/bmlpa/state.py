"""BMLPA's label state: an arena of (label, coefficient) entries with per-vertex slots,
patched in place; and the label counts of the paper's stop rule."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms.bmlpa.postprocess import _in_ranges
from hpgraph.algorithms.bmlpa.propagate import _grow
from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


@njit(**NUMBA_FLAGS)
def _counts_after(cnt, beg, fin, lab, ids, ccnt, clab):
    """Count of a state patched with new sets for ``ids``, from its Count and old sets
    (a count ``-1 - j``: the same set as ``ids[j]``, see :func:`_write_sets`)."""
    new = cnt.copy()
    start = np.empty(ids.shape[0], dtype=np.int64)
    pos = 0
    for k in range(ids.shape[0]):
        v = ids[k]
        for q in range(beg[v], fin[v]):
            new[lab[q]] -= 1
        if ccnt[k] < 0:
            j = -1 - ccnt[k]
            p0, m = start[j], ccnt[j]
        else:
            p0, m = pos, ccnt[k]
            start[k] = pos
            pos += m
        for q in range(p0, p0 + m):
            new[clab[q]] += 1
    return new


@njit(**NUMBA_FLAGS)
def _count_labels(lab, num_labels):
    """Count(L): how many vertices hold each label (a set holds a label once)."""
    cnt = np.zeros(num_labels, dtype=np.int32)
    for q in range(lab.shape[0]):
        cnt[lab[q]] += 1
    return cnt


@njit(**NUMBA_FLAGS)
def _stop_rule(cnt_src, cnt_dst, old_min, have_old):
    """The paper's test: Min = mc(Count(source), Count(dest)) when Id(source) == Id(dest),
    else Count(dest); True (stop) when Min == oldMin, else oldMin := Min. Counts are dense
    (0: label not in use), so the dictionaries compare equal exactly when the arrays do."""
    same_ids = True
    for c in range(cnt_src.shape[0]):
        if (cnt_src[c] > 0) != (cnt_dst[c] > 0):
            same_ids = False
            break
    same = have_old
    for c in range(cnt_src.shape[0]):
        m = min(cnt_src[c], cnt_dst[c]) if same_ids else cnt_dst[c]
        if m != old_min[c]:
            same = False
            old_min[c] = m
    return same


# A state is [beg, fin, room, lab, coef, used, live]: the set of v is lab/coef[beg[v]:
# fin[v]] inside a slot of room[v] entries of the arena (lab int32, coef float64, the
# first ``used`` entries taken, ``live`` the sum of the sets' sizes). 20 B per vertex +
# 12 B per arena entry. Patching writes a new set into its vertex's slot, or at the
# arena's end when it outgrows the slot, so a superstep that changes k sets costs
# O(their entries), not a copy of the whole state; the arena is compacted when half of
# it is dead. Vertices whose new sets are one set (a hub's leaves: ``_propagate`` names
# it by a count ``-1 - j``, "the same as ``ids[j]``") share one slot: ``room`` 0 marks
# the sharers, whose next own set goes to the arena's end. Sharers and their slot's
# owner are leaves of one vertex updated together, so whenever the owner's set changes
# theirs change with it, in the same patch.
_SLACK = 4096  # dead arena entries always tolerated


def _compact_state(ccnt, clab, ccoef):
    """A state whose sets are concatenated (``ccnt`` entries each, in vertex order)."""
    fin = np.cumsum(ccnt)
    beg = fin - ccnt
    live = int(fin[-1]) if fin.shape[0] else 0
    return [beg, fin, ccnt.astype(np.int32), clab, ccoef, live, live]


@njit(**NUMBA_FLAGS)
def _slot_need(beg, fin, room, ids, ccnt):
    """(arena entries that new sets for ``ids`` take at the arena's end, because they
    outgrow their slots; the change in live entries) of a patch, as an int64 pair."""
    out = np.zeros(2, dtype=np.int64)
    for k in range(ids.shape[0]):
        v = ids[k]
        m = ccnt[k]
        if m < 0:  # a shared set: no entries of its own
            m = ccnt[-1 - m]
        elif m > room[v]:
            out[0] += m
        out[1] += m - (fin[v] - beg[v])
    return out


@njit(**NUMBA_FLAGS)
def _write_sets(beg, fin, room, lab, coef, at, ids, ccnt, clab, ccoef):
    """New sets for ``ids`` written in place; those that outgrow their slots go to the
    arena from ``at`` on (the caller made room: :func:`_slot_need`). A count ``-1 - j``
    makes v share the slot of ``ids[j]`` (written just before), with ``room`` 0."""
    pos = 0
    for k in range(ids.shape[0]):
        v = ids[k]
        m = ccnt[k]
        if m < 0:
            w = ids[-1 - m]
            beg[v] = beg[w]
            fin[v] = fin[w]
            room[v] = 0
            continue
        if m > room[v]:
            beg[v] = at
            room[v] = m
            at += m
        fin[v] = beg[v] + m
        lab[beg[v] : fin[v]] = clab[pos : pos + m]
        coef[beg[v] : fin[v]] = ccoef[pos : pos + m]
        pos += m


def _make_room(state, need):
    """``state`` whose arena has room for ``need`` more entries past ``used`` (grown by
    half at least, so that growth is rare)."""
    beg, fin, room, lab, coef, used, live = state
    if used + need > lab.shape[0]:
        lab, coef = _grow(lab, coef, used, max(used + need, lab.shape[0] + lab.shape[0] // 2))
    return [beg, fin, room, lab, coef, used, live]


def _needs_compaction(used, live):
    """Whether an arena with ``used`` entries taken, ``live`` in sets, is half dead."""
    return used > 2 * live + _SLACK


def _compacted(state):
    """``state`` with its sets packed in vertex order (no dead entries)."""
    ptr, lab, coef = _gather_rows(state, np.arange(state[0].shape[0]))
    return _compact_state(np.diff(ptr), lab, coef)


@njit(**NUMBA_FLAGS)
def _row_ptr(beg, fin, order):
    """(CSR offsets from 0 of the rows ``beg/fin[order[i]]``, ``beg[order[i]]``): the
    second so that the copy reads it in order instead of missing on it again."""
    m = order.shape[0]
    ptr = np.zeros(m + 1, dtype=np.int64)
    src = np.empty(m, dtype=np.int64)
    for i in range(m):
        v = order[i]
        src[i] = beg[v]
        ptr[i + 1] = ptr[i] + fin[v] - beg[v]
    return ptr, src


@njit(**NUMBA_FLAGS)
def _copy_rows(src, lab, coef, ptr, olab, ocoef, i0, i1):
    """Rows i0 <= i < i1 of :func:`_gather_rows`: labels and coefficients in one pass
    (element loops: a slice per row costs about 100 ns, more than its copy)."""
    for i in range(i0, i1):
        d = ptr[i] - src[i]
        for q in range(src[i], src[i] + ptr[i + 1] - ptr[i]):
            olab[q + d] = lab[q]
            ocoef[q + d] = coef[q]


def _gather_rows(state, order, threads=1):
    """The sets of vertices ``order`` (in that order) of a state, as CSR (ptr from 0,
    labels, coefficients); the copy in ranges of equal work on ``threads`` threads."""
    beg, fin, _, lab, coef = state[:5]
    ptr, src = _row_ptr(beg, fin, order)
    olab = np.empty(ptr[-1], dtype=lab.dtype)
    ocoef = np.empty(ptr[-1], dtype=coef.dtype)
    _in_ranges(threads, ptr, lambda i0, i1: _copy_rows(src, lab, coef, ptr, olab, ocoef, i0, i1))
    return ptr, olab, ocoef


def _patch(state, ids, ccnt, clab, ccoef):
    """``state`` with new sets for ``ids``, in place (compacted when half is dead)."""
    need, delta = _slot_need(state[0], state[1], state[2], ids, ccnt)
    state = _make_room(state, need)
    beg, fin, room, lab, coef, used, live = state
    _write_sets(beg, fin, room, lab, coef, used, ids, ccnt, clab, ccoef)
    state = [beg, fin, room, lab, coef, used + int(need), live + int(delta)]
    return _compacted(state) if _needs_compaction(state[5], state[6]) else state
