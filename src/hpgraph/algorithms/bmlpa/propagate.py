"""One superstep of BMLPA's synchronous update for a range of vertices: scores, the
threshold, the top-``max_labels`` cut, compared with the state two supersteps back
(see the package docstring for the design and :func:`_propagate` for the paths)."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


# --------------------------------------------------------------------------- propagation
# a vertex whose neighbours hold at most this many label entries merges them in a
# buffer instead of the dense score array
_GATHER = 32


# a neighbour with more label entries than this is "big": a vertex reads only the labels of
# its big neighbours that its small neighbours also hold, when a bound allows it
_BIG = 64


@njit(**NUMBA_FLAGS)
def _bounded_scores(indptr, indices, beg, fin, lab, coef, v, b, rowmax, score, touched):
    """Scores of vertex v's candidate labels without reading its big neighbours' whole sets,
    or -1 when the bound below does not hold (nothing is left in ``score`` then).

    Candidates are the labels of v's small neighbours; their exact scores add every
    neighbour's coefficient in CSR order (a big neighbour's by binary search in its
    label-sorted set), exactly as the full sum does. Any other label is held by big
    neighbours only, so its score is at most ``bound``, the sum of their largest
    coefficients (rounded addition is monotone, so this holds for the float sums too).
    When ``bound < b * (best candidate score)``, every such label falls below the
    threshold and cannot be the best: the kept set is decided by the candidates alone.
    This is what makes the first superstep cheap on a mention graph: its hubs sit in
    thousands of rough cores (thousands of labels of 1/k each), and each of a hub's
    neighbours of degree >= 2 would otherwise read them all."""
    a = indptr[v]
    e = indptr[v + 1]
    nbig = 0
    bound = 0.0
    for k in range(a, e):
        u = indices[k]
        if fin[u] - beg[u] > _BIG:
            nbig += 1
            bound += rowmax[u]
    if nbig == 0 or nbig == e - a:
        return -1
    nt = 0
    for k in range(a, e):  # candidates: the small neighbours' labels (1.0 marks them)
        u = indices[k]
        if fin[u] - beg[u] <= _BIG:
            for q in range(beg[u], fin[u]):
                c = lab[q]
                if score[c] == 0.0:
                    touched[nt] = c
                    nt += 1
                    score[c] = 1.0
    for t in range(nt):
        score[touched[t]] = 0.0
    for k in range(a, e):  # exact candidate scores, neighbours in CSR order
        u = indices[k]
        r0 = beg[u]
        r1 = fin[u]
        if r1 - r0 <= _BIG:
            for q in range(r0, r1):
                score[lab[q]] += coef[q]
        else:
            row = lab[r0:r1]  # sorted by label
            for t in range(nt):
                c = touched[t]
                x = np.searchsorted(row, c)
                if x < row.shape[0] and row[x] == c:
                    score[c] += coef[r0 + x]
    mx = 0.0
    for t in range(nt):
        mx = max(mx, score[touched[t]])
    if bound < b * mx:
        return nt
    for t in range(nt):
        score[touched[t]] = 0.0
    return -1


@njit(**NUMBA_FLAGS)
def _big_row_max(beg, fin, coef, rowmax):
    """rowmax[u] = the largest coefficient of u's set, for the big sets only."""
    n = beg.shape[0]
    for u in range(n):
        if fin[u] - beg[u] > _BIG:
            mx = 0.0
            for q in range(beg[u], fin[u]):
                mx = max(mx, coef[q])
            rowmax[u] = mx


@njit(**NUMBA_FLAGS)
def _new_row_max(ids, ccnt, ccoef, rowmax):
    """rowmax[v] for the new sets of ``ids`` (``ccnt`` entries each, concatenated in
    ``ccoef``; a count ``-1 - j``: the same set as ``ids[j]``) that are big: what
    :func:`_big_row_max` would give after the patch, at the cost of the changed big sets
    only."""
    pos = 0
    for k in range(ids.shape[0]):
        m = ccnt[k]
        if m < 0:
            if ccnt[-1 - m] > _BIG:
                rowmax[ids[k]] = rowmax[ids[-1 - m]]
            continue
        if m > _BIG:
            mx = 0.0
            for q in range(pos, pos + m):
                mx = max(mx, ccoef[q])
            rowmax[ids[k]] = mx
        pos += m


@njit(**NUMBA_FLAGS)
def _propagate(
    indptr,
    indices,
    beg,
    fin,
    lab,
    coef,
    pbeg,
    pfin,
    plab,
    pcoef,
    active,
    starts,
    ends,
    b,
    cap,
    score,
    touched,
    rowmax,
    memo,
    big,
    full,
):
    """New label sets of the vertices in chunks ``starts[i]..ends[i]-1`` from the state
    ``source`` (beg, fin, lab, coef); ``p*`` is the state one superstep before it, whose
    sets the inactive vertices (``active[v]`` false) take unchanged. Returns (ids int32:
    the vertices whose new set differs from the ``p*`` one, counts int64, labels int32,
    coefficients float64): with ``full`` false, those vertices' new sets (``counts`` per
    vertex in ``ids``; a count ``-1 - j`` says "the same set as ``ids[j]``", whose
    entries the receivers store once for both: the leaves of one vertex, see below);
    with ``full`` true, every vertex's new set in order (``counts`` per vertex of the
    chunks), so that receivers build a fresh state instead of patching when most
    vertices change.
    ``big``: some set of ``source`` has more than ``_BIG`` entries, so ``rowmax`` is
    filled for them first (a pass over every vertex); false also when the caller keeps
    ``rowmax`` up to date itself (the semi-synchronous program, whose calls each cover
    one colour class: a pass over all vertices per class would cost O(n) per class).

    Three ways to sum the scores, all adding in the same order (neighbours in CSR order,
    each neighbour's labels ascending), so they give bit-identical sets: a degree-1 vertex
    copies its neighbour's coefficients (0.0 + x == x), and the other leaves of that
    neighbour in this call take the first one's set (under either schedule a vertex's
    leaves are updated together, from the same set); a vertex whose neighbours hold at
    most ``_GATHER`` entries gathers them into a small buffer and merges them with a
    stable sort (no random access into the label-sized ``score`` array, which is what a
    mention graph's millions of small vertices would otherwise pay in cache misses);
    others use the dense ``score`` array (8 B per label) and the ``touched`` list. Nothing
    is allocated per vertex."""
    size = 0
    entries = 0  # the active vertices' sets now: about what their new ones take
    for ci in range(starts.shape[0]):
        size += ends[ci] - starts[ci]
        for v in range(starts[ci], ends[ci]):
            if full or active[v]:
                entries += fin[v] - beg[v]
    olab = np.empty(max(64, entries + entries // 4 + size), dtype=np.int32)  # grown by doubling
    ocoef = np.empty(olab.shape[0], dtype=np.float64)
    ids = np.empty(size, dtype=np.int32)
    cnt = np.empty(size, dtype=np.int64)
    klab = np.empty(touched.shape[0], dtype=np.int32)  # the kept set, by label
    ksc = np.empty(touched.shape[0], dtype=np.float64)
    glab = np.empty(_GATHER, dtype=np.int32)
    gsc = np.empty(_GATHER, dtype=np.float64)
    ncap = max(cap, 1)
    blab = np.empty(ncap, dtype=np.int32)  # top-cap buffer, by (-score, label)
    bsc = np.empty(ncap, dtype=np.float64)
    # memo[u]: the index in cnt of the set written for a leaf of u, -1: none yet (the
    # caller's array, all -1 on entry and on return); opos: where each set of cnt starts
    # in the output. A hub's other leaves then cost O(their set) each, not O(the hub's
    # set) (a hub in thousands of rough cores starts with thousands of labels), and
    # their changed sets are sent and stored once.
    opos = np.empty(size, dtype=np.int64)
    memo_used = np.empty(size, dtype=np.int64)  # the memo entries to reset at the end
    nmemo = 0
    if big:
        _big_row_max(beg, fin, coef, rowmax)
    nch = 0
    relabelled = 0  # vertices whose label ids (not only coefficients) differ
    out = 0
    nv = -1  # index of v among this call's vertices
    for ci in range(starts.shape[0]):
        for v in range(starts[ci], ends[ci]):
            nv += 1
            # no neighbour differs from two supersteps ago, so neither does v; an isolated
            # vertex keeps its labels: either way, its set of the state before source
            # (active first: a class's inactive vertices cost a byte each, not indptr's)
            if not active[v] or indptr[v] == indptr[v + 1]:
                if full:
                    m = pfin[v] - pbeg[v]
                    if out + m > olab.shape[0]:  # grow by doubling
                        olab, ocoef = _grow(olab, ocoef, out, max(2 * olab.shape[0], out + m))
                    olab[out : out + m] = plab[pbeg[v] : pfin[v]]
                    ocoef[out : out + m] = pcoef[pbeg[v] : pfin[v]]
                    out += m
                    cnt[nv] = m
                continue
            a = indptr[v]
            e = indptr[v + 1]
            gathered = 0
            for k in range(a, e):
                u = indices[k]
                gathered += fin[u] - beg[u]
                if gathered > _GATHER:
                    break
            m = 0
            if e - a == 1 and memo[indices[a]] >= 0:
                # a leaf of a vertex whose (large) set was already computed for another leaf
                # in this superstep: the same set, bit for bit, so copy it, or (changed
                # sets) name it: the receivers share its storage
                j = memo[indices[a]]
                o = opos[j]
                m = cnt[j]
                same = _same_set(pbeg, pfin, plab, pcoef, v, olab, ocoef, o, m)
                if not same and not _same_labels(pbeg, pfin, plab, v, olab, o, m):
                    relabelled += 1
                if full:
                    if out + m > olab.shape[0]:  # grow by doubling
                        olab, ocoef = _grow(olab, ocoef, out, max(2 * olab.shape[0], out + m))
                    olab[out : out + m] = olab[o : o + m]  # o + m <= out: no overlap
                    ocoef[out : out + m] = ocoef[o : o + m]
                    out += m
                    cnt[nv] = m
                elif not same:
                    cnt[nch] = -1 - j
                if not same:
                    ids[nch] = v
                    nch += 1
                continue
            if e - a == 1:
                u = indices[a]
                mx = 0.0
                for q in range(beg[u], fin[u]):
                    mx = max(mx, coef[q])
                thr = b * mx
                for q in range(beg[u], fin[u]):
                    if coef[q] >= thr:
                        klab[m] = lab[q]
                        ksc[m] = coef[q]
                        m += 1
            elif gathered <= _GATHER:
                ng = 0
                for k in range(a, e):
                    u = indices[k]
                    for q in range(beg[u], fin[u]):
                        # equal labels keep neighbour order
                        _insert_by_label(glab, gsc, ng, lab[q], coef[q])
                        ng += 1
                nt = 0
                for t in range(ng):  # runs of a label: sum in order, starting from 0.0
                    if nt > 0 and klab[nt - 1] == glab[t]:
                        ksc[nt - 1] += gsc[t]
                    else:
                        klab[nt] = glab[t]
                        ksc[nt] = 0.0 + gsc[t]
                        nt += 1
                mx = 0.0
                for t in range(nt):
                    mx = max(mx, ksc[t])
                thr = b * mx
                for t in range(nt):
                    if ksc[t] >= thr:
                        klab[m] = klab[t]
                        ksc[m] = ksc[t]
                        m += 1
            else:
                nt = _bounded_scores(
                    indptr, indices, beg, fin, lab, coef, v, b, rowmax, score, touched
                )
                if nt < 0:  # no bound: every label of every neighbour
                    nt = 0
                    for k in range(a, e):
                        u = indices[k]
                        for q in range(beg[u], fin[u]):
                            c = lab[q]
                            if score[c] == 0.0:  # coefficients are > 0, so 0 means untouched
                                touched[nt] = c
                                nt += 1
                            score[c] += coef[q]
                mx = 0.0
                for t in range(nt):
                    mx = max(mx, score[touched[t]])
                thr = b * mx
                for t in range(nt):
                    c = touched[t]
                    if score[c] >= thr:
                        touched[m] = c
                        m += 1
                    else:
                        score[c] = 0.0
                if cap > 0 and m > cap:
                    # top cap by (score desc, label asc) straight from the unsorted list, so
                    # a set of thousands is not sorted for the few labels kept
                    nb = 0
                    for t in range(m):
                        c = touched[t]
                        nb = _keep_top(blab, bsc, nb, cap, c, score[c])
                        score[c] = 0.0
                    m = _by_label(blab, bsc, cap, klab, ksc)
                else:
                    touched[:m].sort()
                    for t in range(m):
                        c = touched[t]
                        klab[t] = c
                        ksc[t] = score[c]
                        score[c] = 0.0
            if cap > 0 and m > cap:
                # highest scores, ties to the smaller label
                nb = 0
                for t in range(m):
                    nb = _keep_top(blab, bsc, nb, cap, klab[t], ksc[t])
                m = _by_label(blab, bsc, cap, klab, ksc)
            total = 0.0
            for t in range(m):
                total += ksc[t]
            for t in range(m):
                ksc[t] = ksc[t] / total
            same = _same_set(pbeg, pfin, plab, pcoef, v, klab, ksc, 0, m)
            if not same and not _same_labels(pbeg, pfin, plab, v, klab, 0, m):
                relabelled += 1
            if full or not same:
                if out + m > olab.shape[0]:  # grow by doubling
                    olab, ocoef = _grow(olab, ocoef, out, max(2 * olab.shape[0], out + m))
                olab[out : out + m] = klab[:m]
                ocoef[out : out + m] = ksc[:m]
                j = nv if full else nch
                if e - a == 1:
                    memo[indices[a]] = j
                    memo_used[nmemo] = indices[a]
                    nmemo += 1
                opos[j] = out
                out += m
                cnt[j] = m
            if not same:
                ids[nch] = v
                nch += 1
    for t in range(nmemo):  # leave the memo all -1 for the next superstep
        memo[memo_used[t]] = -1
    ncnt = size if full else nch
    # views, not copies: the receivers only read them, and a copy of every changed
    # entry per call is a memcpy of the superstep's whole output
    return (
        ids[:nch],
        cnt[:ncnt],
        olab[:out],
        ocoef[:out],
        np.full(1, relabelled, dtype=np.int64),
    )


@njit(**NUMBA_FLAGS)
def _keep_top(blab, bsc, nb, cap, c, x):
    """Offer label c of score x to the top-``cap`` buffer (``nb`` entries, by score
    descending, ties to the smaller label); returns the new count."""
    if nb == cap and (x < bsc[nb - 1] or (x == bsc[nb - 1] and c > blab[nb - 1])):
        return nb
    j = nb if nb < cap else cap - 1
    while j > 0 and (bsc[j - 1] < x or (bsc[j - 1] == x and blab[j - 1] > c)):
        bsc[j] = bsc[j - 1]
        blab[j] = blab[j - 1]
        j -= 1
    bsc[j] = x
    blab[j] = c
    return nb + 1 if nb < cap else nb


@njit(**NUMBA_FLAGS)
def _by_label(blab, bsc, cap, klab, ksc):
    """The full top-``cap`` buffer into klab/ksc, ascending by label; returns ``cap``."""
    order = np.argsort(blab[:cap]) if cap > 24 else _small_order(blab, cap)
    for t in range(cap):
        klab[t] = blab[order[t]]
        ksc[t] = bsc[order[t]]
    return cap


@njit(**NUMBA_FLAGS)
def _same_set(pbeg, pfin, plab, pcoef, v, lab, coef, o, m):
    """Whether v's set in the state (pbeg, pfin, plab, pcoef) is lab/coef[o:o+m]."""
    if pfin[v] - pbeg[v] != m:
        return False
    for t in range(m):
        q = pbeg[v] + t
        if plab[q] != lab[o + t] or pcoef[q] != coef[o + t]:
            return False
    return True


@njit(**NUMBA_FLAGS)
def _same_labels(pbeg, pfin, plab, v, lab, o, m):
    """Whether v's label ids in the state (pbeg, pfin, plab) are lab[o:o+m]."""
    if pfin[v] - pbeg[v] != m:
        return False
    for t in range(m):
        if plab[pbeg[v] + t] != lab[o + t]:
            return False
    return True


@njit(**NUMBA_FLAGS, inline="always")
def _insert_by_label(labels, values, n, c, x):
    """Insert (c, x) into labels[:n] (sorted) and values[:n], after any equal label (a
    stable insertion sort's step)."""
    j = n
    while j > 0 and labels[j - 1] > c:
        labels[j] = labels[j - 1]
        values[j] = values[j - 1]
        j -= 1
    labels[j] = c
    values[j] = x


@njit(**NUMBA_FLAGS)
def _grow(olab, ocoef, used, size):
    g1 = np.empty(size, dtype=np.int32)
    g2 = np.empty(size, dtype=np.float64)
    g1[:used] = olab[:used]
    g2[:used] = ocoef[:used]
    return g1, g2


@njit(**NUMBA_FLAGS)
def _small_order(x, m):
    """argsort of x[:m] (distinct values) by insertion, for the few slots of a cap."""
    order = np.arange(m)
    for i in range(1, m):
        y = order[i]
        j = i
        while j > 0 and x[order[j - 1]] > x[y]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = y
    return order
