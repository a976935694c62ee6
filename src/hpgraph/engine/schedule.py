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
    range, so a hub's range holds little else)."""
    if pieces <= 1 or hi <= lo:
        return np.array([lo, hi], dtype=np.int64)
    v = np.arange(lo, hi + 1, dtype=np.float64)
    work = alpha * (v - lo) + (indptr[lo : hi + 1] - indptr[lo]).astype(np.float64)
    cuts = lo + np.searchsorted(work, work[-1] * np.arange(1, pieces) / pieces)
    return np.concatenate([[lo], cuts, [hi]]).astype(np.int64)


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
