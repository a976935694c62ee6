"""The runtime contract: what the engine asks of a runtime, and how a runtime is found.

Given a runtime object (or a name, resolved by :func:`hpgraph.runtimes.resolve_runtime`),
returns the interface the vertex engine (:mod:`hpgraph.engine.job`) and the peer-level
BSP API (:mod:`hpgraph.engine.bsp`) call. The engine imports nothing from
:mod:`hpgraph.runtimes`: runtimes import the engine's types and own their transport
(threads and shared memory, MPI, ZooKeeper and TCP). See docs/runtimes.md, "Runtime
contract".

``threads`` always means threads per process: the local runtime's parts, MPI's parts per
rank; the peer API's ``peers`` are threads on the local runtime and task processes on hama.
"""

from __future__ import annotations

import importlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__ = ["Runtime", "resolve", "install_resolver", "timed"]


class Runtime(ABC):
    """Where the parts of a job run. A runtime owns *parts* (a contiguous range of
    vertices each, :class:`~hpgraph.graph.Partition`) and the moving of data between them.

    Vertex engine: ``partition``, ``local_parts``, ``run_parts`` (the intra-process
    barrier), ``allreduce`` (aggregators and counters over processes), ``deliver`` (the
    superstep's messages to their receivers, with the job's combiner), ``gather``,
    ``prepare``, ``exchanged``. Peer API: ``run_bsp``."""

    name: str = "abstract"
    #: whether delivery may run pull-style (reading receivers' in-edges); a runtime whose
    #: processes read only their own rows of the graph delivers push-style only
    pull_allowed: bool = True
    #: whether ``run_bsp`` takes ``checkpoint=`` (a :class:`~hpgraph.engine.bsp.PeerJob`:
    #: it makes its peers with :func:`~hpgraph.engine.bsp.make_peers`)
    bsp_checkpoints: bool = False
    #: whether jobs may run on a :class:`~hpgraph.graph.part.PartGraph` (each process
    #: holding only its own rows and state; then delivery is push or dense only)
    holds_parts: bool = False

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
    def run_parts(
        self, fn: Callable, args_of_part: Callable[[int], tuple], small: bool = False
    ) -> list[tuple]:
        """Run ``fn`` on every local part at once; returns ``[(result, seconds), ...]``.
        ``small``: the call's work is tiny (``config.SMALL_PHASE_WORK``), so the runtime
        may run the parts one after another on the calling thread instead of waking
        others (the parts of one call never wait for each other)."""

    def allreduce(self, array: np.ndarray, op: str = "sum") -> np.ndarray:
        """Reduce ``array`` over processes (one process: itself)."""
        return array

    def deliver(self, job, pull: bool) -> list[tuple]:
        """Deliver this superstep's messages; returns each local part's (result, seconds).
        Shared memory runs the job's delivery kernels in place (``job.deliver_shared``)."""
        return job.deliver_shared(pull)

    def gather(self, array: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """``array`` with every part's range filled in (one process: already is)."""
        return array

    def mirror(self, array: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Like ``gather``, for the per-superstep hand-over of a dense superstep's
        broadcasts (every process pulls along whole in-rows); what moved is reported by
        ``exchanged`` (one process: ``array`` itself, nothing moves)."""
        return self.gather(array, offsets)

    def exchanged(self) -> tuple[int, int]:
        """(values, bytes) moved between processes by the last ``deliver``, summed over
        processes (one process: nothing moves)."""
        return 0, 0

    def prepare(self, job) -> None:  # noqa: B027 - optional hook
        """Compile or allocate what this runtime's delivery needs for ``job``."""

    def progress(self, what: str | None) -> None:  # noqa: B027 - optional hook
        """The engine's progress: a step of a job begins (``what``: "superstep 5 of
        pagerank"), or None when the job ends. A runtime may watch for stalls (the local
        runtime does, with ``$HPGRAPH_TIMEOUT``: runtimes/stall.py)."""

    def run_bsp(self, program, args: tuple, peers: int | None):
        """Run the peer-level ``program(peer, *args)`` on this runtime's peers; returns a
        :class:`~hpgraph.engine.bsp.BSPResult` with every peer's result. A runtime with
        ``bsp_checkpoints`` also takes ``checkpoint=``."""
        from hpgraph.errors import InvalidArgumentError

        raise InvalidArgumentError(f"run_bsp does not support runtime {self!r}")

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


_resolver = None
#: the package whose import installs the resolver (loaded on first use, by name)
RESOLVER_PACKAGE = "hpgraph.runtimes"


def timed(fn, args):
    """``(fn(*args), seconds)``: one part's entry of what ``run_parts`` returns."""
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def install_resolver(fn) -> None:
    """Make ``fn(runtime, threads, api) -> (runtime, owned)`` the engine's resolver."""
    global _resolver
    _resolver = fn


def resolve(runtime, threads, api: str):
    """(runtime object, whether the caller owns and must close it). ``api``: ``"vertex"``
    or ``"bsp"``. A runtime object is used as is; a name or None goes to the resolver
    installed by :data:`RESOLVER_PACKAGE`."""
    if _resolver is None:
        importlib.import_module(RESOLVER_PACKAGE)
    return _resolver(runtime, threads, api)


def resolve_for_part(part, runtime, threads, api: str = "bsp"):
    """:func:`resolve` for a job on a partitioned graph: the runtime must hold parts
    (the MPI runtime) with the ranks the part was split for. The caller closes an owned
    runtime (on an error here it is closed already)."""
    rt, own = resolve(runtime, threads, api)
    ranks = part.rank_offsets.shape[0] - 1
    problem = None
    if not getattr(rt, "holds_parts", False):
        problem = f"a partitioned graph runs on the MPI runtime it was split for, not {rt.name}"
    elif ranks != rt.size or part.rank != rt.rank:
        problem = (
            f"this part was split for {ranks} ranks (rank {part.rank}); the runtime has "
            f"{rt.size} (this is rank {rt.rank})"
        )
    if problem is not None:
        if own:
            rt.close()
        raise InvalidArgumentError(problem)
    return rt, own
