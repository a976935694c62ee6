"""Run under ``mpiexec -n P [--threads t] [--aggregation node]``: every kernel and engine
feature on the MPI runtime (t threads per rank; direct or node-aggregated exchange, nodes
emulated with HPGRAPH_MPI_RANKS_PER_NODE) must give the local runtime's results
(Graphalytics rules: exact for BFS depths and WCC up to relabelling, 1e-9 relative for
PageRank and SSSP here), and PageRank must move exactly one value per (receiver, sending
rank) pair. Rank 0 prints one line per check and ``ALL OK``; any difference raises, which
aborts the job."""

from __future__ import annotations

import dataclasses
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import hpgraph as hp  # noqa: E402
from conftest import make_shape  # noqa: E402
from hpgraph import config  # noqa: E402
from hpgraph.algorithms import verify_bfs, verify_sssp, verify_wcc  # noqa: E402
from hpgraph.algorithms.pagerank import PAGERANK  # noqa: E402
from hpgraph.engine import run, vertex_program  # noqa: E402
from hpgraph.engine.segments import segment_count  # noqa: E402
from hpgraph.runtimes.mpi import MPIRuntime  # noqa: E402

_opts = dict(zip(sys.argv[1::2], sys.argv[2::2], strict=False))
rt = MPIRuntime(
    threads=int(_opts.get("--threads", 1)), aggregation=_opts.get("--aggregation", "direct")
)


_WINDOW = (config.PULL_WINDOW_BYTES, config.PULL_MIN_SEGMENT_ROW)


def say(msg):
    if rt.is_root:
        print(msg, flush=True)


def _collect(ctx, v):  # listed messages: count and sum of the senders' ids
    if ctx.superstep == 0:
        if v % 3 == 0:
            ctx.send_to_all(v, v)
        ctx.send((v * 7 + 1) % ctx.num_vertices, -1)
    else:
        total = 0.0
        for m in ctx.messages(v):
            total += m
        ctx.value[v, 0] = len(ctx.messages(v))
        ctx.value[v, 1] = total
    ctx.vote_to_halt(v)


def _agg(ctx, v):
    ctx.aggregate(0, v)
    ctx.aggregate(1, v)
    if ctx.superstep > 0:
        ctx.value[v] = ctx.aggregated(0) + ctx.aggregated(1)


COLLECT = vertex_program(_collect, value=(np.float64, 2), message=np.int64)
AGG = vertex_program(_agg, aggregators=("sum", "max"))


def check_kernels(shape, directed, weighted):
    g = make_shape(shape, directed, weighted)
    name = f"{shape}-{'dir' if directed else 'und'}{'-w' if weighted else ''}"
    if g.n == 0:
        return
    s = int(np.argmax(g.out_degree()))
    local, mpi = hp.bfs(g, s, threads=1), hp.bfs(g, s, runtime=rt)
    np.testing.assert_array_equal(mpi["depth"], local["depth"])
    verify_bfs(g, s, mpi)
    local, mpi = hp.sssp(g, s, threads=1), hp.sssp(g, s, runtime=rt)
    np.testing.assert_allclose(mpi["distance"], local["distance"], rtol=1e-9)
    verify_sssp(g, s, mpi)
    local, mpi = hp.wcc(g, threads=1), hp.wcc(g, runtime=rt)
    np.testing.assert_array_equal(mpi["component"], local["component"])
    verify_wcc(g, mpi)
    local, mpi = hp.pagerank(g, threads=1), hp.pagerank(g, runtime=rt)
    np.testing.assert_allclose(mpi["rank"], local["rank"], rtol=1e-9)
    say(f"ok kernels {name}")


def check_engine():
    g = make_shape("random", True, False)
    local = run(COLLECT, g, threads=1)
    mpi = run(COLLECT, g, runtime=rt)
    np.testing.assert_array_equal(mpi.values, local.values)
    assert mpi.supersteps == local.supersteps
    assert [s.messages for s in mpi.stats.supersteps] == [
        s.messages for s in local.stats.supersteps
    ]

    def master(mc):
        if mc.superstep == 3:
            mc.halt()

    a, b = run(AGG, g, master=master, threads=1), run(AGG, g, master=master, runtime=rt)
    np.testing.assert_array_equal(a.values, b.values)
    assert b.stopped_by == "master" and b.supersteps == 3
    say("ok engine: listed messages, direct sends, aggregators, master")


def check_exchange_volume():
    """Sender-side combining: per superstep PageRank moves one value (4 B id + 8 B rank)
    per distinct (receiver, sending rank) pair whose ranks differ; with node aggregation,
    one per (receiver, sending node) pair whose nodes differ."""
    g = make_shape("random", True, False)
    general = dataclasses.replace(PAGERANK, dense=False)  # dense supersteps: below
    res = run(general, g, params={"damping": 0.85, "iterations": 3}, runtime=rt,
              values=np.full(g.n, 1.0 / g.n), max_supersteps=4)  # fmt: skip
    ro = rt.partition(g).offsets[:: rt.threads]
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    owner_s = np.searchsorted(ro, src, side="right") - 1
    owner_d = np.searchsorted(ro, g.indices, side="right") - 1
    if rt.aggregation == "node":
        nodes = rt.topology.node_of_rank
        owner_s, owner_d = nodes[owner_s], nodes[owner_d]
    cross = owner_s != owner_d
    pairs = np.unique(g.indices[cross].astype(np.int64) * rt.size + owner_s[cross]).size
    rows = res.stats.supersteps
    for row in rows[:-1]:  # every vertex sends in supersteps 0..2
        assert row.messages_exchanged == pairs, (row.messages_exchanged, pairs)
        assert row.bytes_exchanged == pairs * (g.indices.itemsize + 8)
        assert row.messages_remote + row.messages_local == g.num_stored_edges
    assert rows[-1].messages_exchanged == 0
    say(f"ok exchange volume: {pairs} values per superstep for {g.num_stored_edges} edges")


def check_dense(window=None):
    """Dense supersteps on MPI: each rank pulls for its own vertices after every rank's
    broadcasts are mirrored (n - own values to each rank, no ids); results equal the
    general delivery's. ``window``: pull in segments of that many bytes of senders
    (engine/segments.py), a few per in-row."""
    g = make_shape("random", True, False)
    params = {"damping": 0.85, "iterations": 5}
    start = np.full(g.n, 1.0 / g.n)
    segments = 1
    if window is not None:
        config.PULL_WINDOW_BYTES, config.PULL_MIN_SEGMENT_ROW = window, 0.25
        segments = segment_count(g.n, 8, g.n, g.num_stored_edges)
        assert segments > 2, segments
    dense = run(PAGERANK, g, params=params, runtime=rt, values=start, max_supersteps=6)
    config.PULL_WINDOW_BYTES, config.PULL_MIN_SEGMENT_ROW = _WINDOW
    general = run(dataclasses.replace(PAGERANK, dense=False), g, params=params, runtime=rt,
                  values=start, max_supersteps=6)  # fmt: skip
    np.testing.assert_allclose(dense.values, general.values, rtol=1e-12)
    rows = dense.stats.supersteps
    assert [r.mode for r in rows] == ["dense"] * 5 + ["-"], [r.mode for r in rows]
    for row in rows[:-1]:
        assert row.messages_exchanged == (rt.size - 1) * g.n
        assert row.bytes_exchanged == (rt.size - 1) * g.n * 8
    say(
        f"ok dense supersteps in {segments} segment(s): equal to the general delivery,"
        " n values mirrored per rank"
    )


if __name__ == "__main__":
    say(f"MPI runtime check: {rt!r}")
    for shape in ("single", "single_loop", "path", "star_isolated", "multi_loops", "components"):
        for directed in (True, False):
            check_kernels(shape, directed, shape not in ("single",))
    check_engine()
    check_exchange_volume()
    check_dense()
    check_dense(window=64)
    say("ALL OK")
