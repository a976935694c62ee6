"""Partitioned graphs (issue 14): each MPI rank holds only its own rows and state
(:class:`~hpgraph.graph.part.PartGraph`). Under ``mpiexec -n 1, 2, 3`` (3 ranks with 2
threads each: uneven parts, one rank without vertices on the 2-vertex graph) the kernels
that run on parts equal the whole graph's results, and parts read in parallel hold the
whole graph's rows; without MPI, the windows and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi
from hpgraph import generators
from hpgraph.algorithms import betweenness, bmlpa, pagerank
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.part import PartGraph, window


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks, threads", [(1, 1), (2, 1), (3, 2)])
def test_partitioned_kernels_equal_whole_graph_runs(ranks, threads, tmp_path):
    out = run_mpi(ranks, "check_parts.py", tmp_path, threads, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    for case in ("kron-directed/pagerank", "uniform-weighted/bfs", "path/wcc"):
        assert f"OK {case}" in out.stdout
    if ranks > 1:
        assert "OK kron-directed/read-parquet" in out.stdout


def test_window_reads_and_writes_the_own_rows_in_place():
    own = np.arange(5.0)
    w = window(own, 10, 20)
    assert w.shape == (20,) and w.flags.c_contiguous
    w[12] = 99.0
    assert own[2] == 99.0
    np.testing.assert_array_equal(w[10:15], own)
    assert not window(own, 3, 9, readonly=True).flags.writeable
    with pytest.raises(ValueError, match="outside"):
        window(own, 18, 20)


def test_a_part_holds_its_rows_and_reports_the_whole_graph():
    g = generators.kronecker(8, 8, seed=1, directed=True)
    parts = [PartGraph.from_graph(g, 3, r) for r in range(3)]
    assert [p.lo for p in parts] == [0, parts[0].hi, parts[1].hi] and parts[-1].hi == g.n
    assert sum(p.own_indices.shape[0] for p in parts) == g.num_stored_edges
    for p in parts:
        assert (p.n, p.num_stored_edges, p.num_edges) == (g.n, g.num_stored_edges, g.num_edges)
        a, b = int(g.indptr[p.lo]), int(g.indptr[p.hi])
        np.testing.assert_array_equal(p.indices[a:b], g.indices[a:b])
        ip, ix, _ = p.in_csr()
        gip, gix, _ = g.in_csr()
        np.testing.assert_array_equal(ip[p.lo : p.hi + 1], gip[p.lo : p.hi + 1])
        np.testing.assert_array_equal(ix[gip[p.lo] : gip[p.hi]], gix[gip[p.lo] : gip[p.hi]])
        assert p.memory_bytes() < g.memory_bytes()


def test_whole_graph_kernels_and_other_runtimes_refuse_a_part():
    g = generators.kronecker(6, 4, seed=2)
    part = PartGraph.from_graph(g, 2, 0)
    for fn in (betweenness, bmlpa):
        with pytest.raises(InvalidArgumentError, match="whole graph on every rank"):
            fn(part)
    with pytest.raises(InvalidArgumentError, match="MPI runtime it was split for"):
        pagerank(part, runtime="local")
    with pytest.raises(InvalidArgumentError, match="communicator"):  # views reduce counts
        PartGraph.from_graph(generators.kronecker(6, 4, directed=True), 2, 1).symmetrized()
