"""Witness counters shared by dual simulation and the strict-simulation balls.

Given a vertex's candidate mask and its counters (per pattern vertex u, the count of
children and parents that may match u, packed as ``out | in << 32`` in an int64), these
compiled helpers update the counters and return the bits that lost a witness.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


_LOW = 0xFFFFFFFF  # a message's lower half: the sender is a parent of the receiver


@njit(**NUMBA_FLAGS, inline="always")
def _add_bits(cnt, base, bits, delta):
    """cnt[base + u] += delta for every set bit u of ``bits`` (a non-negative mask)."""
    u = 0
    while bits != 0:
        if bits & 1:
            cnt[base + u] += delta
        bits >>= 1
        u += 1


@njit(**NUMBA_FLAGS, inline="always")
def _failing(mask, cnt, base, k, pat, pbase):
    """The bits u of ``mask`` whose pattern children (``pat[pbase + 2u]``) are not all
    among the counted children, or whose pattern parents (``pat[pbase + 2u + 1]``) are not
    all among the counted parents. ``cnt[base + u]``: out count | in count << 32."""
    have_out = 0
    have_in = 0
    for u in range(k):
        c = cnt[base + u]
        if c & _LOW:
            have_out |= 1 << u
        if c >> 32:
            have_in |= 1 << u
    bad = 0
    x = mask
    u = 0
    while x != 0:
        if x & 1:
            ch = np.int64(pat[pbase + 2 * u])
            pa = np.int64(pat[pbase + 2 * u + 1])
            if (ch & ~have_out) != 0 or (pa & ~have_in) != 0:
                bad |= 1 << u
        x >>= 1
        u += 1
    return bad
