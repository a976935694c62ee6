"""Run under ``mpiexec -n P``: betweenness, edge betweenness and APSP (in memory and
streamed) with one peer per rank must equal the local runtime with P threads bit for bit
(the same sources per peer and the same reduction order), and the 1-thread local run
within 1e-12. Exits non-zero on any mismatch; rank 0 prints ``BETWEENNESS OK``."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from mpi4py import MPI

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # conftest

from conftest import make_shape  # noqa: E402
from hpgraph.algorithms.apsp import apsp  # noqa: E402
from hpgraph.algorithms.betweenness import betweenness, edge_betweenness  # noqa: E402

comm = MPI.COMM_WORLD
P = comm.Get_size()
bad = []


def check(name, mpi, local_p, local_1):
    if not np.array_equal(mpi, local_p, equal_nan=True):
        bad.append(f"{name}: MPI differs from the local runtime with {P} threads")
    if not np.allclose(mpi, local_1, rtol=1e-12, atol=1e-15, equal_nan=True):
        bad.append(f"{name}: MPI differs from the 1-thread local runtime")


for shape in ("multi_loops", "components"):
    for directed in (True, False):
        for weighted in (False, True):
            g = make_shape(shape, directed, weighted)
            name = f"{shape}-{'dir' if directed else 'und'}{'-w' if weighted else ''}"
            for kw in ({}, {"k": 9, "seed": 3}, {"endpoints": True, "normalized": False}):
                check(
                    f"betweenness {name} {kw}",
                    betweenness(g, runtime="mpi", **kw)["betweenness"],
                    betweenness(g, threads=P, **kw)["betweenness"],
                    betweenness(g, threads=1, **kw)["betweenness"],
                )
            check(
                f"edge_betweenness {name}",
                edge_betweenness(g, runtime="mpi")["betweenness"],
                edge_betweenness(g, threads=P)["betweenness"],
                edge_betweenness(g, threads=1)["betweenness"],
            )
            dense = apsp(g, runtime="mpi").distances
            check(f"apsp {name}", dense, apsp(g, threads=P).distances, apsp(g).distances)
            folder = comm.bcast(tempfile.mkdtemp() if comm.rank == 0 else None)
            res = apsp(g, runtime="mpi", output=folder, block=13)
            if comm.rank == 0:
                t = pq.read_table(res.path)
                m = np.full((g.n, g.n), np.inf)
                m[t["source"].to_numpy(), t["target"].to_numpy()] = t["distance"].to_numpy()
                if not np.array_equal(m, dense):
                    bad.append(f"apsp streamed {name}: differs from the dense result")

if bad:
    print(f"rank {comm.rank}: " + "\n".join(bad), flush=True)
    comm.Abort(1)
comm.Barrier()
if comm.rank == 0:
    print("BETWEENNESS OK", flush=True)
