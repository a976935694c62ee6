"""Run under ``mpiexec -n P check_lcc_parts.py SEED [THREADS]``: LCC on a partitioned
graph (each rank holding only its own rows, :class:`~hpgraph.graph.part.PartGraph`) must
equal the whole graph's LCC bit for bit: the ``lcc`` and ``triangles`` columns, the meta
values, :func:`triangle_count` and :func:`transitivity`, on the same MPI runtime and on
the local runtime, for graphs of several shapes (Kronecker directed and undirected, a
multigraph with self-loops and isolated vertices both ways, a path, a 2-vertex graph with
a rank holding no vertex at 3 ranks, a graph without vertices, cliques). Prints
``OK <case>`` per case on rank 0."""

from __future__ import annotations

import sys

import numpy as np
from mpi4py import MPI

from hpgraph import generators
from hpgraph.algorithms.lcc import lcc, transitivity, triangle_count, verify_lcc
from hpgraph.graph import Graph
from hpgraph.runtimes.mpi import MPIRuntime
from hpgraph.runtimes.mpi.parts import split_graph

comm = MPI.COMM_WORLD
seed = int(sys.argv[1])
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1


def graphs():
    rng = np.random.default_rng(seed)
    yield "kron-undirected", generators.kronecker(9, 8, seed=seed, directed=False)
    yield "kron-directed", generators.kronecker(9, 8, seed=seed + 1, directed=True)
    src = rng.integers(0, 120, 900)
    dst = rng.integers(0, 120, 900)
    src = np.concatenate([src, src[:100], np.arange(10)])  # parallel edges and loops
    dst = np.concatenate([dst, dst[:100], np.arange(10)])
    # vertices 120..139 isolated
    yield "multi-loops-directed", Graph.from_edges(src, dst, n=140, directed=True)
    yield "multi-loops-undirected", Graph.from_edges(src, dst, n=140, directed=False)
    yield "path", generators.path_graph(30)
    yield "tiny", Graph.from_edges(np.array([0]), np.array([1]), n=2, directed=True)
    yield "empty", Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), n=0)
    a, b = np.triu_indices(14, 1)
    yield "clique", Graph.from_edges(a, b, n=14, directed=False)
    one_way = rng.random(a.shape[0]) < 0.5  # some pairs one way, the others both ways
    s = np.concatenate([a, b[~one_way]])
    d = np.concatenate([b, a[~one_way]])
    yield "clique-directed", Graph.from_edges(s, d, n=14, directed=True)


def same(name, got, want):
    for col in ("lcc", "triangles"):
        a, b = np.asarray(got[col]), np.asarray(want[col])
        assert a.dtype == b.dtype, (name, col, a.dtype, b.dtype)
        np.testing.assert_array_equal(a, b, err_msg=f"{name} {col}")
    for key in ("triangles", "transitivity", "average_clustering"):
        assert got.meta[key] == want.meta[key], (name, key, got.meta[key], want.meta[key])


if comm.Get_rank() == 0:
    print(f"seed {seed}, {comm.Get_size()} ranks x {threads} threads", flush=True)
with MPIRuntime(threads=threads) as rt:
    for gname, g in graphs():
        part = split_graph(g, comm)
        got = lcc(part, runtime=rt)
        same(gname, got, lcc(g, runtime=rt))
        same(gname, got, lcc(g, threads=2, runtime="local"))
        verify_lcc(g, got)
        assert (
            triangle_count(part, runtime=rt)
            == triangle_count(g, threads=1)
            == got.meta["triangles"]
        )
        assert transitivity(part, runtime=rt) == transitivity(g, threads=1)
        if rt.is_root:
            print(f"OK {gname} ({got.meta['triangles']} triangles)", flush=True)
