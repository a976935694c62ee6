"""Given a graph in CSR form (local vertex ids) and source vertices, returns every vertex
reachable from each source by one or more edges (``p+``), zero or more (``p*``) or at most
one (``p?``), each pair once: one breadth-first search per source, compiled, with a
visited stamp per vertex (the source's index) so no array is cleared between sources."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["reach"]


@njit(**NUMBA_FLAGS)
def _grow(buf, size):
    out = np.empty(max(2 * len(buf), size), buf.dtype)
    out[: len(buf)] = buf
    return out


@njit(**NUMBA_FLAGS)
def reach(indptr, indices, sources, zero, one_step):
    """(k, v) pairs: source ``sources[k]`` (a local id, or -1 for a vertex without edges)
    reaches local vertex ``v`` (-1: the source itself when it has no local id). ``zero``:
    each source reaches itself; ``one_step``: paths of one edge only."""
    n = len(indptr) - 1
    seen = np.full(n, -1, np.int64)
    queue = np.empty(max(n, 1), np.int64)
    out_k = np.empty(max(len(sources), 16), np.int64)
    out_v = np.empty(max(len(sources), 16), np.int64)
    m = 0
    for k in range(len(sources)):
        s = sources[k]
        if zero:
            if m + 1 > len(out_k):
                out_k, out_v = _grow(out_k, m + 1), _grow(out_v, m + 1)
            out_k[m] = k
            out_v[m] = s
            m += 1
            if s >= 0:
                seen[s] = k
        if s < 0:
            continue
        head = 0
        tail = 0
        u = s
        while True:
            for j in range(indptr[u], indptr[u + 1]):
                v = indices[j]
                if seen[v] != k:
                    seen[v] = k
                    queue[tail] = v
                    tail += 1
                    if m + 1 > len(out_k):
                        out_k, out_v = _grow(out_k, m + 1), _grow(out_v, m + 1)
                    out_k[m] = k
                    out_v[m] = v
                    m += 1
            if one_step or head == tail:
                break
            u = queue[head]
            head += 1
    return out_k[:m], out_v[:m]
