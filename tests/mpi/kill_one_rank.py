"""Run under ``mpiexec -n P`` (P >= 2): rank 1 is killed (SIGKILL) in the middle of a
job. The MPI launcher must take the whole job down: no rank may wait forever."""

from __future__ import annotations

import os
import signal

import hpgraph as hp
from hpgraph.engine import run, vertex_program
from hpgraph.runtimes.mpi import MPIRuntime


def _forever(ctx, v):
    ctx.send_to_all(v, 1.0)


rt = MPIRuntime()


def master(mc):
    if mc.superstep == 3 and rt.rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)


run(
    vertex_program(_forever, combiner="sum"),
    hp.generators.path_graph(100),
    runtime=rt,
    master=master,
    max_supersteps=100_000,
)
print(f"rank {rt.rank}: finished, which it must not", flush=True)
