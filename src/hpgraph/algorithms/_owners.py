"""Asking owners and hearing back, in peer-level programs on a partitioned graph (one
peer per MPI rank, each holding its own vertices' rows): the two steps every such
program repeats (LCC's ghost rows, BMLPA's colouring on parts)."""

from __future__ import annotations

import numpy as np

__all__ = ["to_owners", "joined"]


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
