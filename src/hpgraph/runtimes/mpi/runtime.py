"""The MPI runtime object: its options, the parts it runs on each rank's threads, the
end-of-phase agreement between ranks, and the collectives the engine calls
(``allreduce``, ``gather``); delivery and the peer API's transport are in
:mod:`~hpgraph.runtimes.mpi.delivery` and :mod:`~hpgraph.runtimes.mpi.peers`.

Statistics are the local runtime's: compute and communication are means over all parts of
all ranks (carried on the failure-flag ``Allreduce`` that ends each phase), and waiting
for the slowest rank (the exchange of counts, which every rank must reach) is counted as
barrier time, not communication.

Errors: inputs are checked before the job starts, on every rank alike. A phase that
raises on one rank is reported to all through an ``Allreduce`` of a failure flag at the
end of the phase, so every rank stops with an error instead of waiting forever.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from hpgraph.engine.bsp import BSPResult, close_peers, make_peers, merge_peer_stats
from hpgraph.engine.contract import timed
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.graph.part import PartGraph
from hpgraph.graph.partition import Partition, nested_cuts
from hpgraph.runtimes.base import Runtime
from hpgraph.runtimes.mpi.buffers import RowTypes, allgatherv
from hpgraph.runtimes.mpi.comm import AGGREGATIONS, Topology, load_mpi
from hpgraph.runtimes.mpi.delivery import VertexDelivery
from hpgraph.runtimes.mpi.parts import part_partition
from hpgraph.runtimes.mpi.peers import MPIExchange
from hpgraph.runtimes.mpi.watchdog import abort_job, guard, start_watchdog

__all__ = ["MPIRuntime"]


class MPIRuntime(Runtime):
    """``threads`` parts on each MPI rank of ``comm`` (default: ``COMM_WORLD``).

    ``aggregation``: ``"direct"`` (every rank sends to every rank) or ``"node"`` (ranks
    on one node send through their node leader); default ``$HPGRAPH_MPI_AGGREGATION`` or
    direct. ``$HPGRAPH_MPI_RANKS_PER_NODE=k`` groups ranks into nodes of k consecutive
    ranks instead of by shared memory (to emulate several nodes on one machine).

    ``rows``: ``"all"`` (default: kernels may read any vertex's out-edges) or ``"own"``:
    delivery runs push-style only, so a rank reads the edges of its own rows and nothing
    else; with a memory-mapped ``.hpgc`` graph it then touches the whole ``indptr``
    (8 B per vertex, for the partition) and only its own rows of ``indices`` and
    ``weights``. For programs that read only their own vertices' out-edges (PageRank,
    BFS, SSSP, WCC on an undirected graph); reading another vertex's edges still works,
    at the price of paging those rows in."""

    name = "mpi"
    bsp_checkpoints = True
    holds_parts = True

    def __init__(
        self,
        comm=None,
        *,
        threads: int | None = 1,
        aggregation: str | None = None,
        rows: str = "all",
    ):
        MPI = load_mpi()
        self.MPI = MPI
        threads = 1 if threads is None else int(threads)
        if threads < 1:
            raise InvalidArgumentError(f"threads must be >= 1, got {threads}")
        if aggregation is None:
            aggregation = os.environ.get("HPGRAPH_MPI_AGGREGATION", "direct")
        if aggregation not in AGGREGATIONS:
            raise InvalidArgumentError(
                f"aggregation must be one of {', '.join(AGGREGATIONS)}, got {aggregation!r}"
            )
        if rows not in ("all", "own"):
            raise InvalidArgumentError(f"rows must be 'all' or 'own', got {rows!r}")
        self.rows = rows
        self.pull_allowed = rows == "all"
        per_node = os.environ.get("HPGRAPH_MPI_RANKS_PER_NODE", "")
        if per_node and (not per_node.isdigit() or int(per_node) < 1):
            raise InvalidArgumentError(
                f"HPGRAPH_MPI_RANKS_PER_NODE must be a whole number >= 1, got {per_node!r}"
            )
        self.comm = comm if comm is not None else MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.threads = threads
        self.aggregation = aggregation
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None
        self._per_node = int(per_node) if per_node else 0
        self.topology = None  # node communicators: made by the first job that needs them
        #: MPI datatypes of array rows, freed by close
        self.rowtypes = RowTypes(MPI)
        self._moved = (0, 0)
        self._delivery = None  # made by prepare, per job
        start_watchdog(self.comm, MPI)  # no wait for the other ranks lasts for ever

    def run_bsp(self, program, args, peers=None, checkpoint=None):
        """One peer per rank (``peers`` is the communicator's size); every rank gets
        every peer's result. A failing rank prints the reason and aborts the job, since
        the others wait in a collective it will never join."""
        (peer,) = make_peers(MPIExchange(self), self, checkpoint)
        t0 = time.perf_counter()
        try:
            result = program(peer, *args)
        except Exception as exc:
            # The other ranks wait in a collective this rank will never join: end the
            # job, with the reason, rather than let it hang (mpi4py's advice).
            abort_job(
                self.comm, f"hpgraph: peer {self.rank} failed: {type(exc).__name__}: {exc}", 1
            )
            raise
        close_peers([peer])
        with guard("the end of the BSP job"):
            results = self.comm.allgather(result)
            stats = merge_peer_stats(self.comm.allgather(peer.stats), self.name)
        stats.total_s = time.perf_counter() - t0
        return BSPResult(results=results, stats=stats)

    def node_topology(self):
        """The node communicators with ``aggregation="node"`` (made on first call, by
        every rank at once), else None."""
        if self.aggregation == "node" and self.topology is None:
            self.topology = Topology(self.MPI, self.comm, self._per_node)
        return self.topology

    @property
    def num_parts(self) -> int:
        return self.size * self.threads

    @property
    def local_parts(self):
        return range(self.rank * self.threads, (self.rank + 1) * self.threads)

    @property
    def is_root(self) -> bool:
        return self.rank == 0

    def partition(self, graph):
        if isinstance(graph, PartGraph):
            return part_partition(self, graph)
        # ranks first, then each rank's threads: the partition a rank holding only its
        # rows computes too (same parts, same results bit for bit)
        return Partition(nested_cuts(graph.indptr, self.size, self.threads))

    def rank_range(self, graph) -> tuple[int, int]:
        """The internal ids [lo, hi) this rank owns in a job on ``graph``."""
        ro = self.rank_offsets(self.partition(graph).offsets)
        return int(ro[self.rank]), int(ro[self.rank + 1])

    def rank_offsets(self, offsets):
        """Vertex ranges of the ranks (each the union of its parts'), length size + 1."""
        return offsets[:: self.threads]

    def _agree(self, error, seconds=0.0, moved=(0, 0)):
        """End a phase: every rank learns whether any rank failed, the mean of the
        phase's per-part seconds over all parts, and the values and bytes moved."""
        mine = np.array(
            [error is not None, seconds, self.threads, moved[0], moved[1]], dtype=np.float64
        )
        tot = np.empty_like(mine)
        with guard("the end of a phase"):
            self.comm.Allreduce(mine, tot, op=self.MPI.SUM)
        if error is not None:
            raise error
        if tot[0]:
            raise RuntimeErrorInJob(
                f"{int(tot[0])} other MPI rank(s) failed; rank {self.rank} stops"
            )
        self._moved = (int(tot[3]), int(tot[4]))
        return tot[1] / tot[2]

    def parallel(self, fn, args_list):
        """Run ``fn(*args)`` for each item on this rank's threads; the items' seconds."""
        if self._pool is None or len(args_list) <= 1:
            return [timed(fn, a) for a in args_list]
        futures = [self._pool.submit(timed, fn, a) for a in args_list]
        return [f.result() for f in futures]

    def run_parts(self, fn, args_of_part, small=False):
        error = None
        out = [None] * self.threads
        busy = 0.0
        try:
            args = [args_of_part(p) for p in self.local_parts]
            done = [timed(fn, a) for a in args] if small else self.parallel(fn, args)
            out = [r for r, _ in done]
            busy = sum(t for _, t in done)
        except Exception as exc:  # reported to every rank below
            error = exc
        mean = self._agree(error, busy)
        return [(r, mean) for r in out]

    def allreduce(self, array, op="sum"):
        ops = {"sum": self.MPI.SUM, "min": self.MPI.MIN, "max": self.MPI.MAX}
        array = np.ascontiguousarray(array)
        out = np.empty_like(array)
        with guard("an allreduce"):
            self.comm.Allreduce(array, out, op=ops[op])
        return out

    def exchanged(self):
        return self._moved

    def gather(self, array, offsets):
        ro = self.rank_offsets(offsets)
        lo, hi = int(ro[self.rank]), int(ro[self.rank + 1])
        counts = np.diff(ro).astype(np.int64)
        mine = np.ascontiguousarray(array[lo:hi])
        return allgatherv(self.comm, self.rowtypes, (mine,), counts)[0]

    def mirror(self, array, offsets):
        """Every rank's range of ``array`` on every rank (``Allgatherv``): a dense
        superstep pulls along whole in-rows. Each rank receives the n - own values it
        lacks, (ranks - 1) * n in all."""
        out = self.gather(array, offsets)
        moved = (self.size - 1) * int(array.shape[0])
        self._moved = (moved, moved * (array.nbytes // max(array.shape[0], 1)))
        return out

    def prepare(self, job):
        self.node_topology()
        self._delivery = VertexDelivery(self, job)

    def deliver(self, job, pull):
        t0 = time.perf_counter()
        error = None
        waited = 0.0
        moved = (0, 0)
        try:
            with guard("message delivery"):
                waited, moved = self._delivery.deliver(job, pull)
        except Exception as exc:  # reported to every rank below
            error = exc
        busy = (time.perf_counter() - t0 - waited) * self.threads
        mean = self._agree(error, busy, moved)
        return [(None, mean) for _ in self.local_parts]

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self.rowtypes.free()
        if self.topology is not None:
            self.topology.free(self.MPI)
            self.topology = None

    def __repr__(self):
        return (
            f"MPIRuntime(rank={self.rank}, size={self.size}, threads={self.threads}, "
            f"aggregation={self.aggregation!r}, rows={self.rows!r})"
        )
