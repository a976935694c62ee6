"""The string dictionary of a parallel read: the ranks' distinct string ids numbered
together and spread over the ranks, not gathered whole on each (the Cray Graph Engine
builds its dictionary in parallel the same way).

A string's number is its rank in code-point order among every rank's strings, the
one-process reader's (:func:`hpgraph.io._ids.sorted_unique_strings`), so the graph is
the same bit for bit. It is found by the sample sort of
:mod:`hpgraph.runtimes.mpi.samplesort` (splitters from every rank's samples, each rank's
sorted distinct strings sent in runs to the owners of their ranges, each owner's merged
strings its *slice* of the dictionary, numbers sent back), the strings travelling as
their lengths and bytes (an ``Alltoallv`` of each); every rank then numbers its
endpoints by looking them up among its own distinct strings.

Bytes per rank (a string of L bytes takes 8 + L in arrow; d distinct strings in the
rank's share, n in all): its distinct strings, d (8 + L); what it receives, the
strings of its range from each rank that has them (the P ranks' distinct strings spread
over P owners: about d (8 + L), at most n (8 + L) with even ranges); its slice, about
n (8 + L) / P; 8 B per distinct string for the numbers, each way. Gathering instead
received every rank's distinct strings on every rank (up to P n, pickled and unpickled)
and sorted their union. The endpoints are numbered a parsed chunk at a time, each chunk
freed once numbered. Once the rows are built, :func:`gather_names` gives every vertex's
name (the one-process reader's object array) to a rank holding the whole graph; a rank
holding its own rows only takes its own vertices' names from the slices
(:func:`hpgraph.runtimes.mpi.names.fetch`).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hpgraph.graph.csr import index_dtype
from hpgraph.io._ids import _chunks, sorted_unique_strings
from hpgraph.runtimes.mpi.buffers import RowTypes, allgatherv, alltoallv
from hpgraph.runtimes.mpi.samplesort import Keys, number

__all__ = ["string_ids", "gather_names", "pack_strings", "unpack_strings"]

#: Bytes of strings per row of an exchange (counts are rows).
ROW = 8


def string_ids(comm, MPI, src, dst):
    """``(src, dst, slice, n)``: this rank's endpoints ``src`` and ``dst`` (lists of
    arrow string arrays or chunked arrays, emptied: each chunk is freed once numbered)
    numbered in the whole dictionary (one array each, the narrowest index type), this
    rank's slice of the dictionary (sorted distinct strings, arrow; the slices in rank
    order are the whole dictionary) and the dictionary's size. Collective."""
    src, dst = _large(src), _large(dst)
    edges = sum(len(c) for c in src)
    local = sorted_unique_strings(src + dst) if edges else _empty()
    numbers, mine, n = number(comm, MPI, local, _STRINGS)
    numbers = numbers.astype(index_dtype(n))
    s, d = _numbered(src, local, numbers, edges), _numbered(dst, local, numbers, edges)
    return s, d, mine, n


class _Strings(Keys):
    """Arrow large_string keys for :func:`~hpgraph.runtimes.mpi.samplesort.number`:
    sent as their lengths and their bytes in rows of :data:`ROW` (an ``Alltoallv`` of
    each), merged and looked up by arrow."""

    def samples(self, local, at):
        return local.take(pa.array(at)).to_pylist()  # str: code-point order

    def below(self, local, splitters):
        out = np.empty(len(splitters), dtype=np.int64)
        lo = 0
        for r, key in enumerate(splitters):
            hi = len(local)  # the splitters ascend
            while lo < hi:
                mid = (lo + hi) // 2
                if local[mid].as_py() < key:
                    lo = mid + 1
                else:
                    hi = mid
            out[r] = lo
        return out

    def send(self, comm, types, local, cuts, got):
        lengths, packed, rows = pack_strings(local, cuts)
        got_rows = np.empty_like(rows)
        comm.Alltoall(rows, got_rows)
        got_lengths = alltoallv(comm, types, [lengths], np.diff(cuts))[0][0]
        got_bytes = alltoallv(comm, types, [packed], rows)[0][0]
        del lengths, packed
        return unpack_strings(got_lengths, got_bytes, got, got_rows)

    def merge(self, got):
        return sorted_unique_strings([got]) if len(got) else _empty()

    def positions(self, got, mine):
        return _positions(got, mine, np.int64)


_STRINGS = _Strings()


def gather_names(comm, MPI, mine) -> np.ndarray:
    """Every vertex's name in number order (an object array, as the one-process reader
    gives ``ids``): every rank's slice ``mine`` gathered (``Allgatherv``). Collective."""
    lengths, packed, rows = pack_strings(mine, np.array([0, len(mine)]))
    counts = np.array(comm.allgather((len(mine), int(rows[0]))), dtype=np.int64)
    types = RowTypes(MPI)
    try:
        got_lengths = allgatherv(comm, types, [lengths], counts[:, 0].copy())[0]
        got_bytes = allgatherv(comm, types, [packed], counts[:, 1].copy())[0]
    finally:
        types.free()
    del lengths, packed
    names = unpack_strings(got_lengths, got_bytes, counts[:, 0], counts[:, 1])
    return np.asarray(names.to_numpy(), dtype=object)


def _empty():
    return pa.array([], pa.large_string())


def _large(chunks) -> list:
    """The arrays of ``chunks`` (arrow string arrays or chunked arrays, emptied one by
    one) as large_string arrays."""
    out = []
    while chunks:
        out += _chunks(chunks.pop(0).cast(pa.large_string()))
    return out


def _numbered(chunks, local, numbers, total) -> np.ndarray:
    """The numbers of the strings of ``chunks`` (emptied, each freed once numbered) as
    one array: ``numbers[i]`` is the number of ``local[i]``."""
    out = np.empty(total, dtype=numbers.dtype)
    at = 0
    while chunks:
        c = chunks.pop(0)
        out[at : at + len(c)] = numbers[_positions(c, local, np.int32)]
        at += len(c)
    return out


def pack_strings(strings, cuts):
    """(byte lengths (int64), bytes, rows of bytes per part) of the parts
    ``strings[cuts[r]:cuts[r + 1]]`` of a large_string array: each part's bytes padded
    to whole rows of :data:`ROW` bytes, so counts are rows (a part of more than 2^31
    bytes still has an int count, as everywhere in :mod:`~hpgraph.runtimes.mpi.buffers`)."""
    _, off, body = strings.buffers()
    offsets = np.frombuffer(off, np.int64, len(strings) + 1, strings.offset * 8)
    data = np.frombuffer(body, np.uint8) if body is not None else np.empty(0, np.uint8)
    starts = offsets[cuts]
    nbytes = np.diff(starts)
    rows = -(-nbytes // ROW)
    packed = np.zeros((int(rows.sum()), ROW), dtype=np.uint8)
    flat = packed.reshape(-1)
    at = 0
    for r in range(nbytes.shape[0]):
        flat[at : at + nbytes[r]] = data[starts[r] : starts[r + 1]]
        at += int(rows[r]) * ROW
    return np.diff(offsets), packed, rows


def unpack_strings(lengths, packed, strings, rows):
    """The strings :func:`pack_strings` packed, every part's in turn (part q: ``strings[q]``
    strings, ``rows[q]`` rows of ``packed``), as one chunked large_string array sharing
    ``packed``'s memory."""
    body = pa.py_buffer(packed.reshape(-1))
    chunks, first, base = [], 0, 0
    for k, r in zip(strings.tolist(), rows.tolist(), strict=True):
        offsets = np.empty(k + 1, dtype=np.int64)
        offsets[0] = base
        np.cumsum(lengths[first : first + k], out=offsets[1:])
        offsets[1:] += base
        chunks.append(pa.LargeStringArray.from_buffers(k, pa.py_buffer(offsets), body))
        first, base = first + k, base + r * ROW
    return pa.chunked_array(chunks, type=pa.large_string())


def _positions(strings, sorted_distinct, dtype) -> np.ndarray:
    """Each string's position in ``sorted_distinct`` (which holds them all)."""
    idx = pc.index_in(strings, value_set=sorted_distinct)
    if isinstance(idx, pa.ChunkedArray):
        idx = idx.combine_chunks()
    return idx.to_numpy(zero_copy_only=False).astype(dtype, copy=False)
