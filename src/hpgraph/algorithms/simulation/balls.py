"""The compiled kernel of strict simulation: dual simulation inside each centre's ball.

Given the match graph of the global relation (out- and in-CSR and up-lists) and a list of
centres, :func:`_balls` returns the matches whose centre keeps its pairs in the ball of
radius d_Q around it (the steps are in the package docstring and :func:`_balls`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms.simulation.counters import _LOW, _add_bits, _failing
from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


@njit(**NUMBA_FLAGS)
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(**NUMBA_FLAGS, inline="always")
def _join(w, b, stamp, pos, ball, size):
    """Put w at position ``size`` of ball b unless it is in already; returns the size."""
    if stamp[w] != b:
        stamp[w] = b
        pos[w] = size
        ball[size] = w
        size += 1
    return size


@njit(**NUMBA_FLAGS, inline="always")
def _queue_linked(ptr, idx, i, out, cm, bm, seen, stack, qn):
    """Queue (``stack[qn:]``) the unseen neighbours j of i in the local CSR (ptr, idx)
    whose match edge carries a pattern edge: i -> j when ``out``, else j -> i (``cm``:
    pattern children of each match, ``bm``: its pattern vertices); returns the new qn."""
    for e in range(ptr[i], ptr[i + 1]):
        j = idx[e]
        if not seen[j] and ((cm[i] & bm[j]) if out else (cm[j] & bm[i])) != 0:
            seen[j] = True
            stack[qn] = j
            qn += 1
    return qn


@njit(**NUMBA_FLAGS)
def _balls(centres, radius, k, pat, mask, optr, oidx, iptr, iidx, uptr, uval, stamp, pos, ball):
    """Strict simulation around each centre over the match graph (out-CSR optr/oidx,
    in-CSR iptr/iidx, up-lists uptr/uval). ``stamp`` (-1 filled), ``pos``, ``ball``:
    n-sized scratch. Returns (centres, ptr, codes) of the matches, and the balls' total
    vertices and edges.

    Per ball: a BFS to depth ``radius`` that records the edges it crosses, the edges among
    the border (depth = radius) from the up-lists, a local CSR of the ball; then counters,
    and the fix-point started at the border only (the global relation is stable on the
    match graph, so only border vertices can lack a witness at first); then the
    centre's component, which is the whole ball when nothing was lost (the BFS reached
    every ball vertex by match edges).
    """
    full = (1 << k) - 1
    bm = np.empty(64, dtype=np.int64)  # the ball's masks, by position in the ball
    cm = np.empty(64, dtype=np.int64)  # pattern children of those matches
    pend = np.zeros(64, dtype=np.int64)  # bits removed, not yet told to the neighbours
    cnt = np.empty(64 * k, dtype=np.int64)  # out count | in count << 32, per (vertex, u)
    es = np.empty(64, dtype=np.int64)  # the ball's edges, as positions
    ed = np.empty(64, dtype=np.int64)
    lo_ptr = np.empty(65, dtype=np.int64)  # the ball's local CSR, out and in
    lo_idx = np.empty(64, dtype=np.int64)
    li_ptr = np.empty(65, dtype=np.int64)
    li_idx = np.empty(64, dtype=np.int64)
    stack = np.empty(64, dtype=np.int64)  # work list, then component queue
    seen = np.empty(64, dtype=np.bool_)
    out_c = np.empty(16, dtype=np.int64)
    out_p = np.zeros(17, dtype=np.int64)
    out_x = np.empty(64, dtype=np.int64)
    nout = 0
    ncode = 0
    total = 0
    total_edges = 0
    for b in range(centres.shape[0]):
        c = centres[b]
        # 1. the ball and its edges
        size = _join(c, b, stamp, pos, ball, 0)
        ne = 0
        head = 0
        border = 0  # the vertices at depth `radius`: [border, size)
        for level in range(radius):
            end = size
            last = level == radius - 1
            while head < end:
                v = ball[head]
                i = head
                head += 1
                es = _grow(es, ne + (optr[v + 1] - optr[v]) + (iptr[v + 1] - iptr[v]))
                ed = _grow(ed, es.shape[0])
                for e in range(optr[v], optr[v + 1]):
                    w = oidx[e]
                    size = _join(w, b, stamp, pos, ball, size)
                    es[ne] = i
                    ed[ne] = pos[w]
                    ne += 1
                for e in range(iptr[v], iptr[v + 1]):
                    w = iidx[e]
                    size = _join(w, b, stamp, pos, ball, size)
                    if last and pos[w] >= end:  # w is never scanned: record w -> v here
                        es[ne] = pos[w]
                        ed[ne] = i
                        ne += 1
            if size == end:  # the match graph ends inside the ball: no border
                border = size
                break
            border = end
        for i in range(border, size):  # edges among border vertices, each once
            v = ball[i]
            es = _grow(es, ne + uptr[v + 1] - uptr[v])
            ed = _grow(ed, es.shape[0])
            for e in range(uptr[v], uptr[v + 1]):
                w = uval[e] >> 1
                if stamp[w] == b and pos[w] >= border:
                    if uval[e] & 1:
                        es[ne] = pos[w]
                        ed[ne] = i
                    else:
                        es[ne] = i
                        ed[ne] = pos[w]
                    ne += 1
        total += size
        total_edges += ne
        bm = _grow(bm, size)
        cm = _grow(cm, size)
        pend = _grow(pend, size)
        seen = _grow(seen, size)
        stack = _grow(stack, size)
        cnt = _grow(cnt, size * k)
        lo_ptr = _grow(lo_ptr, size + 1)
        li_ptr = _grow(li_ptr, size + 1)
        for i in range(size):
            bm[i] = mask[ball[i]]
            pend[i] = 0
        # 2. the border's witnesses, from one pass over the edges (cm, pend as scratch);
        # a ball whose border keeps every pair is its centre's match, with no fix-point
        for i in range(border, size):
            cm[i] = 0
            pend[i] = 0
        for e in range(ne):
            if es[e] >= border:
                cm[es[e]] |= bm[ed[e]]
            if ed[e] >= border:
                pend[ed[e]] |= bm[es[e]]
        lost = False
        for i in range(border, size):
            if _unsupported_bits(bm[i], cm[i], pend[i], k, pat) != 0:
                lost = True
                break
        for i in range(border, size):
            pend[i] = 0
        if lost:  # 3. counters over a local CSR, and the fix-point from the border
            lo_idx = _grow(lo_idx, ne)
            li_idx = _grow(li_idx, ne)
            _local_csr(es, ed, ne, size, lo_ptr, lo_idx)
            _local_csr(ed, es, ne, size, li_ptr, li_idx)
            for x in range(size * k):
                cnt[x] = 0
            for e in range(ne):
                _add_bits(cnt, es[e] * k, bm[ed[e]], 1)
                _add_bits(cnt, ed[e] * k, bm[es[e]], 1 << 32)
            top = 0
            for i in range(border, size):
                top = _recheck(i, bm, pend, cnt, k, pat, stack, top)
            while top > 0:
                top -= 1
                i = stack[top]
                r = pend[i]
                pend[i] = 0
                for e in range(lo_ptr[i], lo_ptr[i + 1]):  # i was a parent of j
                    j = lo_idx[e]
                    if _drop(cnt, j * k, r, True) and bm[j] != 0:
                        top = _recheck(j, bm, pend, cnt, k, pat, stack, top)
                for e in range(li_ptr[i], li_ptr[i + 1]):  # i was a child of j
                    j = li_idx[e]
                    if _drop(cnt, j * k, r, False) and bm[j] != 0:
                        top = _recheck(j, bm, pend, cnt, k, pat, stack, top)
        if bm[0] == 0:
            continue
        # 4. the centre's component of the ball's match graph
        union = 0
        if lost:
            for i in range(size):
                x = 0
                m = bm[i]
                u = 0
                while m != 0:
                    if m & 1:
                        x |= pat[2 * u]
                    m >>= 1
                    u += 1
                cm[i] = x
                seen[i] = False
            seen[0] = True
            stack[0] = 0
            qn = 1
            head = 0
            while head < qn:
                i = stack[head]
                head += 1
                union |= bm[i]
                qn = _queue_linked(lo_ptr, lo_idx, i, True, cm, bm, seen, stack, qn)
                qn = _queue_linked(li_ptr, li_idx, i, False, cm, bm, seen, stack, qn)
            if union != full:
                continue
            verts = np.sort(ball[stack[:qn]])
        else:
            for i in range(size):
                union |= bm[i]
            if union != full:
                continue
            verts = np.sort(ball[:size])
        # 5. emit: data vertices ascending, each with its pattern vertices ascending
        out_x = _grow(out_x, ncode + verts.shape[0] * k)
        for v in verts:
            m = bm[pos[v]]
            u = 0
            while m != 0:
                if m & 1:
                    out_x[ncode] = np.int64(v) * k + u
                    ncode += 1
                m >>= 1
                u += 1
        out_c = _grow(out_c, nout + 1)
        out_p = _grow(out_p, nout + 2)
        out_c[nout] = c
        out_p[nout + 1] = ncode
        nout += 1
    return out_c[:nout].copy(), out_p[: nout + 1].copy(), out_x[:ncode].copy(), total, total_edges


@njit(**NUMBA_FLAGS, inline="always")
def _drop(cnt, base, bits, parent):
    """Take one parent (in-count) or child (out-count) away for every bit u of ``bits``;
    whether a count reached zero (only then can a pair lose its support)."""
    hit = False
    u = 0
    while bits != 0:
        if bits & 1:
            if parent:
                c = cnt[base + u] - (1 << 32)
                hit |= (c >> 32) == 0
            else:
                c = cnt[base + u] - 1
                hit |= (c & _LOW) == 0
            cnt[base + u] = c
        bits >>= 1
        u += 1
    return hit


@njit(**NUMBA_FLAGS, inline="always")
def _unsupported_bits(mask, have_out, have_in, k, pat):
    """The bits u of ``mask`` with a pattern child outside ``have_out`` or a pattern
    parent outside ``have_in``."""
    bad = 0
    u = 0
    while mask != 0:
        if mask & 1:
            if (pat[2 * u] & ~have_out) != 0 or (pat[2 * u + 1] & ~have_in) != 0:
                bad |= 1 << u
        mask >>= 1
        u += 1
    return bad


@njit(**NUMBA_FLAGS, inline="always")
def _local_csr(src, dst, ne, size, ptr, idx):
    """CSR (ptr, idx) of the first ``ne`` edges src -> dst over positions 0..size-1."""
    for i in range(size + 1):
        ptr[i] = 0
    for e in range(ne):
        ptr[src[e] + 1] += 1
    for i in range(size):
        ptr[i + 1] += ptr[i]
    for e in range(ne):  # fill with ptr[s] as the cursor, then shift back
        s = src[e]
        idx[ptr[s]] = dst[e]
        ptr[s] += 1
    for i in range(size, 0, -1):
        ptr[i] = ptr[i - 1]
    ptr[0] = 0


@njit(**NUMBA_FLAGS, inline="always")
def _recheck(j, bm, pend, cnt, k, pat, stack, top):
    """Drop j's pairs that lost support; queue j once for telling its neighbours."""
    if bm[j] == 0:
        return top
    bad = _failing(bm[j], cnt, j * k, k, pat, 0)
    if bad != 0:
        bm[j] &= ~bad
        if pend[j] == 0:
            stack[top] = j
            top += 1
        pend[j] |= bad
    return top
