"""Run under ``mpiexec -n P``: the FR layout on the MPI runtime (one peer per rank) must
equal the local runtime's bitwise. Each vertex's move is a fixed-order sum over a grid or
tree that every rank builds from the same full position array, and ranks run the same
compiled code on the same machine, so no tolerance is needed (tolerance 0). Rank 0
prints ``LAYOUT OK``; a difference raises, which aborts the job."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from conftest import make_shape  # noqa: E402
from hpgraph.algorithms.layout import layout  # noqa: E402
from hpgraph.runtimes.mpi import MPIRuntime  # noqa: E402

rt = MPIRuntime()

CASES = [  # (shape, weighted, method, dim): every method, 2-D and 3-D, awkward shapes
    ("components", False, "exact", 2), ("components", False, "grid", 3),
    ("components", False, "barnes-hut", 2), ("multi_loops", True, "barnes-hut", 3),
    ("multi_loops", True, "grid", 2), ("single", False, "barnes-hut", 2),
    ("empty", False, "exact", 3),
]  # fmt: skip
for shape, weighted, method, dim in CASES:
    g = make_shape(shape, False, weighted)
    local = layout(g, method=method, dim=dim, iterations=20, threads=2)
    mpi = layout(g, method=method, dim=dim, iterations=20, runtime=rt)
    for c in local.columns:
        assert np.array_equal(local[c], mpi[c]), (shape, method, dim, c)
    assert mpi.meta["peers"] == rt.size
if rt.is_root:
    print("LAYOUT OK", flush=True)
