"""Run under ``mpiexec -n P``: every kernel and engine feature on the MPI runtime must give
the local runtime's results (Graphalytics rules: exact for BFS depths and WCC up to
relabelling, 1e-9 relative for PageRank and SSSP here). Rank 0 prints one line per check
and ``ALL OK``; any difference raises, which aborts the job."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import hpgraph as hp  # noqa: E402
from conftest import make_shape  # noqa: E402
from hpgraph.algorithms import verify_bfs, verify_sssp, verify_wcc  # noqa: E402
from hpgraph.engine import run, vertex_program  # noqa: E402
from hpgraph.runtimes.mpi import MPIRuntime  # noqa: E402

rt = MPIRuntime()


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


if __name__ == "__main__":
    say(f"MPI runtime check on {rt.size} rank(s)")
    for shape in ("single", "single_loop", "path", "star_isolated", "multi_loops", "components"):
        for directed in (True, False):
            check_kernels(shape, directed, shape not in ("single",))
    check_engine()
    say("ALL OK")
