"""LCC's counts on a whole graph (every process holds all of it): the degree-ordered view,
derived once and cached on the graph, and the peer-level program that lists each peer's
range of it (the package docstring has the method and its bytes)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from hpgraph.algorithms.lcc.kernels import count_links, count_triangles
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.graph.csr import index_dtype
from hpgraph.graph.views import _next, _simple_degrees, _union_step

__all__ = ["count_whole"]


# ------------------------------------------------------------------ the ordered view
@njit(**NUMBA_FLAGS)
def _forward_sizes(ipa, ixa, ipb, ixb, rank, sizes):
    """sizes[rank[v]] = neighbours of v ranked above v."""
    big = ipa.shape[0]
    for v in range(ipa.shape[0] - 1):
        ea, eb = ipa[v + 1], ipb[v + 1]
        pa = _next(ixa, ipa[v], ea, v, -1)
        pb = _next(ixb, ipb[v], eb, v, -1)
        r, c = rank[v], 0
        while pa < ea or pb < eb:
            u, m, pa, pb = _union_step(ixa, pa, ea, ixb, pb, eb, v, big)
            c += rank[u] > r
        sizes[r] = c


@njit(**NUMBA_FLAGS)
def _forward_fill(ipa, ixa, ipb, ixb, order, rank, fptr, fix, fdir):
    """Row q of the forward lists: the ranks above q of q's neighbours, ascending (filled
    by walking the ranks upwards, so rows come out sorted with no sort), and how many
    directions each pair has."""
    big = ipa.shape[0]
    fill = fptr[:-1].copy()
    keep_dir = fdir.shape[0] > 0
    for r in range(order.shape[0]):
        v = order[r]
        ea, eb = ipa[v + 1], ipb[v + 1]
        pa = _next(ixa, ipa[v], ea, v, -1)
        pb = _next(ixb, ipb[v], eb, v, -1)
        while pa < ea or pb < eb:
            u, m, pa, pb = _union_step(ixa, pa, ea, ixb, pb, eb, v, big)
            q = rank[u]
            if q < r:
                k = fill[q]
                fix[k] = r
                if keep_dir:
                    fdir[k] = m
                fill[q] = k + 1


@njit(**NUMBA_FLAGS)
def _probes(fptr, fix, work):
    """work[r + 1] = cumulative bitmap probes (plus row lengths) of ranks <= r."""
    acc = 0
    for r in range(fptr.shape[0] - 1):
        acc += 1 + fptr[r + 1] - fptr[r]
        for k in range(fptr[r], fptr[r + 1]):
            u = fix[k]
            acc += fptr[u + 1] - fptr[u]
        work[r + 1] = acc


@dataclass(frozen=True)
class _Forward:
    """The degree-ordered view of a graph (see the package docstring for its bytes)."""

    indptr: np.ndarray  #: int64, n + 1: forward rows, by rank
    indices: np.ndarray  #: int32/int64 ranks above the row's rank, ascending
    directions: np.ndarray  #: uint8 per entry, 1 or 2 (empty for undirected graphs)
    order: np.ndarray  #: rank -> vertex
    degree: np.ndarray  #: int64 |N(v)|, by vertex
    work: np.ndarray  #: int64, n + 1: cumulative probes, by rank


def _forward(graph) -> _Forward:
    def build():
        n = graph.n
        ipa, ixa = graph.indptr, graph.indices
        ipb, ixb, _ = graph.in_csr() if graph.directed else (ipa, ixa, None)
        idt = index_dtype(n)
        degree = np.empty(n, dtype=np.int64)
        _simple_degrees(ipa, ixa, ipb, ixb, False, 0, n, degree)
        order = np.argsort(degree, kind="stable").astype(idt)
        rank = np.empty(n, dtype=idt)
        rank[order] = np.arange(n, dtype=idt)
        sizes = np.empty(n, dtype=np.int64)
        _forward_sizes(ipa, ixa, ipb, ixb, rank, sizes)
        fptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=fptr[1:])
        del sizes
        fix = np.empty(int(fptr[-1]), dtype=idt)
        fdir = np.empty(fix.shape[0] if graph.directed else 0, dtype=np.uint8)
        _forward_fill(ipa, ixa, ipb, ixb, order, rank, fptr, fix, fdir)
        work = np.zeros(n + 1, dtype=np.int64)
        _probes(fptr, fix, work)
        arrays = (fptr, fix, fdir, order, degree, work)
        for a in arrays:
            a.flags.writeable = False
        return _Forward(*arrays)

    return graph.derived("lcc_forward", build)


# ------------------------------------------------------------------ the program
def _peer_program(peer, fw: _Forward, links: bool):
    """Superstep 0: list the triangles of this peer's rank range into private counts and
    send every other peer the counts of its range; superstep 1: sum what arrived. Returns
    this peer's range of the counts (by rank)."""
    n = fw.indptr.shape[0] - 1
    parts = peer.num_peers
    # ranges of ranks with equal probe counts (the work prefix is exact)
    cuts = np.searchsorted(fw.work, fw.work[-1] * np.arange(parts + 1) / parts, side="left")
    cuts[0], cuts[-1] = 0, n
    lo, hi = int(cuts[peer.pid]), int(cuts[peer.pid + 1])
    rows = np.arange(lo, hi, dtype=np.int64)
    if links:
        counts = np.zeros((n, 2), dtype=np.int64)
        count_links(fw.indptr, fw.indices, fw.directions, rows, counts, np.zeros(n, np.uint8))
    else:
        counts = np.zeros((n, 1), dtype=np.int64)
        bits = np.zeros(n // 64 + 1, dtype=np.uint64)
        count_triangles(fw.indptr, fw.indices, rows, counts.reshape(-1), bits)
    for q in range(parts):
        peer.send(q, counts[cuts[q] : cuts[q + 1]])
    peer.sync()
    mine = np.zeros((hi - lo, counts.shape[1]), dtype=np.int64)
    for _, part in peer.messages():
        mine += part
    return mine


def count_whole(graph, links, threads, runtime):
    """Per-vertex (triangles, links or None), the simple degrees and the BSP stats."""
    t0 = time.perf_counter()
    fw = _forward(graph)
    setup = time.perf_counter() - t0
    job = run_bsp(_peer_program, peers=threads, args=(fw, links), runtime=runtime)
    by_rank = np.concatenate(job.results) if job.results else np.zeros((0, 2), np.int64)
    job.stats.setup_s = setup
    job.stats.total_s += setup
    n = graph.n
    tri = np.empty(n, dtype=np.int64)
    tri[fw.order] = by_rank[:, 0]
    lnk = None
    if links:
        lnk = np.empty(n, dtype=np.int64)
        lnk[fw.order] = by_rank[:, 1]
    return tri, lnk, fw.degree, job.stats
