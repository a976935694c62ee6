"""Seeded, chunked random streams: every chunk of a generated edge list has its own PCG64
stream derived from the user's seed (``SeedSequence(seed, spawn_key=(key,))``), so the
output depends only on the seed (not on the thread count), and chunks can be generated on
several threads (the compiled kernels release the GIL)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from hpgraph.config import DEFAULT_THREADS
from hpgraph.errors import InvalidArgumentError

__all__: list[str] = []

#: Edges per chunk. Part of the output's definition: changing it changes the graphs.
CHUNK = 1 << 22

#: Stream keys below this are reserved for whole-graph draws (permutation, shuffle...).
_CHUNK_KEY0 = 16


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def stream(seed: int, key: int) -> np.random.PCG64:
    """The PCG64 bit generator of stream ``key`` of ``seed`` (``key`` >= 0); wrap it in
    ``numpy.random.Generator`` for numpy's samplers, or feed its ``random_raw()`` draws to
    compiled kernels."""
    return np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(key,)))


def chunk_stream(seed: int, chunk: int, sub: int = 0) -> np.random.PCG64:
    """Chunk ``chunk``'s stream; ``sub`` > 0 gives independent side streams of the same
    chunk (e.g. edge weights, so that a graph's edges do not depend on whether it is
    weighted)."""
    if sub:
        return np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(_CHUNK_KEY0 + chunk, sub)))
    return stream(seed, _CHUNK_KEY0 + chunk)


def run_chunks(m: int, work, threads: int | None) -> None:
    """Call ``work(chunk_index, lo, hi)`` for every chunk of ``range(m)``."""
    bounds = [(c, lo, min(lo + CHUNK, m)) for c, lo in enumerate(range(0, m, CHUNK))]
    threads = max(1, min(threads or DEFAULT_THREADS, len(bounds)))
    if threads == 1:
        for b in bounds:
            work(*b)
        return
    with ThreadPoolExecutor(threads) as pool:
        for f in [pool.submit(work, *b) for b in bounds]:
            f.result()
