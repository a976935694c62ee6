"""Run under ``mpiexec -n P``: BMLPA's post-processing on a partitioned graph
(:func:`~hpgraph.algorithms.bmlpa.postprocess_parts.postprocess_part`, each rank holding
its own rows of the simple view and its own vertices' label sets) gives every rank the
rows, community numbers, coefficients (bit for bit), sizes, labels and nested count that
:func:`~hpgraph.algorithms.bmlpa.postprocess._postprocess` gives on the whole graph.

Covers: BMLPA's own before post-processing (the local runtime's semi-synchronous sweeps,
rough cores and hashtag-like labels), and seeded random ones with connected, scattered,
nested, equal and chained communities, pieces inside others after the split, empty rows
and labels beyond n. Graphs: a mention graph, Kronecker, a directed multigraph with loops
and isolated vertices, a path, a star and a graph with fewer vertices than ranks. Prints
``OK <case> ...`` on rank 0; the random covers' seed is in the case name."""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

from hpgraph import generators
from hpgraph.algorithms.bmlpa.initial import _initial
from hpgraph.algorithms.bmlpa.postprocess import _postprocess
from hpgraph.algorithms.bmlpa.postprocess_parts import postprocess_part
from hpgraph.algorithms.bmlpa.program import SharedState, _bmlpa_peer_semi
from hpgraph.algorithms.bmlpa.schedule import greedy_colouring
from hpgraph.engine.bsp import run_bsp
from hpgraph.generators.mention import mention_graph
from hpgraph.graph import Graph
from hpgraph.graph.views import simple_part, simple_view
from hpgraph.runtimes.mpi import MPIRuntime
from hpgraph.runtimes.mpi.parts import split_graph

comm = MPI.COMM_WORLD
SEED = 14


def graphs():
    rng = np.random.default_rng(5)
    mention = mention_graph(3000, 3800, seed=2)
    tags = np.where(rng.random(3000) < 0.3, rng.integers(0, 40, 3000), -1)
    yield "mention", mention, ("rough-cores", 0.1), (tags, 0.05)
    yield "kron", generators.kronecker(9, 8, seed=1, directed=False), ("rough-cores", 0.3)
    src, dst = rng.integers(0, 200, 900), rng.integers(0, 200, 900)
    multi = Graph.from_edges(src, dst, n=240, directed=True)
    yield "multigraph-loops-isolated", multi, ("rough-cores", 0.2)
    yield "path", generators.path_graph(60), ("rough-cores", 0.1)
    star = Graph.from_edges(np.zeros(120, np.int64), np.arange(1, 121), n=121)
    yield "star", star, (np.arange(121), 0.1)
    yield (
        "tiny",
        Graph.from_edges(np.array([0]), np.array([1]), n=2, directed=True),
        (
            "rough-cores",
            0.1,
        ),
    )


def bmlpa_cover(g, ip, ix, initial, b):
    """BMLPA's sets before post-processing: (ptr, lab, coef, num_labels)."""
    ptr, lab, coef, num_labels, _ = _initial(g, initial, 0)
    colour, _ = greedy_colouring(ip, ix)
    ref = run_bsp(
        _bmlpa_peer_semi, peers=1, runtime="local",
        args=(ip, ix, (ptr, lab, coef), num_labels, b, 0, 50, 0.02, None, colour, SharedState()),
    )  # fmt: skip
    (cnt, lab, coef), _, _ = ref.results[0]
    return np.concatenate([[0], np.cumsum(cnt)]).astype(np.int64), lab, coef, num_labels


def ball(ip, ix, v, size):
    """Up to ``size`` vertices breadth-first from v (connected)."""
    seen, queue = [v], [v]
    while queue and len(seen) < size:
        u = queue.pop(0)
        for w in ix[ip[u] : ip[u + 1]].tolist():
            if w not in seen and len(seen) < size:
                seen.append(w)
                queue.append(w)
    return set(seen)


def random_cover(ip, ix, n, seed):
    """Communities of every awkward kind, as rows (ptr, lab int32 sorted, coef)."""
    rng = np.random.default_rng(seed)
    comms = []
    for _ in range(max(4, n // 6)):
        kind = int(rng.integers(0, 6)) if comms else 0
        if kind == 0:  # connected
            comms.append(ball(ip, ix, int(rng.integers(n)), int(rng.integers(1, 14))))
        elif kind == 1:  # scattered: split into pieces
            comms.append(set(rng.integers(0, n, int(rng.integers(1, 9))).tolist()))
        elif kind == 2:  # inside another
            c = sorted(comms[int(rng.integers(len(comms)))])
            comms.append(set(rng.choice(c, int(rng.integers(1, len(c) + 1)), replace=False)))
        elif kind == 3:  # equal to another
            comms.append(set(comms[int(rng.integers(len(comms)))]))
        elif kind == 4:  # a piece inside another, far vertices beside it
            c = ball(ip, ix, int(rng.integers(n)), int(rng.integers(2, 10)))
            comms.append(c)
            part = set(list(c)[: max(1, len(c) // 2)])
            comms.append(part | set(rng.integers(0, n, 3).tolist()))
        else:  # a chain: each inside the one before
            c = ball(ip, ix, int(rng.integers(n)), int(rng.integers(3, 12)))
            while c:
                comms.append(set(c))
                c = set(sorted(c)[: len(c) - 1 - int(rng.integers(0, 2))])
    labels = rng.choice(n + 64, len(comms), replace=False)  # some beyond n, as hashtags
    rows = [[] for _ in range(n)]
    for c, label in zip(comms, labels.tolist(), strict=True):
        for v in c:
            rows[v].append(label)
    lab = np.array([x for r in rows for x in sorted(r)], dtype=np.int32)
    ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    return ptr, lab, rng.random(lab.shape[0]) + 0.01, n + 64


def check(name, ip, ix, sp, cover):
    ptr, lab, coef, num_labels = cover
    rptr, rcomm, rcoef, rsizes, rorigin, rnested = _postprocess(ip, ix, ptr, lab, coef, num_labels)
    lo, hi = sp.lo, sp.hi
    own = (ptr[lo : hi + 1] - ptr[lo], lab[ptr[lo] : ptr[hi]], coef[ptr[lo] : ptr[hi]])
    got = postprocess_part(sp, *own, num_labels, rt)
    np.testing.assert_array_equal(got.ptr, rptr[lo : hi + 1] - rptr[lo], err_msg=name)
    np.testing.assert_array_equal(got.comm, rcomm[rptr[lo] : rptr[hi]], err_msg=name)
    want = rcoef[rptr[lo] : rptr[hi]]
    assert np.array_equal(got.coef.view(np.int64), want.view(np.int64)), name
    assert got.comm.dtype == np.int64 and got.ptr.dtype == np.int64, name
    tables = comm.allgather((got.c0, got.sizes, got.origin))
    starts = np.cumsum([0] + [t[1].shape[0] for t in tables])[:-1]
    assert [t[0] for t in tables] == starts.tolist(), (name, [t[0] for t in tables])
    np.testing.assert_array_equal(np.concatenate([t[1] for t in tables]), rsizes, err_msg=name)
    np.testing.assert_array_equal(np.concatenate([t[2] for t in tables]), rorigin, err_msg=name)
    assert got.communities == rsizes.shape[0], (name, got.communities, rsizes.shape[0])
    assert got.nested == rnested, (name, got.nested, rnested)
    if comm.Get_rank() == 0:
        print(
            f"OK {name} communities={got.communities} nested={got.nested} rounds={got.rounds}",
            flush=True,
        )


rt = MPIRuntime(comm)
try:
    for name, g, *initials in graphs():
        ip, ix = simple_view(g)
        sp = simple_part(split_graph(g, comm), both_directions=False)
        for initial, b in initials:
            kind = initial if isinstance(initial, str) else "labels"
            check(f"{name}/bmlpa-{kind}", ip, ix, sp, bmlpa_cover(g, ip, ix, initial, b))
        for seed in (SEED, SEED + 1):
            check(f"{name}/random-seed{seed}", ip, ix, sp, random_cover(ip, ix, g.n, seed))
finally:
    rt.close()
