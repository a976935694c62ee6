"""The all-pairs forces of NetworkX's ``forceatlas2_layout``, compiled: one iteration's
attraction and repulsion, in the precision NetworkX computes them.

Given positions ``pos`` (n x dim, float32 as ``random_layout`` makes them, or float64),
the CSR arrays of the graph with ``a`` (the entries of ``nx.to_numpy_array(G, weight)``:
parallel edges summed), the masses and the sizes, returns ``(attraction, repulsion)``
(float64, n x dim), the two terms NetworkX computes with dense ``n x n`` arrays:

- differences ``pos[i] - pos[j]`` and distances (``np.linalg.norm``) in the precision of
  ``pos``, as NumPy keeps them;
- attraction ``-sum_j diff[i, j] * A[i, j]`` (linear), or with ``linlog``
  ``sum_j diff[i, j] * (-log(1 + d) / d)[i, j] * A[i, j]`` (the log term by NumPy itself
  on the entries' distances, in ``pos``'s precision: a compiled float32 log differs from
  NumPy's in the last bit for about a fifth of its inputs), summed over the row's
  entries only: the zeros of ``A`` add nothing, except where NetworkX's product is NaN
  (an infinite difference, or with ``linlog`` two vertices at one point), which the
  kernel adds too;
- repulsion ``sum_j diff[i, j] * m_i m_j / d2 * scaling_ratio`` over every ``j != i``,
  ``d2`` the squared distance (less both sizes when ``adjust_sizes``) in ``pos``'s
  precision.

NetworkX sums each row by ``np.einsum`` in its own order, so the float64 sums can
differ from it in the last bit (see :mod:`hpgraph.nxbackend.layout`); everything else
in an iteration (gravity, swing, traction, speed, the step) is NumPy code the caller
runs exactly as NetworkX does. The work is O(n^2)
per iteration in time, as NetworkX's, but O(n + m) in memory (NetworkX holds several
``n x n x dim`` arrays), and rows are split over threads.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from hpgraph.config import DEFAULT_THREADS, NUMBA_FLAGS

__all__ = ["Forces", "entry_distances", "forces_rows"]


@njit(**NUMBA_FLAGS)
def entry_distances(pos, indptr, indices):
    """``np.linalg.norm(pos[i] - pos[j])`` in ``pos``'s precision, per CSR entry."""
    n, dim = pos.shape
    out = np.empty(indices.shape[0], dtype=pos.dtype)
    for i in range(n):
        for q in range(indptr[i], indptr[i + 1]):
            j = indices[q]
            s = pos[i, 0] - pos[j, 0]
            s = s * s
            for k in range(1, dim):
                t = pos[i, k] - pos[j, k]
                s += t * t
            out[q] = np.sqrt(s)
    return out


@njit(**NUMBA_FLAGS)
def _coordinates(pos, i, dim, zero):
    """Row ``i`` of ``pos`` as three scalars (``zero``, of ``pos``'s type, past ``dim``:
    adding 0 to NumPy's sums of squares changes nothing)."""
    return pos[i, 0], pos[i, 1] if dim > 1 else zero, pos[i, 2] if dim > 2 else zero


@njit(**NUMBA_FLAGS)
def forces_rows(
    pos, indptr, indices, w, mass, size, scaling_ratio, linlog, adjust, lo, hi, att, rep
):
    """Attraction (``sum_j diff[i, j] * w[entry]``, negated unless ``linlog``) and
    repulsion of rows ``lo..hi-1`` into ``att`` and ``rep``; ``dim`` is 1, 2 or 3."""
    n, dim = pos.shape
    cast = np.empty(1, dtype=pos.dtype)  # a float64 rounded to pos's precision
    zero = np.zeros(1, dtype=pos.dtype)[0]
    mark = np.full(n, -1, dtype=np.int64)
    for i in range(lo, hi):
        x, y, z = _coordinates(pos, i, dim, zero)
        a0 = a1 = a2 = 0.0
        for q in range(indptr[i], indptr[i + 1]):
            j = indices[q]
            mark[j] = i
            u, v, t = _coordinates(pos, j, dim, zero)
            a0 += np.float64(x - u) * w[q]
            a1 += np.float64(y - v) * w[q]
            a2 += np.float64(z - t) * w[q]
        sign = 1.0 if linlog else -1.0
        mi = mass[i]
        si = -size[i]
        r0 = r1 = r2 = 0.0
        for j in range(n):
            u, v, t = _coordinates(pos, j, dim, zero)
            d0 = x - u
            d1 = y - v
            d2 = z - t
            s = d0 * d0 + d1 * d1 + d2 * d2
            d = np.sqrt(s)
            if (not math.isfinite(s) or (linlog and d == 0)) and mark[j] != i and j != i:
                # A[i, j] == 0, yet NetworkX's dense product is NaN: its factor is (with
                # linlog, -log(1 + d) / d at a distance 0 or infinity) or a difference is
                if linlog and (d == 0 or not math.isfinite(d)):
                    a0 = a1 = a2 = np.nan
                elif not linlog:
                    a0 += np.float64(d0) * 0.0
                    a1 += np.float64(d1) * 0.0
                    a2 += np.float64(d2) * 0.0
            if adjust:
                cast[0] = np.float64(d) + (si - size[j])
                d = cast[0]
            f = (mi * mass[j] / np.float64(d * d)) * scaling_ratio
            if j == i:
                f = 0.0
            r0 += np.float64(d0) * f
            r1 += np.float64(d1) * f
            r2 += np.float64(d2) * f
        a = (a0, a1, a2)
        r = (r0, r1, r2)
        for k in range(dim):
            att[i, k] = sign * a[k]
            rep[i, k] = r[k]


class Forces:
    """One iteration's ``(attraction, repulsion)`` of a fixed graph, rows split over
    threads by their share of the ``n`` pair terms (equal row ranges)."""

    def __init__(self, indptr, indices, a, mass, size, scaling_ratio, linlog, adjust, threads):
        n = indptr.shape[0] - 1
        self.csr = (indptr, indices)
        self.a = a
        self.linlog = bool(linlog)
        loops = indices == np.repeat(np.arange(n, dtype=indices.dtype), np.diff(indptr))
        self.off_diagonal = ~loops
        parts = max(1, min(threads or DEFAULT_THREADS, n // 256 + 1))
        bounds = np.linspace(0, n, parts + 1).astype(np.int64).tolist()
        self.ranges = [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]
        self.tail = (mass, size, float(scaling_ratio), self.linlog, bool(adjust))
        self.pool = ThreadPoolExecutor(len(self.ranges)) if len(self.ranges) > 1 else None

    def _weights(self, pos):
        """Attraction weight per entry: ``A[i, j]``, or with ``linlog`` NetworkX's
        ``-log(1 + d) / d`` (NumPy's float32 log: compiled logs differ in the last bit)
        times ``A[i, j]``, 0 on the diagonal."""
        if not self.linlog:
            return self.a
        d = entry_distances(pos, *self.csr)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = -np.log(1 + d) / d
        return np.where(self.off_diagonal, f * self.a, 0.0)

    def __call__(self, pos):
        att = np.empty(pos.shape)
        rep = np.empty(pos.shape)
        args = (pos, *self.csr, self._weights(pos), *self.tail)
        if self.pool is None:
            forces_rows(*args, 0, pos.shape[0], att, rep)
        else:
            jobs = [
                self.pool.submit(forces_rows, *args, lo, hi, att, rep) for lo, hi in self.ranges
            ]
            for job in jobs:
                job.result()
        return att, rep

    def close(self):
        if self.pool is not None:
            self.pool.shutdown()
