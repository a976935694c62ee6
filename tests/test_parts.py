"""Partitioned graphs (issue 14): each MPI rank holds only its own rows and state
(:class:`~hpgraph.graph.part.PartGraph`). Under ``mpiexec -n 1, 2, 3`` (3 ranks with 2
threads each: uneven parts, one rank without vertices on the 2-vertex graph) the kernels
that run on parts equal the whole graph's results, and parts read in parallel hold the
whole graph's rows; a part with string or wide integer ids holds only its own vertices'
ids and ``hpgraph run`` writes the one-process output; without MPI, the windows, the
own ids and the errors; BMLPA's colouring and propagation on parts equal the whole
graph's."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi
from hpgraph import generators
from hpgraph.algorithms import betweenness, bmlpa, pagerank
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph import Graph
from hpgraph.graph.part import OwnIds, PartGraph, window


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks, threads", [(1, 1), (2, 1), (3, 2)])
def test_partitioned_kernels_equal_whole_graph_runs(ranks, threads, tmp_path):
    out = run_mpi(ranks, "check_parts.py", tmp_path, threads, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    for case in ("kron-directed/pagerank", "uniform-weighted/bfs", "path/wcc"):
        assert f"OK {case}" in out.stdout
    if ranks > 1:
        assert "OK kron-directed/read-parquet" in out.stdout


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_bmlpa_colouring_on_parts_equals_the_whole_graphs(ranks):
    out = run_mpi(ranks, "check_colour_parts.py", timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    for case in ("mention", "kron", "multigraph-loops-isolated", "path", "star", "tiny"):
        assert f"OK {case} rounds=" in out.stdout
    if ranks == 1:  # one rank colours everything in its first round
        assert out.stdout.count("rounds=1\n") == 6


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_bmlpa_propagation_on_parts_equals_the_whole_graphs(ranks):
    out = run_mpi(ranks, "check_bmlpa_propagate_parts.py", timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    cases = ("mention/rough-cores", "mention/hashtags", "kron", "multigraph-loops-isolated")
    for case in (*cases, "path", "star", "tiny"):
        for rule in ("rate", "counts"):
            assert f"OK {case}/{rule} sweeps=" in out.stdout
    for case in ("mention", "path", "star"):  # bmlpa() on a part: the whole-graph result
        for rule in ("rate", "counts"):
            assert f"OK front/{case}/{rule} communities=" in out.stdout


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_a_part_holds_only_its_own_names_and_writes_the_one_process_output(ranks, tmp_path):
    out = run_mpi(ranks, "check_part_names.py", tmp_path, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    cases = ("own-ids", "bfs/output", "wcc/output", "pagerank/output", "write_result", "parts")
    for kind in ("strings", "wide"):
        for case in (*cases, "unknown-source"):
            assert f"OK {kind}/{case}" in out.stdout
    # the unknown source is said once per run (by rank 0), in one line
    assert out.stderr.count("hpgraph: error: unknown vertex 'no such vertex'") == 2
    assert "OK strings/negative-weight" in out.stdout
    assert out.stderr.count("has weight -1.0") == 1


def test_own_ids_are_cut_from_ids_in_ascending_order():
    own = OwnIds.cut(np.array(["a", "b", "c", "d"], dtype=object), 1, 3)
    assert own.strings and own.values.to_pylist() == ["b", "c"] and own.lo == 1
    assert (own.find("c"), own.find("a"), own.find(3)) == (2, -1, -1)
    ints = OwnIds.cut(np.array([3, 9, 40]), 1, 3)
    assert not ints.strings and (ints.find(40), ints.find("9"), ints.find(5)) == (2, 1, -1)
    for ids in (["b", "a"], [1, "a"]):  # out of order, mixed: a part keeps them whole
        assert OwnIds.cut(np.array(ids, dtype=object), 0, 1) is None
    g = Graph.from_edges([0, 1], [1, 2], n=3, ids=np.array(["x", "y", "z"], dtype=object))
    part = PartGraph.from_graph(g, 2, 1)  # no communicator: nobody to ask, ids kept whole
    assert part.own_ids is None and part.vertex_index("y") == 1


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
    with pytest.raises(InvalidArgumentError, match="whole graph on every rank"):
        betweenness(part)
    with pytest.raises(InvalidArgumentError, match="MPI runtime it was split for"):
        bmlpa(part)  # rough cores run on parts (bmlpa/cores_parts.py)
    with pytest.raises(InvalidArgumentError, match="MPI runtime it was split for"):
        pagerank(part, runtime="local")
    with pytest.raises(InvalidArgumentError, match="communicator"):  # views reduce counts
        PartGraph.from_graph(generators.kronecker(6, 4, directed=True), 2, 1).symmetrized()


def test_bmlpa_initial_labels_of_a_part_are_checked_before_anything_runs():
    from hpgraph.algorithms.bmlpa.initial import VertexLabels, initial_part

    part = PartGraph.from_graph(generators.path_graph(10), 2, 1)  # own vertices 5..9
    for bad in ("labels.txt", {0: "x"}):
        with pytest.raises(InvalidArgumentError, match="labels per vertex.*a label file"):
            initial_part(part, bad)
    with pytest.raises(InvalidArgumentError, match=r"one integer label per vertex \(10, or"):
        initial_part(part, np.zeros(7, dtype=np.int64))
    with pytest.raises(InvalidArgumentError, match="cover 3 vertices; this part holds 5"):
        initial_part(part, VertexLabels(np.zeros(4, np.int64), np.zeros(0, np.int32), []))
    # own rows of whole-graph labels: vertex 7 holds 'b' (id 10 + 1), the rest their own
    vl = VertexLabels(np.array([0] * 8 + [1] * 3), np.array([1], np.int32), ["a", "b"])
    ptr, lab, coef, num_labels, names = initial_part(part, vl)
    assert ptr.tolist() == [0, 1, 2, 3, 4, 5] and lab.tolist() == [5, 6, 11, 8, 9]
    assert coef.tolist() == [1.0] * 5 and num_labels == 12 and names == ["a", "b"]


def test_bmlpa_on_a_part_refuses_what_needs_the_whole_graph():
    part = PartGraph.from_graph(generators.path_graph(10), 2, 1)
    for kwargs in ({"update": "sync"}, {"checkpoint": object()}):
        with pytest.raises(InvalidArgumentError, match="partitioned graph runs semi-sync"):
            bmlpa(part, initial=np.full(5, -1), **kwargs)
    with pytest.raises(InvalidArgumentError, match="MPI runtime it was split for, not local"):
        bmlpa(part, initial=np.full(5, -1))
