"""Graph500 Kronecker (R-MAT) graphs and uniform random graphs.

Given a scale and an edge factor, :func:`kronecker` returns the Graph500 benchmark graph:
``N = 2**scale`` vertices and ``M = edge_factor * N`` edges. Each edge picks one of the
four quadrants of the adjacency matrix ``scale`` times, independently, with the initiator
probabilities A, B, C, D = 1 - A - B - C (Graph500: 0.57, 0.19, 0.19, 0.05), which fixes one
bit of the start vertex (quadrants C, D) and one of the end vertex (B, D) per level. This is
the reference generator's rule (``octave/kronecker_generator.m``): per level,
``P(start bit = 1) = C + D`` and ``P(end bit = 1 | start bit) = B / (A + B)`` or
``D / (C + D)``. The vertex labels are then permuted at random (so vertex 0 is not the hub)
and, in :func:`kronecker_edges`, the edge list is shuffled. :func:`kronecker` builds a CSR,
whose rows are sorted, so there the shuffle would only reorder parallel edges within a row:
it skips it. Weights, when asked for, are uniform in [0, 1) (the Graph500 SSSP weights).

Self-loops and parallel edges are kept as generated, as in Graph500, whose kernels must cope
with them: an undirected self-loop is stored once, parallel edges are stored (and counted in
degrees) as often as they were generated. ``num_edges`` is therefore exactly ``M``.

Randomness: every chunk of ``2**22`` edges draws from its own PCG64 stream derived from the
seed (:mod:`hpgraph.generators._rng`), so the same seed gives the same graph on any number
of threads. Each 64-bit draw decides two levels (32 bits each), so the quadrant
probabilities are the initiator's rounded to multiples of ``2**-32``.

Memory (int32 ids below 2**31 vertices): the edge list (8 B per edge, +8 B weighted) lives
while the CSR is built, so the peak is the edge list plus the graph: about 16 B per edge
undirected unweighted (the graph keeps 8: both directions as int32), 40 B per edge
undirected weighted (graph 24), 12 and 28 B per edge directed, plus ~32 B per vertex.
Scale 24 (268M edges): ~4.5 GB unweighted, ~11 GB weighted (measured at scale 22:
16.8 B per edge above the interpreter's baseline).

Time, measured on 2 cores shared with other jobs: scale 16 0.2 s, scale 20 3-4 s, scale 22
~20 s, about half generation (a few tens of ns per edge and level pair) and half the CSR
build (degree count, scatter, row sort). ``uniform_random(1M, 16M)``: ~2 s.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators._rng import check_seed, chunk_stream, run_chunks, stream
from hpgraph.graph import Graph, index_dtype

__all__ = ["kronecker", "kronecker_edges", "uniform_random", "uniform_random_edges"]

_BLOCK = 1 << 16  # edges per random_raw() call inside a chunk
_MASK32 = (1 << 32) - 1
_INV53 = 1.0 / float(1 << 53)

# stream keys (see _rng.stream)
_KEY_PERM = 0
_KEY_SHUFFLE = 1


@njit(**NUMBA_FLAGS)
def _kron_block(raw, per_edge, scale, t_a, t_ab, t_abc, perm, src, dst, w, has_w, wraw):
    """Fill src/dst (and w) with R-MAT edges relabelled by ``perm``; ``raw`` holds
    ``per_edge`` uniform 64-bit draws per edge: one per two levels (32 bits each);
    ``wraw`` one draw per edge for the weight (a side stream: the edges do not depend on
    whether the graph is weighted)."""
    npairs = (scale + 1) >> 1
    for i in range(src.shape[0]):
        base = i * per_edge
        u = np.int64(0)
        v = np.int64(0)
        for p in range(npairs):
            k = raw[base + p]
            # quadrant A: r < t_a, B: t_a <= r < t_ab, C: t_ab <= r < t_abc, D: the rest;
            # start bit set in C and D, end bit in B and D
            r = np.int64(k & np.uint64(_MASK32))
            x2 = np.int64(r >= t_ab)
            u |= x2 << (2 * p)
            v |= (np.int64(r >= t_a) ^ x2 ^ np.int64(r >= t_abc)) << (2 * p)
            if 2 * p + 1 < scale:
                r = np.int64(k >> np.uint64(32))
                x2 = np.int64(r >= t_ab)
                u |= x2 << (2 * p + 1)
                v |= (np.int64(r >= t_a) ^ x2 ^ np.int64(r >= t_abc)) << (2 * p + 1)
        src[i] = perm[u]
        dst[i] = perm[v]
        if has_w:
            w[i] = np.float64(wraw[i] >> np.uint64(11)) * _INV53


@njit(**NUMBA_FLAGS)
def _uniform_block(raw, n, src, dst, w, has_w, wraw):
    for i in range(src.shape[0]):
        base = i * 2
        # min(): u * n may round up to n when n is large
        src[i] = min(np.int64(np.float64(raw[base] >> np.uint64(11)) * _INV53 * n), n - 1)
        dst[i] = min(np.int64(np.float64(raw[base + 1] >> np.uint64(11)) * _INV53 * n), n - 1)
        if has_w:
            w[i] = np.float64(wraw[i] >> np.uint64(11)) * _INV53


@njit(**NUMBA_FLAGS)
def _shuffle_edges(raw, src, dst, w, has_w):
    """Fisher-Yates shuffle of the edge list in place; raw[i] draws the partner of i."""
    for i in range(src.shape[0] - 1, 0, -1):
        j = min(np.int64(np.float64(raw[i] >> np.uint64(11)) * _INV53 * (i + 1)), i)
        src[i], src[j] = src[j], src[i]
        dst[i], dst[j] = dst[j], dst[i]
        if has_w:
            w[i], w[j] = w[j], w[i]


_NO_DRAWS = np.empty(0, dtype=np.uint64)


def _blocks(seed, chunk, lo, hi, per_edge, weighted, fill):
    """Call ``fill(raw, wraw, a, b)`` for blocks of edges a..b of lo..hi with their draws
    from the chunk's stream (``per_edge`` each) and, when ``weighted``, one weight draw
    each from the chunk's side stream."""
    bitgen = chunk_stream(seed, chunk)
    wgen = chunk_stream(seed, chunk, 1) if weighted else None
    for a in range(lo, hi, _BLOCK):
        b = min(a + _BLOCK, hi)
        wraw = wgen.random_raw(b - a) if weighted else _NO_DRAWS
        fill(bitgen.random_raw((b - a) * per_edge), wraw, a, b)


def _check_int(name, value, lo):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lo:
        raise InvalidArgumentError(f"{name} must be an integer >= {lo}, got {value!r}")
    return int(value)


def _alloc(n, m, weighted):
    idt = index_dtype(n)
    src = np.empty(m, dtype=idt)
    dst = np.empty(m, dtype=idt)
    w = np.empty(m if weighted else 0, dtype=np.float64)
    return src, dst, w


def _kron_edges(scale, edge_factor, seed, a, b, c, weighted, threads, shuffle):
    scale = _check_int("scale", scale, 0)
    if scale > 40:
        raise InvalidArgumentError(f"scale must be at most 40, got {scale}")
    edge_factor = _check_int("edge_factor", edge_factor, 0)
    seed = check_seed(seed)
    probs = [float(a), float(b), float(c)]
    if min(probs) < 0 or sum(probs) > 1.0 + 1e-12:
        raise InvalidArgumentError(
            f"initiator probabilities must be >= 0 with a + b + c <= 1, got a={a}, b={b}, c={c}"
        )
    n = 1 << scale
    m = edge_factor * n
    two32 = float(1 << 32)
    t_a = round(probs[0] * two32)
    t_ab = round((probs[0] + probs[1]) * two32)
    t_abc = round(min(1.0, probs[0] + probs[1] + probs[2]) * two32)
    per_edge = (scale + 1) // 2
    src, dst, w = _alloc(n, m, weighted)
    perm = np.random.Generator(stream(seed, _KEY_PERM)).permutation(n).astype(src.dtype)

    def work(chunk, lo, hi):
        def fill(raw, wraw, i, j):
            wv = w[i:j] if weighted else w
            ts = (t_a, t_ab, t_abc)
            _kron_block(raw, per_edge, scale, *ts, perm, src[i:j], dst[i:j], wv, weighted, wraw)

        _blocks(seed, chunk, lo, hi, per_edge, weighted, fill)

    run_chunks(m, work, threads)
    if shuffle and m > 1:
        _shuffle_edges(stream(seed, _KEY_SHUFFLE).random_raw(m), src, dst, w, weighted)
    return n, src, dst, (w if weighted else None)


def kronecker_edges(
    scale,
    edge_factor=16,
    *,
    seed=0,
    a=0.57,
    b=0.19,
    c=0.19,
    weighted=False,
    threads=None,
):
    """The Graph500 Kronecker edge list: ``(src, dst, weights)``, shuffled.

    ``src``/``dst`` are int32 arrays of ``edge_factor * 2**scale`` vertex ids (each edge once,
    whatever the direction the graph will be given), ``weights`` float64 in [0, 1) or None.
    ``Graph.from_edges(src, dst, weights, n=2**scale, directed=...)`` is
    :func:`kronecker` with the same arguments, up to the order of parallel edges inside a
    row (which only shows in their weights): :func:`kronecker` skips the shuffle.
    """
    _, src, dst, w = _kron_edges(scale, edge_factor, seed, a, b, c, weighted, threads, True)
    return src, dst, w


def kronecker(
    scale,
    edge_factor=16,
    *,
    seed=0,
    a=0.57,
    b=0.19,
    c=0.19,
    weighted=False,
    directed=False,
    name=None,
    threads=None,
):
    """The Graph500 Kronecker graph of ``2**scale`` vertices and ``edge_factor * 2**scale``
    edges (see the module docstring for the model, its self-loops and parallel edges, and
    its memory use).

    ``seed`` fixes the graph: the same arguments give the same graph on any machine and
    thread count. ``threads`` only sets how many threads generate (default: all cores).
    """
    # No edge shuffle here: the CSR sorts every row by target, so shuffling would only
    # reorder parallel edges inside a row, and it is the slowest step at large scales
    # (random access over the whole edge list).
    n, src, dst, w = _kron_edges(scale, edge_factor, seed, a, b, c, weighted, threads, False)
    if name is None:
        name = f"kron{scale}" if edge_factor == 16 else f"kron{scale}-ef{edge_factor}"
    return Graph.from_edges(src, dst, w, n=n, directed=directed, name=name, threads=threads)


def _uniform_edges(n, m, seed, weighted, threads):
    n = _check_int("n", n, 0)
    m = _check_int("m", m, 0)
    seed = check_seed(seed)
    if n == 0 and m > 0:
        raise InvalidArgumentError(f"a graph without vertices cannot have edges (m={m})")
    src, dst, w = _alloc(n, m, weighted)

    def work(chunk, lo, hi):
        def fill(raw, wraw, i, j):
            _uniform_block(raw, n, src[i:j], dst[i:j], w[i:j] if weighted else w, weighted, wraw)

        _blocks(seed, chunk, lo, hi, 2, weighted, fill)

    run_chunks(m, work, threads)
    return n, src, dst, (w if weighted else None)


def uniform_random_edges(n, m, *, seed=0, weighted=False, threads=None):
    """The edge list of :func:`uniform_random`: ``(src, dst, weights)``."""
    _, src, dst, w = _uniform_edges(n, m, seed, weighted, threads)
    return src, dst, w


def uniform_random(n, m, *, seed=0, weighted=False, directed=False, name=None, threads=None):
    """Erdos-Renyi G(n, m) graph (the benchmarks' "uniform" graph): ``m`` edges whose two
    endpoints are drawn uniformly and independently from ``0..n-1``, with replacement.

    So parallel edges and self-loops occur (about ``m**2 / n**2`` and ``m / n`` of them) and
    are kept, as in :func:`kronecker`; ``num_edges`` is exactly ``m``. Weights, when asked
    for, are uniform in [0, 1). Deterministic for a seed, whatever ``threads``.
    """
    n, src, dst, w = _uniform_edges(n, m, seed, weighted, threads)
    if name is None:
        name = f"uniform-{_short(n)}-{_short(m)}"
    return Graph.from_edges(src, dst, w, n=n, directed=directed, name=name, threads=threads)


def _short(x: int) -> str:
    for div, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if x >= div and x % div == 0:
            return f"{x // div}{suffix}"
    return str(x)
