"""Running a vertex program: the superstep loop (compute -> deliver -> barrier).

The loop is written once, against :class:`~hpgraph.engine.contract.Runtime`; the compiled
kernels come from :mod:`hpgraph.engine.codegen`. Per job it allocates, per vertex: the
value, one message slot in and one out, three state bytes, three int32 list entries and
the local degree (about 43 B for float64 values and messages, see docs/engine.md); per
edge nothing, except the in-edges of a directed graph the first time delivery runs
pull-style.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import from_dtype, types
from numba.typed import List

from hpgraph import config
from hpgraph.engine import buffers, codegen
from hpgraph.engine.context import (
    ACTIVE,
    AGG_MAX,
    AGG_MIN,
    AGG_SUM,
    COMBINED_MODE,
    COUNTERS,
    HALTED,
    LIST_BASE,
    LISTED_MODE,
    VertexContext,
    describe,
)
from hpgraph.engine.contract import resolve
from hpgraph.engine.program import VertexProgram
from hpgraph.engine.schedule import chunk_cuts
from hpgraph.engine.segments import NO_STARTS, segment_count, segment_starts
from hpgraph.engine.stats import JobStats, SuperstepStats
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.graph.part import PartGraph, window
from hpgraph.graph.partition import local_degrees

__all__ = ["run", "JobResult", "MasterContext"]

_AGG_CODES = {"sum": AGG_SUM, "min": AGG_MIN, "max": AGG_MAX}
_AGG_IDENTITY = {"sum": 0.0, "min": np.inf, "max": -np.inf}
_C = {name: i for i, name in enumerate(COUNTERS)}
#: per-vertex arrays that no one uses once a job ends: kept for the next (engine/buffers.py)
_SCRATCH = (
    "state",
    "inbox",
    "has_msg",
    "msg_ptr",
    "outbox",
    "outbox_spare",
    "sending",
    "senders",
    "candidates",
    "next_candidates",
)
_NO_WEIGHTS = np.empty(0, dtype=np.float64)  # read-only like a graph's weights
_NO_WEIGHTS.flags.writeable = False
#: Once pulling with the "any" combiner, go on pulling while at least n / this many
#: vertices send (Beamer's beta for direction-optimising BFS; GAP uses 18).
PULL_KEEP_DIVISOR = 18


@dataclass
class JobResult:
    """Final vertex values (internal-id order) and how the job went."""

    values: np.ndarray
    supersteps: int
    aggregated: np.ndarray
    stats: JobStats
    stopped_by: str  #: "halt" (all halted, no messages), "master" or "limit"


class MasterContext:
    """What a master compute hook sees between supersteps (Giraph's MasterCompute).

    ``aggregated`` holds the reductions of the superstep just finished and is writable:
    what the master leaves there is what vertices read with ``ctx.aggregated(i)`` next.
    """

    def __init__(self, superstep, num_vertices, aggregated, last):
        self.superstep = superstep  #: the superstep about to run
        self.num_vertices = num_vertices
        self.aggregated = aggregated
        self.last = last  #: SuperstepStats of the superstep just finished
        self.halted = False

    def halt(self):
        """Stop the job before the next superstep."""
        self.halted = True


def _typed_lists(parts, item_type):
    outer = List()
    for _ in range(parts):
        outer.append(List.empty_list(item_type))
    return outer


def _initial_values(program, graph, values):
    """The value array: ``values`` (one row per vertex, or one scalar for every vertex;
    copied, so the caller's stays intact) or the program's initial value. A part gets
    a window over its own rows only."""
    shape = (graph.n, *program.value_shape)
    lo, hi = _own_rows(graph)
    local = (hi - lo, *program.value_shape)
    if values is None or np.ndim(values) == 0:
        fill = program.initial if values is None else values
        arr = np.full(local, fill, dtype=program.value_dtype)
    else:
        arr = np.asarray(values)
        if arr.shape != shape:
            raise InvalidArgumentError(f"values must have shape {shape}, got {arr.shape}")
        arr = np.array(arr[lo:hi], dtype=program.value_dtype)
    return arr if (lo, hi) == (0, graph.n) else window(arr, lo, graph.n)


def _awake_ids(awake, n):
    """``awake`` as sorted distinct int64 ids (None: every vertex), checked to lie in
    [0, n)."""
    if awake is None:
        return None
    ids = np.unique(np.asarray(awake, dtype=np.int64).ravel())
    if ids.size and (ids[0] < 0 or ids[-1] >= n):
        raise InvalidArgumentError(f"awake: vertex ids must lie in [0, {n}), got {ids[[0, -1]]}")
    return ids


def _own_rows(graph):
    """The vertices whose state this process holds: a part's own rows, else all."""
    return (graph.lo, graph.hi) if isinstance(graph, PartGraph) else (0, graph.n)


def run(
    program: VertexProgram,
    graph: Graph,
    *,
    params: dict | None = None,
    values=None,
    max_supersteps: int | None = None,
    threads: int | None = None,
    runtime=None,
    master=None,
    progress: bool = False,
    checkpoint=None,
    awake=None,
) -> JobResult:
    """Run ``program`` on ``graph`` until every vertex has halted with no message in
    flight, the ``master(ctx)`` hook calls ``ctx.halt()``, or ``max_supersteps`` ran.

    ``values`` overrides the program's initial value per vertex; ``params`` gives the
    values of the program's declared parameters. ``threads``/``runtime`` choose where it
    runs (default: the local runtime on every core). ``progress`` shows a live line.
    ``checkpoint`` (:class:`hpgraph.engine.checkpoint.Checkpoints`) writes superstep
    checkpoints and resumes from them (docs/checkpoints.md). ``awake``: the vertices
    (internal ids) that compute in superstep 0; the others start halted, keeping their
    initial value until a message wakes them, so superstep 0 costs the listed vertices,
    not a pass over all (a traversal from a source). Default: every vertex, as in Pregel.
    """
    if not isinstance(program, VertexProgram):
        raise InvalidArgumentError("program must come from hpgraph.vertex_program")
    if not isinstance(graph, (Graph, PartGraph)):
        raise InvalidArgumentError(f"graph must be an hpgraph Graph, got {type(graph).__name__}")
    if max_supersteps is not None and max_supersteps < 0:
        raise InvalidArgumentError(f"max_supersteps must be >= 0, got {max_supersteps}")
    param_values = program.param_array(params)
    value = _initial_values(program, graph, values)
    awake = _awake_ids(awake, graph.n)

    rt, own_runtime = resolve(runtime, threads, "vertex")
    try:
        job = _Job(program, graph, rt, value, param_values, awake)
        result = job.loop(max_supersteps, master, progress, checkpoint)
        if job.pooled and checkpoint is None:  # (a checkpoint may still be writing them)
            buffers.keep(job.a[name] for name in _SCRATCH if name in job.a)
        return result
    finally:
        if own_runtime:
            rt.close()


class _Job:
    """A running vertex job. What a runtime's ``prepare``/``deliver`` may use (the job
    view of the runtime contract, docs/runtimes.md): ``program``, ``kernels``, ``graph``,
    ``partition``, ``offsets``, ``a`` (every per-vertex array by name, e.g. ``state``,
    ``inbox``, ``outbox``, ``sending``, ``senders``, ``has_msg``, ``msg_ptr``),
    ``set_array(name, array)``, ``base`` and ``ctx(p)`` (a part's kernel context),
    ``counters()``, ``edge_arrays(pull)``, ``all_dst``/``all_val`` (listed messages), the
    compiled ``deliver_shared(pull)`` and ``deliver_combined``."""

    def __init__(self, program, graph, rt, value, param_values, awake=None):
        t0 = time.perf_counter()
        self.program, self.graph, self.rt = program, graph, rt
        self.kernels = codegen.kernels_for(program)
        if isinstance(graph, PartGraph) and not rt.holds_parts:
            raise InvalidArgumentError(
                f"a partitioned graph runs on the MPI runtime it was split for, not {rt.name}"
            )
        self.partition = rt.partition(graph)
        offsets = self.partition.offsets
        parts = self.partition.parts
        n = graph.n
        idx = graph.indices.dtype
        mshape, mdtype = program.message_shape, program.message_dtype
        self.msg_bytes = int(mdtype.itemsize * int(np.prod(mshape, dtype=np.int64)))
        #: whether this process holds only its own rows of the graph and state (a part)
        self.part = isinstance(graph, PartGraph)
        #: a part whose pull delivery reads every rank's senders, mirrored (docs/runtimes.md)
        self.mirrors_senders = self.part and program.combiner == "any" and rt.pull_allowed
        #: scratch arrays come from, and go back to, engine/buffers.py (shared memory only:
        #: nothing outlives the job there)
        self.pooled = rt.name == "local" and not self.part
        vertex = self.vertex_array
        if mshape:
            item_type = types.Array(from_dtype(mdtype), 1, "C")
        else:
            item_type = from_dtype(mdtype)
        aggs = program.aggregators
        self.agg_identity = np.array([_AGG_IDENTITY[a] for a in aggs], dtype=np.float64)
        # Every array the kernels see; the context holds only descriptors of them, so
        # this dict is what keeps them alive.
        self.a = {
            "params": param_values,
            "indptr": graph.indptr,
            "indices": graph.indices,
            "weights": graph.weights if graph.weights is not None else _NO_WEIGHTS,
            "local_degree": self._local_degrees(),
            "value": value,
            "state": vertex((), np.uint8),
            # a part's inbox and has_msg cover every vertex: MPI delivery combines what
            # its senders send to other processes' vertices there first (ghost entries)
            "inbox": self.scratch((n if program.combined else 0, *mshape), mdtype, 0),
            "has_msg": self.scratch((n,), np.uint8, 0),
            "msg_ptr": (
                np.zeros(0, dtype=np.int64) if program.combined else vertex((), np.int64, 1)
            ),
            "msg_val": np.zeros((0, *mshape), dtype=mdtype),
            # with the "any" combiner a part pulls (bottom-up BFS) from every rank's
            # senders mirrored here, so these two cover every vertex then
            "outbox": vertex(mshape, mdtype, whole=self.mirrors_senders),
            "sending": vertex((), np.uint8, whole=self.mirrors_senders),
            "agg_ops": np.array([_AGG_CODES[a] for a in aggs], dtype=np.int64),
            "agg_value": self.agg_identity.copy(),
            "senders": vertex((), idx, fill=None),
            "candidates": vertex((), idx, fill=None),
            "next_candidates": vertex((), idx, fill=None),
        }
        # Counters and aggregator partials are written by their part on every vertex:
        # one row per part, 128 bytes apart, so no two parts share a cache line.
        nagg = len(aggs)
        self.counter_rows = np.zeros((parts, 16), dtype=np.int64)
        self.agg_rows = np.zeros((parts, 16 * ((nagg + 15) // 16) + 16), dtype=np.float64)
        self.all_dst = _typed_lists(parts, types.int64)
        self.all_val = _typed_lists(parts, item_type)
        self.part_fields = [
            {
                "counters_d": describe(self.counter_rows[p, : LIST_BASE + 1]),
                "agg_partial_d": describe(self.agg_rows[p, :nagg]),
                "direct_dst": self.all_dst[p],
                "direct_val": self.all_val[p],
            }
            for p in range(parts)
        ]
        self.base = VertexContext(
            superstep=0,
            num_vertices=n,
            part=0,
            lo=0,
            hi=n,
            mode=COMBINED_MODE if program.combined else LISTED_MODE,
            **{f"{name}_d": describe(arr) for name, arr in self.a.items()},
            **self.part_fields[0],
        )
        self.nagg = nagg
        self.pull_share = (
            config.PUSH_PULL_THRESHOLD
            if program.combiner == "any"
            else config.PUSH_PULL_THRESHOLD_FULL_SCAN
        )
        self.offsets = offsets
        self.in_csr = None
        # Dense supersteps (docs/engine.md): possible when the combiner has an identity
        # and delivery may read in-edges; taken when every vertex is awake and broadcast.
        self.dense_ok = (
            program.dense
            and program.combined
            and program.edge_message is None
            and self.kernels._HAS_IDENTITY
            and (rt.pull_allowed or self.part)
        )
        self.pulled = None  # the broadcasts a dense superstep pulls
        self.chunks = None  # this process's vertices in chunks (made on first need)
        self.segments = None  # (starts, lo) of segmented dense pulls (made on first need)
        self.next_chunk = np.zeros(1, dtype=np.int64)  # the next chunk to take
        self.rescan = False  # receivers were not listed: the next compute scans all
        # a chunked pull's receivers per chunk (pull_chunks), when they are all the next
        # compute's candidates; else empty
        self.woken = np.zeros(0, dtype=np.int64)
        self.no_woken = self.woken
        self.woken_buf = None  # (made at the first chunked pull)
        # after compute_chunks: each chunk's list sizes and direct sends (made on first
        # need); the senders are still listed per chunk until compact_lists runs
        self.chunk_lists = None
        self.chunk_aggs = None  # aggregator partials per chunk (dense or chunked compute)
        self.senders_by_chunk = False
        self.aggs_by_chunk = False  # this superstep's aggregator partials are per chunk
        self.no_order = np.zeros((0, 3), dtype=np.int64)
        self.direct_order = self.no_order  # see deliver_combined
        self.scan_first = awake is None  # superstep 0 computes every vertex
        if awake is not None:
            self._start_awake(awake)
        self.pulled_last = False  # the last delivery ran pull-style
        self.bits = None  # the senders' bitmap of a pull (made on first need)
        self.no_bits = np.zeros(0, dtype=np.uint64)  # a pull that reads no bitmap
        self.bits_marked = False  # compute marked this superstep's senders in self.bits
        self._warm_up()
        rt.prepare(self)
        self.setup_s = time.perf_counter() - t0

    # ------------------------------------------------------------------ helpers
    def vertex_array(self, tail, dtype, extra=0, fill=0, whole=False):
        """A per-vertex array (``n + extra`` rows of shape ``tail``; zeros, or
        uninitialised with ``fill=None``): on a part, a window over its own rows only,
        unless ``whole``."""
        g = self.graph
        lo, hi = (0, g.n) if whole else _own_rows(g)
        arr = self.scratch((hi - lo + extra, *tail), dtype, fill)
        return window(arr, lo, g.n + extra) if self.part and not whole else arr

    def scratch(self, shape, dtype, fill):
        """A new array (``fill``, or uninitialised with None), or one a finished job
        left for the next on shared memory (engine/buffers.py), refilled."""
        if self.pooled:
            return buffers.take(shape, dtype, fill)
        return np.empty(shape, dtype=dtype) if fill is None else np.full(shape, fill, dtype)

    def _local_degrees(self):
        """Per vertex, its out-edges that stay in its own part: one parallel pass over the
        edges per (graph, partition), cached on the graph; 4 B per vertex."""
        g, offsets = self.graph, self.partition.offsets

        def build():  # (kept on the graph: never a scratch array)
            lo, hi = _own_rows(g)
            out = np.empty(hi - lo, dtype=g.indices.dtype)
            out = window(out, lo, g.n) if self.part else out
            self.rt.run_parts(
                local_degrees,
                lambda p: (g.indptr, g.indices, int(offsets[p]), int(offsets[p + 1]), out),
            )
            return out

        return g.derived(("local_degree", offsets.tobytes()), build)

    def _start_awake(self, awake):
        """Only ``awake`` computes in superstep 0: every other own vertex starts halted,
        and each part's candidate list holds its awake vertices, as if the superstep
        before had left them so."""
        state, cand = self.a["state"], self.a["candidates"]
        state[slice(*self.own_range())] = HALTED
        for p in self.rt.local_parts:
            lo, hi = int(self.offsets[p]), int(self.offsets[p + 1])
            mine = awake[(awake >= lo) & (awake < hi)]
            state[mine] = ACTIVE
            cand[lo : lo + mine.size] = mine
            self.counter_rows[p, _C["candidates"]] = mine.size

    def ctx(self, p):
        lo, hi = int(self.offsets[p]), int(self.offsets[p + 1])
        return self.base._replace(part=p, lo=lo, hi=hi, **self.part_fields[p])

    def set_array(self, name, array):
        self.a[name] = array
        self.base = self.base._replace(**{f"{name}_d": describe(array)})

    def counters(self):
        return self.counter_rows[:, : len(COUNTERS)]

    def own_range(self) -> tuple[int, int]:
        """The vertices this process owns: ``[lo, hi)`` of its local parts."""
        local = list(self.rt.local_parts)
        return int(self.offsets[local[0]]), int(self.offsets[local[-1] + 1])

    def own(self, name: str) -> np.ndarray:
        """The writable view of per-vertex array ``name`` for this process's vertices,
        indexed from 0 (what a checkpoint of this process saves and restores)."""
        lo, hi = self.own_range()
        return self.a[name][lo:hi]

    def _warm_up(self):
        """Compile (or load from the cache) before the clock starts, and keep each
        kernel's entry point; an empty range runs nothing, so this touches no state."""
        k, prog = self.kernels, self.program
        # the empty context's counters: kept alive with it, since the kernels compiled
        # later (pull_segment, compute_chunks) run once on it and write them (a freed
        # scratch row was reused for the work chunks, which that run then zeroed)
        self.empty_counters = np.zeros(LIST_BASE + 1, dtype=np.int64)
        empty = self.base._replace(lo=0, hi=0, counters_d=describe(self.empty_counters))
        self.empty_ctx = empty  # for the kernels compiled later (pull_segment, compute_chunks)
        none = np.zeros(0, dtype=np.int64)
        none.flags.writeable = False  # like the chunks kept on the graph
        self.no_chunks = none
        self.compute_part = codegen.entry_point(prog, k.compute_part, empty, False, self.no_bits)
        zeros = np.zeros(self.partition.parts, dtype=np.int64)
        dargs = (*self.edge_arrays(False), self.offsets, zeros, self.all_dst, self.all_val)
        if prog.combined:
            n = self.graph.n
            self.deliver_combined = codegen.entry_point(
                prog, k.deliver_combined, empty, False, False, 0, n, *dargs, self.no_order
            )
            ip, ix, w = self.edge_arrays(False)  # the in-edges' types, not built yet
            self.pull_chunks = codegen.entry_point(
                prog,
                k.pull_chunks,
                empty,
                False,
                ip,
                ix,
                w,
                none,
                self.next_chunk,
                self.no_bits,
                self.no_woken,
            )
            self.mark_senders = codegen.entry_point(prog, k.mark_senders, empty, self.no_bits)
        if self.dense_ok:
            self._prepare_dense(empty)
        else:
            self.deliver_listed = codegen.entry_point(
                prog, k.deliver_listed, empty, 0, False, *dargs
            )

    def _prepare_dense(self, empty):
        """Chunks of this process's vertices (balanced by in-edges, which a dense
        superstep walks), per-chunk aggregator rows, and the compiled dense kernels."""
        k, prog = self.kernels, self.program
        in_ip, in_ix, _ = self.edge_arrays(True)
        chunks = self.work_chunks()
        self.chunk_aggs = np.zeros((chunks.shape[0] - 1, self.nagg), dtype=np.float64)
        none = np.zeros(0, dtype=np.int64)
        none.flags.writeable = False  # like the chunks kept on the graph
        self.dense_part = codegen.entry_point(
            prog, k.dense_part, empty, self.a["outbox"], in_ip, in_ix, NO_STARTS, 0, none,
            self.next_chunk, self.chunk_aggs[:0],
        )  # fmt: skip
        self.relist_part = codegen.entry_point(prog, k.relist_part, empty)

    def _segments(self):
        """``(starts, lo)`` of this process's dense pulls in segments of the senders
        (engine/segments.py), made at the first dense superstep and kept on the graph.
        Collective: every process takes the same number of segments (each segment's
        pass is a ``run_parts``), and all reach their first dense superstep together."""
        if self.segments is None:
            in_ip, in_ix, _ = self.edge_arrays(True)
            outbox = self.a["outbox"]
            lo, hi = self.own_range()
            sources = int(self.offsets[-1])
            edges = int(in_ip[hi] - in_ip[lo])
            segments = segment_count(sources, outbox.dtype.itemsize, hi - lo, edges)
            segments = int(self.rt.allreduce(np.array([segments], dtype=np.int64), "max")[0])
            starts = self.graph.derived(
                ("pull_segments", lo, hi, sources, segments),
                lambda: segment_starts(in_ip, in_ix, lo, hi, sources, segments),
            )
            self.segments = (starts, lo)
            if segments > 1:  # compiled (or loaded) here: most jobs never need it
                self.pull_segment = codegen.entry_point(
                    self.program, self.kernels.pull_segment, self.empty_ctx, outbox, in_ip,
                    in_ix, starts, lo, 0, self.no_chunks, self.next_chunk,
                )  # fmt: skip
        return self.segments

    def work_chunks(self):
        """This process's vertices in chunks balanced by in-edges (engine/schedule.py),
        which threads take in turn in dense supersteps and pull delivery; cut once per
        (graph, range, threads) and kept on the graph, since cutting reads all of
        ``indptr`` (milliseconds, as long as a BFS level)."""
        if self.chunks is None:
            lo, hi = self.own_range()
            local = list(self.rt.local_parts)
            threads = len(local)
            in_ip = self.edge_arrays(True)[0]
            # every part boundary is a cut too: a chunk lies in one part (compact_lists)
            bounds = self.offsets[local[0] : local[-1] + 2]

            def cut():  # (an empty range keeps its one empty chunk)
                chunks = np.union1d(chunk_cuts(in_ip, lo, hi, threads), bounds)
                return chunks if chunks.size > 1 else np.array([lo, hi], dtype=np.int64)

            self.chunks = self.graph.derived(("work_chunks", lo, hi, bounds.tobytes()), cut)
        return self.chunks

    def _compute(self, ss, dense):
        """The compute phase of superstep ``ss``: the dense kernel (threads take chunks),
        after a chunked pull that listed its receivers per chunk the same chunks taken in
        turn (``compute_chunks``), or every part's compute over its own range (all of it
        in superstep 0 and after a chunked pull that listed none)."""
        self.bits_marked = False
        self.aggs_by_chunk = False
        self.direct_order = self.no_order
        woken = self.woken
        self.woken = self.no_woken
        if not dense and woken.shape[0]:
            return self._compute_chunks(woken)
        self._list_senders()
        if not dense:
            scan = (ss == 0 and self.scan_first) or self.rescan
            self.rescan = False
            args = (scan, self._bits_to_mark())
            work = self.graph.n if scan else self._total("candidates")
            return self.rt.run_parts(
                self.compute_part, lambda p: (self.ctx(p), *args), small=self._small(work)
            )
        in_ip, in_ix, _ = self.edge_arrays(True)
        seg = self._segments()
        before = 0.0  # the segments before the last (engine/segments.py), per part
        for s in range(seg[0].shape[0]):
            self.next_chunk[0] = 0
            args = (self.pulled, in_ip, in_ix, *seg, s, self.chunks, self.next_chunk)
            took = self.rt.run_parts(self.pull_segment, lambda p, a=args: (self.ctx(p), *a))
            before = before + np.array([t for _, t in took])
        self.next_chunk[0] = 0
        self.chunk_aggs[:] = self.agg_identity
        args = (self.pulled, in_ip, in_ix, *seg, self.chunks, self.next_chunk, self.chunk_aggs)
        last = self.rt.run_parts(self.dense_part, lambda p: (self.ctx(p), *args))
        if seg[0].shape[0] == 0:
            return last
        return [(out, t + float(b)) for (out, t), b in zip(last, before, strict=True)]

    def _compute_chunks(self, woken):
        """``compute_chunks``: the woken vertices' compute, chunk by chunk as the pull
        that woke them. Lists stay per chunk while only a chunked pull reads them next
        (no vertex awake: bottom-up BFS goes on); else they are gathered per part now."""
        chunks = self.chunks
        if self.chunk_lists is None:  # compiled (or loaded) here: most jobs never need it
            self.chunk_lists = np.zeros((chunks.shape[0] - 1, 5), dtype=np.int64)
            if self.chunk_aggs is None:
                self.chunk_aggs = np.zeros((chunks.shape[0] - 1, self.nagg))
            k, prog, empty = self.kernels, self.program, self.empty_ctx
            self.compute_chunks = codegen.entry_point(
                prog, k.compute_chunks, empty, self.no_chunks, self.next_chunk,
                self.no_woken, self.no_bits, self.chunk_lists[:0], self.chunk_aggs[:0],
                self.offsets,
            )  # fmt: skip
            self.compact_lists = codegen.entry_point(
                prog, k.compact_lists, empty, self.no_chunks, self.chunk_lists[:0], False
            )
        lists = self.chunk_lists
        self.next_chunk[0] = 0
        self.aggs_by_chunk = True
        args = (chunks, self.next_chunk, woken, self._bits_to_mark(), lists, self.chunk_aggs,
                self.offsets)  # fmt: skip
        out = self.rt.run_parts(self.compute_chunks, lambda p: (self.ctx(p), *args))
        if lists[:, 4].sum() > lists[:, 3].sum():  # direct sends: delivered chunk by chunk
            self.direct_order = np.ascontiguousarray(lists[:, 2:5])
        self.senders_by_chunk = True
        if lists[:, 1].any():
            self._list_senders(awake_too=True)
        return out

    def _list_senders(self, awake_too=False):
        """Gather the senders listed per chunk by ``compute_chunks`` (and with
        ``awake_too`` the awake vertices) into each part's lists (``compact_lists``),
        before anything that reads them there."""
        if self.senders_by_chunk:
            self.senders_by_chunk = False
            args = (self.chunks, self.chunk_lists, awake_too)
            small = self._small(int(self.chunk_lists[:, :2].sum()))
            self.rt.run_parts(self.compact_lists, lambda p: (self.ctx(p), *args), small=small)

    def _pass_dense(self):
        """Hand this superstep's broadcasts to the next (dense) superstep: it reads them
        as ``pulled`` (every process's values: the runtime's ``mirror``) while its
        compute writes the other outbox buffer (one more message slot per vertex)."""
        sent = self.a["outbox"]
        self.pulled = self.rt.mirror(sent, self.offsets)
        spare = self.a.get("outbox_spare")
        self.a["outbox_spare"] = sent
        if spare is None:
            spare = self.vertex_array(sent.shape[1:], sent.dtype, fill=None)
        self.set_array("outbox", spare)

    def edge_arrays(self, pull):
        """In-edges for pull (built on first need), or the out-CSR as a placeholder."""
        g = self.graph
        if pull and self.in_csr is None:
            self.in_csr = g.in_csr()
        if pull:
            ip, ix, w = self.in_csr
        else:
            ip, ix, w = g.indptr, g.indices, g.weights
        return ip, ix, (w if w is not None else _NO_WEIGHTS)

    # ------------------------------------------------------------------ the loop
    def loop(self, max_supersteps, master, progress, checkpoint=None):
        rt, graph = self.rt, self.graph
        parts = self.partition.parts
        stats = JobStats(runtime=rt.name, parts=parts, setup_s=self.setup_s)
        counters = self.counters()
        m_stored = max(graph.num_stored_edges, 1)
        show = _Progress(max_supersteps) if progress and rt.is_root else None
        stopped_by = "halt"
        ss = 0
        dense = False  # whether superstep ss pulls the last one's broadcasts in one pass
        t_start = time.perf_counter()
        session = checkpoint.open(self) if checkpoint is not None else None
        try:
            if session is not None:  # resume: the superstep and state of a checkpoint
                ss, dense = session.restore()
            rt.progress(f"superstep {ss} of {self.program.name}")
            while True:
                if max_supersteps is not None and ss >= max_supersteps:
                    stopped_by = "limit"
                    break
                t0 = time.perf_counter()
                self.base = self.base._replace(superstep=ss)
                self.agg_rows[:, : self.nagg] = self.agg_identity
                comp = self._compute(ss, dense)
                tot = rt.allreduce(counters.sum(axis=0))
                by_chunk = dense or self.aggs_by_chunk
                agg = self._reduce_aggregators(self.chunk_aggs if by_chunk else None)
                messages = int(tot[_C["sender_edges"]] + tot[_C["direct"]])
                # (a part reads no other process's in-rows: it pulls only what it
                # mirrors, every rank's senders with the "any" combiner)
                pull = (
                    rt.pull_allowed
                    and (not self.part or self.mirrors_senders)
                    and (
                        int(tot[_C["sender_edges"]]) > self.pull_share * m_stored
                        or self._keep_pulling(int(tot[_C["senders"]]))
                    )
                )
                was_dense = dense
                # every vertex awake, every edge carrying a broadcast (vertices without
                # out-edges need not send): the next superstep pulls them
                dense = (
                    self.dense_ok
                    and messages > 0
                    and int(tot[_C["sender_edges"]]) == graph.num_stored_edges
                    and int(tot[_C["awake"]]) == graph.n
                    and int(tot[_C["direct"]]) == 0
                )
                mode = "-" if messages == 0 else ("dense" if dense else "pull" if pull else "push")
                self.pulled_last = mode == "pull"
                deliver = []
                if dense:
                    t1 = time.perf_counter()
                    self._pass_dense()
                    deliver = [(None, time.perf_counter() - t1)] * len(comp)
                else:
                    if was_dense:  # back to lists: rebuild them from the flags
                        rt.run_parts(self.relist_part, lambda p: (self.ctx(p),))
                    if messages:
                        deliver = rt.deliver(self, pull)
                t2 = time.perf_counter()

                # next superstep's candidates are the ones gathered now
                cand, nxt = self.a["candidates"], self.a["next_candidates"]
                self.set_array("candidates", nxt)
                self.set_array("next_candidates", cand)
                self.a["agg_value"][:] = agg
                row = self._stats(ss, tot, mode, comp, deliver, t2 - t0)
                stats.supersteps.append(row)
                ss += 1
                rt.progress(f"superstep {ss} of {self.program.name}")
                if show:
                    show.update(row)
                if messages == 0 and tot[_C["awake"]] == 0:
                    break
                if master is not None:
                    mc = MasterContext(ss, graph.n, self.a["agg_value"], row)
                    master(mc)
                    if mc.halted:
                        stopped_by = "master"
                        break
                if session is not None:  # state is complete here: superstep ss starts
                    self._list_senders()
                    session.superstep_done(ss, dense)
        finally:
            rt.progress(None)
            if session is not None:
                session.close()
            if show:
                show.close()
        stats.total_s = self.setup_s + (time.perf_counter() - t_start)
        return JobResult(
            values=rt.gather(self.a["value"], self.offsets),
            supersteps=ss,
            aggregated=self.a["agg_value"].copy(),
            stats=stats,
            stopped_by=stopped_by,
        )

    def _keep_pulling(self, senders):
        """Whether a pull that stops at the first sender (the "any" combiner: bottom-up
        BFS) goes on although the senders' edges fell under the pull share: while the
        senders are at least ``1 / PULL_KEEP_DIVISOR`` of the vertices (Beamer's
        direction-optimising BFS: back to top-down once the frontier is under n / beta).
        A pull over the unfinished receivers then still costs less than pushing along
        the senders' edges, most of which lead to finished vertices."""
        return (
            self.pulled_last
            and self.program.combiner == "any"
            and senders * PULL_KEEP_DIVISOR >= self.graph.n
        )

    def _reduce_aggregators(self, rows=None):
        """This superstep's aggregator values over all parts (or the given partial rows,
        in order) and processes."""
        partial = self.agg_rows[:, : self.nagg] if rows is None else rows
        out = self.agg_identity.copy()
        for i, name in enumerate(self.program.aggregators):
            col = partial[:, i]
            local = {"sum": col.sum(), "min": col.min(), "max": col.max()}[name]
            out[i] = self.rt.allreduce(np.array([local]), name)[0]
        return out

    def deliver_shared(self, pull):
        """Delivery when every part can read every sender's values in place (shared
        memory); returns each local part's (result, seconds)."""
        prog, rt = self.program, self.rt
        chunked_pull = prog.combined and pull and self._total("direct") == 0
        if not chunked_pull:  # (which reads no sender list: a bitmap, or every vertex)
            self._list_senders()
        sender_counts = self.counters()[:, _C["senders"]].copy()
        edge = (
            pull,
            *self.edge_arrays(pull),
            self.offsets,
            sender_counts,
            self.all_dst,
            self.all_val,
        )
        if prog.combined:
            n = self.graph.n
            everyone = prog.edge_message is None and int(sender_counts.sum()) == n
            if chunked_pull:
                # threads take chunks of receivers in turn (no direct sends to merge);
                # they list the receivers per chunk, over the awake lists: with none
                # awake, those lists are the next candidates, else the next compute
                # scans every vertex
                bits = self.no_bits if everyone else self._sender_bits()
                chunks = self.work_chunks()
                woken = self._woken_counts(chunks)
                args = (everyone, *edge[1:4], chunks, self.next_chunk, bits, woken)
                self.next_chunk[0] = 0
                if self._total("awake") == 0:
                    self.woken = woken
                else:
                    self.rescan = True
                return rt.run_parts(self.pull_chunks, lambda p: (self.ctx(p), *args))
            return rt.run_parts(
                self.deliver_combined,
                lambda p: (self.ctx(p), edge[0], everyone, 0, n, *edge[1:], self.direct_order),
                small=not pull and self._small(self._messages()),
            )
        # deliver_listed's pass 1 (base -1) counts, pass 2 writes from each part's base
        small = not pull and self._small(self._messages())
        counted = rt.run_parts(self.deliver_listed, lambda p: (self.ctx(p), -1, *edge), small)
        totals = np.array([c for c, _ in counted], dtype=np.int64)
        bases = np.concatenate([[0], np.cumsum(totals)])
        msg_val = np.empty((int(bases[-1]), *prog.message_shape), dtype=prog.message_dtype)
        self.set_array("msg_val", msg_val)
        self.a["msg_ptr"][-1] = bases[-1]
        filled = rt.run_parts(
            self.deliver_listed, lambda p: (self.ctx(p), int(bases[p]), *edge), small
        )
        return [(None, a + b) for (_, a), (_, b) in zip(counted, filled, strict=True)]

    def _total(self, counter):
        """A counter of this process's parts, summed (e.g. this superstep's senders)."""
        return int(self.counter_rows[:, _C[counter]].sum())

    def _messages(self):
        """This superstep's messages: its senders' out-edges and its direct sends."""
        return self._total("sender_edges") + self._total("direct")

    @staticmethod
    def _small(work):
        """Whether a phase of ``work`` vertices and edges runs its parts on the calling
        thread, one after another (``config.SMALL_PHASE_WORK``; 0: never)."""
        return 0 < config.SMALL_PHASE_WORK and work <= config.SMALL_PHASE_WORK

    def _woken_counts(self, chunks):
        """Per chunk of a chunked pull, the number of receivers it listed (one int64 per
        chunk, made once per job)."""
        if self.woken_buf is None:
            self.woken_buf = np.zeros(chunks.shape[0] - 1, dtype=np.int64)
        return self.woken_buf

    def _bits_to_mark(self):
        """The bitmap the next compute marks its senders in (zeroed), or an empty one:
        marked as they are counted while the last delivery was a pull with the "any"
        combiner on shared memory (bottom-up BFS goes on pulling), which then needs no
        ``mark_senders`` pass of its own."""
        self.bits_marked = (
            self.pulled_last
            and self.pooled
            and self.program.combiner == "any"
            and self.bits is not None
        )
        if not self.bits_marked:
            return self.no_bits
        self.bits[:] = 0
        return self.bits

    def _sender_bits(self):
        """The senders of this superstep as a bitmap (a bit per vertex), which a pull
        tests for each in-edge it walks (``mark_senders``, unless compute marked them)."""
        if self.bits_marked:
            self.bits_marked = False
            return self.bits
        self._list_senders()
        if self.bits is None:
            self.bits = np.zeros((self.graph.n + 63) // 64, dtype=np.uint64)
        else:
            self.bits[:] = 0
        small = self._small(self._total("senders"))
        self.rt.run_parts(self.mark_senders, lambda p: (self.ctx(p), self.bits), small=small)
        return self.bits

    def _stats(self, ss, tot, mode, comp, deliver, wall):
        parts = len(comp)
        compute_s = sum(t for _, t in comp) / parts
        comm_s = sum(t for _, t in deliver) / parts if deliver else 0.0
        local = int(tot[_C["msgs_local"]])
        remote = int(tot[_C["msgs_remote"]])
        moved, moved_bytes = self.rt.exchanged() if deliver else (0, 0)
        return SuperstepStats(
            superstep=ss,
            active=int(tot[_C["computed"]]),
            messages_local=local,
            messages_remote=remote,
            bytes_local=local * self.msg_bytes,
            bytes_remote=remote * self.msg_bytes,
            mode=mode,
            compute_s=compute_s,
            communication_s=comm_s,
            barrier_s=max(wall - compute_s - comm_s, 0.0),
            messages_exchanged=moved,
            bytes_exchanged=moved_bytes,
        )


class _Progress:
    """The superstep loop, one line (only when asked for), through
    :class:`hpgraph.progress.Counter`: live on a terminal, plain timed lines piped."""

    def __init__(self, total):
        from hpgraph.progress import Counter

        self._c = Counter("bsp", total or 0, "supersteps")

    def update(self, row: SuperstepStats):
        info = f"active {row.active:,}  messages {row.messages:,}  ({row.mode})"
        self._c.set(row.superstep + 1, info)

    def close(self):
        self._c.close()
