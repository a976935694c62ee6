"""BMLPA's post-processing on a partitioned graph equals the whole graph's, at 1, 2 and 3
ranks (tests/mpi/check_bmlpa_post_parts.py: every rank's rows, numbers, coefficients bit
for bit, the communities' table and the nested count)."""

from __future__ import annotations

import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi

GRAPHS = ("mention", "kron", "multigraph-loops-isolated", "path", "star", "tiny")


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_bmlpa_postprocessing_on_parts_equals_the_whole_graphs(ranks):
    out = run_mpi(ranks, "check_bmlpa_post_parts.py", timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    covers = {g: ["bmlpa-rough-cores", "random-seed14", "random-seed15"] for g in GRAPHS}
    covers["mention"].append("bmlpa-labels")
    covers["star"][0] = "bmlpa-labels"
    for graph, kinds in covers.items():
        for kind in kinds:
            assert f"OK {graph}/{kind} " in out.stdout, (graph, kind, out.stdout)
