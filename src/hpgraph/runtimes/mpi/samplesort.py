"""Keys held by many ranks numbered by their place in the sorted union of every rank's,
without gathering that union: the sample sort behind the string dictionary
(:mod:`hpgraph.runtimes.mpi.dictionary`) and wide integer ids
(:mod:`hpgraph.runtimes.mpi.assemble`).

1. **Splitters.** Each rank offers up to :data:`SAMPLES` x P of its sorted distinct keys,
   evenly spaced (fewer where P x that would pass :data:`SAMPLES_CAP`); the ranks gather
   the samples (an ``allgather`` of a few keys) and cut them into P ranges: rank r *owns*
   the keys from splitter r - 1 up to splitter r.
2. **To the owners.** A rank's keys in one owner's range are a run of its sorted keys;
   each run goes to its owner (``Alltoallv``).
3. **Numbering.** Each owner merges what it got into its sorted distinct keys, its
   *slice* of the union; an ``Exscan`` of the slices' sizes gives its first number.
4. **Answers.** Each owner sends every rank the numbers of the keys it got from it, in
   the order it got them (an ``Alltoallv`` back): the keys sent were the requests, so
   every rank learns the numbers of its own keys, in their sorted order.

A rank holds its d keys, what it receives (the P ranks' keys spread over P owners: about
d, at most n with even ranges), its slice (about n / P) and 8 B per key for the numbers,
each way. Empty ranks, repeated keys and equal splitters (fewer distinct keys than
samples) only leave some ranges empty. A kind of key (:class:`Keys`) says how its
samples are taken, its runs cut, sent and merged; :data:`INTS` is int64 numpy keys.
"""

from __future__ import annotations

import numpy as np

from hpgraph.runtimes.mpi.buffers import RowTypes, alltoallv

__all__ = ["SAMPLES", "SAMPLES_CAP", "Keys", "INTS", "number"]

#: Samples a rank offers per rank for the splitters (more: ranges closer in size).
SAMPLES = 16

#: Samples of all ranks together at most (but at least :data:`SAMPLES` per rank).
SAMPLES_CAP = 1 << 18


class Keys:
    """How :func:`number` handles one kind of sorted distinct keys (here int64 numpy
    arrays; :mod:`~hpgraph.runtimes.mpi.dictionary` has arrow strings)."""

    def samples(self, local, at) -> list:
        """``local[at]`` as Python objects (ordered as the keys are)."""
        return local[at].tolist()

    def below(self, local, splitters) -> np.ndarray:
        """How many of ``local`` are below each splitter (ascending)."""
        return np.searchsorted(local, np.array(splitters, dtype=local.dtype))

    def send(self, comm, types, local, cuts, got):
        """``local[cuts[q]:cuts[q + 1]]`` to each rank q; ``got[q]`` keys come from rank q.
        Returns the keys received, in rank order."""
        return alltoallv(comm, types, [local], np.diff(cuts))[0][0]

    def merge(self, got):
        """The sorted distinct keys of ``got``."""
        return np.unique(got)

    def positions(self, got, mine) -> np.ndarray:
        """Each key of ``got`` by its position in ``mine`` (int64)."""
        return np.searchsorted(mine, got).astype(np.int64, copy=False)


#: int64 keys.
INTS = Keys()


def number(comm, MPI, local, keys: Keys = INTS):
    """``(numbers, slice, n)``: the number of each of this rank's sorted distinct keys
    ``local`` (int64, its position in the sorted union of every rank's keys), this
    rank's slice of that union (the slices in rank order are the union) and the union's
    size. Collective."""
    size = comm.Get_size()
    cuts = _cuts(local, keys, _splitters(comm, local, keys, size), size)
    sent = np.diff(cuts)
    got_counts = np.empty_like(sent)
    comm.Alltoall(sent, got_counts)
    types = RowTypes(MPI)
    try:
        got = keys.send(comm, types, local, cuts, got_counts)
        mine = keys.merge(got)
        first = comm.exscan(len(mine)) or 0  # None on rank 0
        n = comm.allreduce(len(mine))
        answers = keys.positions(got, mine) + first
        del got
        numbers = alltoallv(comm, types, [answers], got_counts)[0][0]
    finally:
        types.free()
    return numbers, mine, n


def _splitters(comm, local, keys, size) -> list:
    """The P - 1 keys that cut the union into the ranks' ranges (none where no rank has
    keys), from every rank's evenly spaced samples of its sorted keys ``local``."""
    picks = min(len(local), max(SAMPLES, min(SAMPLES * size, SAMPLES_CAP // size)))
    at = np.arange(picks, dtype=np.int64) * len(local) // max(picks, 1)
    every = sorted(k for part in comm.allgather(keys.samples(local, at)) for k in part)
    if not every:
        return []
    return [every[r * len(every) // size] for r in range(1, size)]


def _cuts(local, keys, splitters, size) -> np.ndarray:
    """Where each rank's range starts in the sorted keys ``local`` (and their end): rank r
    gets ``local[cuts[r]:cuts[r + 1]]``, the keys below splitter r and not below splitter
    r - 1 (without splitters, no rank has keys)."""
    cuts = np.zeros(size + 1, dtype=np.int64)
    if splitters:
        cuts[1:size] = keys.below(local, splitters)
    cuts[size] = len(local)
    return cuts
