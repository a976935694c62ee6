"""The vertex numbering a kernel runs in (the ``order=`` parameter of PageRank and
SSSP): ``"input"``, the graph's own; ``"hubs"``, the hub-grouped view
(:mod:`hpgraph.graph.hub_order`: high-degree vertices first, so the random reads along
edges hit the cache); ``"auto"`` (the default), the view on a skewed whole graph on the
local runtime without checkpoints (a checkpoint holds values in the numbering the job ran
in, and a part of an MPI job is numbered by its ranks). A graph numbered hubs first
already (:meth:`~hpgraph.graph.csr.Graph.renumbered`, ``hpgraph convert --order hubs``)
is its own view: where the view would be taken, the kernel runs on the graph as it is,
with no copy (``meta["order"]`` is ``"own"``).

A kernel asks :func:`run_order` for the graph to run on, runs on it, and maps its source
in and its columns back with :class:`RunOrder`'s methods; the result reads as if it had
run on the input. BFS has no ``order``: on Kronecker 20 its search ran faster on the view
(39 against 51 ms) but mapping depths and parents back took the gain
(docs/algorithms/README.md, "Vertex numbering").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from hpgraph.algorithms.entries._common import ORDER
from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.hub_order import hub_view, is_hub_grouped, is_skewed
from hpgraph.graph.part import is_part

__all__ = ["ORDERS", "RunOrder", "run_order", "shared_memory"]

#: the choices of ``order=``, as the registry declares them
ORDERS = ORDER.choices


@njit(**NUMBA_FLAGS)
def _ids_back(order, ids, out):
    """out[order[i]] = order[ids[i]] (negative ids, "none", kept)."""
    for i in range(order.shape[0]):
        x = ids[i]
        out[order[i]] = order[x] if x >= 0 else x


@dataclass(frozen=True)
class RunOrder:
    """Where a kernel runs: ``graph`` (the input or its hub-grouped view) and ``order``
    (the view's ``order[i]``: the input vertex numbered i; None for the input)."""

    graph: object
    order: np.ndarray | None = None
    #: ``numbers[v]``: the number of input vertex v (the inverse of ``order``)
    numbers: np.ndarray | None = None
    #: the input is numbered hubs first itself and runs as it is
    own: bool = False

    @property
    def name(self) -> str:
        """``"input"``, ``"hubs"`` (the view) or ``"own"`` (the input, numbered hubs
        first): a result's ``meta["order"]``."""
        return "own" if self.own else "input" if self.order is None else "hubs"

    def index(self, v: int) -> int:
        """The number of input vertex ``v`` in the graph run on."""
        if self.order is None:
            return v
        return int(self.numbers[v])

    def values(self, a):
        """Per-vertex rows ``a`` (along axis 0) in the input's order."""
        if self.order is None:
            return a
        out = np.empty_like(a)
        out[self.order] = a
        return out

    def ids(self, a):
        """Vertex numbers ``a`` (negative: none) as the input's, in the input's order."""
        if self.order is None:
            return a
        out = np.empty_like(a)
        _ids_back(self.order, a, out)
        return out


def shared_memory(runtime) -> bool:
    """Whether ``runtime`` (a name, an instance or None) is the local runtime: threads of
    one process sharing the graph."""
    return runtime is None or runtime == "local" or getattr(runtime, "name", None) == "local"


def run_order(graph, order, *, runtime=None, checkpoint=None, threads=None) -> RunOrder:
    """The :class:`RunOrder` for a kernel's ``order=`` (see the module docstring)."""
    if order not in ORDERS:
        raise InvalidArgumentError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    if order == "input":
        return RunOrder(graph)
    local = shared_memory(runtime) and not is_part(graph)
    if order == "hubs" and not local:
        raise InvalidArgumentError(
            "order='hubs' runs on the local runtime only (a part of an MPI job keeps its "
            "ranks' numbering); use order='auto' or 'input'"
        )
    if order == "auto":
        skewed = graph.derived("views.hub.skewed", lambda: is_skewed(graph)) if local else False
        if not (skewed and checkpoint is None):
            return RunOrder(graph)
    if is_hub_grouped(graph):  # numbered hubs first already: the view would be the graph
        return RunOrder(graph, own=True)
    view = hub_view(graph, threads)
    return RunOrder(view.graph, view.order, view.numbers)
