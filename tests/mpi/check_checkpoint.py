"""Run under ``mpiexec -n P``: PageRank, BFS, WCC (hashmin), SSSP (Bellman-Ford) and
CDLP stopped on every rank after a checkpoint, then resumed from it, give the bits of a
run through; then the run through resumed from a corrupt newest checkpoint on one rank
falls back to the one before. Arguments: a folder every rank sees [, threads per rank]."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

from hpgraph.algorithms.bfs import bfs
from hpgraph.algorithms.cdlp import cdlp
from hpgraph.algorithms.pagerank import pagerank
from hpgraph.algorithms.sssp import sssp
from hpgraph.algorithms.wcc import wcc
from hpgraph.engine.checkpoint import Checkpoints, CheckpointWarning, Faults, complete_checkpoints
from hpgraph.generators import kronecker
from hpgraph.runtimes.mpi import MPIRuntime

root = Path(sys.argv[1])
rt = MPIRuntime(threads=int(sys.argv[2]) if len(sys.argv) > 2 else 1)
g = kronecker(10, seed=5)
gw = kronecker(10, seed=5, weighted=True)
src = int(g.user_ids()[int(np.argmax(g.out_degree()))])


class Stop(Faults):
    def __init__(self, at):
        self.at = at

    def superstep(self, ss, rank):
        if ss == self.at:  # every rank: no collective left waiting
            raise RuntimeError("stopped")


CASES = [
    ("pagerank", pagerank, "rank", g, {}, 7),
    ("bfs", bfs, "depth", g, {"source": src}, 3),
    ("wcc", wcc, "component", g, {"variant": "hashmin"}, 3),
    ("sssp", sssp, "distance", gw, {"source": src, "variant": "bellman-ford"}, 5),
    ("cdlp", cdlp, "label", g, {}, 5),
]
for name, fn, col, graph, kw, at in CASES:
    folder = root / name
    through = fn(graph, runtime=rt, **kw)[col]
    try:
        fn(graph, runtime=rt, checkpoint=Checkpoints(folder, every=2, faults=Stop(at)), **kw)
    except RuntimeError:
        pass
    res = fn(graph, runtime=rt, checkpoint=Checkpoints(folder, every=2, resume=True), **kw)
    assert res.stats.supersteps[0].superstep == at - at % 2, (name, res.stats.supersteps[0])
    assert res[col].tobytes() == through.tobytes(), name
    print(f"rank {rt.rank}: {name} resumed at {at - at % 2}: identical", flush=True)

# a corrupt file of the last rank in the newest checkpoint: every rank falls back
folder = root / "pagerank"
(before, _, _), (_, newest, _) = complete_checkpoints(folder)[-2:]
rt.allreduce(np.zeros(1))
if rt.rank == rt.size - 1:
    f = newest / f"rank-{rt.rank}" / "state.npy"
    data = bytearray(f.read_bytes())
    data[-1] ^= 1
    f.write_bytes(bytes(data))
rt.allreduce(np.zeros(1))
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    res = pagerank(g, runtime=rt, checkpoint=Checkpoints(folder, every=2, resume=True))
assert res.stats.supersteps[0].superstep == before, res.stats.supersteps[0]
assert res["rank"].tobytes() == pagerank(g, runtime=rt)["rank"].tobytes()
if rt.rank == 0:
    assert any(issubclass(w.category, CheckpointWarning) for w in seen), seen
print(f"rank {rt.rank}: CHECKPOINT OK", flush=True)
