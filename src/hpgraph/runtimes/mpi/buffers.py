"""Numpy arrays in MPI's v-collectives, counted in rows.

Every array travels as rows of one contiguous MPI datatype (one row: all the elements of
``array[i]``), so counts and displacements are row counts and a buffer of more than 2^31
bytes still has int counts. Buffers are raw numpy memory: nothing is pickled.
"""

from __future__ import annotations

import time

import numpy as np

from hpgraph.runtimes.mpi.watchdog import guard

__all__ = ["RowTypes", "row_bytes", "rows_like", "displs", "moved", "alltoallv", "allgatherv"]


def row_bytes(array) -> int:
    """Bytes of one row of ``array``."""
    return int(np.prod(array.shape[1:], dtype=np.int64)) * array.itemsize


def rows_like(array, rows: int):
    """An uninitialised array of ``rows`` rows shaped and typed like ``array``'s."""
    return np.empty((rows, *array.shape[1:]), dtype=array.dtype)


def displs(counts):
    """Displacements of consecutive blocks of ``counts`` rows."""
    d = np.zeros_like(counts)
    np.cumsum(counts[:-1], out=d[1:])
    return d


def moved(pairs: int, ids, vals) -> tuple[int, int]:
    """(values, bytes) of ``pairs`` (receiver, value) pairs of ``ids``' and ``vals``' types."""
    return pairs, pairs * (ids.itemsize + row_bytes(vals))


class RowTypes:
    """The MPI datatype of one row of an array, committed once per row size and freed
    by :meth:`free` (the runtime's ``close``)."""

    def __init__(self, MPI):
        self.MPI = MPI
        self._types = {}

    def __call__(self, array):
        row = row_bytes(array)
        t = self._types.get(row)
        if t is None:
            t = self._types[row] = self.MPI.BYTE.Create_contiguous(row).Commit()
        return t

    def free(self):
        for t in self._types.values():
            t.Free()
        self._types = {}


def alltoallv(comm, rowtype, arrays, counts):
    """Send ``counts[q]`` consecutive rows of each array to rank q of ``comm``;
    returns the rows received (in rank order) and the seconds spent waiting in the
    exchange of counts (every rank must reach it: that is barrier time)."""
    t0 = time.perf_counter()
    recv_counts = np.empty_like(counts)
    with guard("an exchange of counts"):
        comm.Alltoall(counts, recv_counts)
    waited = time.perf_counter() - t0
    sd, rd = displs(counts), displs(recv_counts)
    total = int(recv_counts.sum())
    got = []
    for a in arrays:
        out = rows_like(a, total)
        t = rowtype(a)
        with guard("an Alltoallv"):
            comm.Alltoallv([np.ascontiguousarray(a), (counts, sd), t], [out, (recv_counts, rd), t])
        got.append(out)
    return got, waited


def allgatherv(comm, rowtype, arrays, counts):
    """Every rank's rows of each (contiguous) array, concatenated in rank order; rank q
    gives ``counts[q]`` rows."""
    d = displs(counts)
    total = int(counts.sum())
    got = []
    for a in arrays:
        out = rows_like(a, total)
        t = rowtype(a)
        with guard("an Allgatherv"):
            comm.Allgatherv([a, a.shape[0], t], [out, (counts, d), t])
        got.append(out)
    return got
