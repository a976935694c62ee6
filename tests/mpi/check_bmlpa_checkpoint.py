"""Run under ``mpiexec -n P``: BMLPA whose ranks all exit when superstep 30 starts
(``stop``), then resumed in a new job (``resume``), gives the cover of a run through.
Arguments: a folder every rank sees, then ``stop`` or ``resume``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hpgraph.algorithms.bmlpa import bmlpa
from hpgraph.engine.checkpoint import Checkpoints, Faults
from hpgraph.generators.mention import mention_graph
from hpgraph.runtimes.mpi import MPIRuntime

root = Path(sys.argv[1]) / "bmlpa"
rt = MPIRuntime()
g = mention_graph(3000, 4000, seed=3)
kw = {"b": 0.1, "tolerance": 0.001, "runtime": rt}


class Stop(Faults):
    def superstep(self, ss, rank):
        if ss == 30:  # every rank, as a killed job would
            print(f"rank {rank}: stopped", flush=True)
            os._exit(3)


if sys.argv[2] == "stop":
    bmlpa(g, checkpoint=Checkpoints(root, every=1, faults=Stop()), **kw)
through = bmlpa(g, **kw)
res = bmlpa(g, checkpoint=Checkpoints(root, every=1, resume=True), **kw)
assert res.stats.supersteps[0].superstep > 0
for name in ("ptr", "community_of", "coefficient"):
    assert getattr(res, name).tobytes() == getattr(through, name).tobytes(), name
assert res.meta["update_rate"] == through.meta["update_rate"]
print(f"rank {rt.rank}: BMLPA CHECKPOINT OK", flush=True)
