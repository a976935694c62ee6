"""Turn two columns of user vertex ids into dense internal ids ``0..n-1``.

Integer ids stay integers: when they are exactly ``0..n-1`` (all present) the graph keeps
``ids=None``; otherwise the distinct ids, sorted ascending, become ``ids`` (int64) and each
endpoint is replaced by its rank. Any other ids are strings, sorted the same way (by code
point) into an object array. Sorting makes the internal numbering independent of the edge
order, so every reader gives the same graph for the same edges.

Memory: integer ids spanning a range no wider than a few times the edge count use a
presence bitmap and a lookup table over that range (O(m + range), no sort); wider ranges
(e.g. 64-bit hashes) use ``np.unique`` (a sort of the 2m endpoints). String ids use
arrow's hash-based ``unique``/``index_in``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hpgraph.graph.csr import index_dtype

__all__ = ["dense_ids", "int64_ids", "is_int_type", "is_string_type"]


def is_int_type(t: pa.DataType) -> bool:
    return pa.types.is_integer(t)


def is_string_type(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def dense_ids(src, dst):
    """``(src, dst, ids, n)``: internal-id arrays (narrowest index dtype), the ``ids``
    for :class:`~hpgraph.graph.csr.Graph` and the vertex count. ``src``/``dst`` are arrow
    (chunked) arrays of one integer or one string type."""
    from hpgraph.io.chunk_ids import chunk_ids  # built on this module's helpers

    return chunk_ids([src], [dst], is_int_type(src.type))


def int64_ids(col) -> np.ndarray:
    """An arrow (chunked) integer column as one int64 numpy array."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return np.asarray(col.cast(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)


def fits_bitmap(span: int, m: int) -> bool:
    """Whether integer ids spanning ``span`` values, for ``m`` edges, are renumbered with a
    presence bitmap over the span (else by sorting the distinct ids)."""
    return span <= 4 * m + 1024


def sorted_unique_strings(columns):
    """The distinct strings of arrow string ``columns`` (arrays or chunked), sorted by
    code point, as a large_string array."""
    chunks = [c for col in columns for c in _chunks(col.cast(pa.large_string()))]
    uniq = pc.unique(pa.chunked_array(chunks, type=pa.large_string()))
    return uniq.take(pc.sort_indices(uniq))


def strings_from_sorted(src, dst, uniq):
    """``(src, dst, ids, n)`` of string endpoints numbered by their rank in ``uniq``
    (sorted, distinct, holding every endpoint)."""
    src = src.cast(pa.large_string())
    dst = dst.cast(pa.large_string())
    n = len(uniq)
    idt = index_dtype(n)
    s = _index_in(src, uniq, idt)
    d = _index_in(dst, uniq, idt)
    ids = np.asarray(uniq.to_numpy(zero_copy_only=False), dtype=object)
    return s, d, ids, n


def _chunks(col):
    return list(col.chunks) if isinstance(col, pa.ChunkedArray) else [col]


def _index_in(col, values, idt) -> np.ndarray:
    idx = pc.index_in(col, value_set=values)
    if isinstance(idx, pa.ChunkedArray):
        idx = idx.combine_chunks()
    return idx.to_numpy(zero_copy_only=False).astype(idt, copy=False)
