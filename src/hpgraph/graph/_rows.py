"""Compiled helpers for CSR rows kept ascending and distinct (e.g. a mention's hashtags)."""

from __future__ import annotations

from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["insert_distinct"]


@njit(**NUMBA_FLAGS)
def insert_distinct(out, a, o, x):
    """Insert ``x`` into the ascending, distinct run ``out[a:o]`` (with room at ``out[o]``);
    returns the run's new end (``o`` when ``x`` is there already)."""
    q = o
    while q > a and out[q - 1] > x:
        q -= 1
    if q > a and out[q - 1] == x:
        return o
    for z in range(o, q, -1):
        out[z] = out[z - 1]
    out[q] = x
    return o + 1
