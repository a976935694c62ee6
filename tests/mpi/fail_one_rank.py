"""Run under ``mpiexec -n P`` (P >= 2): a vertex program that fails on the last rank's
vertices only. Every rank must stop with an error; none may wait forever."""

from __future__ import annotations

import sys

import hpgraph as hp
from hpgraph.engine import run, vertex_program
from hpgraph.errors import RuntimeErrorInJob
from hpgraph.runtimes.mpi import MPIRuntime


def _bad(ctx, v):
    if ctx.superstep == 2 and v == ctx.num_vertices - 1:
        ctx.send(-5, 1.0)  # out of range: raises IndexError on the owning rank
    ctx.send_to_all(v, 1.0)


rt = MPIRuntime()
try:
    run(vertex_program(_bad, combiner="sum"), hp.generators.path_graph(50), runtime=rt)
except (IndexError, RuntimeErrorInJob) as exc:
    print(f"rank {rt.rank}: {type(exc).__name__}: {exc}", flush=True)
    sys.exit(3)
print(f"rank {rt.rank}: no error", flush=True)
