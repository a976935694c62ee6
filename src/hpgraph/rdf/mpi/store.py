"""Given RDF data (a store directory or an RDF file) and MPI ranks, returns each rank's
share of the default graph: the triples whose subject hashes to the rank
(:func:`~hpgraph.rdf.mpi.exchange.owner`), sorted by (p, s, o) and (p, o, s) as a
one-process store keeps them, and on rank 0 the dictionary.

From a store directory every rank memory-maps ``pso.npy`` and ``pos.npy`` and keeps its
rows a block at a time (a subset of a sorted array is sorted: nothing is sorted again),
so no rank ever holds the whole graph's rows. An RDF file is parsed by rank 0 (with
:meth:`Store.load`, which keeps the term ids of one process) and its rows are scattered
(``Scatterv``). Errors (a missing path, no store, a malformed line) are agreed: every
rank raises the same one-line error and the CLI prints it once.
"""

from __future__ import annotations

import os

import numpy as np

from hpgraph.errors import HPGraphError, InvalidArgumentError, agreed
from hpgraph.rdf.mpi.exchange import owner
from hpgraph.rdf.store import Store, read_terms, store_meta
from hpgraph.rdf.triples import DEFAULT_GRAPH, Triples

__all__ = ["load_share", "problem_text"]

#: Rows of a memory-mapped permutation read at a time.
BLOCK = 1 << 22


def problem_text(exc: BaseException) -> str:
    """One line saying what went wrong, as the CLI would print it."""
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return " ".join(str(exc).split()) or type(exc).__name__


def _agree(comm, exc):
    """Raise on every rank the first rank's error (``exc``: this rank's, or None)."""
    problems = comm.allgather(None if exc is None else problem_text(exc))
    for i, text in enumerate(problems):
        if text is not None:
            raise agreed(exc if i == comm.Get_rank() else InvalidArgumentError(text))


def load_share(comm, MPI, path):
    """``(local, terms, named)``: this rank's triples (:class:`Triples`), the dictionary
    on rank 0 (None elsewhere) and how many named graphs the data has (their triples are
    not loaded). Collective."""
    if os.path.isdir(path):
        return _from_store(comm, path)
    exc = None
    if not os.path.exists(path):
        exc = FileNotFoundError(2, "no such file or store directory", path)
    _agree(comm, exc)
    return _from_file(comm, MPI, path)


def _from_store(comm, path):
    rank, size = comm.Get_rank(), comm.Get_size()
    exc = meta = None
    try:
        meta = store_meta(path)
    except (HPGraphError, OSError) as e:
        exc = e
    _agree(comm, exc)
    end, named = None, 0
    if meta["version"] >= 2:
        ranges = np.load(os.path.join(path, "graphs.npy")).reshape(-1, 3)
        has_default = len(ranges) > 0 and ranges[0, 0] == DEFAULT_GRAPH
        end = int(ranges[0, 2]) if has_default else 0
        named = len(ranges) - int(has_default)
    pso, pos = (
        _own(np.load(os.path.join(path, f), mmap_mode="r"), end, rank, size)
        for f in ("pso.npy", "pos.npy")
    )
    terms = read_terms(path) if rank == 0 else None
    return Triples(pso, pos), terms, named


def _own(rows, end, rank, size):
    """The rows of the memory-mapped ``rows[:end]`` whose subject this rank owns."""
    end = len(rows) if end is None else end
    parts = []
    for a in range(0, end, BLOCK):
        block = np.asarray(rows[a : min(end, a + BLOCK)])
        parts.append(block[owner([block[:, 0]], size) == rank])
    return np.concatenate(parts) if parts else np.empty((0, 3), np.int64)


def _from_file(comm, MPI, path):
    rank = comm.Get_rank()
    store = exc = None
    if rank == 0:
        try:
            store = Store.load(path)
        except (HPGraphError, OSError) as e:
            exc = e
    text = comm.bcast(None if exc is None else problem_text(exc), root=0)
    if text is not None:
        raise agreed(exc if rank == 0 else InvalidArgumentError(text))
    named = comm.bcast(len(store.named) if rank == 0 else None, root=0)
    default = store.default if rank == 0 else None
    pso = _scatter(comm, MPI, None if default is None else default.pso)
    pos = _scatter(comm, MPI, None if default is None else default.pos)
    return Triples(pso, pos), (store.terms if rank == 0 else None), named


def _scatter(comm, MPI, rows):
    """Rank 0's (m, 3) ``rows`` sent to the ranks owning their subjects (``Scatterv``,
    order kept); this rank's rows."""
    size = comm.Get_size()
    send = None
    if comm.Get_rank() == 0:
        dest = owner([rows[:, 0]], size)
        order = np.argsort(dest, kind="stable")
        counts = np.bincount(dest, minlength=size) * 3
        displs = np.zeros_like(counts)
        np.cumsum(counts[:-1], out=displs[1:])
        send = [np.ascontiguousarray(rows[order]).reshape(-1), (counts, displs), MPI.INT64_T]
    n = comm.scatter(None if send is None else send[1][0].tolist(), root=0)
    out = np.empty(n, np.int64)
    comm.Scatterv(send, [out, MPI.INT64_T], root=0)
    return out.reshape(-1, 3)
