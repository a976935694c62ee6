"""Dense ids for an edge list held as chunks (a text file parsed a chunk at a time,
:mod:`hpgraph.io.scan`), by one reader or by the ranks of a parallel read together.

The numbering is :mod:`hpgraph.io._ids`'s (sorted ids; integer ids through a presence
bitmap over their span when it is narrow, else the sorted distinct ids; strings sorted by
code point), so every reader gives the same graph. What the readers share is said by a
:class:`Combine`: one reader's is the identity; the MPI reader's reduces over its ranks
and numbers wide ids by a sample sort, each rank keeping a slice of them
(:func:`hpgraph.runtimes.mpi.assemble.renumber`). Each chunk is freed as soon as it is
numbered, so the reader holds the chunks (int32 where the ids fit) and the output (the
narrowest index type), not an int64 copy of every endpoint.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.graph.csr import index_dtype
from hpgraph.io._ids import (
    _chunks,
    fits_bitmap,
    int64_ids,
    sorted_unique_strings,
    strings_from_sorted,
)

__all__ = ["Combine", "chunk_ids"]

_NONE = np.empty(0, dtype=np.int64)  # the ids of a reader without edges


class Combine:
    """How readers combine what each found to number their integer ids together (one
    reader: nothing to combine; string ids are numbered by one reader only, the MPI
    reader numbers them through its distributed dictionary,
    :mod:`hpgraph.runtimes.mpi.dictionary`)."""

    def count(self, x: int) -> int:
        return x

    def low(self, x: int) -> int:
        return x

    def high(self, x: int) -> int:
        return x

    def present(self, bitmap: np.ndarray) -> None:
        """Merge every reader's presence bitmap into ``bitmap`` (in place)."""

    def keep(self, ids: np.ndarray) -> np.ndarray:
        """The part of every vertex's sorted ids ``ids`` this reader keeps (its slice:
        the readers' slices in reader order are ``ids``)."""
        return ids

    def number(self, distinct: np.ndarray):
        """``(numbers, slice, n)`` of this reader's sorted distinct ids (int64): the
        number of each (its position in the sorted union of every reader's; None where
        that is its position in ``distinct``), this reader's slice of the union (as
        :meth:`keep`) and the union's size."""
        return None, distinct, distinct.shape[0]


def chunk_ids(src: list, dst: list, ints: bool, combine: Combine | None = None):
    """``(src, dst, ids, n)`` as :func:`hpgraph.io._ids.dense_ids` gives them, for
    endpoints held as lists of chunks (integer numpy arrays or arrow integer arrays when
    ``ints``, else arrow string arrays), emptied as they are numbered. With ``combine``
    (integer ids), ``ids`` is this reader's slice of every vertex's (:meth:`Combine.keep`)."""
    if not ints:
        s, d = _strings(src), _strings(dst)
        local = sorted_unique_strings([s, d]) if len(s) else pa.array([], pa.large_string())
        return strings_from_sorted(s, d, local)
    combine = combine or Combine()
    for chunks in (src, dst):
        chunks[:] = [c if isinstance(c, np.ndarray) else int64_ids(c) for c in chunks]
    pa.default_memory_pool().release_unused()
    mine = sum(c.shape[0] for c in src)
    m = combine.count(mine)
    big = np.iinfo(np.int64)
    lo = combine.low(min((int(c.min()) for c in src + dst if c.shape[0]), default=big.max))
    hi = combine.high(max((int(c.max()) for c in src + dst if c.shape[0]), default=big.min))
    if m == 0:
        return np.empty(0, np.int32), np.empty(0, np.int32), None, 0
    if fits_bitmap(hi - lo + 1, m):
        present = np.zeros(hi - lo + 1, dtype=np.uint8)
        for c in src + dst:
            _mark(present, c, lo)
        combine.present(present)
        if lo == 0 and present.all():  # ids 0..n-1 already
            ids, n, lut = None, present.shape[0], np.empty(0, dtype=np.int64)
        else:
            ids = combine.keep(np.flatnonzero(present).astype(np.int64) + lo)
            lut = np.cumsum(present, dtype=np.int64) - 1
            n = int(lut[-1]) + 1
        del present
        return _mapped(src, lo, lut, n, mine), _mapped(dst, lo, lut, n, mine), ids, n
    local = np.unique(np.concatenate([c.astype(np.int64) for c in src + dst] or [_NONE]))
    numbers, ids, n = combine.number(local)
    out = []
    for chunks in (src, dst):
        col = np.empty(mine, dtype=index_dtype(n))
        at = 0
        while chunks:
            c = chunks.pop(0)
            at_local = np.searchsorted(local, c)
            col[at : at + c.shape[0]] = at_local if numbers is None else numbers[at_local]
            at += c.shape[0]
        out.append(col)
    return out[0], out[1], ids, n


def _strings(chunks):
    """One large_string array of per-chunk string columns (emptied)."""
    if not chunks:
        return pa.array([], pa.large_string())
    parts = [p for c in chunks for p in _chunks(c.cast(pa.large_string()))]
    out = pa.chunked_array(parts, type=pa.large_string()).combine_chunks()
    chunks.clear()
    return out


def _mapped(chunks, lo, lut, n, total):
    """The ids of ``chunks`` (emptied, each freed once mapped) numbered through ``lut``
    (an id's number: ``lut[id - lo]``; empty: the id itself), as one array."""
    col = np.empty(total, dtype=index_dtype(n))
    at = 0
    while chunks:
        c = chunks.pop(0)
        _map(c, lo, lut, col[at : at + c.shape[0]])
        at += c.shape[0]
    return col


@njit(**NUMBA_FLAGS)
def _mark(present, ids, lo):
    for i in range(ids.shape[0]):
        present[np.int64(ids[i]) - lo] = 1


@njit(**NUMBA_FLAGS)
def _map(ids, lo, lut, out):
    identity = lut.shape[0] == 0
    for i in range(ids.shape[0]):
        out[i] = ids[i] if identity else lut[np.int64(ids[i]) - lo]
