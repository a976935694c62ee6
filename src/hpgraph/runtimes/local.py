"""The embedded default runtime: one process, one thread per part, shared memory.

Nothing to start or configure. Parts are contiguous vertex ranges balanced by edges; each
part's kernels are compiled with ``nogil`` so the threads run truly in parallel, and the
engine's delivery writes only to the receiving part's vertices, so no locks or atomics are
needed. Message exchange is free: a receiver reads the sender's value in place.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from hpgraph import config
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.partition import range_partition
from hpgraph.runtimes.base import Runtime

__all__ = ["LocalRuntime"]


def _timed(fn, args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


class LocalRuntime(Runtime):
    """Threads over shared memory. ``threads`` defaults to the machine's cores."""

    name = "local"

    def __init__(self, threads: int | None = None):
        threads = config.DEFAULT_THREADS if threads is None else int(threads)
        if threads < 1:
            raise InvalidArgumentError(f"threads must be >= 1, got {threads}")
        self.threads = threads
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None

    @property
    def num_parts(self) -> int:
        return self.threads

    @property
    def local_parts(self):
        return range(self.threads)

    def partition(self, graph):
        return range_partition(graph, self.threads)

    def run_parts(self, fn, args_of_part):
        if self._pool is None:
            return [_timed(fn, args_of_part(0))]
        futures = [self._pool.submit(_timed, fn, args_of_part(p)) for p in self.local_parts]
        return [f.result() for f in futures]  # re-raises a part's exception here

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __repr__(self):
        return f"LocalRuntime(threads={self.threads})"
