"""The runtime interface, defined by the engine in :mod:`hpgraph.engine.contract` and
re-exported here for runtimes: how a BSP job's parts run, exchange data and synchronise.

Given a runtime, the engine calls ``partition``, ``local_parts``, ``run_parts``,
``allreduce``, ``deliver``, ``gather``, ``prepare``, ``exchanged`` (the vertex engine)
and ``run_bsp`` (the peer API); the runtime owns the transport. Kernels are shared by all
runtimes; only the moving of data differs. See docs/runtimes.md, "Runtime contract".
"""

from __future__ import annotations

from hpgraph.engine.contract import Runtime

__all__ = ["Runtime"]
