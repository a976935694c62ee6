"""The peer-level BSP API (Apache Hama's ``bsp(peer)``), for algorithms that do not fit
the vertex model.

A program is a function ``program(peer, *args)`` run once per peer, all peers at once. It
computes on its own data, ``peer.send(other, payload)``, and calls ``peer.sync()``: the
barrier that ends a superstep, after which ``peer.messages()`` holds what the others sent
it. Payloads are delivered by reference on the local runtime (send numpy arrays and do
not modify them after sending). Heavy loops belong in numba functions the program calls.

If one peer raises, the barrier is broken so every other peer stops too, and
:func:`run_bsp` raises :class:`~hpgraph.errors.RuntimeErrorInJob` naming the failing peer.
On MPI (one peer per rank, ``runtime="mpi"``) the failing rank prints the reason and
aborts the job, since the others wait in a collective it will never join.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from hpgraph.engine.stats import JobStats, SuperstepStats
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.runtimes.local import LocalRuntime

__all__ = ["Peer", "run_bsp", "BSPResult"]


class _Stopped(RuntimeErrorInJob):
    """Raised in a peer whose barrier was broken by another peer's failure."""


def _nbytes(payload) -> int:
    return int(getattr(payload, "nbytes", 0))


class _LocalExchange:
    """Mailboxes in shared memory, double-buffered by superstep parity so one barrier
    per superstep suffices: what is sent in superstep s is read right after barrier s,
    before any peer can write the same buffer again in s + 2."""

    def __init__(self, peers):
        self.peers = peers
        self.barrier = threading.Barrier(peers)
        self.boxes = [[[[] for _ in range(peers)] for _ in range(peers)] for _ in range(2)]

    def post(self, parity, src, dst, payload):
        self.boxes[parity][src][dst].append(payload)

    def sync(self, pid, parity):
        """(barrier seconds, communication seconds, [(sender, payload), ...])."""
        t0 = time.perf_counter()
        try:
            self.barrier.wait()
        except threading.BrokenBarrierError:
            raise _Stopped("another peer failed; this peer stopped") from None
        t1 = time.perf_counter()
        out = []
        for src in range(self.peers):
            box = self.boxes[parity][src][pid]
            out.extend((src, p) for p in box)
            box.clear()
        return t1 - t0, time.perf_counter() - t1, out


class _MPIExchange:
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
        self.topo = runtime.node_topology()
        self.out = [[] for _ in range(self.peers)]

    def post(self, parity, src, dst, payload):
        self.out[dst].append(payload)

    def sync(self, pid, parity):
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


class Peer:
    """One BSP task's view of the job (Hama's ``BSPPeer``)."""

    def __init__(self, pid, exchange):
        self.pid = pid
        self.num_peers = exchange.peers
        self.superstep = 0
        self._x = exchange
        self._inbox = []
        self._sent = 0
        self._sent_bytes = 0
        self._sent_remote = 0
        self._remote_bytes = 0
        self._t_mark = time.perf_counter()
        self.stats: list[SuperstepStats] = []

    def send(self, peer: int, payload) -> None:
        """Queue ``payload`` for ``peer``; it arrives after the next ``sync()``."""
        if not 0 <= peer < self.num_peers:
            raise InvalidArgumentError(f"peer {peer} out of range 0..{self.num_peers - 1}")
        self._x.post(self.superstep % 2, self.pid, peer, payload)
        b = _nbytes(payload)
        if peer == self.pid:
            self._sent += 1
            self._sent_bytes += b
        else:
            self._sent_remote += 1
            self._remote_bytes += b

    def sync(self) -> None:
        """End the superstep: wait for every peer, then receive what was sent to us."""
        t0 = time.perf_counter()
        barrier_s, comm_s, self._inbox = self._x.sync(self.pid, self.superstep % 2)
        self.stats.append(
            SuperstepStats(
                superstep=self.superstep,
                active=1,
                messages_local=self._sent,
                messages_remote=self._sent_remote,
                bytes_local=self._sent_bytes,
                bytes_remote=self._remote_bytes,
                mode="-",
                compute_s=t0 - self._t_mark,
                communication_s=comm_s,
                barrier_s=barrier_s,
            )
        )
        self._sent = self._sent_bytes = self._sent_remote = self._remote_bytes = 0
        self.superstep += 1
        self._t_mark = time.perf_counter()

    def messages(self) -> list:
        """``[(sender, payload), ...]`` received at the last ``sync()``."""
        return self._inbox


@dataclass
class BSPResult:
    results: list  #: what each peer's program returned, by peer id
    stats: JobStats  #: per superstep, summed over peers (times: mean over peers)


def _merge(per_peer, runtime_name):
    stats = JobStats(runtime=runtime_name, parts=len(per_peer))
    steps = min((len(s) for s in per_peer), default=0)
    k = max(len(per_peer), 1)
    for i in range(steps):
        rows = [s[i] for s in per_peer]
        stats.supersteps.append(
            SuperstepStats(
                superstep=i,
                active=len(rows),
                messages_local=sum(r.messages_local for r in rows),
                messages_remote=sum(r.messages_remote for r in rows),
                bytes_local=sum(r.bytes_local for r in rows),
                bytes_remote=sum(r.bytes_remote for r in rows),
                mode="-",
                compute_s=sum(r.compute_s for r in rows) / k,
                communication_s=sum(r.communication_s for r in rows) / k,
                barrier_s=sum(r.barrier_s for r in rows) / k,
            )
        )
    return stats


def run_bsp(program, *, peers: int | None = None, args=(), runtime=None) -> BSPResult:
    """Run ``program(peer, *args)`` on every peer: ``peers`` threads of the local runtime,
    or one peer per rank with ``runtime="mpi"`` (an :class:`MPIRuntime`), where every
    rank gets every peer's result, or ``peers`` processes with ``runtime="hama"`` (a
    :class:`~hpgraph.runtimes.hama.HamaRuntime`: ZooKeeper barrier, TCP messaging)."""
    if runtime == "local":
        runtime = None  # threads of this process, made and closed here
    if runtime == "mpi" or getattr(runtime, "name", None) == "mpi":
        return _run_bsp_mpi(program, args, runtime)
    if runtime == "hama" or getattr(runtime, "name", None) == "hama":
        from hpgraph.runtimes.hama import run_bsp_hama

        return run_bsp_hama(program, peers=peers, args=args, runtime=runtime)
    if runtime is not None and not isinstance(runtime, LocalRuntime):
        raise InvalidArgumentError(f"run_bsp does not support runtime {runtime!r}")
    rt = runtime or LocalRuntime(peers)
    own = runtime is None
    n = rt.num_parts
    exchange = _LocalExchange(n)
    peer_objs = [Peer(p, exchange) for p in range(n)]
    failures = {}

    def body(p):
        try:
            return program(peer_objs[p], *args)
        except BaseException as exc:  # stop the others at their next barrier
            if not isinstance(exc, _Stopped):
                failures[p] = exc
            exchange.barrier.abort()
            raise

    t0 = time.perf_counter()
    try:
        results = []
        try:
            results = [r for r, _ in rt.run_parts(body, lambda p: (p,))]
        except BaseException:
            first = min(failures) if failures else None
            if first is None:
                raise
            exc = failures[first]
            raise RuntimeErrorInJob(f"peer {first} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        if own:
            rt.close()
    stats = _merge([p.stats for p in peer_objs], rt.name)
    stats.total_s = time.perf_counter() - t0
    return BSPResult(results=results, stats=stats)


def _run_bsp_mpi(program, args, runtime):
    import sys

    from hpgraph.runtimes.mpi import MPIRuntime

    own = not isinstance(runtime, MPIRuntime)
    rt = MPIRuntime() if own else runtime
    try:
        peer = Peer(rt.rank, _MPIExchange(rt))
        t0 = time.perf_counter()
        try:
            result = program(peer, *args)
        except Exception as exc:
            # The other ranks wait in a collective this rank will never join: end the
            # job, with the reason, rather than let it hang (mpi4py's advice).
            print(
                f"hpgraph: peer {rt.rank} failed: {type(exc).__name__}: {exc}",
                file=sys.stderr,
                flush=True,
            )
            rt.comm.Abort(1)
            raise
        results = rt.comm.allgather(result)
        stats = _merge(rt.comm.allgather(peer.stats), rt.name)
        stats.total_s = time.perf_counter() - t0
    finally:
        if own:
            rt.close()
    return BSPResult(results=results, stats=stats)
