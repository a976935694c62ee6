"""All-pairs shortest paths. Given a graph (non-negative weights, or hop counts when
unweighted), returns the distance d(s, t) of every ordered pair: float64, 0 on the
diagonal, inf when t is unreachable from s; directed graphs follow out-edges, parallel
edges count with their smallest weight.

Variant: one single-source search per source (BFS, or Dijkstra with an indexed binary
heap), sources split among the peers of a peer-level BSP job (``run_bsp``), each search
a nogil numba call writing its row in place. Repeated Dijkstra is O(n (m + n) log n):
for sparse graphs this beats Floyd-Warshall's O(n^3), and the rows are independent, so
they parallelise and stream without any exchange between peers.

Output, chosen by size:

- in memory (the default): the dense n x n float64 matrix (8 n^2 bytes), when it fits
  the budget: ``max_memory`` bytes, default half the memory available now. Each peer
  fills a contiguous band of rows; on the local runtime the bands are written in place,
  with MPI every rank receives every band, so each rank holds the whole matrix.
- streamed (``output=`` a ``.parquet`` path or a directory, which gets ``apsp.parquet``):
  long form, columns ``source``, ``target`` (the input's ids) and ``distance``, finite
  pairs only, rows ordered by source then target, one row group per block of ``block``
  sources. Peers compute blocks round-robin, one block each per superstep, and send
  them to peer 0, which writes them in source order; the file is written atomically.
  Before starting, the size is estimated as 16 bytes (target and distance) per pair
  inside a weakly connected component (exact for undirected graphs, an upper bound for
  directed ones) and checked against the free disk space.

Without ``output`` and over the budget, or with ``output`` and over the free space, it
refuses with :class:`~hpgraph.errors.InvalidArgumentError` stating the estimate.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from hpgraph._procfs import available_memory
from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms._paths import dijkstra_settle
from hpgraph.algorithms._peer import PeerProgress, resolve_runtime, resolve_weighted
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.errors import InvalidArgumentError

__all__ = ["apsp", "APSPResult"]

#: Share of the memory available at call time that the dense matrix may take by default.
MEMORY_FRACTION = 0.5
#: Estimated bytes per finite pair in the streamed Parquet file (target int64 and
#: distance float64; the source column is run-length encoded to almost nothing).
STREAM_BYTES_PER_PAIR = 16
#: Default block: this many matrix entries (8 B each) per block of sources.
BLOCK_ENTRIES = 1 << 22


@njit(**NUMBA_FLAGS)
def _bfs_rows(indptr, indices, sources, out, queue):
    """out[i] = hop distances from sources[i]."""
    for i in range(sources.shape[0]):
        s = sources[i]
        row = out[i]
        row[:] = np.inf
        row[s] = 0.0
        queue[0] = s
        head, tail = 0, 1
        while head < tail:
            u = queue[head]
            head += 1
            du1 = row[u] + 1.0
            for k in range(indptr[u], indptr[u + 1]):
                x = indices[k]
                if row[x] == np.inf:
                    row[x] = du1
                    queue[tail] = x
                    tail += 1


@njit(**NUMBA_FLAGS)
def _dijkstra_rows(indptr, indices, weights, sources, out, heap, pos, settled, sigma):
    """out[i] = weighted distances from sources[i] (the shared core; ``sigma`` is its
    path-count scratch, unread here); ``pos`` is -1 everywhere on entry and is left so."""
    for i in range(sources.shape[0]):
        dist = out[i]
        dist[:] = np.inf
        cnt = dijkstra_settle(indptr, indices, weights, sources[i], dist, sigma, settled, heap, pos)
        for j in range(cnt):
            pos[settled[j]] = -1


class _Rows:
    """One peer's search state (O(n): a queue, or heap + positions + settled list, 4 B
    per vertex each, and the path counts, 8 B) and the kernel that fills a block of
    rows."""

    def __init__(self, csr):
        self.indptr, self.indices, self.weights = csr
        n = self.indptr.shape[0] - 1
        it = np.int32 if n < 2**31 else np.int64
        self.queue = np.empty(n, dtype=it)
        if self.weights is not None:
            self.heap = np.empty(n, dtype=it)
            self.pos = np.full(n, -1, dtype=it)
            self.sigma = np.empty(n, dtype=np.float64)

    def fill(self, sources, out):
        if self.weights is None:
            _bfs_rows(self.indptr, self.indices, sources, out, self.queue)
        else:
            _dijkstra_rows(
                self.indptr, self.indices, self.weights, sources, out, self.heap, self.pos,
                self.queue, self.sigma,
            )  # fmt: skip


def _dense_peer(peer, csr, out, block, progress):
    """Fill this peer's band of rows of ``out``; returns (first row, the band)."""
    n = out.shape[0]
    lo = n * peer.pid // peer.num_peers
    hi = n * (peer.pid + 1) // peer.num_peers
    rows = _Rows(csr)
    bar = PeerProgress(hi - lo, peer.num_peers, "rows") if progress and peer.pid == 0 else None
    try:
        for b in range(lo, hi, block):
            e = min(hi, b + block)
            rows.fill(np.arange(b, e, dtype=np.int64), out[b:e])
            if bar is not None:
                bar.advance(e - b)
    finally:
        if bar is not None:
            bar.close()
    return lo, out[lo:hi]


def _long_form(block_rows, first, ids):
    """The finite entries of a block of rows as an Arrow table (source, target,
    distance), in the input's ids."""
    import pyarrow as pa

    r, c = np.nonzero(np.isfinite(block_rows))
    dist = block_rows[r, c]
    src = r.astype(np.int64) + first
    tgt = c.astype(np.int64)
    if ids is not None:
        src, tgt = ids[src], ids[tgt]
    typ = pa.string() if ids is not None and ids.dtype.kind in "OUS" else pa.int64()
    return pa.table(
        {
            "source": pa.array(src, type=typ),
            "target": pa.array(tgt, type=typ),
            "distance": pa.array(dist, type=pa.float64()),
        }
    )


def _stream_peer(peer, csr, n, block, ids, path, progress):
    """Round r: this peer computes block r * P + pid and sends it to peer 0, which writes
    the round's blocks in peer order (= source order). Returns the pairs peer 0 wrote."""
    nblocks = -(-n // block)
    rounds = -(-nblocks // peer.num_peers)
    rows = _Rows(csr)
    buf = np.empty((min(block, n), n), dtype=np.float64)
    mine = len(range(peer.pid, nblocks, peer.num_peers))
    bar = PeerProgress(mine, peer.num_peers, "blocks") if progress and peer.pid == 0 else None
    if peer.pid != 0:
        for r in range(rounds):
            _stream_block(peer, r, nblocks, block, n, rows, buf, ids)
            peer.sync()
        return 0

    import pyarrow.parquet as pq

    from hpgraph.io._atomic import atomic_output

    written = 0
    schema = _long_form(np.empty((0, 0)), 0, ids).schema
    try:
        with atomic_output(path) as tmp, pq.ParquetWriter(tmp, schema) as writer:
            for r in range(rounds):
                _stream_block(peer, r, nblocks, block, n, rows, buf, ids)
                peer.sync()
                for _, table in sorted(peer.messages(), key=lambda m: m[0]):
                    writer.write_table(table, row_group_size=max(table.num_rows, 1))
                    written += table.num_rows
                if bar is not None:
                    bar.advance(1)
    finally:
        if bar is not None:
            bar.close()
    return written


def _stream_block(peer, r, nblocks, block, n, rows, buf, ids):
    b = r * peer.num_peers + peer.pid
    if b < nblocks:
        lo, hi = b * block, min(n, (b + 1) * block)
        rows.fill(np.arange(lo, hi, dtype=np.int64), buf[: hi - lo])
        peer.send(0, _long_form(buf[: hi - lo], lo, ids))


@dataclass
class APSPResult:
    """Distances between every ordered pair of ``graph``'s vertices.

    ``distances`` is the dense n x n matrix (row = source, column = target, internal-id
    order; ``vertex_ids()`` names the rows) when it was kept in memory, else ``None`` and
    ``path`` is the Parquet file written. ``meta`` holds ``weighted``, ``streamed``,
    ``bytes`` (matrix bytes, or the file's size) and, streamed, ``pairs`` (rows written).
    """

    graph: Any
    distances: np.ndarray | None
    path: str | None = None
    stats: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
    algorithm: str = "apsp"

    def vertex_ids(self) -> np.ndarray:
        return self.graph.user_ids()

    def distance(self, source, target) -> float:
        """d(source, target), both named by the input's ids (in-memory results)."""
        if self.distances is None:
            raise InvalidArgumentError(f"the distances were streamed to {self.path}; read it")
        return float(
            self.distances[self.graph.vertex_index(source), self.graph.vertex_index(target)]
        )

    def to_dict(self) -> dict:
        """``{(source, target): distance}`` for the finite pairs, in the input's ids."""
        if self.distances is None:
            raise InvalidArgumentError(f"the distances were streamed to {self.path}; read it")
        ids = self.vertex_ids()
        r, c = np.nonzero(np.isfinite(self.distances))
        keys = zip(ids[r].tolist(), ids[c].tolist(), strict=True)
        return dict(zip(keys, self.distances[r, c].tolist(), strict=True))


def _reachable_pairs_bound(graph) -> int:
    """Pairs (s, t) in one weakly connected component, s = t included: the finite
    distances of an undirected graph, an upper bound for a directed one."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    a = csr_matrix(
        (np.ones(graph.indices.shape[0], dtype=np.int8), graph.indices, graph.indptr),
        shape=(graph.n, graph.n),
    )
    _, labels = connected_components(a, directed=True, connection="weak")
    sizes = np.bincount(labels).astype(np.int64)
    return int((sizes * sizes).sum())


def _output_path(output) -> Path:
    p = Path(output)
    if p.suffix.lower() in (".parquet", ".pq"):
        if not p.parent.is_dir():
            raise InvalidArgumentError(f"output folder {str(p.parent)!r} does not exist")
        return p
    if p.exists() and not p.is_dir():
        raise InvalidArgumentError(f"output {str(p)!r} is neither a .parquet path nor a folder")
    p.mkdir(parents=True, exist_ok=True)
    return p / "apsp.parquet"


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidArgumentError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def apsp(
    graph,
    *,
    weighted=None,
    threads=None,
    runtime=None,
    output=None,
    block=None,
    max_memory=None,
    progress=False,
):
    """Shortest-path distance of every ordered pair (see the module docstring for the
    in-memory and streamed outputs). ``weighted=None`` uses the weights when the graph
    has them (negative or non-finite weights are refused); ``block``: sources per block
    (default: about 4M matrix entries); ``max_memory``: bytes the dense matrix may take.
    """
    check_graph(graph)
    runtime, threads = resolve_runtime(runtime, threads)
    use_w = resolve_weighted(graph, weighted, "apsp", positive=False)
    n = graph.n
    block = _positive_int("block", block) if block is not None else None
    block = min(block or max(1, BLOCK_ENTRIES // max(n, 1)), max(n, 1))
    if max_memory is not None:
        if (
            isinstance(max_memory, bool)
            or not isinstance(max_memory, int | float)
            or max_memory < 0
        ):
            raise InvalidArgumentError(f"max_memory must be a number of bytes, got {max_memory!r}")
    budget = (
        int(max_memory) if max_memory is not None else int(MEMORY_FRACTION * available_memory())
    )
    dense_bytes = 8 * n * n
    csr = (graph.indptr, graph.indices, graph.weights if use_w else None)
    meta = {"weighted": use_w}

    if output is None:
        if dense_bytes > budget:
            raise InvalidArgumentError(
                f"the {n:,} x {n:,} distance matrix needs {dense_bytes:,} bytes, more than the "
                f"memory budget of {budget:,} bytes; pass output='dist.parquet' (or a folder) "
                "to stream it to Parquet, or raise max_memory"
            )
        out = np.empty((n, n), dtype=np.float64)
        stats = None
        if n:
            res = run_bsp(
                _dense_peer, peers=threads, args=(csr, out, block, bool(progress)),
                runtime=runtime,
            )  # fmt: skip
            for lo, band in res.results:
                if not np.shares_memory(band, out):  # bands from other ranks (MPI)
                    out[lo : lo + band.shape[0]] = band
            stats = res.stats
        meta.update(streamed=False, bytes=dense_bytes)
        return APSPResult(graph, out, None, stats, meta)

    path = _output_path(output)
    need = STREAM_BYTES_PER_PAIR * _reachable_pairs_bound(graph)
    free = shutil.disk_usage(path.parent).free
    if need > free:
        fits = " (it would fit in memory: leave output out)" if dense_bytes <= budget else ""
        raise InvalidArgumentError(
            f"the finite distances of this graph need about {need:,} bytes on disk "
            f"({STREAM_BYTES_PER_PAIR} per pair, up to {need // STREAM_BYTES_PER_PAIR:,} "
            f"pairs) but only {free:,} bytes are free at {str(path.parent)!r}{fits}"
        )
    ids = None if graph.ids is None else graph.user_ids()
    res = run_bsp(
        _stream_peer, peers=threads, args=(csr, n, block, ids, str(path), bool(progress)),
        runtime=runtime,
    )  # fmt: skip
    meta.update(streamed=True, pairs=int(res.results[0]), bytes=path.stat().st_size)
    return APSPResult(graph, None, str(path), res.stats, meta)
