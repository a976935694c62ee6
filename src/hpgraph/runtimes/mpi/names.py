"""The input's ids of vertices held by their owners: a rank of a partitioned graph keeps
the ids of its own vertices only (:class:`~hpgraph.graph.part.OwnIds`; string ids as
one arrow array, 8 + L bytes per name) and asks the owners for any other's.

- :func:`fetch`: the ids of any vertices, each rank asking for its own list (a request
  and an answer, two ``Alltoallv``): the whole dictionary's slices handed to the ranks'
  row ranges after a parallel read, the names of a result's rows and of the vertices
  its ``parent`` or ``component`` columns name on output, a report's top vertices;
- :func:`root_columns`: a result's output columns gathered on one rank in rounds of
  :data:`OUTPUT_ROUND` rows, the other ranks only answering, so no rank but that one
  holds every name, and it only as arrow strings.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from hpgraph.runtimes.mpi.buffers import RowTypes, alltoallv
from hpgraph.runtimes.mpi.dictionary import pack_strings, unpack_strings
from hpgraph.runtimes.mpi.watchdog import guard

__all__ = ["OUTPUT_ROUND", "fetch", "root_columns"]

#: Rows of a result gathered per round by :func:`root_columns` (bounds each round's
#: requests and answers: 8 B per row and per named vertex, and the names).
OUTPUT_ROUND = 1 << 18


def fetch(comm, MPI, held, cuts, wanted):
    """The ids of vertices ``wanted`` (internal ids, any order, repeats allowed) in that
    order, asked of the ranks holding them: rank r holds ``held``, the ids of vertices
    ``[cuts[r], cuts[r + 1])`` (an arrow large_string array, or a numpy array), and
    gets the same kind back. Collective: every rank calls it with its own ``wanted``
    (an empty one only answers); a rank left alone in it (the others never call) is
    ended by the watchdog, naming them, instead of waiting for ever."""
    with guard("asking the owners for vertex ids (collective: every rank asks or answers)"):
        return _fetch(comm, MPI, held, cuts, wanted)


def _fetch(comm, MPI, held, cuts, wanted):
    size = comm.Get_size()
    wanted = np.asarray(wanted, dtype=np.int64)
    owner = np.searchsorted(cuts, wanted, side="right") - 1
    order = np.argsort(owner, kind="stable")
    asks = np.bincount(owner, minlength=size).astype(np.int64)
    told = np.empty_like(asks)
    comm.Alltoall(asks, told)
    types = RowTypes(MPI)
    try:
        asked = alltoallv(comm, types, [wanted[order]], asks)[0][0]
        asked -= cuts[comm.Get_rank()]
        if not isinstance(held, pa.Array):
            back = alltoallv(comm, types, [np.ascontiguousarray(held[asked])], told)[0][0]
            out = np.empty_like(back)
            out[order] = back
            return out
        answers = held.take(pa.array(asked))
        del asked
        at = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(told, out=at[1:])
        lengths, packed, rows = pack_strings(answers, at)
        del answers
        back_rows = np.empty_like(rows)
        comm.Alltoall(rows, back_rows)
        got_lengths = alltoallv(comm, types, [lengths], told)[0][0]
        got_bytes = alltoallv(comm, types, [packed], rows)[0][0]
    finally:
        types.free()
    del lengths, packed
    got = unpack_strings(got_lengths, got_bytes, asks, back_rows).combine_chunks()
    where = np.empty_like(order)
    where[order] = np.arange(order.shape[0], dtype=order.dtype)
    return got.take(pa.array(where))


def root_columns(result, comm, root=0, rows=OUTPUT_ROUND):
    """``result.output_columns()`` on rank ``root`` (None on the others), built in
    rounds of ``rows`` rows: every rank takes part in each round's
    :meth:`~hpgraph.result.VertexResult.output_columns`, ``root`` asking for the
    round's rows, the others for none. Collective."""
    n = result.graph.n
    mine = comm.Get_rank() == root
    pieces = []
    for a in range(0, max(n, 1), rows):
        b = min(n, a + rows)
        got = result.output_columns((a, b) if mine else (a, a))
        if mine:
            pieces.append(got)
    if not mine:
        return None
    return {k: _joined([p[k] for p in pieces]) for k in pieces[0]}


def _joined(arrays):
    """One array of a column's rounds (arrow or numpy, as they came)."""
    if len(arrays) == 1:
        return arrays[0]
    if isinstance(arrays[0], pa.Array):
        return pa.concat_arrays(arrays)
    return np.concatenate(arrays)
