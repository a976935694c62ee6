"""Runtime conformance: the kernels' checks of tests/conformance/kernels.py (BFS, SSSP,
WCC, PageRank, CDLP, LCC, BMLPA on small seeded graphs, against NetworkX or the kernels'
verifiers) pass on the local runtime and on MPI with 1, 2 and 3 ranks, started with a real
``mpiexec`` (one launch per rank count runs every kernel)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi

sys.path.insert(0, str(Path(__file__).parent / "conformance"))

import kernels  # noqa: E402

from hpgraph.runtimes import LocalRuntime  # noqa: E402


@pytest.mark.parametrize("threads", [1, 2])
def test_local_runtime_conforms(threads):
    lines = []
    with LocalRuntime(threads) as rt:
        kernels.run_all(rt, say=lines.append)
    assert len(lines) == len(kernels.CASES) + 1 and lines[-1] == "ok bmlpa"


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
@pytest.mark.parametrize("held", ["whole graph", "own rows"])
def test_mpi_runtime_conforms(ranks, held):
    mode = "mpi" if held == "whole graph" else "mpi-parts"
    out = run_mpi(ranks, "../conformance/kernels.py", mode, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"CONFORMS MPIRuntime(rank=0, size={ranks}" in out.stdout
    assert out.stdout.rstrip().endswith(held)
    assert out.stdout.count("ok ") == len(kernels.CASES) + 1  # only rank 0 reports
