"""Runtimes: how the parts of a BSP job run and talk (the contract:
:mod:`hpgraph.engine.contract`).

``local`` (threads, the default), ``mpi`` (one part per rank, or ranks x threads; import
on use) and ``hama`` (Apache Hama's distributed model, for comparison: ZooKeeper barrier
and TCP messages; the peer-level API only, see :mod:`hpgraph.runtimes.hama`).

:func:`resolve_runtime` is the one place a runtime is made from a name; importing this
package installs it as the engine's resolver. ``threads`` is threads per process
everywhere: the local runtime's threads, MPI's threads per rank; in a Slurm job that sets
``SLURM_CPUS_PER_TASK`` (``-c``), that many when not given (:mod:`hpgraph.runtimes.slurm`).
"""

from hpgraph.engine.contract import install_resolver
from hpgraph.errors import InvalidArgumentError
from hpgraph.runtimes.base import Runtime
from hpgraph.runtimes.local import LocalRuntime
from hpgraph.runtimes.slurm import cpus_per_task

__all__ = ["Runtime", "LocalRuntime", "get_runtime", "resolve_runtime", "RUNTIMES"]

#: runtime names by API: the vertex engine's, and the peer-level API's
RUNTIMES = {"vertex": ("local", "mpi"), "bsp": ("local", "mpi", "hama")}


def _named(runtime, name: str) -> bool:
    return runtime == name or getattr(runtime, "name", None) == name


def resolve_runtime(runtime=None, threads=None, api: str = "vertex", **options):
    """``(runtime, owned)`` for a name (``"local"``, ``"mpi"``, ``"hama"`` on the peer
    API), an instance (used as is, ``owned`` False) or None (the local runtime).
    ``threads``: threads per process (``api="bsp"``: the peers; on MPI one per rank);
    when None, the local runtime's default (``$HPGRAPH_THREADS``, else Slurm's
    ``$SLURM_CPUS_PER_TASK``, else all cores; :data:`hpgraph.config.DEFAULT_THREADS`),
    and on MPI ``$SLURM_CPUS_PER_TASK`` per rank, else 1.
    ``options`` go to the MPI runtime a name makes (``aggregation``, ``rows``). The
    caller closes an owned runtime."""
    if api not in RUNTIMES:
        raise InvalidArgumentError(f"api must be one of {', '.join(RUNTIMES)}, got {api!r}")
    if options and not (runtime == "mpi" and api == "vertex"):
        raise InvalidArgumentError(
            f"{', '.join(sorted(options))}: only for the MPI runtime made from its name"
        )
    if api == "bsp":
        if runtime in (None, "local"):
            return LocalRuntime(threads), True
        if isinstance(runtime, LocalRuntime):
            return runtime, False
        if _named(runtime, "mpi"):
            from hpgraph.runtimes.mpi import MPIRuntime

            if isinstance(runtime, MPIRuntime):
                return runtime, False
            return MPIRuntime(), True  # one peer per rank
        if _named(runtime, "hama"):
            from hpgraph.runtimes.hama import HamaRuntime

            if isinstance(runtime, HamaRuntime):
                return runtime, False
            return HamaRuntime(), True
        raise InvalidArgumentError(f"run_bsp does not support runtime {runtime!r}")
    if isinstance(runtime, Runtime):
        return runtime, False
    if runtime in (None, "local"):
        return LocalRuntime(threads), True
    if runtime == "mpi":
        from hpgraph.runtimes.mpi import MPIRuntime

        # threads per rank: hybrid ranks x threads; Slurm's -c, else one, when not given
        return MPIRuntime(threads=threads or cpus_per_task() or 1, **options), True
    raise InvalidArgumentError(f"unknown runtime {runtime!r}; available: 'local', 'mpi'")


def get_runtime(runtime=None, threads=None) -> Runtime:
    """A vertex-engine runtime from a name (``"local"``), an instance, or the default
    (local); :func:`resolve_runtime` without the ownership flag."""
    return resolve_runtime(runtime, threads, "vertex")[0]


install_resolver(resolve_runtime)
