"""Asking owners and hearing back, in peer-level programs on a partitioned graph (one
peer per MPI rank, each holding its own vertices' rows): the steps every such program
repeats (LCC's ghost rows, BMLPA's colouring and propagation on parts)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["to_owners", "joined", "every_rank", "Ghosts", "ghost_slots"]


def to_owners(peer, items, at):
    """Send ``items[at[q]:at[q + 1]]`` to every other peer q (empty ones too, so every
    peer hears from every other in each exchange). ``items`` sorted by owner, ``at`` the
    owners' blocks (e.g. ``np.searchsorted(ghosts, part.rank_offsets)``)."""
    for q in range(peer.num_peers):
        if q != peer.pid:
            peer.send(q, items[at[q] : at[q + 1]])


def joined(peer, empty, field=0, fields=1):
    """Payload ``field`` of the ``fields`` every other peer sent, joined in peer order
    (``empty``: the dtype, and the result when there are no other peers)."""
    got = [p for _, p in peer.messages()][field::fields]
    return np.concatenate([empty, *got])


def every_rank(peer, value: int) -> np.ndarray:
    """Every peer's ``value`` (an int), in peer order (one exchange: each peer sends
    its own to every other)."""
    for q in range(peer.num_peers):
        if q != peer.pid:
            peer.send(q, np.array([value], dtype=np.int64))
    peer.sync()
    out = np.empty(peer.num_peers, dtype=np.int64)
    out[peer.pid] = value
    for q, got in peer.messages():
        out[q] = got[0]
    return out


class Ghosts(NamedTuple):
    """A part's rows with neighbours as *slots*: own vertex ``lo + i`` is slot i, the
    remote neighbours (*ghosts*, ascending ids) slots ``own``, ``own + 1``, ...

    ``indptr`` (from 0) and ``slots`` (int64, 8 B per own entry) are the own rows;
    ``ids`` the ghosts' global ids; ``at`` each owner's block of them (rank q's ghosts are
    ``ids[at[q]:at[q + 1]]``, slots ``own + at[q]`` on); ``asked[q]``: the own slots rank q
    holds as ghosts, in q's order (ascending)."""

    own: int
    indptr: np.ndarray
    slots: np.ndarray
    ids: np.ndarray
    at: np.ndarray
    asked: dict


def ghost_slots(peer, part) -> Ghosts:
    """:class:`Ghosts` of ``part`` (one exchange: each rank tells the owners which of
    their vertices it neighbours)."""
    lo, hi = part.lo, part.hi
    ix = part.own_indices
    remote = (ix < lo) | (ix >= hi)
    ids, inverse = np.unique(ix[remote], return_inverse=True)  # a sort, not probes
    at = np.searchsorted(ids, part.rank_offsets)
    to_owners(peer, ids, at)
    peer.sync()
    asked = {q: wanted - lo for q, wanted in peer.messages()}
    slots = ix.astype(np.int64) - lo
    slots[remote] = (hi - lo) + inverse
    ip = part.own_indptr - part.own_indptr[0]
    return Ghosts(hi - lo, ip, slots, ids, at, asked)
