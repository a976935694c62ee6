"""The MPI runtime: ranks x threads, messages combined at the sender and moved with
``Alltoallv`` on numpy buffers (no pickling on the hot path).

Run the same program under ``mpiexec -n P python script.py`` with ``runtime="mpi"`` (or
``hpgraph run ... --ranks P [--threads t]``). Every rank builds or loads the graph, owns a
contiguous vertex range (ranges balanced by edges, as on the local runtime), split into
``threads`` parts that its threads compute as the local runtime does. Counters and
aggregators are reduced with ``Allreduce``, so halting, aggregators and the master hook
behave exactly as on the local runtime.

Every rank maps or holds the whole graph (kernels may read any vertex's out-edges).
With ``rows="own"`` delivery is push-only, so a rank reads only its own rows' edges: a
memory-mapped ``.hpgc`` file is then touched in ``indptr`` and the rank's rows only.

The modules, one concern each:

- :mod:`~hpgraph.runtimes.mpi.comm`: ``mpiexec``, mpi4py, the aggregation modes and the
  node communicators;
- :mod:`~hpgraph.runtimes.mpi.runtime`: :class:`MPIRuntime` (options, parts on threads,
  the end-of-phase agreement, statistics and errors);
- :mod:`~hpgraph.runtimes.mpi.delivery`: the vertex engine's message delivery;
- :mod:`~hpgraph.runtimes.mpi.pairs`: moving (receiver, value) pairs to their ranks,
  directly or through node leaders;
- :mod:`~hpgraph.runtimes.mpi.buffers`: numpy arrays in MPI's v-collectives;
- :mod:`~hpgraph.runtimes.mpi.peers`: the peer-level API's transport (``run_bsp``).
"""

from hpgraph.runtimes.mpi.comm import AGGREGATIONS, mpiexec_path
from hpgraph.runtimes.mpi.runtime import MPIRuntime

__all__ = ["MPIRuntime", "mpiexec_path", "AGGREGATIONS"]
