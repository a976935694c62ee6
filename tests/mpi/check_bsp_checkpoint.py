"""Run under ``mpiexec -n P``: a peer-level program (tests/test_checkpoint_peer.py's
``walk``) whose ranks all exit when superstep 7 starts (``stop``), then resumed in a new
job (``resume``), gives the bits of a run through; a corrupt file of the last rank in the
newest checkpoint makes every rank fall back to the one before. Arguments: a folder every
rank sees, then ``stop`` or ``resume``."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hpgraph.engine import run_bsp  # noqa: E402
from hpgraph.engine.checkpoint import Checkpoints, Faults, complete_checkpoints  # noqa: E402
from hpgraph.runtimes.mpi import MPIRuntime  # noqa: E402
from test_checkpoint_peer import STEPS, walk  # noqa: E402

root = Path(sys.argv[1]) / "walk"
rt = MPIRuntime()


class Stop(Faults):
    def superstep(self, ss, rank):
        if ss == 7:  # every rank, as a killed job would
            print(f"rank {rank}: stopped at 7", flush=True)
            os._exit(3)


def run(**kw):
    return run_bsp(walk, runtime=rt, args=(40, STEPS), **kw)


def same(a, b):
    return all(
        xa.tobytes() == xb.tobytes() and ra == rb and aa.tobytes() == ab.tobytes()
        for (xa, ra, aa), (xb, rb, ab) in zip(a, b, strict=True)
    )


if sys.argv[2] == "stop":
    run(checkpoint=Checkpoints(root, every=2, keep=3, faults=Stop()))
through = run().results
res = run(checkpoint=Checkpoints(root, every=2, resume=True))
assert res.stats.supersteps[0].superstep == 6, res.stats.supersteps[0]
assert same(res.results, through)
print(f"rank {rt.rank}: resumed at 6: identical", flush=True)

rt.comm.Barrier()
found = complete_checkpoints(root)
newest = found[-1][1]
if rt.rank == rt.size - 1:
    f = newest / f"peer-{rt.rank}" / "x.npy"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 0xFF
    f.write_bytes(bytes(data))
rt.comm.Barrier()
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    res = run(checkpoint=Checkpoints(root, every=2, resume=True))
assert res.stats.supersteps[0].superstep == found[-2][0], res.stats.supersteps[0]
assert same(res.results, through)
print(f"rank {rt.rank}: PEER CHECKPOINT OK", flush=True)
