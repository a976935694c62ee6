"""The BSP engine: message delivery (push and pull, combined and listed, broadcast and
direct), vector types, combiners, aggregators, master compute, halting, errors, stats,
the kernel cache, and the peer-level BSP API. Each is checked against a plain NumPy
computation of the same thing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hpgraph as hp
from conftest import make_shape
from hpgraph.engine import run, run_bsp, vertex_program
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob, UserProgramError
from hpgraph.graph import Graph


def _in_sums(g, senders):
    """(count, id sum) of messages each vertex gets when ``senders`` broadcast their id."""
    src, dst, _ = g.edges()
    keep = senders[src]
    cnt = np.bincount(dst[keep], minlength=g.n).astype(np.float64)
    tot = np.bincount(dst[keep], weights=src[keep].astype(np.float64), minlength=g.n)
    return cnt, tot


# --- listed messages: no combiner, every message kept ------------------------------
def _collect(ctx, v):
    if ctx.superstep == 0:
        if v % np.int64(ctx.params[0]) == 0:
            ctx.send_to_all(v, v)
    else:
        total = 0.0
        for m in ctx.messages(v):
            total += m
        ctx.value[v, 0] = len(ctx.messages(v))
        ctx.value[v, 1] = total
    ctx.vote_to_halt(v)


COLLECT = vertex_program(_collect, value=(np.float64, 2), message=np.int64, params=("every",))


@pytest.mark.parametrize("every", [1, 50], ids=["dense-pull", "sparse-push"])
@pytest.mark.parametrize("directed", [True, False])
def test_listed_messages_push_and_pull(every, directed, threads):
    g = make_shape("random", directed, False)
    res = run(COLLECT, g, params={"every": every}, threads=threads)
    cnt, tot = _in_sums(g, np.arange(g.n) % every == 0)
    np.testing.assert_array_equal(res.values[:, 0], cnt)
    np.testing.assert_array_equal(res.values[:, 1], tot)
    assert res.stats.supersteps[0].mode == ("pull" if every == 1 else "push")
    assert res.stopped_by == "halt"


# --- combined vector messages, user combiner ---------------------------------------
def _vec(ctx, v):
    if ctx.superstep == 0:
        msg = np.empty(2)
        msg[0] = 1.0
        msg[1] = v
        ctx.send_to_all(v, msg)
    elif ctx.has_message(v):
        ctx.value[v, :] = ctx.message(v)
    ctx.vote_to_halt(v)


VEC = vertex_program(_vec, value=(np.float64, 2), message=(np.float64, 2), combiner="sum")


def test_vector_messages_are_combined_elementwise(threads):
    g = make_shape("multi_loops", True, False)
    res = run(VEC, g, threads=threads)
    cnt, tot = _in_sums(g, np.ones(g.n, bool))
    np.testing.assert_array_equal(res.values[:, 0], cnt)
    np.testing.assert_array_equal(res.values[:, 1], tot)


def _smaller(a, b):
    return a if a < b else b


def _min_in(ctx, v):
    if ctx.superstep == 0:
        ctx.send_to_all(v, v * 3 % 17)
    elif ctx.has_message(v):
        ctx.value[v] = ctx.message(v)
    ctx.vote_to_halt(v)


def test_user_defined_combiner(threads):
    prog = vertex_program(_min_in, value=np.int64, message=np.int64, combiner=_smaller, initial=-1)
    g = make_shape("random", True, False)
    res = run(prog, g, threads=threads)
    src, dst, _ = g.edges()
    expect = np.full(g.n, np.iinfo(np.int64).max)
    np.minimum.at(expect, dst, src.astype(np.int64) * 3 % 17)
    expect[expect == np.iinfo(np.int64).max] = -1
    np.testing.assert_array_equal(res.values, expect)


# --- loops inside compute: writes through ctx fields and sends per edge ------------
def _loops(ctx, v):
    if ctx.superstep == 0:
        for j in range(3):
            ctx.value[v, j] = v * (j + 1)
        targets = ctx.out_edges(v)
        for k in range(targets.shape[0]):
            ctx.send(targets[k], float(k + 1))
    else:
        total = 0.0
        for m in ctx.messages(v):
            total += m
        ctx.value[v, 0] = total
    ctx.vote_to_halt(v)


def test_loops_in_compute_write_and_send(threads):
    prog = vertex_program(_loops, value=(np.float64, 3))
    g = make_shape("multi_loops", True, False)
    res = run(prog, g, threads=threads)
    src, dst, _ = g.edges()
    rank = np.arange(src.shape[0]) - g.indptr[src] + 1.0  # position of the edge in its row
    expect = np.bincount(dst, weights=rank, minlength=g.n)
    np.testing.assert_array_equal(res.values[:, 0], expect)
    np.testing.assert_array_equal(res.values[:, 1], 2.0 * np.arange(g.n))
    np.testing.assert_array_equal(res.values[:, 2], 3.0 * np.arange(g.n))


# --- direct sends, edge functions, weights -----------------------------------------
def _ring(ctx, v):
    if ctx.superstep == 0:
        ctx.send((v + 1) % ctx.num_vertices, 1.0 + v)
        ctx.send((v + 1) % ctx.num_vertices, 1.0)
    else:
        ctx.value[v] = ctx.message(v)
    ctx.vote_to_halt(v)


def test_direct_sends_reach_any_vertex(threads):
    prog = vertex_program(_ring, combiner="sum")
    g = Graph.from_edges([], [], n=10)  # no edges at all: only direct sends
    res = run(prog, g, threads=threads)
    np.testing.assert_array_equal(res.values, np.roll(np.arange(10) + 2.0, 1))
    first = res.stats.supersteps[0]
    assert first.messages == 20
    assert first.messages_local + first.messages_remote == 20


def _heaviest(ctx, v):
    if ctx.superstep == 0:
        ctx.send_along_edges(v, 0.0)
    elif ctx.has_message(v):
        ctx.value[v] = ctx.message(v)
    ctx.vote_to_halt(v)


def test_edge_function_sees_each_edge_weight(threads):
    prog = vertex_program(_heaviest, combiner="max", edge_message=lambda m, w: m + 2 * w)
    g = make_shape("random", True, True)
    res = run(prog, g, threads=threads)
    src, dst, w = g.edges()
    expect = np.zeros(g.n)
    np.maximum.at(expect, dst, 2 * w)
    np.testing.assert_allclose(res.values, expect)


# --- aggregators, master compute, limits, finishing --------------------------------
def _agg(ctx, v):
    ctx.aggregate(0, v)
    ctx.aggregate(1, v)
    ctx.aggregate(2, v)
    if ctx.superstep > 0:
        ctx.value[v] = ctx.aggregated(0) + ctx.aggregated(1) + ctx.aggregated(2)


AGG = vertex_program(_agg, aggregators=("sum", "min", "max"))


def test_aggregators_and_master_halt(threads):
    g = make_shape("path", False, False)
    seen = []

    def master(mc):
        seen.append((mc.superstep, mc.aggregated.copy()))
        if mc.superstep == 3:
            mc.halt()

    res = run(AGG, g, master=master, threads=threads)
    n = g.n
    assert res.stopped_by == "master" and res.supersteps == 3
    assert [s for s, _ in seen] == [1, 2, 3]
    np.testing.assert_array_equal(seen[0][1], [n * (n - 1) / 2, 0, n - 1])
    np.testing.assert_array_equal(res.values, np.full(n, n * (n - 1) / 2 + n - 1))


def test_superstep_limit_and_master_written_aggregate(threads):
    g = make_shape("path", False, False)

    def master(mc):
        mc.aggregated[0] = 100.0  # vertices read what the master leaves

    res = run(AGG, g, master=master, max_supersteps=4, threads=threads)
    assert res.stopped_by == "limit" and res.supersteps == 4
    np.testing.assert_array_equal(res.values, np.full(g.n, 100.0 + g.n - 1))


def _finish_evens(ctx, v):
    if ctx.superstep == 0:
        if v % 2 == 0:
            ctx.finish(v)
        ctx.send_to_all(v, 1.0)
    else:
        ctx.value[v] += ctx.message(v)
    ctx.vote_to_halt(v)


def test_finished_vertices_get_no_messages(threads):
    prog = vertex_program(_finish_evens, combiner="sum")
    g = make_shape("dense", False, False)
    res = run(prog, g, threads=threads)
    cnt, _ = _in_sums(g, np.ones(g.n, bool))
    even = np.arange(g.n) % 2 == 0
    np.testing.assert_array_equal(res.values[even], 0.0)
    np.testing.assert_array_equal(res.values[~even], cnt[~even])


def _stamp(ctx, v):
    if ctx.superstep == 0:
        ctx.value[v] = 100.0 + v
        ctx.send_to_all(v, 1.0)
    else:
        ctx.value[v] = ctx.message(v)
    ctx.vote_to_halt(v)


def test_awake_computes_only_the_listed_vertices_first(threads):
    """run(..., awake=ids): superstep 0 computes the listed vertices alone; the others
    keep their initial value until a message wakes them."""
    prog = vertex_program(_stamp, combiner="sum", initial=-1.0)
    g = make_shape("random", True, False)
    awake = np.array([0, g.n // 2, g.n - 1])
    res = run(prog, g, awake=awake, threads=threads)
    cnt, _ = _in_sums(g, np.isin(np.arange(g.n), awake))
    want = np.where(cnt > 0, cnt, -1.0)
    want[awake] = np.where(cnt[awake] > 0, cnt[awake], 100.0 + awake)
    np.testing.assert_array_equal(res.values, want)
    assert res.stats.supersteps[0].active == awake.size
    with pytest.raises(InvalidArgumentError, match="awake"):
        run(prog, g, awake=[g.n])


def test_scratch_arrays_kept_for_the_next_job_start_as_new():
    """A job on the local runtime leaves its scratch arrays (flags, mailboxes, lists) to
    the next one (engine/buffers.py), refilled: a job after one that left them dirty
    gets the result of a fresh process."""
    from hpgraph.engine import buffers

    g = make_shape("random", True, False)
    prog = vertex_program(_stamp, combiner="sum", initial=-1.0)
    buffers.release()
    fresh = run(prog, g, awake=[0], threads=2).values
    for _ in range(2):
        run(prog, g, threads=2)  # every vertex sends: flags and mailboxes left dirty
        assert buffers._spare  # the finished job's arrays are kept
        np.testing.assert_array_equal(run(prog, g, awake=[0], threads=2).values, fresh)
    buffers.release()
    assert not buffers._spare


def test_empty_graph_runs_no_superstep_work():
    res = run(AGG, Graph.from_edges([], [], n=0))
    assert res.values.shape == (0,) and res.supersteps == 1


def test_stats_count_messages_and_time():
    g = make_shape("random", True, False)
    res = run(COLLECT, g, params={"every": 1}, threads=2)
    first = res.stats.supersteps[0]
    assert first.messages == g.num_stored_edges
    assert first.bytes_local + first.bytes_remote == 8 * g.num_stored_edges
    assert 0 < first.messages_local < g.num_stored_edges  # two parts: some cross
    for s in res.stats.supersteps:
        assert min(s.compute_s, s.communication_s, s.barrier_s) >= 0
    totals = res.stats.totals()
    assert totals["messages"] == g.num_stored_edges


# --- errors ---------------------------------------------------------------------------
def _broken(ctx, v):
    ctx.value[v] = ctx.no_such_field


def test_compile_error_names_the_user_function():
    prog = vertex_program(_broken)
    with pytest.raises(UserProgramError, match="'_broken' does not compile"):
        run(prog, make_shape("path", False, False))


def _listed_but_reads_one(ctx, v):
    ctx.value[v] = ctx.message(v)


def test_message_without_combiner_is_a_compile_error():
    prog = vertex_program(_listed_but_reads_one)
    with pytest.raises(UserProgramError, match="no combiner; use ctx.messages"):
        run(prog, make_shape("path", False, False))


def test_bad_declarations_and_arguments():
    with pytest.raises(InvalidArgumentError, match="unknown combiner"):
        vertex_program(_agg, combiner="avg")
    with pytest.raises(InvalidArgumentError, match="unknown aggregator"):
        vertex_program(_agg, aggregators=("mean",))
    with pytest.raises(InvalidArgumentError, match="numeric"):
        vertex_program(_agg, value=object)
    g = make_shape("path", False, False)
    with pytest.raises(InvalidArgumentError, match="missing parameter"):
        run(COLLECT, g)
    with pytest.raises(InvalidArgumentError, match="unknown parameter"):
        run(COLLECT, g, params={"every": 1, "bogus": 2})
    with pytest.raises(InvalidArgumentError, match="shape"):
        run(AGG, g, values=np.zeros(3))
    with pytest.raises(InvalidArgumentError, match="threads"):
        run(AGG, g, threads=0)


# --- peer-level BSP ---------------------------------------------------------------------
def _ring_bsp(peer, rounds):
    token = np.array([peer.pid], dtype=np.int64)
    for _ in range(rounds):
        peer.send((peer.pid + 1) % peer.num_peers, token)
        peer.sync()
        ((src, token),) = peer.messages()
        assert src == (peer.pid - 1) % peer.num_peers
    return int(token[0])


@pytest.mark.parametrize("peers", [1, 2, 3, 5])
def test_bsp_ring(peers):
    res = run_bsp(_ring_bsp, peers=peers, args=(7,))
    assert res.results == [(p - 7) % peers for p in range(peers)]
    assert len(res.stats.supersteps) == 7
    assert res.stats.supersteps[0].messages == peers
    assert res.stats.supersteps[0].bytes_local + res.stats.supersteps[0].bytes_remote == 8 * peers


def _fails_on_peer_one(peer):
    for step in range(5):
        if peer.pid == 1 and step == 2:
            raise ValueError("boom")
        peer.sync()


def test_bsp_failure_stops_every_peer():
    with pytest.raises(RuntimeErrorInJob, match="peer 1 failed: ValueError: boom"):
        run_bsp(_fails_on_peer_one, peers=3)


# --- process-level behaviour --------------------------------------------------------------
def test_import_is_light():
    code = "import sys, hpgraph; print('numba' in sys.modules, 'pyarrow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_kernels_are_cached_across_processes(tmp_path):
    code = textwrap.dedent(
        """
        import hpgraph as hp
        from hpgraph.algorithms.wcc import WCC
        from hpgraph.engine import codegen
        g = hp.generators.path_graph(20)
        hp.wcc(g, variant="hashmin", threads=1)
        k = codegen.kernels_for(WCC)
        print(sum(k.compute_part.stats.cache_hits.values()))
        """
    )
    env = dict(os.environ, HPGRAPH_CACHE_DIR=str(tmp_path))
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        for _ in range(2)
    ]
    assert runs[0].returncode == 0, runs[0].stderr
    assert [r.stdout.strip() for r in runs] == ["0", "1"]
    assert list((tmp_path / "kernels").glob("hpk_*.py"))


def test_kernel_fingerprint_covers_the_engine_modules_compiled_in(monkeypatch):
    # numba's cache checks only the kernel file's date: an edit of the context's methods
    # (which every compute calls) or the atomics must give a fresh kernel module
    import inspect

    from hpgraph.algorithms.wcc import WCC
    from hpgraph.engine import codegen, context, superstep

    template = inspect.getsource(superstep)
    key = codegen._fingerprint(WCC, template)
    real = codegen._engine_sources()
    assert "def combine_sum" in real and "def fetch_add" in real
    for edit in (real.replace("def combine_sum", "def combine_sum_"), real + "\n# edited"):
        monkeypatch.setattr(codegen, "_engine_sources", lambda edit=edit: edit)
        assert codegen._fingerprint(WCC, template) != key
    monkeypatch.setattr(codegen, "_engine_sources", lambda: real)
    assert codegen._fingerprint(WCC, template) == key
    assert inspect.getsource(context) in real


def test_public_api_is_exported():
    for name in hp.__all__:
        assert getattr(hp, name) is not None


# --- the kernels' contexts point only at memory the job keeps -----------------------
def _held(job):
    """(start, end) of every array a job keeps alive."""
    arrays = [*job.a.values(), job.counter_rows, job.agg_rows, job.empty_counters]
    return [(a.ctypes.data, a.ctypes.data + a.nbytes) for a in arrays if a.nbytes]


@pytest.mark.parametrize("threads", [1, 2])
def test_every_context_array_is_kept_alive_by_the_job(threads, monkeypatch):
    """A context holds raw addresses (``describe``), so every array it names must live as
    long as the job: the empty context that compiles the kernels made at first use
    (``compute_chunks``, ``pull_segment``) once named a scratch row freed on return, and
    that first run zeroed whatever reused the memory (the work chunks: vertex messages
    then reached only the first chunk's receivers). Checked on every context after a run
    that compiles compute_chunks (BFS's chunked pulls) and for vector messages."""
    import hpgraph.engine.job as job_module
    from hpgraph.algorithms.bfs import BFS

    jobs = []
    loop = job_module._Job.loop

    def spy(self, *args, **kwargs):
        jobs.append(self)
        return loop(self, *args, **kwargs)

    monkeypatch.setattr(job_module._Job, "loop", spy)
    g = make_shape("multi_loops", True, False)
    run(VEC, g, threads=threads)
    run(BFS, g, params={"source": 0}, awake=[0], threads=threads)
    assert len(jobs) == 2 and jobs[1].chunk_lists is not None  # compute_chunks was made
    for job in jobs:
        held = _held(job)
        contexts = [job.base, job.empty_ctx, *(job.ctx(p) for p in job.rt.local_parts)]
        for ctx in contexts:
            for name in ctx._fields:
                if not name.endswith("_d") or not all(getattr(ctx, name)[1]):
                    continue  # (an empty array's address is never read)
                addr = getattr(ctx, name)[0]
                assert any(lo <= addr < hi for lo, hi in held), f"{name} is not kept alive"
