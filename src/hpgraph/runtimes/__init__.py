"""Runtimes: how the parts of a BSP job run and talk (see :mod:`hpgraph.runtimes.base`).

``local`` (threads, the default), ``mpi`` (one part per rank, or ranks x threads; import
on use) and ``hama`` (Apache Hama's distributed model, for comparison: ZooKeeper barrier
and TCP messages; the peer-level API only, see :mod:`hpgraph.runtimes.hama`).
"""

from hpgraph.runtimes.base import Runtime
from hpgraph.runtimes.local import LocalRuntime

__all__ = ["Runtime", "LocalRuntime", "get_runtime"]


def get_runtime(runtime=None, threads=None) -> Runtime:
    """A runtime from a name (``"local"``), an instance, or the default (local)."""
    from hpgraph.errors import InvalidArgumentError

    if isinstance(runtime, Runtime):
        return runtime
    if runtime in (None, "local"):
        return LocalRuntime(threads)
    if runtime == "mpi":
        from hpgraph.runtimes.mpi import MPIRuntime

        return MPIRuntime(threads=threads or 1)  # threads per rank: hybrid ranks x threads
    raise InvalidArgumentError(f"unknown runtime {runtime!r}; available: 'local', 'mpi'")
