"""The MPI runtime: one part per rank, messages combined at the sender and moved with
``Alltoallv`` on numpy buffers (no pickling on the hot path).

Run the same program under ``mpiexec -n P python script.py`` with ``runtime="mpi"`` (or
``hpgraph run ... --ranks P``). Every rank builds or loads the graph, owns the vertex
range of its part (ranges balanced by edges, as on the local runtime) and computes only
those vertices. A superstep's messages travel like this:

1. each rank delivers its own senders' broadcasts and direct sends into scratch arrays
   covering every vertex, combining per receiver (the shared ``deliver_combined`` kernel
   in push mode), so at most one value per (receiver, sending rank) leaves the rank;
2. the (receiver, value) pairs go to the receivers' owners in one ``Alltoallv``;
3. each owner merges what arrived into its inbox (``merge_combined``).

Without a combiner every message is shipped (``emit_listed``) and listed per receiver.
Counters and aggregators are reduced with ``Allreduce``, so halting, aggregators and the
master hook behave exactly as on the local runtime.

Errors: inputs are checked before the job starts, on every rank alike. A phase that
raises on one rank is reported to all through an ``Allreduce`` of a failure flag at the
end of the phase, so every rank stops with an error instead of waiting forever.

Limits of this first version: the whole graph is held by every rank (each rank reads
the input), and a rank runs one thread.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from hpgraph.engine.context import FINISHED
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.graph.partition import range_partition
from hpgraph.runtimes.base import Runtime

__all__ = ["MPIRuntime", "mpiexec_path"]


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


class MPIRuntime(Runtime):
    """One part per MPI rank of ``comm`` (default: ``COMM_WORLD``)."""

    name = "mpi"

    def __init__(self, comm=None):
        MPI = _mpi()
        self.MPI = MPI
        self.comm = comm if comm is not None else MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()

    @property
    def num_parts(self) -> int:
        return self.size

    @property
    def local_parts(self):
        return [self.rank]

    @property
    def is_root(self) -> bool:
        return self.rank == 0

    def partition(self, graph):
        return range_partition(graph, self.size)

    # ------------------------------------------------------------------ collectives
    def _agree(self, error):
        """Every rank learns whether any rank failed in the phase just ended."""
        failed = self.comm.allreduce(1 if error is not None else 0, op=self.MPI.SUM)
        if error is not None:
            raise error
        if failed:
            raise RuntimeErrorInJob(f"{failed} other MPI rank(s) failed; rank {self.rank} stops")

    def run_parts(self, fn, args_of_part):
        error = None
        out = None
        t0 = time.perf_counter()
        try:
            out = fn(*args_of_part(self.rank))
        except Exception as exc:  # reported to every rank below
            error = exc
        seconds = time.perf_counter() - t0
        self._agree(error)
        return [(out, seconds)]

    def allreduce(self, array, op="sum"):
        ops = {"sum": self.MPI.SUM, "min": self.MPI.MIN, "max": self.MPI.MAX}
        array = np.ascontiguousarray(array)
        out = np.empty_like(array)
        self.comm.Allreduce(array, out, op=ops[op])
        return out

    def gather(self, array, offsets):
        lo, hi = int(offsets[self.rank]), int(offsets[self.rank + 1])
        row = int(np.prod(array.shape[1:], dtype=np.int64)) * array.itemsize
        counts = np.diff(offsets).astype(np.int64) * row
        displs = offsets[:-1].astype(np.int64) * row
        out = np.empty_like(array)
        mine = np.ascontiguousarray(array[lo:hi]).view(np.uint8).reshape(-1)
        self.comm.Allgatherv(
            mine, [out.view(np.uint8).reshape(-1), (counts, displs), self.MPI.BYTE]
        )
        return out

    def _alltoallv(self, send: np.ndarray, counts: np.ndarray):
        """Send ``counts[q]`` consecutive rows of ``send`` to rank q; returns the rows
        received, in rank order."""
        row = int(np.prod(send.shape[1:], dtype=np.int64)) * send.itemsize
        recv_counts = np.empty_like(counts)
        self.comm.Alltoall(counts, recv_counts)
        sdispl = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]])
        out = np.empty((int(recv_counts.sum()), *send.shape[1:]), dtype=send.dtype)
        sbuf = np.ascontiguousarray(send).view(np.uint8).reshape(-1)
        rbuf = out.view(np.uint8).reshape(-1)
        self.comm.Alltoallv(
            [sbuf, (counts * row, sdispl * row), self.MPI.BYTE],
            [rbuf, (recv_counts * row, rdispl * row), self.MPI.BYTE],
        )
        return out

    # ------------------------------------------------------------------ delivery
    def prepare(self, job):
        from hpgraph.engine import codegen
        from hpgraph.engine.context import describe

        prog, k, n = job.program, job.kernels, job.graph.n
        mshape, mdtype = prog.message_shape, prog.message_dtype
        idx = job.graph.indices.dtype
        # scratch receiver state over all vertices, for sender-side combining
        job.a["mpi_inbox"] = np.zeros((n, *mshape), dtype=mdtype)
        job.a["mpi_has"] = np.zeros(n, dtype=np.uint8)
        job.a["mpi_state"] = np.zeros(n, dtype=np.uint8)  # all ACTIVE: nothing skipped
        job.a["mpi_next"] = np.empty(n, dtype=idx)
        job.a["mpi_counters"] = np.zeros(16, dtype=np.int64)
        self._scratch = {
            "inbox_d": describe(job.a["mpi_inbox"]),
            "has_msg_d": describe(job.a["mpi_has"]),
            "state_d": describe(job.a["mpi_state"]),
            "next_candidates_d": describe(job.a["mpi_next"]),
        }
        empty = job.ctx(self.rank)._replace(lo=0, hi=0)
        ids = np.zeros(0, dtype=np.int64)
        vals = np.zeros((0, *mshape), dtype=mdtype)
        if prog.combined:
            self._merge = codegen.entry_point(prog, k.merge_combined, empty, ids, vals)
        else:
            self._emit = codegen.entry_point(prog, k.emit_listed, empty, False, ids, vals)
            self._mark = codegen.entry_point(prog, k.mark_listed, empty, ids)

    def deliver(self, job, pull):
        t0 = time.perf_counter()
        error = None
        try:
            if job.program.combined:
                self._deliver_combined(job)
            else:
                self._deliver_listed(job)
        except Exception as exc:  # reported to every rank below
            error = exc
        seconds = time.perf_counter() - t0
        self._agree(error)
        return [(None, seconds)]

    def _owners(self, job, ids):
        return np.bincount(
            np.searchsorted(job.offsets, ids, side="right") - 1, minlength=self.size
        ).astype(np.int64)

    def _deliver_combined(self, job):
        from hpgraph.engine.context import describe

        me = self.rank
        n = job.graph.n
        ctx = job.ctx(me)
        scratch_counters = job.a["mpi_counters"]
        scratch_counters[:] = 0
        own = job.counters()[:, 2].copy()  # senders per part: only ours is non-zero here
        combine_all = ctx._replace(
            lo=0, hi=n, counters_d=describe(scratch_counters[:8]), **self._scratch
        )
        out_csr = job._edge_arrays(False)
        job.deliver_combined(
            combine_all, False, False, *out_csr, job.offsets, own, job.all_dst, job.all_val
        )
        has = job.a["mpi_has"]
        ids = np.flatnonzero(has)
        vals = job.a["mpi_inbox"][ids]
        has[ids] = 0
        counts = self._owners(job, ids)
        got_ids = self._alltoallv(ids.astype(np.int64), counts)
        got_vals = self._alltoallv(vals, counts)
        self._merge(ctx, got_ids, got_vals)

    def _deliver_listed(self, job):
        prog = job.program
        me = self.rank
        ctx = job.ctx(me)
        lo, hi = int(job.offsets[me]), int(job.offsets[me + 1])
        none_i = np.zeros(0, dtype=np.int64)
        none_v = np.zeros((0, *prog.message_shape), dtype=prog.message_dtype)
        count = self._emit(ctx, False, none_i, none_v)
        dst = np.empty(count, dtype=np.int64)
        val = np.empty((count, *prog.message_shape), dtype=prog.message_dtype)
        self._emit(ctx, True, dst, val)
        order = np.argsort(dst, kind="stable")  # by receiver, senders' order kept
        dst, val = dst[order], val[order]
        counts = self._owners(job, dst)
        got_dst = self._alltoallv(dst, counts)
        got_val = self._alltoallv(val, counts)
        keep = job.a["state"][got_dst] != FINISHED  # messages to finished vertices: dropped
        got_dst, got_val = got_dst[keep], got_val[keep]
        order = np.argsort(got_dst, kind="stable")
        got_dst, got_val = got_dst[order], got_val[order]
        per_vertex = np.bincount(got_dst - lo, minlength=hi - lo).astype(np.int64)
        ptr = job.a["msg_ptr"]
        ptr[lo] = 0
        np.cumsum(per_vertex, out=ptr[lo + 1 : hi + 1])
        job.set_array("msg_val", np.ascontiguousarray(got_val))
        self._mark(job.ctx(me), per_vertex)

    def __repr__(self):
        return f"MPIRuntime(rank={self.rank}, size={self.size})"
