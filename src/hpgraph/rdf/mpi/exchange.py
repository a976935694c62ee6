"""Solution tables between MPI ranks: the owner of a row (a hash of its key columns), the
grouped exchange of several tables' rows to their owners in one ``Alltoallv`` (the Cray
Graph Engine's "coexchange"), and a table copied to every rank or gathered on rank 0.

A table travels as one int64 block per destination: its columns in name order, row by
row, every table's rows for that destination back to back, so one join moves both of
its sides in one exchange of counts (``Alltoall``) and one of rows (``Alltoallv``),
nothing pickled; every rank must name the same columns (the executor's plans are the
same on every rank).
"""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql.table import Table

__all__ = ["owner", "exchange", "replicate", "gather"]

_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: ids in any order spread evenly
_SHIFT = np.uint64(29)


def owner(columns, size: int) -> np.ndarray:
    """The rank (0..size-1) of each row of the id ``columns``; one column gives the rank
    that holds the triples of that subject (:func:`hpgraph.rdf.mpi.store.share`)."""
    h = columns[0].astype(np.uint64) * _MIX
    for col in columns[1:]:
        h = ((h >> _SHIFT) ^ col.astype(np.uint64)) * _MIX
    return ((h >> _SHIFT) % np.uint64(size)).astype(np.int64)


def _matrix(t: Table, names) -> np.ndarray:
    out = np.empty((t.n, len(names)), np.int64)
    for j, v in enumerate(names):
        out[:, j] = t.cols[v]
    return out


def _table(rows: np.ndarray, names, maybe) -> Table:
    cols = {v: np.ascontiguousarray(rows[:, j]) for j, v in enumerate(names)}
    return Table(cols, len(rows), maybe)


def exchange(comm, MPI, sides):
    """Each ``(table, destination rank per row)`` of ``sides`` sent to its rows' ranks,
    all sides in one ``Alltoallv``; the tables this rank receives, in ``sides``' order."""
    size = comm.Get_size()
    names = [sorted(t.cols) for t, _ in sides]
    counts = np.zeros((size, len(sides)), np.int64)
    parts = []
    for i, (t, dest) in enumerate(sides):
        order = np.argsort(dest, kind="stable")
        parts.append(_matrix(t, names[i])[order])
        counts[:, i] = np.bincount(dest, minlength=size)
    widths = np.array([len(n) for n in names], np.int64)
    starts = np.zeros((size + 1, len(sides)), np.int64)
    np.cumsum(counts, axis=0, out=starts[1:])
    send = np.empty(int((counts * widths).sum()), np.int64)
    at = 0
    for q in range(size):
        for i, rows in enumerate(parts):
            block = rows[starts[q, i] : starts[q + 1, i]].reshape(-1)
            send[at : at + len(block)] = block
            at += len(block)
    got = np.empty_like(counts)
    comm.Alltoall(counts, got)
    scount, rcount = counts @ widths, got @ widths
    recv = np.empty(int(rcount.sum()), np.int64)
    comm.Alltoallv(
        [send, (scount, _displs(scount)), MPI.INT64_T],
        [recv, (rcount, _displs(rcount)), MPI.INT64_T],
    )
    blocks = [[] for _ in sides]
    at = 0
    for q in range(size):
        for i in range(len(sides)):
            k = int(got[q, i] * widths[i])
            blocks[i].append(recv[at : at + k].reshape(int(got[q, i]), widths[i]))
            at += k
    return [_table(np.concatenate(b), names[i], sides[i][0].maybe) for i, b in enumerate(blocks)]


def replicate(comm, MPI, t: Table) -> Table:
    """Every rank's rows of ``t``, on every rank (``Allgatherv``)."""
    names = sorted(t.cols)
    rows = _matrix(t, names).reshape(-1)
    n = np.array(comm.allgather(t.n), np.int64)
    counts = n * len(names)
    out = np.empty(int(counts.sum()), np.int64)
    comm.Allgatherv([rows, MPI.INT64_T], [out, (counts, _displs(counts)), MPI.INT64_T])
    return _table(out.reshape(int(n.sum()), len(names)), names, t.maybe)


def gather(comm, MPI, t: Table):
    """Every rank's rows of ``t`` on rank 0, None on the others: one ``gather`` of each
    rank's rows as one array (pickled: a query's last step, where a second collective
    for the counts cost more than the copy)."""
    names = sorted(t.cols)
    parts = comm.gather(_matrix(t, names), root=0)
    if parts is None:
        return None
    return _table(np.concatenate(parts), names, t.maybe)


def _displs(counts):
    d = np.zeros_like(counts)
    np.cumsum(counts[:-1], out=d[1:])
    return d
