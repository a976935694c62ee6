"""The peer-level API's transport on the MPI runtime (``run_bsp``): one peer per rank, a
barrier and an ``alltoall`` of the queued payloads per superstep, directly or through
node leaders."""

from __future__ import annotations

import time

from hpgraph.runtimes.mpi.watchdog import guard

__all__ = ["MPIExchange"]


class MPIExchange:
    """One peer per MPI rank. Payloads are pickled by mpi4py (the peer API takes any
    object; the vertex engine's messages travel as raw numpy buffers).

    ``aggregation="direct"``: a barrier, then one ``alltoall`` of the queued payloads.
    ``aggregation="node"`` (the seed's node agents): the barrier is joined on the node,
    then among node leaders, then released on the node; each rank hands its payloads to
    its leader, leaders exchange one bundle per destination node and hand each rank its
    part. Either way a rank receives its payloads ordered by sender, in sending order."""

    def __init__(self, runtime):
        self.comm = runtime.comm
        self.peers = runtime.size
        self.local = range(runtime.rank, runtime.rank + 1)
        self.topo = runtime.node_topology()
        self.out = [[] for _ in range(self.peers)]

    def post(self, parity, src, dst, payload):
        self.out[dst].append(payload)

    def local_barrier(self):
        """A rank's only peer is itself: nothing to wait for."""

    def sync(self, pid, parity):
        with guard("a BSP barrier"):
            return self._sync(pid)

    def _sync(self, pid):
        t0 = time.perf_counter()
        topo = self.topo
        if topo is None:
            self.comm.Barrier()
        else:
            topo.node.Barrier()
            if topo.is_leader:
                topo.leaders.Barrier()
            topo.node.Barrier()
        t1 = time.perf_counter()
        if topo is None:
            got = self.comm.alltoall(self.out)
        else:
            got = self._through_leaders(topo, pid)
        self.out = [[] for _ in range(self.peers)]
        inbox = [(src, p) for src, box in enumerate(got) for p in box]
        return t1 - t0, time.perf_counter() - t1, inbox

    def _through_leaders(self, topo, pid):
        """This rank's payloads by sender rank, moved rank -> leader -> leader -> rank."""
        mine = {dst: box for dst, box in enumerate(self.out) if box}
        boxes = topo.node.gather(mine, root=0)
        per_member = None
        if topo.is_leader:
            bundles = [[] for _ in range(topo.num_nodes)]  # (src, dst, payloads)
            for src, sent in zip(topo.members.tolist(), boxes, strict=True):
                for dst, box in sent.items():
                    bundles[topo.node_of_rank[dst]].append((src, dst, box))
            arrived = topo.leaders.alltoall(bundles)
            slot = {int(r): i for i, r in enumerate(topo.members)}
            per_member = [[[] for _ in range(self.peers)] for _ in topo.members]
            for bundle in arrived:
                for src, dst, box in bundle:
                    per_member[slot[dst]][src].extend(box)
        return topo.node.scatter(per_member, root=0)
