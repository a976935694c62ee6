"""The runtime interface: how a BSP job's parts run, exchange data and synchronise.

The engine (:mod:`hpgraph.engine.job`) and the peer-level BSP API are written against this
interface only; an algorithm or user program never sees which runtime runs it. A runtime
owns *parts* (a contiguous range of vertices each, :class:`~hpgraph.graph.Partition`) and
provides:

- ``partition(graph)``: the parts of this job, over all processes;
- ``local_parts``: the parts this process executes (all of them for the local runtime;
  a rank's own parts under MPI);
- ``run_parts(fn, args_of_part)``: run ``fn(*args_of_part(p))`` for every local part
  concurrently and return when all are done (the intra-process barrier), with each
  part's busy time;
- ``allreduce(array, op)``: combine an array over processes (identity in one process);
- ``deliver(job, pull)``: get the superstep's messages to their receivers. Shared memory
  runs the job's delivery kernels, each part reading the senders' values in place
  (``job.deliver_shared``); MPI combines per receiver at the sender and moves one value
  per (receiver, sending rank), with the same kernels;
- ``gather(array, offsets)``: the whole of a per-vertex array whose parts live in
  different processes (identity in one process);
- ``prepare(job)``: compile what the runtime's own delivery needs, before the clock;
- ``exchanged()``: what the last delivery moved between processes (for the statistics).

Kernels are shared by all runtimes; only the moving of data differs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["Runtime"]


class Runtime(ABC):
    name: str = "abstract"
    #: whether delivery may run pull-style (reading receivers' in-edges); a runtime whose
    #: processes read only their own rows of the graph delivers push-style only
    pull_allowed: bool = True

    @property
    @abstractmethod
    def num_parts(self) -> int:
        """Parts of a job, over all processes."""

    @property
    @abstractmethod
    def local_parts(self) -> Sequence[int]:
        """Parts executed by this process."""

    @abstractmethod
    def partition(self, graph):
        """The job's :class:`~hpgraph.graph.Partition` of ``graph``'s vertices."""

    @abstractmethod
    def run_parts(self, fn: Callable, args_of_part: Callable[[int], tuple]) -> list[tuple]:
        """Run ``fn`` on every local part at once; returns ``[(result, seconds), ...]``."""

    def allreduce(self, array: np.ndarray, op: str = "sum") -> np.ndarray:
        """Reduce ``array`` over processes (one process: itself)."""
        return array

    def deliver(self, job, pull: bool) -> list[tuple]:
        """Deliver this superstep's messages; returns each local part's (result, seconds)."""
        return job.deliver_shared(pull)

    def gather(self, array: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """``array`` with every part's range filled in (one process: already is)."""
        return array

    def exchanged(self) -> tuple[int, int]:
        """(values, bytes) moved between processes by the last ``deliver``, summed over
        processes (one process: nothing moves)."""
        return 0, 0

    def prepare(self, job) -> None:  # noqa: B027 - optional hook
        """Compile or allocate what this runtime's delivery needs for ``job``."""

    @property
    def is_root(self) -> bool:
        """Whether this process reports (prints, writes gathered output)."""
        return True

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release threads, communicators."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
