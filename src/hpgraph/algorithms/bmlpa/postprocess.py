"""BMLPA's post-processing: nested communities merged, communities split into connected
pieces, pieces inside others merged, each vertex's strongest community."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms.bmlpa.initial import _contains
from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


# --------------------------------------------------------------------------- post-processing
@njit(**NUMBA_FLAGS)
def _members(ptr, lab, num_labels):
    """Community -> members (CSR by label; members ascending)."""
    n = ptr.shape[0] - 1
    cptr = np.zeros(num_labels + 1, dtype=np.int64)
    for q in range(ptr[n]):
        cptr[lab[q] + 1] += 1
    for c in range(num_labels):
        cptr[c + 1] += cptr[c]
    fill = cptr[:-1].copy()
    cmem = np.empty(ptr[n], dtype=np.int32)
    for v in range(n):
        for q in range(ptr[v], ptr[v + 1]):
            c = lab[q]
            cmem[fill[c]] = v
            fill[c] += 1
    return cptr, cmem


@njit(**NUMBA_FLAGS)
def _nested_targets(ptr, lab, cptr, cmem):
    """target[A] = the community A merges into (the smallest one containing it, ties to
    the smaller label; an equal community with a smaller label counts), or -1."""
    num_labels = cptr.shape[0] - 1
    target = np.full(num_labels, -1, dtype=np.int64)
    for A in range(num_labels):
        sa = cptr[A + 1] - cptr[A]
        if sa == 0:
            continue
        x = cmem[cptr[A]]  # the member with the fewest labels: fewest candidates
        for t in range(cptr[A], cptr[A + 1]):
            y = cmem[t]
            if ptr[y + 1] - ptr[y] < ptr[x + 1] - ptr[x]:
                x = y
        best = -1
        for q in range(ptr[x], ptr[x + 1]):
            B = lab[q]
            sb = cptr[B + 1] - cptr[B]
            if B == A or sb < sa or (sb == sa and B > A):
                continue
            if best >= 0:
                sbest = cptr[best + 1] - cptr[best]
                if sb > sbest or (sb == sbest and B > best):
                    continue
            inside = True
            for t in range(cptr[A], cptr[A + 1]):
                if not _contains(lab[ptr[cmem[t]] : ptr[cmem[t] + 1]], B):
                    inside = False
                    break
            if inside:
                best = B
        target[A] = best
    for A in range(num_labels):  # follow chains A -> B -> C (sizes grow, or ids fall)
        r = A
        while target[r] >= 0:
            r = target[r]
        if r != A:
            target[A] = r
    return target


@njit(**NUMBA_FLAGS)
def _relabel(ptr, lab, coef, target):
    """Each nested label replaced by its target; coefficients of a repeated label add
    (in the row's label order: a stable insertion sort on a reused buffer)."""
    n = ptr.shape[0] - 1
    width = 1
    for v in range(n):
        width = max(width, ptr[v + 1] - ptr[v])
    rl = np.empty(width, dtype=np.int32)
    rc = np.empty(width, dtype=np.float64)
    nptr = np.zeros(n + 1, dtype=np.int64)
    nlab = np.empty(ptr[n], dtype=np.int32)
    ncoef = np.empty(ptr[n], dtype=np.float64)
    out = 0
    for v in range(n):
        a = ptr[v]
        e = ptr[v + 1]
        for t in range(e - a):
            c = lab[a + t]
            if target[c] >= 0:
                c = target[c]
            w = coef[a + t]
            j = t
            while j > 0 and rl[j - 1] > c:
                rl[j] = rl[j - 1]
                rc[j] = rc[j - 1]
                j -= 1
            rl[j] = c
            rc[j] = w
        for t in range(e - a):
            if out > nptr[v] and nlab[out - 1] == rl[t]:
                ncoef[out - 1] += rc[t]
            else:
                nlab[out] = rl[t]
                ncoef[out] = rc[t]
                out += 1
        nptr[v + 1] = out
    return nptr, nlab[:out].copy(), ncoef[:out].copy()


@njit(**NUMBA_FLAGS)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(**NUMBA_FLAGS)
def _split(indptr, indices, ptr, lab, coef):
    """Connected pieces of every community: union-find over membership entries, joined
    along edges whose ends share the label. Communities are numbered by (smallest member,
    label); rows come back sorted by community. Returns (community per entry, reordered
    coefficients, sizes, the label of each community). Scratch: 4 B per entry (int32
    union-find; entries < 2**31) besides the outputs."""
    n = ptr.shape[0] - 1
    total = ptr[n]
    parent = np.arange(total, dtype=np.int32)
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            if u <= v:
                continue
            i, j = ptr[v], ptr[u]
            while i < ptr[v + 1] and j < ptr[u + 1]:  # both rows sorted by label
                if lab[i] < lab[j]:
                    i += 1
                elif lab[i] > lab[j]:
                    j += 1
                else:
                    ri = _find(parent, i)
                    rj = _find(parent, j)
                    if ri != rj:
                        parent[max(ri, rj)] = min(ri, rj)
                    i += 1
                    j += 1
    # parent[] becomes the community id of each entry: roots are numbered at first sight,
    # scanning vertices then labels, i.e. by (smallest member, label); a root precedes
    # every entry of its set (it is the set's smallest entry), so one pass suffices
    comm = np.empty(total, dtype=np.int64)
    origin = np.empty(total, dtype=np.int32)
    k = 0
    for q in range(total):
        r = parent[q]
        if r == q:
            comm[q] = k
            origin[k] = lab[q]
            k += 1
        else:
            comm[q] = comm[_find(parent, r)]
    sizes = np.zeros(k, dtype=np.int64)
    ncoef = coef.copy()
    for v in range(n):  # sort each row by community (ids in a row are distinct)
        a = ptr[v]
        e = ptr[v + 1]
        for t in range(a + 1, e):
            c = comm[t]
            w = ncoef[t]
            j = t
            while j > a and comm[j - 1] > c:
                comm[j] = comm[j - 1]
                ncoef[j] = ncoef[j - 1]
                j -= 1
            comm[j] = c
            ncoef[j] = w
        for t in range(a, e):
            sizes[comm[t]] += 1
    return comm, ncoef, sizes, origin[:k].astype(np.int64)


@njit(**NUMBA_FLAGS)
def _primary(ptr, comm, coef):
    n = ptr.shape[0] - 1
    best = np.full(n, -1, dtype=np.int64)
    bcoef = np.zeros(n, dtype=np.float64)
    for v in range(n):
        for q in range(ptr[v], ptr[v + 1]):  # ascending communities: ties keep the first
            if best[v] < 0 or coef[q] > bcoef[v]:
                best[v] = comm[q]
                bcoef[v] = coef[q]
    return best, bcoef


def _postprocess(indptr, indices, ptr, lab, coef, num_labels):
    cptr, cmem = _members(ptr, lab, num_labels)
    target = _nested_targets(ptr, lab, cptr, cmem)
    del cptr, cmem
    nested = int((target >= 0).sum())
    if nested:
        ptr, lab, coef = _relabel(ptr, lab, coef, target)
    comm, coef, sizes, origin = _split(indptr, indices, ptr, lab, coef)
    # a split piece can equal or lie inside another community (a path's swinging labels
    # leave two labels on one vertex): merge those the same way. Merging adds no member,
    # so every community stays connected; survivors keep their order.
    cptr, cmem = _members(ptr, comm, sizes.shape[0])
    target = _nested_targets(ptr, comm, cptr, cmem)
    del cptr, cmem
    inside = int((target >= 0).sum())
    if inside:
        ptr, comm, coef = _relabel(ptr, comm, coef, target)
        keep = target < 0
        comm = (np.cumsum(keep) - 1)[comm]
        sizes = np.bincount(comm, minlength=int(keep.sum())).astype(sizes.dtype)
        origin = origin[keep]
        nested += inside
    return ptr, comm, coef, sizes, origin, nested
