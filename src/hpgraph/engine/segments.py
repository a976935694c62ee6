"""Cache-blocked dense pulls: the sources of a dense superstep in segments.

A dense superstep (docs/engine.md) reads, for every in-edge, the sender's last broadcast
at a random place in ``pulled``, an array of one message per vertex of the whole graph.
When that array is larger than the share of the last-level cache the process gets, most
of those reads go to memory: a float64 PageRank on a million vertices reads an 8 MB array
16-32 million times per iteration, and ran 1.5-3x slower than the same pass over float32
(4 MB) on the 2-core test machine (32 MB of L3 shared with other tenants).

So the sources are cut into ``S`` segments of equal id ranges, each small enough to stay
in cache (:data:`hpgraph.config.PULL_WINDOW_BYTES`), and the pass runs once per segment:
every vertex combines the part of its in-row whose senders lie in the segment into its
inbox, and the last segment's pass computes, as the one pass did. In-rows are sorted by
source, so a segment's part of a row is a contiguous slice; where each slice starts is
kept per vertex (``starts``: uint32 offsets from the row's start, ``S - 1`` per own
vertex, 4 B per vertex per extra segment; nothing per edge). This is the CSR segmenting
of Cagra (Zhang et al., "Making caches work for graph analytics", 2017) without the
per-segment copy of the edges it stores.

Each pass over the own vertices costs a read of ``indptr``, ``starts`` and the inbox, so
segments pay only while a row keeps a few entries in each: ``S`` is capped so that the
mean in-row holds at least :data:`hpgraph.config.PULL_MIN_SEGMENT_ROW` entries per
segment (no segments on the sparse mention graphs, where the mean row is 2-3 entries).

A vertex's message is combined segment by segment in a fixed order, so the result does
not depend on the threads; with a ``sum`` combiner it differs from the unsegmented pass
in the last bits (the terms are grouped differently), as the dense pass already differs
from push delivery.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph import config
from hpgraph.config import NUMBA_FLAGS

__all__ = ["segment_count", "segment_starts", "NO_STARTS"]

#: the ``starts`` of an unsegmented pull (no segment but the whole row)
NO_STARTS = np.zeros((0, 0), dtype=np.uint32)
NO_STARTS.flags.writeable = False


def segment_count(sources: int, itemsize: int, vertices: int, edges: int) -> int:
    """How many segments a dense pull over ``sources`` broadcasts of ``itemsize`` bytes
    takes, for ``vertices`` own vertices with ``edges`` in-edges: enough that one
    segment's broadcasts fit :data:`~hpgraph.config.PULL_WINDOW_BYTES`, at most as many
    as keep :data:`~hpgraph.config.PULL_MIN_SEGMENT_ROW` entries of the mean row in each."""
    window = int(config.PULL_WINDOW_BYTES)
    if window <= 0 or vertices <= 0:
        return 1
    want = -(-sources * itemsize // window)
    if want <= 1:
        return 1
    cap = int(edges / (vertices * max(float(config.PULL_MIN_SEGMENT_ROW), 1e-9)))
    return int(max(1, min(want, cap, sources)))


@njit(**NUMBA_FLAGS)
def _starts(in_indptr, in_indices, lo, hi, sources, segments):
    """starts[s - 1, v - lo]: offset in v's in-row of its first source >= s * width, for
    s = 1..segments-1 (binary search in the sorted row)."""
    width = -(-sources // segments)
    out = np.empty((segments - 1, hi - lo), dtype=np.uint32)
    for v in range(lo, hi):
        k0 = in_indptr[v]
        a = k0
        b = in_indptr[v + 1]
        for s in range(1, segments):
            bound = s * width
            while a < b:  # first entry >= bound in [a, b)
                mid = (a + b) >> 1
                if in_indices[mid] < bound:
                    a = mid + 1
                else:
                    b = mid
            out[s - 1, v - lo] = a - k0
            b = in_indptr[v + 1]
    return out


def segment_starts(in_indptr, in_indices, lo: int, hi: int, sources: int, segments: int):
    """Where each own vertex's in-row enters segments 1..S-1 (see the module doc):
    ``(segments - 1, hi - lo)`` uint32; :data:`NO_STARTS` for one segment."""
    if segments <= 1:
        return NO_STARTS
    out = _starts(in_indptr, in_indices, int(lo), int(hi), int(sources), int(segments))
    out.flags.writeable = False
    return out
