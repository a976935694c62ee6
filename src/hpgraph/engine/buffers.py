"""Per-vertex scratch arrays kept from one job for the next.

A job's bookkeeping per vertex (state and mail flags, inbox, outbox, sender and
candidate lists: about 35 B per vertex, docs/engine.md) is fresh memory in every job,
and the kernel maps and zeroes fresh memory page by page on first touch: on the 2-core
test machine 3-7 ms per 8 MB, as long as a whole BFS level on a million vertices. A
finished job on the local runtime hands these arrays back here and the next job with
arrays of the same shape takes them (refilled as if new), so a series of jobs on one
graph (BFS or SSSP from many roots, the benchmark's trials) maps them once.

Only the last job's arrays are kept (about 35 B per vertex of that graph);
:func:`release` frees them. Jobs running at the same time take distinct arrays.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["take", "keep", "release"]

_lock = threading.Lock()
_spare: dict[tuple, list[np.ndarray]] = {}


def take(shape, dtype, fill):
    """An array of ``shape`` and ``dtype`` filled with ``fill`` (uninitialised with
    None): a kept one if there is one, else a new one."""
    shape = tuple(int(x) for x in shape)
    key = (shape, np.dtype(dtype).str)
    with _lock:
        stack = _spare.get(key)
        arr = stack.pop() if stack else None
    if arr is None:
        return np.empty(shape, dtype=dtype) if fill is None else np.full(shape, fill, dtype)
    if fill is not None:
        arr.fill(fill)
    return arr


def keep(arrays) -> None:
    """Keep a finished job's scratch ``arrays`` for the next job, in place of whatever
    was kept (no job may use them any more)."""
    kept: dict[tuple, list[np.ndarray]] = {}
    for arr in arrays:
        kept.setdefault((arr.shape, arr.dtype.str), []).append(arr)
    with _lock:
        _spare.clear()
        _spare.update(kept)


def release() -> None:
    """Free the kept arrays."""
    with _lock:
        _spare.clear()
