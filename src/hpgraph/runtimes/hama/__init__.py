"""The ``hama`` runtime: the distributed-model design of Apache Hama 0.6, rebuilt inside
hpgraph so that its barrier and messaging can be measured against the local and MPI
runtimes with everything else equal (seed 000, sections 8-9: the ZooKeeper barrier and
the RPC messaging that the study replaced with MPI).

It runs the peer-level BSP API (:func:`hpgraph.engine.run_bsp` with ``runtime="hama"``):
the same ``program(peer, *args)`` as on the other runtimes. The vertex engine does not
run on it.

How it is built, as in Hama (``BSPPeerImpl``, ``ZooKeeperSyncClientImpl``,
``HadoopMessageManagerImpl``), one concern per module:

- :mod:`~hpgraph.runtimes.hama.tasks`: one OS process per task, started from a
  preloaded ``forkserver``; failures reported and the other tasks aborted, never a hang;
  the job's ZooKeeper server (given, ``$HPGRAPH_ZOOKEEPER``, or a private one);
- :mod:`~hpgraph.runtimes.hama.exchange`: registration and peer discovery through
  ZooKeeper, and messages as one bundle per destination over ZeroMQ (TCP), acknowledged
  by a receiver thread per task;
- :mod:`~hpgraph.runtimes.hama.wire`: the bundle's wire format (numpy arrays as raw
  frames, no pickling on the hot path);
- :mod:`~hpgraph.runtimes.hama.barrier`: Hama's ZooKeeper double barrier, entered and
  left once per superstep, with timeouts that name the missing tasks;
- :mod:`~hpgraph.runtimes.hama.runtime`: :class:`HamaRuntime` and :func:`run_bsp_hama`.
"""

# Besides the public names: the bundle codec and the task processes' context, under the
# names that the ping-pong benchmark (hpgraph.bench.pingpong) and tests/test_hama.py use.
from hpgraph.runtimes.hama.barrier import DEFAULT_BARRIER_TIMEOUT, BarrierTimeoutError, TaskStopped
from hpgraph.runtimes.hama.runtime import HamaRuntime, run_bsp_hama
from hpgraph.runtimes.hama.tasks import launch
from hpgraph.runtimes.hama.tasks import task_context as _context  # noqa: F401
from hpgraph.runtimes.hama.wire import decode as _decode  # noqa: F401
from hpgraph.runtimes.hama.wire import encode as _encode  # noqa: F401

__all__ = [
    "HamaRuntime",
    "launch",
    "run_bsp_hama",
    "BarrierTimeoutError",
    "TaskStopped",
    "DEFAULT_BARRIER_TIMEOUT",
]
