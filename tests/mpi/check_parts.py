"""Run under ``mpiexec -n P FOLDER [THREADS]``: every kernel that runs on a partitioned
graph (each rank holding only its own rows, :class:`~hpgraph.graph.part.PartGraph`) must
give the whole graph's result on the same runtime bit for bit, and the local runtime's,
for graphs of several shapes (directed, undirected, weighted, isolated vertices,
self-loops and parallel edges, more ranks than vertices); a part read in parallel from a
text edge list or Parquet file (never whole) must hold the whole graph's own rows.
Prints ``OK <case>`` per case on rank 0. FOLDER: a scratch folder for the files."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

from hpgraph import generators
from hpgraph.algorithms import bfs, cdlp, pagerank, sssp, wcc
from hpgraph.algorithms.verify import verify_bfs, verify_sssp
from hpgraph.graph import Graph
from hpgraph.io import read_edgelist, read_parquet, write_edgelist, write_parquet_edges
from hpgraph.runtimes.mpi import MPIRuntime
from hpgraph.runtimes.mpi.ingest import load_graph_mpi
from hpgraph.runtimes.mpi.parts import split_graph

comm = MPI.COMM_WORLD
folder = Path(sys.argv[1])
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1


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
    zw = np.where(rng.random(2000) < 0.3, 0.0, np.round(w))  # zero-weight ties
    yield "zero-weights", Graph.from_edges(src, dst, zw, n=350, directed=False)
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


def read_part(g, gname, fmt):
    """``g`` written by rank 0 as ``fmt``; (its parts read in parallel, the whole graph
    read by the one-process reader)."""
    path = folder / f"{gname}.{'parquet' if fmt == 'parquet' else 'el'}"
    if comm.Get_rank() == 0:
        (write_parquet_edges if fmt == "parquet" else write_edgelist)(g, path)
    comm.Barrier()
    kw = {"directed": g.directed, "weighted": g.weighted}
    whole = (read_parquet if fmt == "parquet" else read_edgelist)(path, **kw)
    return load_graph_mpi(str(path), comm, cache=False, partitioned=True, **kw), whole


def same_rows(part, g):
    """The part holds exactly the whole graph's rows lo..hi (and in-rows)."""
    lo, hi = part.lo, part.hi
    assert part.num_stored_edges == g.num_stored_edges and part.num_edges == g.num_edges
    for mine, whole in (
        (part.in_csr(), g.in_csr()),
        ((part.indptr, part.indices, part.weights), (g.indptr, g.indices, g.weights)),
    ):  # noqa: E501
        np.testing.assert_array_equal(mine[0][lo : hi + 1], whole[0][lo : hi + 1])
        a, b = int(whole[0][lo]), int(whole[0][hi])
        np.testing.assert_array_equal(mine[1][a:b], whole[1][a:b])
        if whole[2] is not None:
            np.testing.assert_array_equal(mine[2][a:b], whole[2][a:b])


with MPIRuntime(threads=threads) as rt:
    for gname, g in graphs():
        part = split_graph(g, comm)
        same_rows(part, g)
        same_rows(part.symmetrized(), g.symmetrized())
        for fmt in ("edgelist", "parquet"):
            if g.n > 2:
                same_rows(*read_part(g, gname, fmt))
                if rt.is_root:
                    print(f"OK {gname}/read-{fmt}", flush=True)
        source = int(np.argmax(np.diff(g.indptr)))
        cases = {
            "pagerank": (pagerank, {}),
            "bfs": (bfs, {"source": source}),
        }
        if not g.directed:
            cases["wcc"] = (wcc, {"variant": "hashmin"})
        cases["wcc-afforest"] = (wcc, {"variant": "afforest"})  # the undirected view
        cases["cdlp"] = (cdlp, {"iterations": 5})
        cases["sssp"] = (sssp, {"source": source})
        cases["sssp32"] = (sssp, {"source": source, "dtype": "float32"})
        for kname, (fn, kw) in cases.items():
            got = fn(part, runtime=rt, **kw)
            check(f"{gname}/{kname}", got, fn(g, runtime=rt, **kw), exact=True)
            check(f"{gname}/{kname}", got, fn(g, threads=1, runtime="local", **kw), exact=False)
            if kname in ("bfs", "sssp", "sssp32"):  # parents: any valid tree
                (verify_bfs if kname == "bfs" else verify_sssp)(g, g.user_ids()[source], got)
            if rt.is_root:
                print(f"OK {gname}/{kname}", flush=True)
