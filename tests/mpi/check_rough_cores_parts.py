"""Run under ``mpiexec -n P``: BMLPA's rough cores on a partitioned graph
(:func:`~hpgraph.algorithms.bmlpa.cores_parts.cores_part`, each rank holding its own rows
of the simple view and fetching its ghosts' rows) are the whole graph's
(:func:`~hpgraph.algorithms.bmlpa.initial._cores`: the same cores, members and order),
and each rank's initial label rows are the whole graph's rows of its own vertices
(:func:`~hpgraph.algorithms.bmlpa.initial._labels_from_cores`); then ``bmlpa(part)`` from
its default start gives ``bmlpa(graph)``'s cover on every rank. Graphs: a mention graph
(several seeds), Kronecker, a ring of cliques, a star, a path (no cores), a directed
multigraph with loops, and a split with an empty rank. Prints ``OK <case> seed=S
cores=C rounds=R`` on rank 0."""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

from hpgraph import generators
from hpgraph.algorithms.bmlpa import bmlpa
from hpgraph.algorithms.bmlpa.cores_parts import cores_part
from hpgraph.algorithms.bmlpa.initial import _cores, _labels_from_cores, initial_part
from hpgraph.generators.mention import mention_graph
from hpgraph.graph import Graph
from hpgraph.graph.views import simple_part, simple_view
from hpgraph.runtimes.mpi import MPIRuntime
from hpgraph.runtimes.mpi.parts import part_of_rows, split_graph

comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()


def clique_ring(k, c):
    """``c`` cliques of ``k`` vertices, clique i's last vertex joined to clique i+1's
    first."""
    src, dst = [], []
    for i in range(c):
        for a in range(k):
            for b in range(a + 1, k):
                src.append(i * k + a)
                dst.append(i * k + b)
        src.append(i * k + k - 1)
        dst.append(((i + 1) % c) * k)
    return Graph.from_edges(np.array(src), np.array(dst), n=k * c)


def with_empty_rank(g):
    """``g`` split with rank 0 holding no vertex (the others share them evenly)."""
    if size == 1:
        return split_graph(g, comm)
    cuts = np.concatenate([[0], np.linspace(0, g.n, size).round().astype(np.int64)])
    lo, hi = int(cuts[rank]), int(cuts[rank + 1])
    ip = g.indptr[lo : hi + 1]
    return part_of_rows(comm, g.n, cuts, ip, g.indices[ip[0] : ip[-1]], None,
                        directed=g.directed, own_ids=None)  # fmt: skip


def cases():
    mention = mention_graph(3000, 3800, seed=2)
    for seed in (0, 1, 7):
        yield "mention", mention, seed, split_graph
    yield "kron", generators.kronecker(9, 8, seed=1, directed=False), 3, split_graph
    yield "clique-ring", clique_ring(6, 40), 0, split_graph
    yield "star", generators.star_graph(50), 0, split_graph
    yield "path", generators.path_graph(60), 0, split_graph
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 200, 900), rng.integers(0, 200, 900)
    yield "multigraph-loops", Graph.from_edges(src, dst, n=240, directed=True), 2, split_graph
    yield "empty-rank", generators.kronecker(8, 8, seed=4, directed=False), 5, with_empty_rank


rt = MPIRuntime(comm)
try:
    for name, g, seed, split in cases():
        ip, ix = simple_view(g)
        cptr, members = _cores(ip, ix, seed)
        ptr, lab, coef = _labels_from_cores(g.n, cptr, members)
        part = split(g)
        sp = simple_part(part, both_directions=False)
        lo, hi = sp.lo, sp.hi
        (gptr, glab, gcoef), meta = cores_part(sp, seed, rt, gather=True)
        np.testing.assert_array_equal(meta["cores"][0], cptr, err_msg=name)
        np.testing.assert_array_equal(meta["cores"][1], members, err_msg=name)
        np.testing.assert_array_equal(gptr, ptr[lo : hi + 1] - ptr[lo], err_msg=name)
        np.testing.assert_array_equal(glab, lab[ptr[lo] : ptr[hi]], err_msg=name)
        np.testing.assert_array_equal(gcoef, coef[ptr[lo] : ptr[hi]], err_msg=name)
        got = initial_part(part, "rough-cores", seed, rt)  # the start bmlpa(part) takes
        np.testing.assert_array_equal(got[1], glab, err_msg=name)
        assert got[3] == g.n and got[4] is None, name
        assert len(meta["ranks"]) == size and meta["rounds"] >= (cptr.size > 1), name
        if rank == 0:
            print(f"OK {name} seed={seed} cores={cptr.size - 1} rounds={meta['rounds']}",
                  flush=True)  # fmt: skip
    # the front end: bmlpa(part) from its default start gives bmlpa(graph) on every rank
    for name, g, seed, split in cases():
        if name == "mention" and seed != 1:
            continue
        whole = bmlpa(g, b=0.1, seed=seed, threads=1)
        got = bmlpa(split(g), b=0.1, seed=seed, runtime=rt)
        for a, b in ((whole.ptr, got.ptr), (whole.community_of, got.community_of),
                     (whole.coefficient, got.coefficient), (whole.sizes, got.sizes),
                     (whole.label, got.label)):  # fmt: skip
            np.testing.assert_array_equal(a, b, err_msg=name)
        assert (
            got.meta["cores_rounds"] >= 0
            and got.meta["changed_per_iteration"] == (whole.meta["changed_per_iteration"])
        ), name
        if rank == 0:
            print(f"OK front/{name} communities={got.sizes.shape[0]}", flush=True)
finally:
    rt.close()
