"""SSSP by delta-stepping (the local runtime's default) against SciPy's Dijkstra and the
Bellman-Ford vertex program, bit for bit, on graphs of several shapes, bucket widths and
peer counts."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

import hpgraph as hp
from hpgraph.algorithms.delta_bins import (
    BLOCK,
    chain_block,
    has_room,
    lowest,
    new_bins,
    reserve,
    ring_slot,
    take,
)
from hpgraph.algorithms.delta_stepping import default_delta, delta_stepping
from hpgraph.algorithms.verify import verify_sssp
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators.kronecker import kronecker
from hpgraph.graph.csr import Graph


def _scipy(graph, source):
    n = graph.n
    src, dst, w = graph.edges()
    w = np.ones(src.size) if w is None else w
    order = np.lexsort((w, dst, src))  # parallel edges: the lightest (SciPy would add them)
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(src.size, dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    adj = sp.csr_matrix((w[first], (src[first], dst[first])), shape=(n, n))
    return dijkstra(adj, directed=graph.directed, indices=source)


def _graph(shape, seed=0):
    rng = np.random.default_rng(seed)
    if shape == "kronecker":
        return kronecker(11, 8, seed=seed, weighted=True)
    if shape == "unweighted":
        return kronecker(10, 8, seed=seed)
    if shape == "directed":
        n = 3000
        return Graph.from_edges(rng.integers(0, n, 12000), rng.integers(0, n, 12000),
                                rng.random(12000) * 10, n=n, directed=True)  # fmt: skip
    if shape == "chain":  # many buckets, one vertex each
        n = 2000
        perm = rng.permutation(n)
        return Graph.from_edges(perm[:-1], perm[1:], rng.random(n - 1) + 0.5, n=n)
    if shape == "heavy-tail":  # weights over six orders of magnitude
        n = 2000
        return Graph.from_edges(rng.integers(0, n, 8000), rng.integers(0, n, 8000),
                                10.0 ** rng.uniform(-3, 3, 8000), n=n)  # fmt: skip
    raise ValueError(shape)


def _source(graph):
    return int(np.argmax(np.diff(graph.indptr)))


@pytest.mark.parametrize("shape", ["kronecker", "unweighted", "directed", "chain", "heavy-tail"])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_delta_stepping_equals_dijkstra_and_bellman_ford(shape, threads):
    g = _graph(shape)
    s = _source(g)
    dist, parent, _, rounds = delta_stepping(g, s, threads=threads)
    assert rounds >= 1
    want = _scipy(g, s)
    assert np.allclose(dist, want, rtol=1e-12, atol=0) or np.array_equal(dist, want)
    bf = hp.sssp(g, s, variant="bellman-ford", threads=threads)
    res = hp.sssp(g, s, threads=threads)
    assert res.meta["variant"] == "delta-stepping"
    assert np.array_equal(res["distance"], bf["distance"])  # bit for bit
    assert np.array_equal(res["parent"], bf["parent"])


@pytest.mark.parametrize("shape", ["kronecker", "unweighted", "directed", "heavy-tail"])
def test_float32_distances_match_bellman_ford_and_stay_within_float32_of_double(shape):
    # single precision (GAP's width): delta-stepping and the vertex program add the same
    # float32-rounded weights in float32, so they agree bit for bit; each distance is
    # within float32 rounding of the double one, and the verifier accepts the tree
    g = _graph(shape)
    s = _source(g)
    res = hp.sssp(g, s, dtype="float32", threads=2)
    bf = hp.sssp(g, s, dtype="float32", variant="bellman-ford", threads=2)
    assert res["distance"].dtype == np.float32 and res.meta["dtype"] == "float32"
    assert np.array_equal(res["distance"], bf["distance"])
    assert np.array_equal(res["parent"], bf["parent"])
    verify_sssp(g, s, res)
    want = hp.sssp(g, s)["distance"]
    fin = np.isfinite(want)
    assert np.array_equal(fin, np.isfinite(res["distance"]))
    np.testing.assert_allclose(res["distance"][fin], want[fin], rtol=1e-5)
    if shape == "unweighted":  # small integers are exact in float32
        assert np.array_equal(res["distance"], want.astype(np.float32))


def test_float32_tightness_is_tested_in_float32():
    # 0.1 is not a float32: the tree edge 1 -> 2 is tight only for the float32 sum
    # fl32(fl32(0.1) + fl32(0.2)), which the double sum 0.1 + 0.2 is not
    g = Graph.from_edges([0, 1, 0], [1, 2, 2], [0.1, 0.2, 0.35], n=3, directed=True)
    res = hp.sssp(g, 0, dtype="float32", threads=1)
    assert res["distance"][2] == np.float32(0.1) + np.float32(0.2)
    assert res["parent"].tolist() == [0, 0, 1]
    with pytest.raises(InvalidArgumentError, match="dtype must be float64 or float32"):
        hp.sssp(g, 0, dtype="float16")


@pytest.mark.parametrize("delta", [1e-4, 0.05, 1e6])
def test_any_bucket_width_gives_the_same_distances(delta):
    g = _graph("kronecker")
    s = _source(g)
    want = hp.sssp(g, s, variant="bellman-ford")["distance"]
    assert np.array_equal(hp.sssp(g, s, delta=delta, threads=2)["distance"], want)


def test_a_distance_just_below_its_buckets_product_is_relaxed():
    # 27 / (9/14) rounds to 42.0 but 42 * (9/14) to 27.000000000000004: the vertex at 27
    # is queued in bucket 42 and must be relaxed there (it was skipped as "below the
    # bucket", leaving vertex 2 unreached)
    path = Graph.from_edges([0, 1], [1, 2], [27.0, 1.0], n=3, directed=True)
    assert list(hp.sssp(path, 0, delta=9 / 14, threads=1)["distance"]) == [0.0, 27.0, 28.0]
    # integer weights (as Graph500 and GAP draw them) under widths of the default's form,
    # many of which round that way for some integer distance
    rng = np.random.default_rng(11)
    n, m = 1500, 6000
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m),
                         rng.integers(1, 256, m).astype(float), n=n)  # fmt: skip
    want = hp.sssp(g, 0, variant="bellman-ford")["distance"]
    for delta in (9 / 14, 2.95, 8.607142857142858, 128 * 0.5 / 7.9):
        assert np.array_equal(hp.sssp(g, 0, delta=delta, threads=2)["distance"], want)


def test_many_peers_and_zero_weights():
    rng = np.random.default_rng(5)
    n = 3000
    w = rng.random(15000)
    w[::3] = 0.0  # zero-weight edges relax into the bucket being processed
    g = Graph.from_edges(rng.integers(0, n, 15000), rng.integers(0, n, 15000), w, n=n)
    want = hp.sssp(g, 0, variant="bellman-ford")["distance"]
    for _ in range(3):
        assert np.array_equal(hp.sssp(g, 0, threads=6)["distance"], want)


@pytest.mark.parametrize("directed", [False, True])
def test_zero_weight_edges_give_a_tree(directed):
    # the two ends of an undirected zero-weight edge are each other's tight neighbours:
    # parents must still form a tree rooted at the source (Graph500's SSSP rules)
    rng = np.random.default_rng(7)
    n, m = 2000, 12000
    w = rng.random(m)
    w[rng.random(m) < 0.2] = 0.0
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), w, n=n, directed=directed)
    for variant in ("delta-stepping", "bellman-ford"):
        verify_sssp(g, 0, hp.sssp(g, 0, variant=variant, threads=2))


def test_default_delta():
    assert default_delta(_graph("unweighted")) == 1.0
    g = _graph("kronecker")
    d = g.num_stored_edges / g.n
    widen = max(1.0, (16 / d) ** 2)
    assert default_delta(g) == pytest.approx(g.weights.mean() * 0.5 * widen / d)
    path = Graph.from_edges(np.arange(99), np.arange(1, 100), np.full(99, 2.0), directed=False)
    assert default_delta(path) == pytest.approx(2.0 * 0.5 * (16 / 1.98) ** 2 / 1.98)


def test_variant_and_delta_checked():
    g = _graph("chain")
    with pytest.raises(InvalidArgumentError, match="variant must be one of auto, delta-stepping"):
        hp.sssp(g, 0, variant="dijkstra")
    with pytest.raises(InvalidArgumentError, match="delta must be a positive number"):
        hp.sssp(g, 0, delta=0)


@pytest.mark.parametrize("shape", ["kronecker", "unweighted", "directed", "chain", "heavy-tail"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bucket_synchronous_supersteps_equal_bellman_ford_with_fewer_messages(shape, dtype):
    # delta-stepping as a vertex program (other runtimes, checkpoints), run here on the
    # local runtime by the engine itself: any width gives Bellman-Ford's distances bit
    # for bit; buckets narrower than the weights send fewer messages in more supersteps
    from hpgraph.algorithms.sssp import _BUCKETS, SUPERSTEP_WIDEN
    from hpgraph.engine import run

    g = _graph(shape)
    s = _source(g)
    bf = hp.sssp(g, s, variant="bellman-ford", dtype=dtype, threads=2)
    sent = {}
    for widen in (1, SUPERSTEP_WIDEN, 1e9):
        delta = default_delta(g) * widen
        job = run(_BUCKETS[dtype], g, params={"source": s, "delta": delta}, threads=2)
        assert job.values.dtype == np.dtype(dtype) and job.values.shape == (g.n, 2)
        assert np.array_equal(job.values[:, 0], bf["distance"]), widen
        assert not job.values[:, 1].any()  # nothing left pending
        sent[widen] = sum(st.messages_local + st.messages_remote for st in job.stats.supersteps)
    bf_sent = sum(st.messages_local + st.messages_remote for st in bf.stats.supersteps)
    assert sent[1] <= bf_sent
    if shape not in ("unweighted", "chain"):  # BFS levels, a path: one improvement each
        assert sent[1] < bf_sent


def _stop_at(at):
    from hpgraph.engine.checkpoint import Faults

    class Stop(Faults):
        def superstep(self, ss, rank):
            if ss == at:
                raise RuntimeError(f"stopped at {ss}")

    return Stop()


def test_delta_stepping_with_checkpoints_runs_in_supersteps_and_resumes(tmp_path):
    from hpgraph.engine.checkpoint import Checkpoints

    g = _graph("kronecker")
    s = _source(g)
    want = hp.sssp(g, s, threads=2)  # the shared-memory form
    folder = tmp_path / "ck"
    with pytest.raises(RuntimeError, match="stopped at 5"):
        hp.sssp(g, s, threads=2, checkpoint=Checkpoints(folder, every=2, faults=_stop_at(5)))
    got = hp.sssp(g, s, threads=2, checkpoint=Checkpoints(folder, every=2, resume=True))
    assert got.meta["variant"] == "delta-stepping" and got.stats.supersteps[0].superstep == 4
    assert got.meta["delta"] == want.meta["delta"] * 16
    assert np.array_equal(got["distance"], want["distance"])
    verify_sssp(g, s, got)


def test_a_failing_peer_stops_the_others_at_the_compiled_barrier(monkeypatch):
    import hpgraph.algorithms.delta_stepping as ds
    from hpgraph.errors import RuntimeErrorInJob

    rounds = ds._rounds

    def fail_peer_1(*args):
        if args[9] == 1:  # pid
            raise MemoryError("injected")
        return rounds(*args)

    monkeypatch.setattr(ds, "_rounds", fail_peer_1)
    with pytest.raises(RuntimeErrorInJob, match="peer 1 failed: MemoryError: injected"):
        delta_stepping(_graph("kronecker"), 0, threads=3)


def _push(bins, b, v, current=0):
    """One entry into bucket ``b`` (``current``: the ring's first bucket), as the
    relaxation loop writes it out (room made for one push first)."""
    pool, link, fill, head, tail, count, meta = bins
    if not has_room(link, head, meta, current, b, 1):
        pool, link, fill, head, tail, count = reserve(
            pool, link, fill, head, tail, count, meta, current, b, 1
        )
    k = ring_slot(head, b)
    t = tail[k]
    if t < 0 or fill[t] == BLOCK:
        t = chain_block(link, fill, head, tail, meta, k, t)
    pool[t * BLOCK + fill[t]] = v
    fill[t] += 1
    count[k] += 1
    return pool, link, fill, head, tail, count, meta


def test_bins_keep_every_entry_in_order_through_growth_and_reuse_blocks():
    rng = np.random.default_rng(18)
    print("seed 18")
    bins = new_bins(np.int32, blocks=1, buckets=1)
    want = {}
    for v, b in zip(rng.integers(0, 2**31 - 1, 6000), rng.integers(0, 40, 6000), strict=True):
        bins = _push(bins, int(b), int(v))
        want.setdefault(int(b), []).append(int(v))
    pool, link, fill, head, tail, count, meta = bins
    used = meta[1]
    out = np.empty(0, dtype=np.int32)
    assert lowest(count, meta, 0) == min(want)
    for b in sorted(want):
        out, s = take(pool, link, fill, head, tail, count, meta, b, out)
        assert out[:s].tolist() == want[b]
    assert lowest(count, meta, 0) == -1
    assert meta[2] == used  # every block is free again
    for v in range(3000):  # the freed blocks serve again
        bins = _push(bins, 7, v)
    assert bins[-1][1] == used


def test_the_bucket_ring_follows_the_current_bucket_and_grows_with_the_weights_not_the_distances():
    # delta-stepping's use: pushes go to buckets current .. current + span, the lowest is
    # taken and becomes current; the ring's slots wrap around many times, and its length
    # follows the span (the largest weight / delta), not the buckets ever used
    rng = np.random.default_rng(19)
    bins = new_bins(np.int32, blocks=1, buckets=2)
    want = {}
    current = 0
    out = np.empty(0, dtype=np.int32)
    for step in range(4000):
        span = 5 if step < 3000 else 40  # a heavier weight late: the ring grows in use
        for _ in range(int(rng.integers(1, 6))):
            b = current + int(rng.integers(0, span))
            v = int(rng.integers(0, 2**31 - 1))
            bins = _push(bins, b, v, current)
            want.setdefault(b, []).append(v)
        if rng.random() < 0.5:
            pool, link, fill, head, tail, count, meta = bins
            b = lowest(count, meta, current)
            assert b == min(want)
            out, s = take(pool, link, fill, head, tail, count, meta, b, out)
            assert out[:s].tolist() == want.pop(b)
            current = b
    head = bins[3]
    assert current > 500 and 40 <= head.shape[0] <= 64  # wrapped many times; 2 x span at most
    pool, link, fill, head, tail, count, meta = bins
    while want:
        b = lowest(count, meta, current)
        out, s = take(pool, link, fill, head, tail, count, meta, b, out)
        assert out[:s].tolist() == want.pop(b)
        current = b
    assert lowest(count, meta, current) == -1


def test_a_small_delta_keeps_a_ring_of_the_largest_weight_over_delta():
    # distances up to about 40, weights up to 10: at delta 1e-5 the buckets ever used
    # number 4 million, the ring about 10 / delta (the old array of every bucket index
    # took 4.7 GB of memory at delta 1e-6 on this graph)
    rng = np.random.default_rng(1)
    n, m = 2000, 8000
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m) * 10, n=n)
    want = hp.sssp(g, 0, variant="bellman-ford")["distance"]
    assert np.array_equal(hp.sssp(g, 0, delta=1e-5, threads=2)["distance"], want)
    # a width that would need a ring of over 2^24 buckets per thread is refused, saying
    # which width would do
    with pytest.raises(InvalidArgumentError, match=r"delta 1e-07 is 1e\+08 times smaller .* "
                       r"give delta >= 5.96e-07"):  # fmt: skip
        hp.sssp(g, 0, delta=1e-7)
