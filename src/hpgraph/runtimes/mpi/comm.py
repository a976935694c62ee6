"""What the MPI runtime needs before a job: the ``mpiexec`` to launch with, mpi4py
(imported on first use, not when hpgraph is imported), the aggregation modes, and the
node communicators of node aggregation."""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.launcher import mpiexec_path

__all__ = ["AGGREGATIONS", "mpiexec_path", "load_mpi", "Topology"]

#: How messages cross between ranks: every rank to every rank, or through node leaders.
AGGREGATIONS = ("direct", "node")


def load_mpi():
    """mpi4py's ``MPI`` module (importing it initialises MPI), or a readable error; also
    when ``srun`` started the ranks without PMI, so none would see the others."""
    from hpgraph.runtimes.slurm import check_mpi_launch

    check_mpi_launch()
    try:
        from mpi4py import MPI
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise InvalidArgumentError(
            "the MPI runtime needs mpi4py and an MPI library: pip install 'hpgraph[mpi]'"
        ) from exc
    return MPI


class Topology:
    """Which ranks share a node, and the communicators of node aggregation.

    Ranks are grouped by shared memory (``Split_type(COMM_TYPE_SHARED)``), or, to emulate
    several nodes on one machine, by ``rank // ranks_per_node``. The node's first rank
    is its leader; leaders have a communicator of their own."""

    def __init__(self, MPI, comm, ranks_per_node):
        rank = comm.Get_rank()
        if ranks_per_node:
            self.node = comm.Split(rank // ranks_per_node, rank)
        else:
            self.node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=rank)
        self.is_leader = self.node.Get_rank() == 0
        color = 0 if self.is_leader else MPI.UNDEFINED
        self.leaders = comm.Split(color, rank)
        leader_index = self.leaders.Get_rank() if self.is_leader else -1
        leader_index = self.node.bcast(leader_index, root=0)
        #: per global rank: its node's index (the leader's rank among leaders)
        self.node_of_rank = np.array(comm.allgather(leader_index), dtype=np.int64)
        self.num_nodes = int(self.node_of_rank.max()) + 1
        #: global ranks of this node, in node-communicator order (ascending)
        self.members = np.flatnonzero(self.node_of_rank == leader_index)

    def free(self, MPI):
        for c in (self.leaders, self.node):
            if c != MPI.COMM_NULL:
                c.Free()
