"""Run under ``mpiexec -n P``: :func:`hpgraph.runtimes.mpi.samplesort.number` numbers
every rank's sorted distinct int64 keys by their place in the sorted union of all
ranks' keys, as ``np.unique`` of the gathered keys does, and each rank's slice is its
run of that union, for key sets that make the sample sort's edge cases bite: ranks
without keys, every key on one rank, the same keys on every rank, the int64 limits,
fewer keys than ranks, ranks whose keys do not overlap; with 16 samples per rank and
with one."""

from __future__ import annotations

import os

import numpy as np
from mpi4py import MPI

from hpgraph.runtimes.mpi import samplesort

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
seed = int(os.environ.get("HPGRAPH_TEST_SEED", "0"))
rng = np.random.default_rng([seed, rank])
top, low = np.iinfo(np.int64).max, np.iinfo(np.int64).min
limits = np.array([low, low + 1, -1, 0, 1, top - 1, top], dtype=np.int64)
many = rng.integers(low, top, 5000, dtype=np.int64, endpoint=True)

cases = {
    "random": many,
    "none anywhere but rank 0": many if rank == 0 else many[:0],
    "none on rank 0": many[:0] if rank == 0 else many,
    "one key on the last rank": limits[-1:] if rank == size - 1 else many[:0],
    "the same keys everywhere": limits,
    "limits and random": np.concatenate([limits, many[: 100 * (rank + 1)]]),
    "disjoint ranges": rank * 10**18 - 4 * 10**18 + np.arange(0, 3000, 3, dtype=np.int64),
    "overlapping ranges": np.arange(rank * 500, rank * 500 + 1000, dtype=np.int64) * -(2**40),
    "a few keys": rng.choice(limits, 2),
}
for samples in (16, 1):
    samplesort.SAMPLES = samples
    for name, keys in cases.items():
        local = np.unique(keys)
        numbers, mine, n = samplesort.number(comm, MPI, local)
        union = np.unique(np.concatenate(comm.allgather(local)))
        assert n == union.shape[0], (name, n, union.shape[0])
        assert numbers.dtype == np.int64 and numbers.shape == local.shape, name
        np.testing.assert_array_equal(union[numbers], local, err_msg=name)
        slices = comm.allgather(mine)
        np.testing.assert_array_equal(np.concatenate(slices), union, err_msg=name)
comm.Barrier()
if rank == 0:
    print(f"SAMPLESORT OK on {size} ranks: {len(cases)} key sets", flush=True)
