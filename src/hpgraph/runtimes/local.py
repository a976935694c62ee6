"""The embedded default runtime: one process, one thread per part, shared memory.

Nothing to start or configure. Parts are contiguous vertex ranges balanced by edges; each
part's kernels are compiled with ``nogil`` so the threads run truly in parallel, and the
engine's delivery writes only to the receiving part's vertices, so no locks or atomics are
needed. Message exchange is free: a receiver reads the sender's value in place.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait

from hpgraph import config
from hpgraph.engine.bsp import BSPResult, PeerStopped, close_peers, make_peers, merge_peer_stats
from hpgraph.engine.contract import timed
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.graph.partition import range_partition
from hpgraph.runtimes.base import Runtime
from hpgraph.runtimes.stall import stall_watch

__all__ = ["LocalRuntime"]


class _LocalExchange:
    """Mailboxes in shared memory, double-buffered by superstep parity so one barrier
    per superstep suffices: what is sent in superstep s is read right after barrier s,
    before any peer can write the same buffer again in s + 2."""

    def __init__(self, peers, watch=None):
        self.peers = peers
        self.local = range(peers)
        self.barrier = threading.Barrier(peers, action=self._tick)
        self.gate = threading.Barrier(peers)  # local_barrier's, not a superstep's end
        self.watch = watch  # a StallWatch, told of every superstep
        self.waiting = set()  # the peers at the barrier (for the stall report)
        self.superstep = 0
        self.boxes = [[[[] for _ in range(peers)] for _ in range(peers)] for _ in range(2)]

    def post(self, parity, src, dst, payload):
        self.boxes[parity][src][dst].append(payload)

    def sync(self, pid, parity):
        """(barrier seconds, communication seconds, [(sender, payload), ...])."""
        t0 = time.perf_counter()
        self.waiting.add(pid)
        _wait(self.barrier)
        t1 = time.perf_counter()
        out = []
        for src in range(self.peers):
            box = self.boxes[parity][src][pid]
            out.extend((src, p) for p in box)
            box.clear()
        return t1 - t0, time.perf_counter() - t1, out

    def _tick(self):
        """Every peer is at the barrier (run by one of them before any goes on)."""
        self.waiting.clear()
        self.superstep += 1
        if self.watch is not None:
            self.watch.progress(self._report)

    def abort(self):
        """Stop every peer at its next barrier (one failed)."""
        self.barrier.abort()
        self.gate.abort()

    def _report(self):
        late = sorted(set(self.local) - self.waiting)
        return f"superstep {self.superstep} of a peer-level program (peer(s) {late} not at its end)"

    def local_barrier(self):
        """Every peer (all share this process) waits here."""
        _wait(self.gate)


def _wait(barrier):
    """Wait at ``barrier``; a peer failed and broke it: this peer stops too."""
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        raise PeerStopped("another peer failed; this peer stopped") from None


class LocalRuntime(Runtime):
    """Threads over shared memory. ``threads`` defaults to the machine's cores."""

    name = "local"
    bsp_checkpoints = True

    def __init__(self, threads: int | None = None):
        threads = config.DEFAULT_THREADS if threads is None else int(threads)
        if threads < 1:
            raise InvalidArgumentError(f"threads must be >= 1, got {threads}")
        self.threads = threads
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None

    @property
    def num_parts(self) -> int:
        return self.threads

    @property
    def local_parts(self):
        return range(self.threads)

    def partition(self, graph):
        return range_partition(graph, self.threads)

    def progress(self, what):
        watch = stall_watch()
        if watch is not None:
            watch.progress(what)

    def run_parts(self, fn, args_of_part, small=False):
        """Part 0 runs on the calling thread, the others on the pool: one thread
        hand-off fewer per call (a BFS superstep makes three calls; on a busy machine a
        woken thread may wait for a core). A ``small`` call runs every part here, in
        turn: no hand-off at all."""
        if self._pool is None or small:
            return [timed(fn, args_of_part(p)) for p in self.local_parts]
        futures = [self._pool.submit(timed, fn, args_of_part(p)) for p in self.local_parts[1:]]
        try:
            first = timed(fn, args_of_part(0))
        finally:  # no part may still run when this returns or raises
            wait(futures)
        return [first, *(f.result() for f in futures)]  # re-raises a part's exception here

    def run_bsp(self, program, args, peers=None, checkpoint=None):
        """One peer per part (thread); ``peers`` was fixed when this runtime was made."""
        n = self.num_parts
        watch = stall_watch()
        exchange = _LocalExchange(n, watch)
        peer_objs = make_peers(exchange, self, checkpoint)
        exchange.superstep = peer_objs[0].superstep  # a resumed job's, for the report
        if watch is not None:
            watch.progress(exchange._report)
        failures = {}

        def body(p):
            try:
                return program(peer_objs[p], *args)
            except BaseException as exc:  # stop the others at their next barrier
                if not isinstance(exc, PeerStopped):
                    failures[p] = exc
                exchange.abort()
                raise

        t0 = time.perf_counter()
        try:
            results = [r for r, _ in self.run_parts(body, lambda p: (p,))]
        except BaseException:
            first = min(failures) if failures else None
            if first is None:
                raise
            exc = failures[first]
            raise RuntimeErrorInJob(f"peer {first} failed: {type(exc).__name__}: {exc}") from exc
        finally:
            if watch is not None:
                watch.progress(None)
            close_peers(peer_objs)
        stats = merge_peer_stats([p.stats for p in peer_objs], self.name)
        stats.total_s = time.perf_counter() - t0
        return BSPResult(results=results, stats=stats)

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __repr__(self):
        return f"LocalRuntime(threads={self.threads})"
