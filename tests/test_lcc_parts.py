"""LCC on partitioned graphs (issue 14): each MPI rank holds only its own rows
(:class:`~hpgraph.graph.part.PartGraph`), fetches the forward rows of its ghosts from
their owners and counts the triangles of its own rows. Under ``mpiexec -n 1, 2, 3`` (3
ranks with 2 threads each, one rank without vertices on the 2-vertex graph) the result
equals the whole graph's bit for bit (tests/mpi/check_lcc_parts.py); ``hpgraph run lcc
--ranks 2`` loads parts and writes the file of the one-process result; a part refuses the local
runtime."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MPIEXEC, NO_MPI, SEED, run_mpi
from hpgraph import generators
from hpgraph.algorithms.lcc import lcc
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.part import PartGraph
from hpgraph.io import read_edgelist, write_edgelist, write_result

CASES = ("kron-undirected", "kron-directed", "multi-loops-directed", "multi-loops-undirected",
         "path", "tiny", "empty", "clique", "clique-directed")  # fmt: skip


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks, threads", [(1, 1), (2, 1), (3, 2)])
def test_partitioned_lcc_equals_the_whole_graph_bit_for_bit(ranks, threads):
    out = run_mpi(ranks, "check_lcc_parts.py", SEED, threads, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    for case in CASES:
        assert f"OK {case} (" in out.stdout, out.stdout


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_cli_ranks_hold_their_rows_and_write_the_local_result(tmp_path):
    exe = Path(sys.executable).parent / "hpgraph"
    if not exe.exists():
        pytest.skip("the hpgraph script is not installed beside the interpreter")
    edges = tmp_path / "g.el"
    write_edgelist(generators.kronecker(8, 8, seed=SEED, directed=True), edges)
    out = tmp_path / "lcc.csv"
    r = subprocess.run(
        [str(exe), "run", "lcc", str(edges), "--directed", "--ranks", "2", "--no-cache",
         "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert "own rows per rank" in r.stdout
    want = tmp_path / "want.csv"
    write_result(lcc(read_edgelist(edges, directed=True), threads=1), want)
    assert out.read_bytes() == want.read_bytes()


def test_a_part_runs_only_on_the_mpi_runtime_it_was_split_for():
    part = PartGraph.from_graph(generators.kronecker(6, 4, seed=SEED), 2, 0)
    with pytest.raises(InvalidArgumentError, match="MPI runtime it was split for"):
        lcc(part)
    whole = PartGraph.from_graph(generators.kronecker(6, 4, seed=SEED), 1, 0)
    with pytest.raises(InvalidArgumentError, match="MPI runtime it was split for, not local"):
        lcc(whole, runtime="local")
