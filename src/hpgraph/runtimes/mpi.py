"""The MPI runtime: ranks x threads, messages combined at the sender and moved with
``Alltoallv`` on numpy buffers (no pickling on the hot path).

Run the same program under ``mpiexec -n P python script.py`` with ``runtime="mpi"`` (or
``hpgraph run ... --ranks P [--threads t]``). Every rank builds or loads the graph, owns a
contiguous vertex range (ranges balanced by edges, as on the local runtime), split into
``threads`` parts that its threads compute as the local runtime does. A superstep's
messages travel like this:

1. each rank delivers its own senders' messages to its own vertices in place (the shared
   ``deliver_combined`` kernel, push or pull, reading in pull mode only the slice of each
   in-row that lies in the rank's range);
2. the same kernel runs over the *other* ranks' ranges, still with this rank's senders
   only, combining per receiver into the (otherwise unused) inbox slots of those
   vertices: at most one value per (receiver, sending rank) leaves the rank. First-hit
   receivers are listed as they are found (a scratch state marks them all "halted"), so
   the cost is the messages', not one pass over every vertex;
3. the (receiver, value) pairs, grouped by owner (chunk by chunk), go out in one
   ``Alltoallv`` (``aggregation="direct"``), or through node leaders
   (``aggregation="node"``, the seed's node agents): ranks of a node hand their pairs to
   the leader (``Gatherv`` on the node's shared-memory communicator), the leader combines
   again per receiver, leaders exchange one bundle per destination node (``Alltoallv``
   among leaders) and scatter it to their ranks (``Scatterv``);
4. the owner merges what arrived into its inbox (``merge_combined``).

Two refinements for pull supersteps: other ranks' finished vertices are learnt from a
bitmap ``Allgatherv`` (n / 8 bytes), so remote pull skips them as shared memory does; and
with the "any" combiner (early exit: bottom-up BFS), where splitting in-rows over ranks
would make every rank scan every receiver, the senders' values are mirrored on every rank
instead and each rank pulls for its own receivers along whole in-rows.

Without a combiner every message is shipped (``emit_listed``) and listed per receiver.
Counters and aggregators are reduced with ``Allreduce``, so halting, aggregators and the
master hook behave exactly as on the local runtime.

Statistics are the local runtime's: compute and communication are means over all parts of
all ranks (carried on the failure-flag ``Allreduce`` that ends each phase), and waiting
for the slowest rank (the exchange of counts, which every rank must reach) is counted as
barrier time, not communication.

Errors: inputs are checked before the job starts, on every rank alike. A phase that
raises on one rank is reported to all through an ``Allreduce`` of a failure flag at the
end of the phase, so every rank stops with an error instead of waiting forever.

Every rank maps or holds the whole graph (kernels may read any vertex's out-edges).
With ``rows="own"`` delivery is push-only, so a rank reads only its own rows' edges: a
memory-mapped ``.hpgc`` file is then touched in ``indptr`` and the rank's rows only.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from hpgraph.engine.bsp import BSPResult, Peer, merge_peer_stats
from hpgraph.engine.context import COUNTERS, FINISHED, HALTED, SEND_NONE, describe
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.graph.partition import range_partition
from hpgraph.runtimes.base import Runtime

__all__ = ["MPIRuntime", "mpiexec_path", "AGGREGATIONS"]

#: How messages cross between ranks: every rank to every rank, or through node leaders.
AGGREGATIONS = ("direct", "node")
_SENDERS = COUNTERS.index("senders")
_CANDIDATES = COUNTERS.index("candidates")


def mpiexec_path() -> str:
    """The ``mpiexec`` beside this interpreter (the mpich wheel installs it there), else
    the one on PATH."""
    import shutil
    from pathlib import Path

    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        raise InvalidArgumentError("no mpiexec: pip install 'hpgraph[mpi]'")
    return found


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise InvalidArgumentError(
            "the MPI runtime needs mpi4py and an MPI library: pip install 'hpgraph[mpi]'"
        ) from exc
    return MPI


def _timed(fn, args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def _balanced_cuts(indptr, lo, hi, pieces):
    """``pieces`` + 1 boundaries splitting [lo, hi) into ranges of about equal
    8 * vertices + edges (the partitioner's work measure)."""
    if pieces <= 1 or hi <= lo:
        return np.array([lo, hi], dtype=np.int64)
    v = np.arange(lo, hi + 1, dtype=np.float64)
    work = 8.0 * (v - lo) + (indptr[lo : hi + 1] - indptr[lo]).astype(np.float64)
    cuts = lo + np.searchsorted(work, work[-1] * np.arange(1, pieces) / pieces)
    return np.concatenate([[lo], cuts, [hi]]).astype(np.int64)


class _Topology:
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

    def __init__(
        self,
        comm=None,
        *,
        threads: int | None = 1,
        aggregation: str | None = None,
        rows: str = "all",
    ):
        MPI = _mpi()
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
        self._moved = (0, 0)
        self._types = {}

    def run_bsp(self, program, args, peers=None):
        """One peer per rank (``peers`` is the communicator's size); every rank gets
        every peer's result. A failing rank prints the reason and aborts the job, since
        the others wait in a collective it will never join."""
        peer = Peer(self.rank, _MPIExchange(self))
        t0 = time.perf_counter()
        try:
            result = program(peer, *args)
        except Exception as exc:
            # The other ranks wait in a collective this rank will never join: end the
            # job, with the reason, rather than let it hang (mpi4py's advice).
            print(
                f"hpgraph: peer {self.rank} failed: {type(exc).__name__}: {exc}",
                file=sys.stderr,
                flush=True,
            )
            self.comm.Abort(1)
            raise
        results = self.comm.allgather(result)
        stats = merge_peer_stats(self.comm.allgather(peer.stats), self.name)
        stats.total_s = time.perf_counter() - t0
        return BSPResult(results=results, stats=stats)

    def node_topology(self):
        """The node communicators with ``aggregation="node"`` (made on first call, by
        every rank at once), else None."""
        if self.aggregation == "node" and self.topology is None:
            self.topology = _Topology(self.MPI, self.comm, self._per_node)
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
        return range_partition(graph, self.size * self.threads)

    def rank_range(self, graph) -> tuple[int, int]:
        """The internal ids [lo, hi) this rank owns in a job on ``graph``."""
        ro = self._rank_offsets(self.partition(graph).offsets)
        return int(ro[self.rank]), int(ro[self.rank + 1])

    def _rank_offsets(self, offsets):
        """Vertex ranges of the ranks (each the union of its parts'), length size + 1."""
        return offsets[:: self.threads]

    # ------------------------------------------------------------------ collectives
    def _agree(self, error, seconds=0.0, moved=(0, 0)):
        """End a phase: every rank learns whether any rank failed, the mean of the
        phase's per-part seconds over all parts, and the values and bytes moved."""
        mine = np.array(
            [error is not None, seconds, self.threads, moved[0], moved[1]], dtype=np.float64
        )
        tot = np.empty_like(mine)
        self.comm.Allreduce(mine, tot, op=self.MPI.SUM)
        if error is not None:
            raise error
        if tot[0]:
            raise RuntimeErrorInJob(
                f"{int(tot[0])} other MPI rank(s) failed; rank {self.rank} stops"
            )
        self._moved = (int(tot[3]), int(tot[4]))
        return tot[1] / tot[2]

    def _parallel(self, fn, args_list):
        """Run ``fn(*args)`` for each item on this rank's threads; the items' seconds."""
        if self._pool is None or len(args_list) <= 1:
            return [_timed(fn, a) for a in args_list]
        futures = [self._pool.submit(_timed, fn, a) for a in args_list]
        return [f.result() for f in futures]

    def run_parts(self, fn, args_of_part):
        error = None
        out = [None] * self.threads
        busy = 0.0
        try:
            done = self._parallel(fn, [args_of_part(p) for p in self.local_parts])
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
        self.comm.Allreduce(array, out, op=ops[op])
        return out

    def exchanged(self):
        return self._moved

    def _rowtype(self, array):
        """An MPI datatype of one row of ``array`` (counts then are rows, so a buffer
        of more than 2^31 bytes still has int counts)."""
        row = int(np.prod(array.shape[1:], dtype=np.int64)) * array.itemsize
        t = self._types.get(row)
        if t is None:
            t = self._types[row] = self.MPI.BYTE.Create_contiguous(row).Commit()
        return t

    def gather(self, array, offsets):
        ro = self._rank_offsets(offsets)
        lo, hi = int(ro[self.rank]), int(ro[self.rank + 1])
        counts = np.diff(ro).astype(np.int64)
        out = np.empty_like(array)
        t = self._rowtype(array)
        mine = np.ascontiguousarray(array[lo:hi])
        self.comm.Allgatherv([mine, hi - lo, t], [out, (counts, ro[:-1].copy()), t])
        return out

    @staticmethod
    def _displs(counts):
        d = np.zeros_like(counts)
        np.cumsum(counts[:-1], out=d[1:])
        return d

    def _alltoallv(self, comm, arrays, counts):
        """Send ``counts[q]`` consecutive rows of each array to rank q of ``comm``;
        returns the rows received (in rank order) and the seconds spent waiting in the
        exchange of counts (every rank must reach it: that is barrier time)."""
        t0 = time.perf_counter()
        recv_counts = np.empty_like(counts)
        comm.Alltoall(counts, recv_counts)
        waited = time.perf_counter() - t0
        sd, rd = self._displs(counts), self._displs(recv_counts)
        total = int(recv_counts.sum())
        got = []
        for a in arrays:
            out = np.empty((total, *a.shape[1:]), dtype=a.dtype)
            t = self._rowtype(a)
            comm.Alltoallv([np.ascontiguousarray(a), (counts, sd), t], [out, (recv_counts, rd), t])
            got.append(out)
        return got, waited

    # ------------------------------------------------------------------ moving pairs
    def _exchange(self, job, ids, vals, combine, counts=None):
        """Move (receiver, value) pairs, grouped by receiving rank (``counts`` per rank;
        if not given, ``ids`` are sorted), to the receivers' ranks; returns the pairs
        received, the seconds waited for other ranks, and (values, bytes) moved between
        processes (direct) or nodes (node aggregation)."""
        if counts is None:
            bounds = np.searchsorted(ids, self._rank_offsets(job.offsets))
            counts = np.diff(bounds).astype(np.int64)
        if self.topology is None:
            (got_ids, got_vals), waited = self._alltoallv(self.comm, (ids, vals), counts)
            sent = int(counts.sum() - counts[self.rank])
            return got_ids, got_vals, waited, (sent, sent * (ids.itemsize + _row_bytes(vals)))
        return self._exchange_by_node(ids, vals, counts, combine)

    def _exchange_by_node(self, ids, vals, counts, combine):
        """Node aggregation: gather to the leader, combine, one bundle per node among
        leaders, scatter to the node's ranks."""
        topo = self.topology
        node, lead = topo.node, topo.is_leader
        rt, vt = self._rowtype(ids), self._rowtype(vals)
        t0 = time.perf_counter()
        # 1. hand the pairs to the leader (sizes first: also the node's sync point)
        k = int(counts.sum())
        sizes = node.gather(k, root=0)
        waited = time.perf_counter() - t0
        if lead:
            sizes = np.array(sizes, dtype=np.int64)
            all_ids = np.empty(int(sizes.sum()), dtype=ids.dtype)
            all_vals = np.empty((int(sizes.sum()), *vals.shape[1:]), dtype=vals.dtype)
            rbuf_i = [all_ids, (sizes, self._displs(sizes)), rt]
            rbuf_v = [all_vals, (sizes, self._displs(sizes)), vt]
        else:
            rbuf_i = rbuf_v = None
        node.Gatherv([ids, k, rt], rbuf_i, root=0)
        node.Gatherv([vals, k, vt], rbuf_v, root=0)
        moved = (0, 0)
        if lead:
            # 2. combine again per receiver: sort by receiver, then merge runs
            order = np.argsort(all_ids, kind="stable")
            all_ids, all_vals = all_ids[order], all_vals[order]
            if combine is not None:
                m = combine(all_ids, all_vals)
                all_ids, all_vals = all_ids[:m], all_vals[:m]
            # 3. one bundle per destination node (ranks of a node in ascending order)
            rank_bounds = np.searchsorted(all_ids, self._offsets_cache)
            nodes = topo.node_of_rank
            order_ranks = np.argsort(nodes, kind="stable")
            pieces = [slice(rank_bounds[r], rank_bounds[r + 1]) for r in order_ranks]
            if not np.all(order_ranks == np.arange(self.size)):
                all_ids = np.concatenate([all_ids[s] for s in pieces])
                all_vals = np.concatenate([all_vals[s] for s in pieces])
            node_counts = np.bincount(
                nodes, weights=np.diff(rank_bounds), minlength=topo.num_nodes
            ).astype(np.int64)
            me = topo.leaders.Get_rank()
            sent = int(node_counts.sum() - node_counts[me])
            moved = (sent, sent * (ids.itemsize + _row_bytes(vals)))
            (in_ids, in_vals), w = self._alltoallv(topo.leaders, (all_ids, all_vals), node_counts)
            waited += w
            # 4. split what arrived by receiving rank (sorted: grouped by rank)
            order = np.argsort(in_ids, kind="stable")
            in_ids, in_vals = in_ids[order], in_vals[order]
            b = np.searchsorted(in_ids, self._offsets_cache)
            out_counts = np.array([b[r + 1] - b[r] for r in topo.members], dtype=np.int64)
        else:
            in_ids = in_vals = out_counts = None
        mine = int(node.scatter(out_counts, root=0))
        got_ids = np.empty(mine, dtype=ids.dtype)
        got_vals = np.empty((mine, *vals.shape[1:]), dtype=vals.dtype)
        if lead:
            sd = self._displs(out_counts)
            node.Scatterv([in_ids, (out_counts, sd), rt], [got_ids, mine, rt], root=0)
            node.Scatterv([in_vals, (out_counts, sd), vt], [got_vals, mine, vt], root=0)
        else:
            node.Scatterv(None, [got_ids, mine, rt], root=0)
            node.Scatterv(None, [got_vals, mine, vt], root=0)
        return got_ids, got_vals, waited, moved

    # ------------------------------------------------------------------ delivery
    def prepare(self, job):
        from hpgraph.engine import codegen

        prog, k, n = job.program, job.kernels, job.graph.n
        mshape, mdtype = prog.message_shape, prog.message_dtype
        idx = job.graph.indices.dtype
        self.node_topology()
        ro = self._rank_offsets(job.offsets)
        self._offsets_cache = ro
        lo, hi = int(ro[self.rank]), int(ro[self.rank + 1])
        self._lo, self._hi = lo, hi
        # The other ranks' ranges, each split into `threads` chunks balanced by edges.
        cuts = [
            _balanced_cuts(job.graph.indptr, int(ro[q]), int(ro[q + 1]), self.threads)
            for q in range(self.size)
            if q != self.rank
        ]
        others = [q for q in range(self.size) if q != self.rank]
        chunks = [
            (int(c[i]), int(c[i + 1]), q) for q, c in zip(others, cuts, strict=True)
            for i in range(len(c) - 1)
        ]  # fmt: skip
        self._chunks = [(a, b) for a, b, _ in chunks if b > a]
        #: the rank owning each chunk: chunks are listed by owner, so the pairs they
        #: yield are grouped by destination rank without sorting
        self._chunk_owner = np.array([q for a, b, q in chunks if b > a], dtype=np.int64)
        # Remote receivers are marked "halted" in a scratch state, so that _receive lists
        # each one the first time it is hit (in a scratch list): n B + n * 4 B per rank.
        job.a["mpi_state"] = np.full(n, HALTED, dtype=np.uint8)
        job.a["mpi_hit"] = np.empty(n, dtype=idx)
        job.a["mpi_counters"] = np.zeros((max(len(self._chunks), 1), 16), dtype=np.int64)
        self._scratch = {
            "state_d": describe(job.a["mpi_state"]),
            "next_candidates_d": describe(job.a["mpi_hit"]),
        }
        empty = job.ctx(job.partition.parts - 1)._replace(lo=0, hi=0)
        ids = np.zeros(0, dtype=idx)
        vals = np.zeros((0, *mshape), dtype=mdtype)
        if prog.combined:
            self._merge = codegen.entry_point(prog, k.merge_combined, empty, ids, vals)
            self._combine_runs = codegen.entry_point(prog, k.combine_runs, ids.copy(), vals)
        else:
            ids64 = np.zeros(0, dtype=np.int64)
            self._emit = codegen.entry_point(prog, k.emit_listed, empty, False, ids64, vals)
            self._mark = codegen.entry_point(prog, k.mark_listed, empty, ids64)

    def deliver(self, job, pull):
        t0 = time.perf_counter()
        error = None
        waited = 0.0
        moved = (0, 0)
        try:
            if job.program.combined:
                waited, moved = self._deliver_combined(job, pull)
            else:
                waited, moved = self._deliver_listed(job)
        except Exception as exc:  # reported to every rank below
            error = exc
        busy = (time.perf_counter() - t0 - waited) * self.threads
        mean = self._agree(error, busy, moved)
        return [(None, mean) for _ in self.local_parts]

    def _deliver_combined(self, job, pull):
        prog = job.program
        n = job.graph.n
        lo, hi = self._lo, self._hi
        sender_counts = job.counters()[:, _SENDERS].copy()  # only our parts are non-zero
        edge = job.edge_arrays(pull)
        # Pull with the "any" combiner stops at a receiver's first sender: splitting each
        # in-row over the ranks would make every rank scan every receiver. While the
        # senders are few (at most n/8: the frontier as bottom-up BFS starts) their
        # values are mirrored on every rank instead and each rank pulls for its own
        # receivers along whole in-rows, as on shared memory; the remote pass then
        # carries only direct sends. (Kronecker 20, 2 ranks: mirroring a 6% frontier
        # beat the split pull 64 to 87 ms; at 52% the split pull won 25 to 31 ms, and
        # mirroring whole ranges, 9 MB, was slower still on a busy machine.)
        mirror = (
            pull
            and prog.combiner == "any"
            and self.size > 1
            and self.comm.allreduce(int(sender_counts.sum())) <= n // 8
        )
        mirrored, extra = None, (0, 0)
        if mirror:
            mirrored, extra = self._mirror_senders(job, sender_counts)
            own = (pull, False, 0, n, *edge, job.offsets, sender_counts)
            none = np.zeros_like(sender_counts)
            other = (False, False, lo, hi, *edge, job.offsets, none)
        else:
            if pull and self.size > 1:
                self._learn_finished(job)
            everyone = prog.edge_message is None and int(sender_counts.sum()) == hi - lo
            own = other = (pull, everyone, lo, hi, *edge, job.offsets, sender_counts)
        lists = (job.all_dst, job.all_val)
        # own receivers (one task per part) and other ranks' (one per chunk), at once
        hits = job.a["mpi_counters"]
        hits[:, _CANDIDATES] = 0
        remote = job.base._replace(**self._scratch)
        tasks = [(job.ctx(p), *own, *lists) for p in self.local_parts]
        for c, (a, b) in enumerate(self._chunks):
            ctx = remote._replace(lo=a, hi=b, counters_d=describe(hits[c, : len(COUNTERS)]))
            tasks.append((ctx, *other, *lists))
        self._parallel(job.deliver_combined, tasks)
        if mirrored is not None:  # forget the other ranks' senders
            for where in mirrored:
                job.a["sending"][where] = SEND_NONE
        # the pairs, grouped by destination rank (chunk by chunk; not sorted within)
        hit = job.a["mpi_hit"]
        found = hits[: len(self._chunks), _CANDIDATES]
        parts = [hit[a : a + int(k)] for (a, _), k in zip(self._chunks, found, strict=True)]
        ids = np.concatenate(parts) if parts else hit[:0].copy()
        vals = job.a["inbox"][ids]
        job.a["has_msg"][ids] = 0
        counts = np.bincount(self._chunk_owner, weights=found, minlength=self.size)
        combine = self._combine_runs if self.topology is not None else None
        got_ids, got_vals, waited, moved = self._exchange(
            job, ids, vals, combine, counts.astype(np.int64)
        )
        self._parallel(self._merge, [(job.ctx(p), got_ids, got_vals) for p in self.local_parts])
        return waited, (moved[0] + extra[0], moved[1] + extra[1])

    def _mirror_senders(self, job, sender_counts):
        """Copy every rank's senders (id, value, kind) into this rank's outbox and
        sending flags (``Allgatherv``); returns the other ranks' sender ids (to clear
        after delivery) and the (values, bytes) this rank sent."""
        senders, outbox, sending = job.a["senders"], job.a["outbox"], job.a["sending"]
        ids = np.concatenate(
            [senders[job.offsets[p] : job.offsets[p] + sender_counts[p]] for p in self.local_parts]
        )
        vals, kinds = outbox[ids], sending[ids]
        counts = np.array(self.comm.allgather(ids.shape[0]), dtype=np.int64)
        displs = self._displs(counts)
        got = []
        for a in (ids, vals, kinds):
            out = np.empty((int(counts.sum()), *a.shape[1:]), dtype=a.dtype)
            t = self._rowtype(a)
            self.comm.Allgatherv([a, a.shape[0], t], [out, (counts, displs), t])
            got.append(out)
        a, b = int(displs[self.rank]), int(displs[self.rank] + counts[self.rank])
        keep = np.ones(got[0].shape[0], dtype=bool)
        keep[a:b] = False  # our own, already in place
        rid = got[0][keep]
        outbox[rid] = got[1][keep]
        sending[rid] = got[2][keep]
        k = ids.shape[0] * (self.size - 1)
        return [rid], (k, k * (ids.itemsize + _row_bytes(vals) + 1))

    def _learn_finished(self, job):
        """Mark the other ranks' finished vertices in the scratch state (a bitmap
        ``Allgatherv``: n / 8 bytes), so that pull skips them as it does on shared memory
        (bottom-up BFS) and nothing is shipped to them. Finished is for good, so marks
        learnt in an earlier superstep stay true."""
        ro = self._offsets_cache
        sizes = np.diff(ro)
        nbytes = (sizes + 7) // 8
        mine = np.packbits(job.a["state"][self._lo : self._hi] == FINISHED)
        bits = np.empty(int(nbytes.sum()), dtype=np.uint8)
        self.comm.Allgatherv(mine, [bits, (nbytes, self._displs(nbytes))])
        scratch = job.a["mpi_state"]
        start = 0
        for q in range(self.size):
            a, b = int(ro[q]), int(ro[q + 1])
            if q != self.rank and b > a:
                flags = np.unpackbits(bits[start : start + nbytes[q]], count=b - a)
                scratch[a:b] = np.where(flags != 0, FINISHED, HALTED)
            start += int(nbytes[q])

    def _deliver_listed(self, job):
        prog = job.program
        lo, hi = self._lo, self._hi
        shape, dtype = prog.message_shape, prog.message_dtype
        none_i = np.zeros(0, dtype=np.int64)
        none_v = np.zeros((0, *shape), dtype=dtype)
        dst_parts, val_parts = [], []
        for p in self.local_parts:
            ctx = job.ctx(p)
            count = self._emit(ctx, False, none_i, none_v)
            dst = np.empty(count, dtype=np.int64)
            val = np.empty((count, *shape), dtype=dtype)
            self._emit(ctx, True, dst, val)
            dst_parts.append(dst)
            val_parts.append(val)
        dst, val = np.concatenate(dst_parts), np.concatenate(val_parts)
        order = np.argsort(dst, kind="stable")  # by receiver, senders' order kept
        got_dst, got_val, waited, moved = self._exchange(job, dst[order], val[order], None)
        keep = job.a["state"][got_dst] != FINISHED  # messages to finished vertices: dropped
        got_dst, got_val = got_dst[keep], got_val[keep]
        order = np.argsort(got_dst, kind="stable")
        got_dst, got_val = got_dst[order], got_val[order]
        per_vertex = np.bincount(got_dst - lo, minlength=hi - lo).astype(np.int64)
        ptr = job.a["msg_ptr"]
        ptr[lo] = 0
        np.cumsum(per_vertex, out=ptr[lo + 1 : hi + 1])
        job.set_array("msg_val", np.ascontiguousarray(got_val))
        for p in self.local_parts:
            a, b = int(job.offsets[p]), int(job.offsets[p + 1])
            self._mark(job.ctx(p), per_vertex[a - lo : b - lo])
        return waited, moved

    def close(self):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        for t in self._types.values():
            t.Free()
        self._types = {}
        if self.topology is not None:
            self.topology.free(self.MPI)
            self.topology = None

    def __repr__(self):
        return (
            f"MPIRuntime(rank={self.rank}, size={self.size}, threads={self.threads}, "
            f"aggregation={self.aggregation!r}, rows={self.rows!r})"
        )


def _row_bytes(a):
    return int(np.prod(a.shape[1:], dtype=np.int64)) * a.itemsize
