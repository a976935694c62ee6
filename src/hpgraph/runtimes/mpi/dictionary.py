"""The string dictionary of a parallel read: the ranks' distinct string ids numbered
together and spread over the ranks, not gathered whole on each (the Cray Graph Engine
builds its dictionary in parallel the same way).

A string's number is its rank in code-point order among every rank's strings, the
one-process reader's (:func:`hpgraph.io._ids.sorted_unique_strings`), so the graph is
the same bit for bit. It is found by a sample sort:

1. **Splitters.** Each rank sorts its distinct strings and offers up to
   :data:`SAMPLES` x P of them, evenly spaced (fewer where P x that would pass
   :data:`SAMPLES_CAP`); the ranks gather the samples (an ``allgather`` of a few
   strings) and cut them into P ranges: rank r *owns* the strings from splitter r - 1
   up to splitter r.
2. **To the owners.** A rank's strings in one owner's range are a run of its sorted
   distinct strings; each run goes to its owner (an ``Alltoallv`` of their lengths and
   one of their bytes).
3. **Numbering.** Each owner merges what it got into its sorted distinct strings, its
   *slice* of the dictionary; an ``Exscan`` of the slices' sizes gives its first number.
4. **Answers.** Each owner sends every rank the numbers of the strings it got from it,
   in the order it got them (an ``Alltoallv`` back): the strings sent were the
   requests, so every rank learns the numbers of its own distinct strings, in their
   sorted order, and numbers its endpoints by looking them up.

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

__all__ = ["SAMPLES", "SAMPLES_CAP", "string_ids", "gather_names", "pack_strings", "unpack_strings"]

#: Samples a rank offers per rank for the splitters (more: ranges closer in size).
SAMPLES = 16

#: Samples of all ranks together at most (but at least :data:`SAMPLES` per rank).
SAMPLES_CAP = 1 << 18

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
    cuts = _cuts(local, _splitters(comm, local, comm.Get_size()))
    lengths, packed, rows = pack_strings(local, cuts)
    sent = np.stack([np.diff(cuts), rows], axis=1)  # strings, rows of bytes per owner
    got_counts = np.empty_like(sent)
    comm.Alltoall(sent, got_counts)
    types = RowTypes(MPI)
    try:
        got_lengths = alltoallv(comm, types, [lengths], sent[:, 0].copy())[0][0]
        got_bytes = alltoallv(comm, types, [packed], sent[:, 1].copy())[0][0]
        del lengths, packed
        got = unpack_strings(got_lengths, got_bytes, got_counts[:, 0], got_counts[:, 1])
        del got_lengths, got_bytes
        mine = sorted_unique_strings([got]) if len(got) else _empty()
        first = comm.exscan(len(mine)) or 0  # None on rank 0
        n = comm.allreduce(len(mine))
        answers = _positions(got, mine, np.int64) + first
        del got
        numbers = alltoallv(comm, types, [answers], got_counts[:, 0].copy())[0][0]
    finally:
        types.free()
    del answers
    numbers = numbers.astype(index_dtype(n))
    s, d = _numbered(src, local, numbers, edges), _numbered(dst, local, numbers, edges)
    return s, d, mine, n


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


def _splitters(comm, local, size) -> list[str]:
    """The P - 1 strings that cut the dictionary into the ranks' ranges, from every
    rank's evenly spaced samples of its sorted distinct strings ``local``."""
    picks = min(len(local), max(SAMPLES, min(SAMPLES * size, SAMPLES_CAP // size)))
    at = np.arange(picks, dtype=np.int64) * len(local) // max(picks, 1)
    mine = local.take(pa.array(at)).to_pylist()
    every = sorted(s for part in comm.allgather(mine) for s in part)  # code-point order
    if not every:
        return []
    return [every[r * len(every) // size] for r in range(1, size)]


def _cuts(local, splitters) -> np.ndarray:
    """Where each rank's range starts in the sorted strings ``local`` (and their end):
    rank r gets ``local[cuts[r]:cuts[r + 1]]``, the strings below splitter r and not
    below splitter r - 1."""
    cuts = np.zeros(len(splitters) + 2, dtype=np.int64)
    for r, key in enumerate(splitters):
        lo, hi = int(cuts[r]), len(local)  # the splitters ascend
        while lo < hi:
            mid = (lo + hi) // 2
            if local[mid].as_py() < key:
                lo = mid + 1
            else:
                hi = mid
        cuts[r + 1] = lo
    cuts[-1] = len(local)
    return cuts


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
