"""Run under ``mpiexec -n P`` (P >= 2) with ``HPGRAPH_MPI_TIMEOUT`` small and a mode:
rank 1 stops itself (SIGSTOP: it never runs again) or sleeps for a while, in the middle of
a vertex job (``vertex``) or of a peer-level BSP job (``bsp``). A stopped rank must end
the job through the other ranks' watchdogs, naming it; a slow one must not."""

from __future__ import annotations

import os
import signal
import sys
import time

import hpgraph as hp
from hpgraph.engine import run, run_bsp, vertex_program
from hpgraph.runtimes.mpi import MPIRuntime

api, fault = sys.argv[1], sys.argv[2]
rt = MPIRuntime()


def fail_here():
    if rt.rank != 1:
        return
    if fault == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    else:
        time.sleep(float(fault))


def _spread(ctx, v):
    if ctx.superstep < 6:
        ctx.send_to_all(v, 1.0)
    ctx.vote_to_halt(v)


def master(mc):
    if mc.superstep == 3:
        fail_here()


def program(peer):
    for step in range(6):
        if step == 3:
            fail_here()
        peer.send((peer.pid + 1) % peer.num_peers, step)
        peer.sync()
    return peer.pid


if api == "vertex":
    job = run(
        vertex_program(_spread, combiner="sum"), hp.generators.path_graph(100), runtime=rt,
        master=master,
    )  # fmt: skip
else:
    run_bsp(program, runtime=rt)
print(f"rank {rt.rank}: FINISHED", flush=True)
