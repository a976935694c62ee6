"""Run under ``mpiexec -n P`` with a folder of edge lists written by tests/test_ingest.py:
every rank parses its share of each file (:func:`read_edgelist_mpi`, Parquet files by
:func:`read_parquet_mpi`) and must get the
graph the one-process reader gets, bit for bit, or the same one-line error on every rank
(printed as ``ERROR <name>: <message>``), and partitioned (each rank its own rows:
the one-process graph's rows and ids). Every file is read twice: with the default
chunk, shuffle round and splitter sample sizes, and with tiny ones (a share parsed in
many chunks, edges shuffled in many rounds, string ids cut into ranges of uneven
sizes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

from hpgraph.errors import GraphFormatError
from hpgraph.io import read_edgelist, read_parquet, scan
from hpgraph.runtimes.mpi import assemble, samplesort
from hpgraph.runtimes.mpi.ingest import read_edgelist_mpi, read_parquet_mpi

comm = MPI.COMM_WORLD
folder = Path(sys.argv[1])
cases = json.loads((folder / "cases.json").read_text())


def same(a, b):
    assert (a.n, a.directed, a.name) == (b.n, b.directed, b.name)
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert a.indices.dtype == b.indices.dtype
    if a.weights is None or b.weights is None:
        assert a.weights is None and b.weights is None
    else:
        np.testing.assert_array_equal(a.weights, b.weights)
    same_ids(a, b)


def same_ids(a, b):
    if a.ids is None or b.ids is None:
        assert a.ids is None and b.ids is None
    else:
        assert np.asarray(a.ids).dtype == np.asarray(b.ids).dtype
        assert np.asarray(a.ids).tolist() == np.asarray(b.ids).tolist()


def same_part(part, g):
    """``part`` holds ``g``'s rows of its range, and ``g``'s ids of its own vertices only."""
    lo, hi = part.lo, part.hi
    assert (part.n, part.directed, part.num_stored_edges) == (g.n, g.directed, g.num_stored_edges)
    np.testing.assert_array_equal(part.own_indptr, g.indptr[lo : hi + 1])
    a, b = int(g.indptr[lo]), int(g.indptr[hi])
    np.testing.assert_array_equal(part.own_indices, g.indices[a:b])
    assert (part.own_weights is None) == (g.weights is None)
    if g.weights is not None:
        np.testing.assert_array_equal(part.own_weights, g.weights[a:b])
    own = part.own_ids
    assert part.ids is None and (own is None) == (g.ids is None)
    if own is not None:
        ids = np.asarray(g.ids)
        assert own.lo == lo and own.strings == (ids.dtype == object)
        mine = own.values.to_pylist() if own.strings else own.values.tolist()
        assert mine == ids[lo:hi].tolist()


for tiny in (None, (997, 101, 1)):
    if tiny is not None:  # bytes a chunk, edges a round, splitter samples per rank
        scan.READ_CHUNK, assemble.SHUFFLE_ROUND, samplesort.SAMPLES = tiny
    for case in cases:
        path = folder / case["file"]
        kw = case.get("kw", {})
        parquet = path.suffix == ".parquet"
        try:
            want = (read_parquet if parquet else read_edgelist)(path, **kw)
        except GraphFormatError as e:
            want = e
        try:
            got = (read_parquet_mpi if parquet else read_edgelist_mpi)(path, comm, **kw)
        except GraphFormatError as e:
            got = e
        messages = comm.allgather(str(got) if isinstance(got, Exception) else None)
        if isinstance(want, Exception):
            assert isinstance(got, GraphFormatError), (case, got)
            assert len(set(messages)) == 1, messages  # the same error on every rank
            assert str(got) == str(want), (str(got), str(want))
            if comm.Get_rank() == 0 and tiny is None:
                print(f"ERROR {case['file']}: {got}", flush=True)
        else:
            assert not isinstance(got, Exception), (case, got)
            same(got, want)
            read = read_parquet_mpi if parquet else read_edgelist_mpi
            same_part(read(path, comm, partitioned=True, **kw), want)
comm.Barrier()
if comm.Get_rank() == 0:
    print(f"INGEST OK on {comm.Get_size()} ranks: {len(cases)} files", flush=True)
