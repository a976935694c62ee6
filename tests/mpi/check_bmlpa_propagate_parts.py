"""Run under ``mpiexec -n P``: BMLPA's propagation on a partitioned graph
(:func:`~hpgraph.algorithms.bmlpa.parts.propagate_part`, each rank holding its own rows
of the simple view, its own sets and its ghosts') gives every own vertex the set, bit for
bit, and the sweeps, update rates and stop reason that the local runtime's
semi-synchronous sweeps give on the whole graph. Graphs: mention graphs (hubs and their
leaves, rough cores and hashtag-like initial labels), Kronecker, a directed multigraph
with loops and isolated vertices, a path, a star, a graph with fewer vertices than
ranks; both stop rules. Prints ``OK <case>/<rule> sweeps=S`` on rank 0."""

from __future__ import annotations

import itertools

import numpy as np
from mpi4py import MPI

from hpgraph import generators
from hpgraph.algorithms.bmlpa import bmlpa
from hpgraph.algorithms.bmlpa.initial import _initial, _vertex_labels, initial_part
from hpgraph.algorithms.bmlpa.parts import propagate_part
from hpgraph.algorithms.bmlpa.program import SharedState, _bmlpa_peer_semi
from hpgraph.algorithms.bmlpa.schedule import greedy_colouring
from hpgraph.engine.bsp import run_bsp
from hpgraph.generators.mention import mention_graph
from hpgraph.graph import Graph
from hpgraph.graph.views import simple_part, simple_view
from hpgraph.runtimes.mpi import MPIRuntime
from hpgraph.runtimes.mpi.parts import split_graph

comm = MPI.COMM_WORLD


def cases():
    rng = np.random.default_rng(5)
    mention = mention_graph(3000, 3800, seed=2)
    yield "mention/rough-cores", mention, "rough-cores", 0.1, 10
    tags = np.where(rng.random(3000) < 0.3, rng.integers(0, 40, 3000), -1)
    yield "mention/hashtags", mention, tags, 0.05, 20
    yield "kron", generators.kronecker(9, 8, seed=1, directed=False), "rough-cores", 0.3, 0
    src, dst = rng.integers(0, 200, 900), rng.integers(0, 200, 900)
    multi = Graph.from_edges(src, dst, n=240, directed=True)
    yield "multigraph-loops-isolated", multi, "rough-cores", 0.2, 0
    yield "path", generators.path_graph(60), "rough-cores", 0.1, 0
    # a hub of 120 leaves, each with a label of its own: the hub's set is big (> 64
    # entries) and its leaves share one set
    star = Graph.from_edges(np.zeros(120, np.int64), np.arange(1, 121), n=121)
    yield "star", star, np.arange(121), 0.1, 0
    yield (
        "tiny",
        Graph.from_edges(np.array([0]), np.array([1]), n=2, directed=True),
        "rough-cores",
        0.1,
        0,
    )


def labels_of(array):
    """The labels of an array (one per vertex, -1: none) as VertexLabels, weighted, with
    every rank's names (whole-graph numbering)."""
    names = np.unique(np.concatenate(comm.allgather(np.unique(array[array >= 0]))))
    has = array >= 0
    vl = _vertex_labels(
        array.shape[0], np.flatnonzero(has), np.searchsorted(names, array[has]), names.tolist()
    )
    vl.weights = np.full(vl.labels.shape[0], 2.5)
    return vl


rt = MPIRuntime(comm)
sweeps = 50
try:
    for (name, g, initial, b, cap), (rule, tolerance) in itertools.product(
        cases(), (("rate", 0.01), ("counts", None))
    ):
        name = f"{name}/{rule}"
        ip, ix = simple_view(g)
        ptr, lab, coef, num_labels, _ = _initial(g, initial, 0)
        colour, _ = greedy_colouring(ip, ix)
        ref = run_bsp(
            _bmlpa_peer_semi, peers=1, runtime="local",
            args=(ip, ix, (ptr, lab, coef), num_labels, b, cap, sweeps, tolerance, None, colour,
                  SharedState()),
        )  # fmt: skip
        (rcnt, rlab, rcoef), rstop, rsteps = ref.results[0]
        rptr = np.concatenate([[0], np.cumsum(rcnt)])
        sp = simple_part(split_graph(g, comm), both_directions=False)
        lo, hi = sp.lo, sp.hi
        start = (ptr[lo : hi + 1] - ptr[lo], lab[ptr[lo] : ptr[hi]], coef[ptr[lo] : ptr[hi]])
        if not isinstance(initial, str):  # a part's own initial sets are the whole graph's
            for given in (initial, initial[lo:hi], labels_of(initial), labels_of(initial[lo:hi])):
                *got, labels, _ = initial_part(sp, given)
                assert labels == num_labels, name
                for x, y in zip(got, start, strict=True):
                    np.testing.assert_array_equal(x, y, err_msg=name)
        (gptr, glab, gcoef), meta = propagate_part(
            sp, start, num_labels, b, cap, sweeps, tolerance, rt
        )
        np.testing.assert_array_equal(gptr, rptr[lo : hi + 1] - rptr[lo], err_msg=name)
        np.testing.assert_array_equal(glab, rlab[rptr[lo] : rptr[hi]], err_msg=name)
        np.testing.assert_array_equal(gcoef, rcoef[rptr[lo] : rptr[hi]], err_msg=name)
        assert meta["stopped_by"] == rstop, (name, meta["stopped_by"], rstop)
        assert meta["changed"] == rsteps[0] and meta["relabelled"] == rsteps[1], name
        assert meta["recomputed"] == rsteps[2], (name, meta["recomputed"], rsteps[2])
        assert meta["colours"] == int(colour.max(initial=-1)) + 1, name
        if comm.Get_rank() == 0:
            print(f"OK {name} sweeps={len(meta['changed'])}", flush=True)
    # the front end: bmlpa() on a part gives the whole-graph result on every rank
    rng = np.random.default_rng(9)
    mention = mention_graph(3000, 3800, seed=2)
    tags = np.where(rng.random(3000) < 0.3, rng.integers(0, 40, 3000), -1)
    star = Graph.from_edges(np.zeros(120, np.int64), np.arange(1, 121), n=121)
    fronts = (
        ("mention", mention, tags, 0.05, 20), ("path", generators.path_graph(60), None, 0.1, None),
        ("star", star, np.arange(121), 0.1, None),
    )  # fmt: skip
    for (name, g, initial, b, cap), stop in itertools.product(fronts, ("rate", "counts")):
        initial = np.full(g.n, -1) if initial is None else initial
        whole = bmlpa(g, b=b, max_labels=cap, initial=initial, stop=stop, threads=2)
        part = split_graph(g, comm)
        got = bmlpa(part, b=b, max_labels=cap, initial=initial[part.lo : part.hi], stop=stop,
                    runtime=rt, progress=comm.Get_rank() == 0 and name == "mention")  # fmt: skip
        for field in ("ptr", "community_of", "coefficient", "sizes", "named"):
            np.testing.assert_array_equal(getattr(got, field), getattr(whole, field), name)
        assert got.label.tolist() == whole.label.tolist(), name
        for key in ("iterations", "stopped_by", "update_rate", "communities", "nested_removed"):
            assert got.meta[key] == whole.meta[key], (name, key, got.meta[key], whole.meta[key])
        for col in ("community", "belonging", "memberships"):
            np.testing.assert_array_equal(got.columns[col], whole.columns[col], name)
        if comm.Get_rank() == 0:
            print(f"OK front/{name}/{stop} communities={whole.num_communities}", flush=True)
finally:
    rt.close()
