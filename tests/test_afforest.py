"""WCC by Afforest (the default variant) against SciPy's connected components and the
HashMin vertex program, on graphs of several shapes and peer counts; the engine's atomic
compare-and-swap under contention."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit
from scipy.sparse.csgraph import connected_components

import hpgraph as hp
from hpgraph.algorithms.afforest import afforest_components
from hpgraph.engine.atomics import atomic_min, compare_and_swap, fetch_add, prefetch
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators.kronecker import kronecker
from hpgraph.graph.csr import Graph


def _min_labels(graph):
    """SciPy's components of the undirected view, each named by its smallest vertex."""
    n = graph.n
    src, dst, _ = graph.edges()
    adj = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    _, lab = connected_components(adj, directed=True, connection="weak")
    first = np.full(lab.max() + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(first, lab, np.arange(n))
    return first[lab]


def _graph(shape, seed=0):
    rng = np.random.default_rng(seed)
    if shape == "kronecker":
        return kronecker(11, 8, seed=seed)
    if shape == "chain":  # diameter n - 1, ids shuffled so hooks go both ways
        n = 3000
        perm = rng.permutation(n)
        return Graph.from_edges(perm[:-1], perm[1:], n=n)
    if shape == "stars":
        hubs = rng.integers(0, 40, 4000)
        return Graph.from_edges(hubs, np.arange(40, 4040), n=4100)  # 60 isolated
    if shape == "many-small":
        n = 5000
        src = rng.integers(0, n, 2500)
        return Graph.from_edges(src, (src + rng.integers(1, 4, src.size)) % n, n=n)
    if shape == "directed":
        n = 2000
        return Graph.from_edges(rng.integers(0, n, 3000), rng.integers(0, n, 3000), n=n,
                                directed=True)  # fmt: skip
    if shape == "isolated":
        return Graph.from_edges(np.array([], np.int64), np.array([], np.int64), n=50)
    if shape == "empty":
        return Graph.from_edges(np.array([], np.int64), np.array([], np.int64), n=0)
    raise ValueError(shape)


SHAPES = ["kronecker", "chain", "stars", "many-small", "directed", "isolated", "empty"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_afforest_equals_scipy_and_hashmin(shape, threads):
    g = _graph(shape)
    comp, _ = afforest_components(g, threads=threads)
    assert np.array_equal(comp, _min_labels(g))
    res = hp.wcc(g, threads=threads)
    assert res.meta["variant"] == "afforest"
    assert np.array_equal(
        res["component"], hp.wcc(g, variant="hashmin", threads=threads)["component"]
    )
    assert res.meta["components"] == len(np.unique(comp))


def test_afforest_many_peers_on_few_cores_repeatable():
    # more peers than cores: chunks are taken by whoever is running, hooks race
    g = kronecker(13, 8, seed=3)
    want = _min_labels(g)
    for _ in range(5):
        assert np.array_equal(afforest_components(g, threads=6)[0], want)


def test_wcc_variant_checked():
    g = _graph("chain")
    with pytest.raises(
        InvalidArgumentError, match="variant must be one of auto, afforest, hashmin"
    ):
        hp.wcc(g, variant="union-find")


@njit(nogil=True)
def _count_up(a, reps):
    for _ in range(reps):
        while True:
            old = a[0]
            if compare_and_swap(a, 0, old, old + 1) == old:
                break


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_compare_and_swap_counts_under_contention(dtype):
    a = np.zeros(1, dtype=dtype)
    workers = [threading.Thread(target=_count_up, args=(a, 200_000)) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert a[0] == 600_000


def test_compare_and_swap_returns_the_old_value():
    @njit
    def swap(a):
        return compare_and_swap(a, 1, 7, 3), compare_and_swap(a, 0, 4, 9)

    a = np.array([5, 7], dtype=np.int64)
    assert swap(a) == (7, 5)  # the first swapped, the second did not
    assert a.tolist() == [5, 3]


@njit(nogil=True)
def _take_chunks(counter, seen, chunk):
    while True:
        start = fetch_add(counter, 0, chunk)
        if start >= seen.shape[0]:
            return
        for i in range(start, min(start + chunk, seen.shape[0])):
            seen[i] += 1
        atomic_min(counter, 1, -start)  # the most negative start: the last chunk taken


@njit
def _gather_with_prefetch(x, idx, ahead):
    total = 0.0
    for k in range(idx.shape[0]):
        prefetch(x, idx[min(k + ahead, idx.shape[0] - 1)])
        prefetch(x, 1 << 40)  # far outside the array: a hint never faults
        total += x[idx[k]]
    return total


def test_prefetch_is_a_hint_compiled_in():
    x = np.arange(1000, dtype=np.float64)
    idx = np.random.default_rng(0).integers(0, 1000, 5000)
    assert _gather_with_prefetch(x, idx, 16) == x[idx].sum()  # results unchanged
    ir = next(iter(_gather_with_prefetch.inspect_llvm().values()))
    assert "llvm.prefetch" in ir


def test_fetch_add_hands_out_each_chunk_once():
    counter = np.array([0, 0], dtype=np.int64)
    seen = np.zeros(100_003, dtype=np.int64)
    workers = [threading.Thread(target=_take_chunks, args=(counter, seen, 7)) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert (seen == 1).all()  # every entry by exactly one thread
    assert counter[1] == -7 * ((seen.shape[0] - 1) // 7)
