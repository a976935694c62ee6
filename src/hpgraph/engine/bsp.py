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

Checkpoints (``run_bsp(..., checkpoint=Checkpoints(...))``): the program names its state
at a point of its loop with ``peer.checkpoint(state, shared)`` and starts from
``peer.resumed`` when the job resumes (engine/peer_checkpoint.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from hpgraph.engine.contract import resolve
from hpgraph.engine.stats import JobStats, SuperstepStats
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob

__all__ = [
    "Peer",
    "run_bsp",
    "BSPResult",
    "PeerStopped",
    "merge_peer_stats",
    "make_peers",
    "close_peers",
    "PeerJob",
]


class PeerStopped(RuntimeErrorInJob):
    """Raised in a peer whose barrier was broken by another peer's failure."""


_Stopped = PeerStopped


def _nbytes(payload) -> int:
    return int(getattr(payload, "nbytes", 0))


class Peer:
    """One BSP task's view of the job (Hama's ``BSPPeer``). ``exchange`` is the
    runtime's transport: ``peers`` (how many), ``local`` (the peer ids of this address
    space), ``post(parity, src, dst, payload)``, ``sync(pid, parity) -> (barrier s,
    communication s, [(sender, payload), ...])`` and ``local_barrier()`` (this address
    space's peers only); ``session``: the job's
    :class:`~hpgraph.engine.peer_checkpoint.PeerCheckpoints`, if any.

    ``local_peers`` are the peers that share this one's memory (the local runtime's
    threads; on MPI the peer alone): what they share, they can checkpoint once."""

    def __init__(self, pid, exchange, session=None):
        self.pid = pid
        self.num_peers = exchange.peers
        self.local_peers = exchange.local
        self.superstep = 0
        self._x = exchange
        self._inbox = []
        self._session = session
        self._points = 0  # checkpoint points passed
        self._resumed = None
        if session is not None and pid in session.resumed:
            self._resumed, self._inbox, self._points = session.resumed[pid]
            self.superstep = session.start
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
        if self._session is not None:
            self._session.superstep(self)
        self._t_mark = time.perf_counter()

    def messages(self) -> list:
        """``[(sender, payload), ...]`` received at the last ``sync()``."""
        return self._inbox

    def checkpoint(self, state: dict | None = None, shared: dict | None = None) -> None:
        """A point of the program's loop it can resume from: ``state`` (this peer's
        values: numpy arrays, or anything picklable) and the messages just received are
        all it needs to go on; ``shared``: values this address space's peers share
        (taken from the first of ``local_peers``). Every peer calls it at the same
        points; every ``every``-th is written (collective then). A no-op without
        ``run_bsp(..., checkpoint=...)``. Do not change the values passed while it runs."""
        if self._session is None:
            return
        self._session.point(self, self._points, state, shared)
        self._points += 1

    @property
    def resumed(self) -> dict | None:
        """The ``state`` of the checkpoint this job resumed from (with ``superstep`` and
        ``messages()`` as they were at that point), or None on a fresh start."""
        return self._resumed

    @property
    def resumed_shared(self) -> dict | None:
        """The ``shared`` values of the checkpoint resumed from, or None."""
        s = self._session
        return None if s is None else s.resumed_shared


def make_peers(exchange, runtime, checkpoint=None) -> list[Peer]:
    """This address space's peers (``exchange.local``) of a job on ``runtime``, with
    the job's checkpoints (a :class:`PeerJob`) when given: collective over processes,
    called by a runtime's ``run_bsp`` before its peers start."""
    session = None
    if checkpoint is not None:
        from hpgraph.engine.peer_checkpoint import PeerCheckpoints

        def agree(flag):
            return float(runtime.allreduce(np.array([flag], dtype=np.float64), "max")[0])

        session = PeerCheckpoints(
            checkpoint.options, exchange, agree, checkpoint.name, checkpoint.fingerprint
        )
    return [Peer(p, exchange, session) for p in exchange.local]


def close_peers(peers: list[Peer]) -> None:
    """End the job's checkpoints (waits for the drain): once the peers are done."""
    if peers and peers[0]._session is not None:
        peers[0]._session.close()


@dataclass
class PeerJob:
    """What a runtime's ``run_bsp`` needs for checkpoints: the options, the program's
    name and the caller's fingerprint (docs/checkpoints.md)."""

    options: object
    name: str
    fingerprint: dict | None = None


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
                superstep=rows[0].superstep,
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


def run_bsp(
    program, *, peers: int | None = None, args=(), runtime=None, checkpoint=None, fingerprint=None
) -> BSPResult:
    """Run ``program(peer, *args)`` on every peer: ``peers`` threads of the local runtime,
    or one peer per rank with ``runtime="mpi"`` (an :class:`MPIRuntime`), where every
    rank gets every peer's result, or ``peers`` processes with ``runtime="hama"`` (a
    :class:`~hpgraph.runtimes.hama.HamaRuntime`: ZooKeeper barrier, TCP messaging).

    ``checkpoint``: a :class:`~hpgraph.engine.checkpoint.Checkpoints` (local and MPI
    runtimes): the points the program marks with ``peer.checkpoint(...)`` are written
    and resumed from; ``fingerprint``: a dict of ints or strings that must match for a
    checkpoint to be this job's (say which graph and parameters; the program's name, the
    peers and the processes are always checked)."""
    rt, own = resolve(runtime, peers, "bsp")
    try:
        if checkpoint is None:
            return rt.run_bsp(program, args, peers)
        if not getattr(rt, "bsp_checkpoints", False):
            raise InvalidArgumentError(
                f"peer-level checkpoints need the local or MPI runtime, not {rt.name}"
            )
        name = f"{getattr(program, '__module__', '')}.{getattr(program, '__qualname__', program)}"
        return rt.run_bsp(program, args, peers, checkpoint=PeerJob(checkpoint, name, fingerprint))
    finally:
        if own:
            rt.close()
