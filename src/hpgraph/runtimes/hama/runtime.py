"""The hama runtime as ``run_bsp`` sees it: :class:`HamaRuntime` (where a job runs) and
:func:`run_bsp_hama` (launch the tasks, merge their statistics)."""

from __future__ import annotations

import time

from hpgraph.runtimes.hama.barrier import DEFAULT_BARRIER_TIMEOUT
from hpgraph.runtimes.hama.tasks import launch

__all__ = ["HamaRuntime", "run_bsp_hama", "require_packages"]


class HamaRuntime:
    """Where ``run_bsp(..., runtime=HamaRuntime(...))`` runs: ``zookeeper`` is
    ``"host:port"`` of a running server (None: ``$HPGRAPH_ZOOKEEPER`` or a private one
    per job), ``barrier_timeout`` the seconds one barrier phase may take."""

    name = "hama"

    def __init__(self, zookeeper: str | None = None,
                 barrier_timeout: float = DEFAULT_BARRIER_TIMEOUT):  # fmt: skip
        require_packages()
        self.zookeeper = zookeeper
        self.barrier_timeout = barrier_timeout

    def run_bsp(self, program, args=(), peers=None):
        """``peers`` task processes (default :data:`hpgraph.config.DEFAULT_THREADS`)."""
        return run_bsp_hama(program, peers=peers, args=args, runtime=self)

    def close(self):
        """Nothing held between jobs (each job starts and ends its own tasks)."""

    def __repr__(self):
        return f"HamaRuntime(zookeeper={self.zookeeper!r})"


def require_packages():
    """A readable error when the hama extra is not installed (its tasks would fail one by
    one on the first ``import kazoo`` or ``import zmq``)."""
    from importlib.util import find_spec

    missing = [name for mod, name in (("kazoo", "kazoo"), ("zmq", "pyzmq")) if not find_spec(mod)]
    if missing:
        from hpgraph.errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"the hama runtime needs {' and '.join(missing)}: install the hama extra (in a "
            "clone: .venv/bin/pip install -e '.[hama]'; else pip install 'hpgraph[hama]')"
        )


def run_bsp_hama(program, peers=None, args=(), runtime=None):
    """:func:`~hpgraph.engine.run_bsp` on the hama runtime: ``peers`` task processes
    (default: :data:`hpgraph.config.DEFAULT_THREADS`); every task's result comes back."""
    from hpgraph.config import DEFAULT_THREADS
    from hpgraph.engine.bsp import BSPResult, merge_peer_stats

    rt = runtime if isinstance(runtime, HamaRuntime) else HamaRuntime()
    t0 = time.perf_counter()
    out = launch(program, DEFAULT_THREADS if peers is None else peers, args,
                 zookeeper=rt.zookeeper, barrier_timeout=rt.barrier_timeout)  # fmt: skip
    stats = merge_peer_stats([s for _, s in out], "hama")
    stats.total_s = time.perf_counter() - t0
    return BSPResult(results=[r for r, _ in out], stats=stats)
