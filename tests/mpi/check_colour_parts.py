"""Run under ``mpiexec -n P``: BMLPA's colouring on a partitioned graph
(:func:`~hpgraph.algorithms.bmlpa.schedule.colour_part`, each rank holding its own rows
of the simple view) equals the whole graph's first-fit colouring
(:func:`~hpgraph.algorithms.bmlpa.schedule.greedy_colouring`) on graphs of several
shapes: a mention graph (hubs and leaves), Kronecker, a directed multigraph with loops
and isolated vertices, a path (a chain of decreasing priority across every rank), a star
and a graph with fewer vertices than ranks. Prints ``OK <case> rounds=R`` on rank 0."""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

from hpgraph import generators
from hpgraph.algorithms.bmlpa.schedule import colour_part, greedy_colouring
from hpgraph.generators.mention import mention_graph
from hpgraph.graph import Graph
from hpgraph.graph.views import simple_part, simple_view
from hpgraph.runtimes.mpi import MPIRuntime
from hpgraph.runtimes.mpi.parts import split_graph

comm = MPI.COMM_WORLD


def graphs():
    rng = np.random.default_rng(5)
    yield "mention", mention_graph(3000, 3800, seed=2)
    yield "kron", generators.kronecker(9, 8, seed=1, directed=False)
    src, dst = rng.integers(0, 200, 900), rng.integers(0, 200, 900)
    yield "multigraph-loops-isolated", Graph.from_edges(src, dst, n=240, directed=True)
    yield "path", generators.path_graph(60)
    yield "star", Graph.from_edges(np.zeros(50, np.int64), np.arange(1, 51), n=51)
    yield "tiny", Graph.from_edges(np.array([0]), np.array([1]), n=2, directed=True)


rt = MPIRuntime(comm)
try:
    for name, g in graphs():
        want, k = greedy_colouring(*simple_view(g))
        got, k_got, rounds = colour_part(
            simple_part(split_graph(g, comm), both_directions=False), rt
        )
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert k_got == k, (name, k_got, k)
        if comm.Get_rank() == 0:
            print(f"OK {name} rounds={rounds}", flush=True)
finally:
    rt.close()
