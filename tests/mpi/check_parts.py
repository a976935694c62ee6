"""Run under ``mpiexec -n P``: every kernel that runs on a partitioned graph (each rank
holding only its own rows, :class:`~hpgraph.graph.part.PartGraph`) must give the local
runtime's result on the whole graph, for graphs of several shapes (directed, undirected,
weighted, isolated vertices, self-loops and parallel edges, more ranks than vertices).
Prints ``OK <case>`` per case on rank 0; ``threads`` from argv[1] (default 1)."""

from __future__ import annotations

import sys

import numpy as np
from mpi4py import MPI

from hpgraph import generators
from hpgraph.algorithms import bfs, pagerank, wcc
from hpgraph.algorithms.verify import verify_bfs
from hpgraph.graph import Graph
from hpgraph.runtimes.mpi import MPIRuntime
from hpgraph.runtimes.mpi.parts import split_graph

comm = MPI.COMM_WORLD
threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1


def graphs():
    rng = np.random.default_rng(7)
    yield "kron-undirected", generators.kronecker(10, 8, seed=3, directed=False)
    yield "kron-directed", generators.kronecker(10, 8, seed=4, directed=True)
    src = rng.integers(0, 300, 2000)
    dst = rng.integers(0, 300, 2000)
    w = rng.uniform(0.5, 2.0, 2000)
    # vertices 300..349 isolated; loops and parallel edges kept
    yield "uniform-weighted", Graph.from_edges(src, dst, w, n=350, directed=True)
    yield "uniform-undirected-loops", Graph.from_edges(src, dst, n=350, directed=False)
    yield "path", generators.path_graph(40)
    yield "tiny", Graph.from_edges(np.array([0]), np.array([1]), n=2, directed=True)


def check(name, got, want, exact):
    """Equal columns (floats bit for bit when ``exact``: the same runtime and parts; else
    to 1e-12, the local runtime summing in other orders); a BFS parent is any neighbour
    one level up (which one depends on delivery order), so parents are verified."""
    for col in want.columns:
        if col == "parent":
            continue
        a, b = np.asarray(got[col]), np.asarray(want[col])
        if a.dtype.kind == "f" and not exact:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-18, err_msg=f"{name} {col}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{name} {col}")


with MPIRuntime(threads=threads) as rt:
    for gname, g in graphs():
        part = split_graph(g, comm)
        source = int(np.argmax(np.diff(g.indptr)))
        cases = {
            "pagerank": (pagerank, {}),
            "bfs": (bfs, {"source": source}),
        }
        if not g.directed:
            cases["wcc"] = (wcc, {"variant": "hashmin"})
        for kname, (fn, kw) in cases.items():
            got = fn(part, runtime=rt, **kw)
            check(f"{gname}/{kname}", got, fn(g, runtime=rt, **kw), exact=True)
            check(f"{gname}/{kname}", got, fn(g, threads=1, runtime="local", **kw), exact=False)
            if kname == "bfs":
                verify_bfs(g, g.user_ids()[source], got)
            if rt.is_root:
                print(f"OK {gname}/{kname}", flush=True)
