"""Dense supersteps and chunked scheduling (docs/engine.md, "Dense supersteps"): a
superstep whose every vertex is awake and broadcast runs as one pull pass over in-edges,
threads taking edge-balanced chunks in turn. Its results must equal the general delivery
(push or pull) on seeded graphs of several shapes.

Tolerance: min/max combiners are exact (order does not matter). Sums are compared with
rtol 1e-12: the dense pass adds a vertex's messages in in-row order and each chunk's
aggregator partial apart, push adds them in sender order and per part, so the last bits
of a float sum differ (a few ulps per iteration; PageRank here: below 1e-15), while a
real mistake (a lost or doubled message) moves a rank by at least 1/(n * degree), far
above 1e-12.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from conftest import SEED, SHAPES, make_shape
from hpgraph import config
from hpgraph.algorithms.pagerank import PAGERANK
from hpgraph.engine import run, vertex_program
from hpgraph.engine.schedule import balanced_cuts, chunk_cuts
from hpgraph.engine.segments import segment_count, segment_starts
from hpgraph.generators import kronecker
from hpgraph.graph import Graph


def _power_law_star(directed):
    """Two hubs joined to most vertices, a sparse random rest, isolated vertices, self
    loops and sinks: one chunk can hold a whole hub."""
    rng = np.random.default_rng(SEED)
    n = 3000
    leaves = np.arange(2, 2600)
    src = np.concatenate([np.zeros(leaves.size, np.int64), leaves, rng.integers(0, 2600, 4000)])
    dst = np.concatenate([leaves, np.ones(leaves.size, np.int64), rng.integers(0, 2600, 4000)])
    src = np.concatenate([src, np.arange(10, 20)])  # self loops
    dst = np.concatenate([dst, np.arange(10, 20)])
    return Graph.from_edges(src, dst, n=n, directed=directed, name="power_law_star")


def _graphs():
    out = [make_shape(s, d, False) for s in SHAPES for d in (True, False)]
    out += [_power_law_star(True), _power_law_star(False), kronecker(9, 8, seed=SEED)]
    return [pytest.param(g, id=f"{g.name}-{'dir' if g.directed else 'und'}") for g in out]


GRAPHS = _graphs()


def _pagerank(g, program, threads, iterations=12):
    job = run(program, g, params={"damping": 0.85, "iterations": iterations},
              values=np.full(g.n, 1.0 / max(g.n, 1)), max_supersteps=iterations + 1,
              threads=threads)  # fmt: skip
    return job


@pytest.fixture
def push_only(monkeypatch):
    """General delivery runs push-style whatever the frontier."""
    monkeypatch.setattr(config, "PUSH_PULL_THRESHOLD_FULL_SCAN", 2.0)


@pytest.mark.parametrize("g", GRAPHS)
def test_pagerank_dense_equals_pull_and_push(g, threads, monkeypatch):
    general = dataclasses.replace(PAGERANK, dense=False)
    dense = _pagerank(g, PAGERANK, threads)
    pull = _pagerank(g, general, threads)
    monkeypatch.setattr(config, "PUSH_PULL_THRESHOLD_FULL_SCAN", 2.0)
    push = _pagerank(g, general, threads)
    for other in (pull, push):
        np.testing.assert_allclose(dense.values, other.values, rtol=1e-12, atol=1e-15)
        assert dense.supersteps == other.supersteps
        assert [r.messages for r in dense.stats.supersteps] == [
            r.messages for r in other.stats.supersteps
        ]
    modes = {r.mode for r in dense.stats.supersteps}
    if g.num_stored_edges:
        assert "dense" in modes and "dense" not in {r.mode for r in pull.stats.supersteps}
        assert {r.mode for r in push.stats.supersteps} <= {"push", "-"}
    if g.n:
        assert abs(dense.values.sum() - 1.0) < 1e-9


def test_pagerank_dense_is_deterministic(threads):
    g = kronecker(10, 8, seed=SEED)
    a = _pagerank(g, PAGERANK, threads).values
    for _ in range(3):
        np.testing.assert_array_equal(_pagerank(g, PAGERANK, threads).values, a)


# --- min/max combiners, and leaving dense supersteps ---------------------------------
def _spread(ctx, v):
    """Every vertex broadcasts for `params[0]` supersteps (dense), then only vertices
    with an even label keep sending for two more (general delivery, from the lists the
    engine rebuilds), then all halt; value: the smallest label seen."""
    if ctx.superstep == 0:
        ctx.value[v] = (v * 7919) % 1009
    elif ctx.has_message(v):
        ctx.value[v] = min(ctx.value[v], ctx.message(v))
    k = np.int64(ctx.params[0])
    if ctx.superstep < k or (ctx.superstep < k + 2 and ctx.value[v] % 2 == 0):
        ctx.send_to_all(v, ctx.value[v])
    if ctx.superstep >= k + 2:
        ctx.vote_to_halt(v)


def _largest(ctx, v):
    if ctx.superstep == 0:
        ctx.value[v] = -((v * 31) % 97)
    elif ctx.has_message(v):
        ctx.value[v] = max(ctx.value[v], ctx.message(v))
    if ctx.superstep < 4:
        ctx.send_to_all(v, ctx.value[v])
    else:
        ctx.vote_to_halt(v)


SPREAD = vertex_program(_spread, value=np.int64, message=np.int64, combiner="min",
                        params=("k",))  # fmt: skip
LARGEST = vertex_program(_largest, value=np.float64, message=np.float64, combiner="max")


@pytest.mark.parametrize("g", GRAPHS)
def test_min_max_dense_equal_general_exactly(g, threads, monkeypatch):
    for prog, params in ((SPREAD, {"k": 3}), (LARGEST, None)):
        dense = run(prog, g, params=params, threads=threads)
        general = run(dataclasses.replace(prog, dense=False), g, params=params, threads=threads)
        monkeypatch.setattr(config, "PUSH_PULL_THRESHOLD_FULL_SCAN", 2.0)
        push = run(dataclasses.replace(prog, dense=False), g, params=params, threads=threads)
        monkeypatch.undo()
        np.testing.assert_array_equal(dense.values, general.values)
        np.testing.assert_array_equal(dense.values, push.values)
        assert dense.supersteps == general.supersteps
        assert [r.active for r in dense.stats.supersteps] == [
            r.active for r in general.stats.supersteps
        ]


def test_dense_needs_every_edge_and_every_vertex():
    """A superstep where some vertex with out-edges did not broadcast, or a vertex
    halted, or a direct send was made, is delivered the general way."""
    g = make_shape("random", True, False)

    def some_quiet(ctx, v):
        if ctx.superstep < 3 and (ctx.superstep == 0 or v != 5):
            ctx.send_to_all(v, 1.0)
        if ctx.superstep == 1:
            ctx.send(0, 1.0)
        ctx.value[v] += ctx.message(v) if ctx.has_message(v) else 0.0
        if ctx.superstep >= 3:
            ctx.vote_to_halt(v)

    prog = vertex_program(some_quiet, combiner="sum")
    modes = [r.mode for r in run(prog, g, threads=2).stats.supersteps]
    assert modes[0] == "dense" and modes[1] != "dense" and modes[2] != "dense"


def test_vector_messages_and_edge_functions_take_the_general_path():
    g = make_shape("random", False, True)

    def vec(ctx, v):
        if ctx.superstep == 0:
            ctx.send_to_all(v, np.ones(2))
        ctx.vote_to_halt(v)

    def weighted(ctx, v):
        if ctx.superstep == 0:
            ctx.send_along_edges(v, 1.0)
        ctx.vote_to_halt(v)

    progs = (
        vertex_program(vec, value=np.float64, message=(np.float64, 2), combiner="sum"),
        vertex_program(weighted, combiner="sum", edge_message=lambda m, w: m * w),
    )
    for prog in progs:
        assert run(prog, g, threads=2).stats.supersteps[0].mode == "pull"


# --- chunks ---------------------------------------------------------------------------
def test_balanced_cuts_split_work_evenly():
    g = _power_law_star(False)
    cuts = balanced_cuts(g.indptr, 0, g.n, 4)
    assert cuts[0] == 0 and cuts[-1] == g.n and np.all(np.diff(cuts) >= 0)
    work = 8.0 * np.diff(cuts) + np.diff(g.indptr[cuts])
    hub = g.out_degree().max()
    assert work.max() - work.min() <= 2 * (hub + 8)  # uneven only by a row


def test_balanced_cuts_are_the_first_vertices_reaching_each_share():
    """The bisection gives what ``np.searchsorted`` (left) over the array of every
    vertex's cumulative work gives, on random rows with hubs, empty rows and ranges."""
    rng = np.random.default_rng(SEED)
    for _ in range(400):
        n = int(rng.integers(1, 300))
        deg = rng.integers(0, 50, n) * (rng.random(n) < 0.7)
        deg[rng.integers(0, n)] *= 200
        indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
        lo = int(rng.integers(0, n))
        hi = int(rng.integers(lo, n + 1))
        pieces = int(rng.integers(0, 40))
        alpha = float(rng.choice([0.5, 1.0, 8.0]))
        got = balanced_cuts(indptr, lo, hi, pieces, alpha)
        if pieces <= 1 or hi <= lo:
            assert got.tolist() == [lo, hi]
            continue
        work = alpha * (np.arange(lo, hi + 1) - lo) + (indptr[lo : hi + 1] - indptr[lo])
        want = lo + np.searchsorted(work, work[-1] * np.arange(1, pieces) / pieces)
        assert got.tolist() == [lo, *want.tolist(), hi]


@pytest.mark.parametrize("threads_", [1, 2, 7])
@pytest.mark.parametrize("lo_hi", [(0, 3000), (100, 2500), (5, 6), (7, 7)])
def test_chunk_cuts_cover_the_range(threads_, lo_hi):
    g = _power_law_star(True)
    lo, hi = lo_hi
    cuts = chunk_cuts(g.indptr, lo, hi, threads_)
    assert cuts[0] == lo and cuts[-1] == hi
    if hi > lo:
        assert np.all(np.diff(cuts) > 0)  # no empty chunk
        # about 8 per thread: fewer only where a hub's row fills several chunks' share
        assert cuts.size - 1 >= min(hi - lo, 4 * threads_)


# --- pull delivery in chunks (general supersteps) ------------------------------------
@pytest.mark.parametrize("g", GRAPHS[-3:])
def test_bfs_chunked_pull_equals_push(g, threads, monkeypatch):
    """Bottom-up levels deliver by chunks that threads take in turn (receivers listed
    per chunk, the next level scans): depths equal the push-only run's."""
    from hpgraph.algorithms import bfs, verify_bfs

    s = int(np.argmax(g.out_degree()))
    monkeypatch.setattr(config, "PUSH_PULL_THRESHOLD", 0.0)
    pulled = bfs(g, s, threads=threads)
    assert "pull" in {r.mode for r in pulled.stats.supersteps}
    monkeypatch.setattr(config, "PUSH_PULL_THRESHOLD", 2.0)
    pushed = bfs(g, s, threads=threads)
    np.testing.assert_array_equal(pulled["depth"], pushed["depth"])
    verify_bfs(g, s, pulled)


# --- segmented pulls (engine/segments.py) ---------------------------------------------
@pytest.fixture
def segmented(monkeypatch):
    """Dense pulls in segments of 64 bytes of senders (8 float64), down to a hundredth of
    the mean in-row per segment: several segments even on the small test graphs."""
    monkeypatch.setattr(config, "PULL_WINDOW_BYTES", 64)
    monkeypatch.setattr(config, "PULL_MIN_SEGMENT_ROW", 0.01)


@pytest.mark.parametrize("g", GRAPHS)
def test_segmented_dense_equals_one_pass(g, threads, segmented, monkeypatch):
    """PageRank within rtol 1e-12 (only the grouping of a sum's terms differs), min/max
    exactly, the same supersteps and modes, and the same result when run again."""
    in_ip = g.in_csr()[0]
    assert g.n <= 8 or segment_count(g.n, 8, g.n, in_ip[-1]) > 1
    cut = _pagerank(g, PAGERANK, threads)
    again = _pagerank(g, PAGERANK, threads)
    lows = [run(p, g, params=a, threads=threads) for p, a in ((SPREAD, {"k": 3}), (LARGEST, None))]
    monkeypatch.setattr(config, "PULL_WINDOW_BYTES", 0)
    whole = _pagerank(g, PAGERANK, threads)
    np.testing.assert_allclose(cut.values, whole.values, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(cut.values, again.values)
    assert [r.mode for r in cut.stats.supersteps] == [r.mode for r in whole.stats.supersteps]
    for low, (p, a) in zip(lows, ((SPREAD, {"k": 3}), (LARGEST, None)), strict=True):
        np.testing.assert_array_equal(low.values, run(p, g, params=a, threads=threads).values)


@pytest.mark.parametrize("g", GRAPHS[-3:])
@pytest.mark.parametrize("segments", [2, 3, 7])
def test_segment_starts_are_where_rows_cross_each_bound(g, segments):
    """starts[s - 1, v]: the first entry of v's sorted in-row at or above s * width,
    against NumPy's searchsorted, for the whole range and a window of it."""
    ip, ix, _ = g.in_csr()
    for lo, hi in ((0, g.n), (g.n // 3, g.n // 2)):
        starts = segment_starts(ip, ix, lo, hi, g.n, segments)
        width = -(-g.n // segments)
        assert starts.shape == (segments - 1, hi - lo) and starts.dtype == np.uint32
        for v in range(lo, hi):
            row = ix[ip[v] : ip[v + 1]]
            want = np.searchsorted(row, width * np.arange(1, segments), side="left")
            np.testing.assert_array_equal(starts[:, v - lo], want)


def test_segment_count_fits_the_window_and_keeps_rows_long(monkeypatch):
    monkeypatch.setattr(config, "PULL_WINDOW_BYTES", 4 << 20)
    monkeypatch.setattr(config, "PULL_MIN_SEGMENT_ROW", 2.0)
    assert segment_count(1 << 20, 4, 1 << 20, 32 << 20) == 1  # float32: 4 MB, one window
    assert segment_count(1 << 20, 8, 1 << 20, 32 << 20) == 2  # float64: 8 MB
    assert segment_count(4 << 20, 8, 4 << 20, 64 << 20) == 8  # 32 MB, 16 per row
    assert segment_count(8 << 20, 8, 8 << 20, 20 << 20) == 1  # mean row 2.5: not worth it
    assert segment_count(1 << 20, 8, 1 << 19, 1 << 24) == 2  # a rank's half of the rows
    monkeypatch.setattr(config, "PULL_WINDOW_BYTES", 0)
    assert segment_count(1 << 20, 8, 1 << 20, 32 << 20) == 1  # switched off


# --- compute in chunks after a chunked pull ---------------------------------------------
def _wave(ctx, v):
    """A wave from vertex 0 that exercises what a chunked compute keeps per chunk: a
    vertex first reached takes the smallest sender as value[0] and broadcasts its id;
    in odd supersteps it also sends n + v to vertex (v * 7) mod n directly (a vertex that
    gets only such messages keeps the smallest in value[1]); it adds its id and the
    superstep to the two aggregators (integers: exact sums in any order); every third
    stays awake one more superstep."""
    n = ctx.num_vertices
    if ctx.superstep == 0:
        if v == 0:
            ctx.value[v, 0] = 0
            ctx.send_to_all(v, v)
        ctx.vote_to_halt(v)
        return
    m = ctx.message(v) if ctx.has_message(v) else -1
    if 0 <= m < n and ctx.value[v, 0] < 0:
        ctx.value[v, 0] = m
        ctx.send_to_all(v, v)
        if ctx.superstep % 2 == 1:
            ctx.send((v * 7) % n, n + v)
        ctx.aggregate(0, float(v))
        ctx.aggregate(1, float(ctx.superstep))
        if v % 3 == 0:
            return  # awake: computes again next superstep
    elif m >= n and (ctx.value[v, 1] < 0 or m < ctx.value[v, 1]):
        ctx.value[v, 1] = m
    ctx.vote_to_halt(v)


WAVE = vertex_program(_wave, value=(np.int64, 2), message=np.int64, combiner="min",
                      aggregators=("sum", "sum"), initial=-1)  # fmt: skip


def _wave_run(g, threads):
    seen = []
    job = run(WAVE, g, threads=threads, master=lambda mc: seen.append(tuple(mc.aggregated)))
    return job, seen


@pytest.mark.parametrize("g", GRAPHS[-3:])
def test_chunked_compute_equals_per_part_compute(g, threads, monkeypatch):
    """After a chunked pull, the woken vertices compute in the same chunks, threads
    taking them in turn (direct sends, aggregators and awake vertices kept per chunk):
    values, aggregators, active vertices and messages per superstep equal push-only
    delivery's, which computes per part, and a second run gives the same."""
    from hpgraph.engine.job import _Job

    taken = []
    real = _Job._compute_chunks

    def spy(self, woken):
        taken.append(woken.shape[0])
        return real(self, woken)

    monkeypatch.setattr(_Job, "_compute_chunks", spy)
    monkeypatch.setattr(config, "PUSH_PULL_THRESHOLD_FULL_SCAN", 0.0)  # pull whenever sent
    chunked = [_wave_run(g, threads) for _ in range(2)]
    assert taken, "no superstep computed in chunks"
    monkeypatch.setattr(config, "PUSH_PULL_THRESHOLD_FULL_SCAN", 2.0)  # push only
    taken.clear()
    pushed, aggs = _wave_run(g, threads)
    assert not taken
    for job, seen in chunked:
        np.testing.assert_array_equal(job.values, pushed.values)
        assert seen == aggs
        assert [r.active for r in job.stats.supersteps] == [
            r.active for r in pushed.stats.supersteps
        ]
        assert [r.messages for r in job.stats.supersteps] == [
            r.messages for r in pushed.stats.supersteps
        ]
    assert (pushed.values[:, 0] >= 0).sum() > 1 and (pushed.values[:, 1] >= g.n).any()


# --- small phases on the calling thread ------------------------------------------------
def test_small_run_parts_runs_every_part_on_the_calling_thread():
    import threading

    from hpgraph.runtimes.local import LocalRuntime

    with LocalRuntime(3) as rt:
        where = rt.run_parts(lambda p: (p, threading.get_ident()), lambda p: (p,), small=True)
        assert [r for r, _ in where] == [(p, threading.get_ident()) for p in range(3)]
        # otherwise part 0 runs here and the others on the pool's threads
        spread = rt.run_parts(lambda p: threading.get_ident(), lambda p: (p,))
        here = threading.get_ident()
        assert spread[0][0] == here and all(r != here for r, _ in spread[1:])


@pytest.mark.parametrize("g", GRAPHS[-3:])
def test_small_phases_change_no_result(g, threads, monkeypatch):
    """BFS (push, chunked pull and compute), the wave program (direct sends,
    aggregators) and PageRank give the same with small phases on one thread (the
    default) as with every phase spread over the threads."""
    from hpgraph.algorithms import bfs
    from hpgraph.runtimes.local import LocalRuntime

    asked = []
    real = LocalRuntime.run_parts

    def spy(self, fn, args_of_part, small=False):
        asked.append(small)
        return real(self, fn, args_of_part, small)

    monkeypatch.setattr(LocalRuntime, "run_parts", spy)
    s = int(np.argmax(g.out_degree()))
    one = (bfs(g, s, threads=threads), _wave_run(g, threads), _pagerank(g, PAGERANK, threads))
    assert True in asked  # some phase ran on the calling thread
    asked.clear()
    monkeypatch.setattr(config, "SMALL_PHASE_WORK", 0)
    spread = (bfs(g, s, threads=threads), _wave_run(g, threads), _pagerank(g, PAGERANK, threads))
    assert True not in asked
    np.testing.assert_array_equal(one[0]["depth"], spread[0]["depth"])
    np.testing.assert_array_equal(one[1][0].values, spread[1][0].values)
    assert one[1][1] == spread[1][1]
    np.testing.assert_array_equal(one[2].values, spread[2].values)
