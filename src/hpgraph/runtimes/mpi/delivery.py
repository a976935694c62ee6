"""The vertex engine's message delivery on the MPI runtime: one superstep's messages from
this rank's senders to every rank's receivers.

With a combiner, a superstep's messages travel like this:

1. each rank delivers its own senders' messages to its own vertices in place (the shared
   ``deliver_combined`` kernel, push or pull, reading in pull mode only the slice of each
   in-row that lies in the rank's range);
2. the same kernel runs over the *other* ranks' ranges, still with this rank's senders
   only, combining per receiver into the (otherwise unused) inbox slots of those
   vertices: at most one value per (receiver, sending rank) leaves the rank. First-hit
   receivers are listed as they are found (a scratch state marks them all "halted"), so
   the cost is the messages', not one pass over every vertex;
3. the (receiver, value) pairs, grouped by owner (chunk by chunk), go to their owners
   (:mod:`hpgraph.runtimes.mpi.pairs`: one ``Alltoallv``, or through node leaders);
4. the owner merges what arrived into its inbox (``merge_combined``).

Two refinements for pull supersteps: other ranks' finished vertices are learnt from a
bitmap ``Allgatherv`` (n / 8 bytes), so remote pull skips them as shared memory does; and
with the "any" combiner (early exit: bottom-up BFS), where splitting in-rows over ranks
would make every rank scan every receiver, the senders' values are mirrored on every rank
instead and each rank pulls for its own receivers along whole in-rows.

Without a combiner every message is shipped (``emit_listed``) and listed per receiver.
"""

from __future__ import annotations

import numpy as np

from hpgraph.engine.context import COUNTERS, FINISHED, HALTED, SEND_NONE, describe
from hpgraph.engine.schedule import balanced_cuts
from hpgraph.runtimes.mpi.buffers import allgatherv, displs, row_bytes
from hpgraph.runtimes.mpi.pairs import exchange_pairs

__all__ = ["VertexDelivery"]

_SENDERS = COUNTERS.index("senders")
_CANDIDATES = COUNTERS.index("candidates")


def _balanced_cuts(indptr, lo, hi, pieces):
    """``pieces`` + 1 boundaries splitting [lo, hi) into ranges of about equal
    8 * vertices + edges (the partitioner's work measure), or of equal vertex counts
    when the rows are another process's (``indptr`` None: a part holds only its own)."""
    if pieces <= 1 or hi <= lo:
        return np.array([lo, hi], dtype=np.int64)
    if indptr is None:
        return np.linspace(lo, hi, pieces + 1).astype(np.int64)
    return balanced_cuts(indptr, lo, hi, pieces)


class VertexDelivery:
    """What delivery needs for one job on the MPI runtime ``rt`` (made by its
    ``prepare``): the ranks' ranges, the other ranks' ranges in chunks for this rank's
    threads, scratch arrays in ``job.a`` and the compiled merge or listing kernels."""

    def __init__(self, rt, job):
        from hpgraph.engine import codegen

        self.rt = rt
        prog, k, n = job.program, job.kernels, job.graph.n
        mshape, mdtype = prog.message_shape, prog.message_dtype
        idx = job.graph.indices.dtype
        ro = rt.rank_offsets(job.offsets)
        #: the ranks' vertex ranges, length size + 1
        self.rank_offsets = ro
        self.lo, self.hi = int(ro[rt.rank]), int(ro[rt.rank + 1])
        # The other ranks' ranges, each split into `threads` chunks balanced by edges.
        others = [q for q in range(rt.size) if q != rt.rank]
        indptr = None if job.part else job.graph.indptr
        cuts = [_balanced_cuts(indptr, int(ro[q]), int(ro[q + 1]), rt.threads) for q in others]
        chunks = [
            (int(c[i]), int(c[i + 1]), q) for q, c in zip(others, cuts, strict=True)
            for i in range(len(c) - 1)
        ]  # fmt: skip
        self.chunks = [(a, b) for a, b, _ in chunks if b > a]
        #: the rank owning each chunk: chunks are listed by owner, so the pairs they
        #: yield are grouped by destination rank without sorting
        self.chunk_owner = np.array([q for a, b, q in chunks if b > a], dtype=np.int64)
        # Remote receivers are marked "halted" in a scratch state, so that _receive lists
        # each one the first time it is hit (in a scratch list): n B + n * 4 B per rank.
        job.a["mpi_state"] = np.full(n, HALTED, dtype=np.uint8)
        job.a["mpi_hit"] = np.empty(n, dtype=idx)
        job.a["mpi_counters"] = np.zeros((max(len(self.chunks), 1), 16), dtype=np.int64)
        self.scratch = {
            "state_d": describe(job.a["mpi_state"]),
            "next_candidates_d": describe(job.a["mpi_hit"]),
        }
        empty = job.ctx(job.partition.parts - 1)._replace(lo=0, hi=0)
        ids = np.zeros(0, dtype=idx)
        vals = np.zeros((0, *mshape), dtype=mdtype)
        if prog.combined:
            self.merge = codegen.entry_point(prog, k.merge_combined, empty, ids, vals)
            self.combine_runs = codegen.entry_point(prog, k.combine_runs, ids.copy(), vals)
        else:
            ids64 = np.zeros(0, dtype=np.int64)
            self.emit = codegen.entry_point(prog, k.emit_listed, empty, False, ids64, vals)
            self.mark = codegen.entry_point(prog, k.mark_listed, empty, ids64)

    def deliver(self, job, pull):
        """Deliver the superstep's messages; returns the seconds waited for other ranks
        and the (values, bytes) this rank moved."""
        if job.program.combined:
            return self._deliver_combined(job, pull)
        return self._deliver_listed(job)

    def _exchange(self, ids, vals, combine, counts):
        return exchange_pairs(self.rt, self.rank_offsets, ids, vals, counts, combine)

    def _deliver_combined(self, job, pull):
        rt = self.rt
        prog = job.program
        n = job.graph.n
        lo, hi = self.lo, self.hi
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
            and rt.size > 1
            and (job.part or rt.comm.allreduce(int(sender_counts.sum())) <= n // 8)
        )  # (a part has no other rank's in-rows to split: it always mirrors)
        mirrored, extra = None, (0, 0)
        if mirror:
            mirrored, extra = self._mirror_senders(job, sender_counts)
            own = (pull, False, 0, n, *edge, job.offsets, sender_counts)
            none = np.zeros_like(sender_counts)
            other = (False, False, lo, hi, *edge, job.offsets, none)
        else:
            if pull and rt.size > 1:
                self._learn_finished(job)
            everyone = prog.edge_message is None and int(sender_counts.sum()) == hi - lo
            own = other = (pull, everyone, lo, hi, *edge, job.offsets, sender_counts)
        lists = (job.all_dst, job.all_val, job.direct_order)
        # own receivers (one task per part) and other ranks' (one per chunk), at once
        hits = job.a["mpi_counters"]
        hits[:, _CANDIDATES] = 0
        remote = job.base._replace(**self.scratch)
        tasks = [(job.ctx(p), *own, *lists) for p in rt.local_parts]
        for c, (a, b) in enumerate(self.chunks):
            ctx = remote._replace(lo=a, hi=b, counters_d=describe(hits[c, : len(COUNTERS)]))
            tasks.append((ctx, *other, *lists))
        rt.parallel(job.deliver_combined, tasks)
        if mirrored is not None:  # forget the other ranks' senders
            for where in mirrored:
                job.a["sending"][where] = SEND_NONE
        # the pairs, grouped by destination rank (chunk by chunk; not sorted within)
        hit = job.a["mpi_hit"]
        found = hits[: len(self.chunks), _CANDIDATES]
        parts = [hit[a : a + int(k)] for (a, _), k in zip(self.chunks, found, strict=True)]
        ids = np.concatenate(parts) if parts else hit[:0].copy()
        vals = job.a["inbox"][ids]
        job.a["has_msg"][ids] = 0
        counts = np.bincount(self.chunk_owner, weights=found, minlength=rt.size)
        combine = self.combine_runs if rt.topology is not None else None
        got_ids, got_vals, waited, sent = self._exchange(
            ids, vals, combine, counts.astype(np.int64)
        )
        rt.parallel(self.merge, [(job.ctx(p), got_ids, got_vals) for p in rt.local_parts])
        return waited, (sent[0] + extra[0], sent[1] + extra[1])

    def _mirror_senders(self, job, sender_counts):
        """Copy every rank's senders (id, value, kind) into this rank's outbox and
        sending flags (``Allgatherv``); returns the other ranks' sender ids (to clear
        after delivery) and the (values, bytes) this rank sent."""
        rt = self.rt
        senders, outbox, sending = job.a["senders"], job.a["outbox"], job.a["sending"]
        ids = np.concatenate(
            [senders[job.offsets[p] : job.offsets[p] + sender_counts[p]] for p in rt.local_parts]
        )
        vals, kinds = outbox[ids], sending[ids]
        counts = np.array(rt.comm.allgather(ids.shape[0]), dtype=np.int64)
        got = allgatherv(rt.comm, rt.rowtypes, (ids, vals, kinds), counts)
        a = int(displs(counts)[rt.rank])
        keep = np.ones(got[0].shape[0], dtype=bool)
        keep[a : a + int(counts[rt.rank])] = False  # our own, already in place
        rid = got[0][keep]
        outbox[rid] = got[1][keep]
        sending[rid] = got[2][keep]
        k = ids.shape[0] * (rt.size - 1)
        return [rid], (k, k * (ids.itemsize + row_bytes(vals) + 1))

    def _learn_finished(self, job):
        """Mark the other ranks' finished vertices in the scratch state (a bitmap
        ``Allgatherv``: n / 8 bytes), so that pull skips them as it does on shared memory
        (bottom-up BFS) and nothing is shipped to them. Finished is for good, so marks
        learnt in an earlier superstep stay true."""
        rt = self.rt
        ro = self.rank_offsets
        sizes = np.diff(ro)
        nbytes = (sizes + 7) // 8
        mine = np.packbits(job.a["state"][self.lo : self.hi] == FINISHED)
        bits = np.empty(int(nbytes.sum()), dtype=np.uint8)
        rt.comm.Allgatherv(mine, [bits, (nbytes, displs(nbytes))])
        scratch = job.a["mpi_state"]
        start = 0
        for q in range(rt.size):
            a, b = int(ro[q]), int(ro[q + 1])
            if q != rt.rank and b > a:
                flags = np.unpackbits(bits[start : start + nbytes[q]], count=b - a)
                scratch[a:b] = np.where(flags != 0, FINISHED, HALTED)
            start += int(nbytes[q])

    def _deliver_listed(self, job):
        rt = self.rt
        prog = job.program
        lo, hi = self.lo, self.hi
        shape, dtype = prog.message_shape, prog.message_dtype
        none_i = np.zeros(0, dtype=np.int64)
        none_v = np.zeros((0, *shape), dtype=dtype)
        dst_parts, val_parts = [], []
        for p in rt.local_parts:
            ctx = job.ctx(p)
            count = self.emit(ctx, False, none_i, none_v)
            dst = np.empty(count, dtype=np.int64)
            val = np.empty((count, *shape), dtype=dtype)
            self.emit(ctx, True, dst, val)
            dst_parts.append(dst)
            val_parts.append(val)
        dst, val = np.concatenate(dst_parts), np.concatenate(val_parts)
        order = np.argsort(dst, kind="stable")  # by receiver, senders' order kept
        dst, val = dst[order], val[order]
        counts = np.diff(np.searchsorted(dst, self.rank_offsets)).astype(np.int64)
        got_dst, got_val, waited, sent = self._exchange(dst, val, None, counts)
        keep = job.a["state"][got_dst] != FINISHED  # messages to finished vertices: dropped
        got_dst, got_val = got_dst[keep], got_val[keep]
        order = np.argsort(got_dst, kind="stable")
        got_dst, got_val = got_dst[order], got_val[order]
        per_vertex = np.bincount(got_dst - lo, minlength=hi - lo).astype(np.int64)
        ptr = job.a["msg_ptr"]
        ptr[lo] = 0
        np.cumsum(per_vertex, out=ptr[lo + 1 : hi + 1])
        job.set_array("msg_val", np.ascontiguousarray(got_val))
        for p in rt.local_parts:
            a, b = int(job.offsets[p]), int(job.offsets[p + 1])
            self.mark(job.ctx(p), per_vertex[a - lo : b - lo])
        return waited, sent
