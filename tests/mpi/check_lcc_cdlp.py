"""Run under ``mpiexec -n P``: LCC and CDLP on the MPI runtime must equal the local
runtime's results exactly (CDLP labels, triangle counts, and LCC values, which come from
the same integer counts). Rank 0 prints one line per check and ``ALL OK``; a difference
raises, which ends the job with a non-zero exit code."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from conftest import make_shape  # noqa: E402
from hpgraph.algorithms.cdlp import cdlp, verify_cdlp  # noqa: E402
from hpgraph.algorithms.lcc import lcc, verify_lcc  # noqa: E402
from hpgraph.generators import kronecker  # noqa: E402
from hpgraph.runtimes.mpi import MPIRuntime  # noqa: E402

rt = MPIRuntime()


def say(msg):
    if rt.is_root:
        print(msg, flush=True)


def check(g, name):
    local, mpi = lcc(g, threads=1), lcc(g, runtime=rt)
    np.testing.assert_array_equal(mpi["triangles"], local["triangles"])
    np.testing.assert_array_equal(mpi["lcc"], local["lcc"])
    assert mpi.meta == local.meta, (mpi.meta, local.meta)
    verify_lcc(g, mpi)
    for iterations in (3,):
        local = cdlp(g, iterations=iterations, threads=1)
        mpi = cdlp(g, iterations=iterations, runtime=rt)
        np.testing.assert_array_equal(mpi["label"], local["label"])
        verify_cdlp(g, mpi, iterations=iterations)
    say(f"ok lcc, cdlp {name}")


if __name__ == "__main__":
    say(f"LCC/CDLP MPI check on {rt.size} rank(s)")
    for shape in ("empty", "single_loop", "multi_loops", "dense"):
        for directed in (False, True):
            check(make_shape(shape, directed, False), f"{shape}-{'dir' if directed else 'und'}")
    check(kronecker(9, edge_factor=8, seed=3), "kron9")
    say("ALL OK")
