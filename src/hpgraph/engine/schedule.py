"""Work ranges for the threads of a superstep: edge-balanced cuts of a vertex range, and
the chunks that threads take in turn (dynamic scheduling).

A static split gives each thread one range of about equal ``alpha * vertices + edges``
(Gemini's measure; a vertex costs a few edge visits in the engine). That balances the
work only if every thread runs as fast as the others: on a power-law graph one range can
hold a hub whose row dwarfs the rest, and on a shared machine another process may take a
core, and the superstep waits for the slowest thread at its barrier. Dense supersteps
(docs/engine.md) therefore cut the range into many small chunks of equal work and let
each thread take the next chunk from a shared counter (:func:`~hpgraph.engine.atomics.
fetch_add`) until none is left, as OpenMP's ``schedule(dynamic)`` in the GAP reference
does: a thread that is slowed down simply takes fewer chunks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["balanced_cuts", "chunk_cuts", "CHUNK_WORK", "ALPHA"]

#: weight of a vertex against an edge in a range's work (the partitioner's measure)
ALPHA = 8.0
#: work (``ALPHA * vertices + edges``) per chunk: about 0.1 ms of pulling, so the
#: counter is touched rarely while a stalled thread holds up at most one chunk
CHUNK_WORK = 1 << 16
#: at least this many chunks per thread, so small graphs are shared out too
MIN_CHUNKS_PER_THREAD = 8


def balanced_cuts(indptr, lo: int, hi: int, pieces: int, alpha: float = ALPHA) -> np.ndarray:
    """``pieces + 1`` boundaries (int64) splitting [lo, hi) into ranges of about equal
    ``alpha * vertices + edges``, edges counted by ``indptr`` (a row's edges stay in one
    range, so a hub's range holds little else). Each cut is found by bisection on
    ``indptr``: O(pieces log n), no array of n work values (on 8M vertices that array
    took 0.4 s per call, for a split that reads 30 values)."""
    if pieces <= 1 or hi <= lo:
        return np.array([lo, hi], dtype=np.int64)
    return _bisected_cuts(indptr, lo, hi, pieces, float(alpha))


@njit(**NUMBA_FLAGS)
def _bisected_cuts(indptr, lo, hi, pieces, alpha):
    """Cut k (0 < k < pieces) is the first v in [lo, hi] whose work ``alpha * (v - lo) +
    (indptr[v] - indptr[lo])`` reaches ``total * k / pieces``: what ``np.searchsorted``
    (left) over the array of those values gives, the same float64 arithmetic."""
    cuts = np.empty(pieces + 1, dtype=np.int64)
    cuts[0] = lo
    cuts[pieces] = hi
    base = indptr[lo]
    total = alpha * np.float64(hi - lo) + np.float64(indptr[hi] - base)
    for k in range(1, pieces):
        target = total * k / pieces
        a = lo  # first index with work >= target, in [lo, hi + 1]
        b = hi + 1
        while a < b:
            mid = (a + b) // 2
            if alpha * np.float64(mid - lo) + np.float64(indptr[mid] - base) < target:
                a = mid + 1
            else:
                b = mid
        cuts[k] = a
    return cuts


def chunk_cuts(indptr, lo: int, hi: int, threads: int) -> np.ndarray:
    """Boundaries of the chunks of [lo, hi) that ``threads`` threads take in turn:
    edge-balanced, about :data:`CHUNK_WORK` each, at least
    ``MIN_CHUNKS_PER_THREAD * threads`` (fewer only if there are fewer vertices), empty
    chunks dropped."""
    if hi <= lo:
        return np.array([lo, lo], dtype=np.int64)
    work = ALPHA * (hi - lo) + float(indptr[hi] - indptr[lo])
    pieces = max(int(work // CHUNK_WORK), MIN_CHUNKS_PER_THREAD * max(threads, 1))
    cuts = balanced_cuts(indptr, lo, hi, min(pieces, hi - lo))
    return np.unique(cuts)
