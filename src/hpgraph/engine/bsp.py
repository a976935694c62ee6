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

import time
from dataclasses import dataclass

from hpgraph.engine.contract import resolve
from hpgraph.engine.stats import JobStats, SuperstepStats
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob

__all__ = ["Peer", "run_bsp", "BSPResult", "PeerStopped", "merge_peer_stats"]


class PeerStopped(RuntimeErrorInJob):
    """Raised in a peer whose barrier was broken by another peer's failure."""


_Stopped = PeerStopped


def _nbytes(payload) -> int:
    return int(getattr(payload, "nbytes", 0))


class Peer:
    """One BSP task's view of the job (Hama's ``BSPPeer``). ``exchange`` is the
    runtime's transport: ``peers`` (how many), ``post(parity, src, dst, payload)`` and
    ``sync(pid, parity) -> (barrier s, communication s, [(sender, payload), ...])``."""

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


def merge_peer_stats(per_peer, runtime_name) -> JobStats:
    """One :class:`JobStats` from every peer's ``Peer.stats``: per superstep, counts
    summed over peers, times the mean over peers."""
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


_merge = merge_peer_stats


def run_bsp(program, *, peers: int | None = None, args=(), runtime=None) -> BSPResult:
    """Run ``program(peer, *args)`` on every peer: ``peers`` threads of the local runtime,
    or one peer per rank with ``runtime="mpi"`` (an :class:`MPIRuntime`), where every
    rank gets every peer's result, or ``peers`` processes with ``runtime="hama"`` (a
    :class:`~hpgraph.runtimes.hama.HamaRuntime`: ZooKeeper barrier, TCP messaging)."""
    rt, own = resolve(runtime, peers, "bsp")
    try:
        return rt.run_bsp(program, args, peers)
    finally:
        if own:
            rt.close()
