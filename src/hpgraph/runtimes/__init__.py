"""Runtimes: how the parts of a BSP job run and talk (see :mod:`hpgraph.runtimes.base`).

``local`` (threads, the default) and ``mpi`` (one part per rank; import on use).
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

        return MPIRuntime()
    raise InvalidArgumentError(f"unknown runtime {runtime!r}; available: 'local', 'mpi'")
