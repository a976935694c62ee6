"""Parallel ingest on the MPI runtime: every rank reads its own share of a text edge list
(or of a Parquet file's row groups) and the ranks assemble the same graph that
:func:`hpgraph.io.read_edgelist` (:func:`~hpgraph.io.read_parquet`) reads. Steps 3-5 are
:mod:`hpgraph.runtimes.mpi.assemble`.

1. **Shares.** Rank r reads bytes ``[r * size / P, (r + 1) * size / P)`` of the file, both
   ends moved to line starts (:mod:`hpgraph.io.shares`); an ``Exscan`` of the shares'
   newline counts gives each rank the line number of its first byte, so errors name the
   file's own lines.
2. **Parsing.** Each rank normalises and converts its share as the one-process reader
   does (compiled normaliser, pyarrow's conversion), a chunk at a time
   (:mod:`hpgraph.runtimes.mpi.scan`), keeping only the ids and weights. The shares
   must agree: the same field count as the file's first data line, and integer ids only
   if every share's ids are integers (else every rank converts its ids as strings).
3. **Ids.** The internal numbering is the one-process reader's (ids sorted): integer ids
   over a narrow span through a presence bitmap reduced with ``Allreduce(MAX)``, wider
   ones and strings spread over the ranks by a sample sort
   (:mod:`hpgraph.runtimes.mpi.samplesort`, :mod:`hpgraph.runtimes.mpi.dictionary`):
   no rank holds every rank's ids. Once the rows are built, a rank holding the whole
   graph gathers every vertex's id; a rank holding its own rows takes its own
   vertices' ids only (:class:`~hpgraph.graph.part.OwnIds`).
4. **Rows.** The global row counts (an ``Allreduce`` of each rank's) give the CSR's
   ``indptr`` and the MPI runtime's partition of the rows (ranges balanced on vertices
   and edges); each edge goes to the owner of its row (and, undirected, reversed to the
   other end's) in rounds of ``Alltoallv``, with its final slot in the row (an
   ``Exscan`` of the per-row counts), and each rank sorts its own rows.
5. **Graph.** The rows are gathered on every rank (``Allgatherv``): the result equals
   the one-process read, bit for bit, parallel edges' weights in the same order.

**Errors** are agreed: every check ends in an ``allgather`` of each rank's problem (None
or the message and line), and every rank raises the first one in file order, so all
ranks exit with the same one-line error and none waits for ever in a collective.

Everything but the last gathers (rows, names) is split between the ranks; each rank
then holds the whole graph, unless it keeps only its own rows (``partitioned``).
Besides the graph, a rank holds its share's ids (int32 where they fit) and weights, one
chunk's text or one round's buffers, its own rows, and up to four arrays of n int64
while the rows are counted. A ``.gz`` file cannot be cut: every rank reads it whole, as
before.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hpgraph.errors import GraphFormatError, agreed
from hpgraph.graph.csr import Graph, index_dtype
from hpgraph.graph.part import OwnIds, PartGraph
from hpgraph.io import _tokenize
from hpgraph.io._errors import file_errors
from hpgraph.io._ids import (
    is_int_type,
)
from hpgraph.io._text import diagnose, graph_name
from hpgraph.io.binary import source_info
from hpgraph.io.edgelist import read_edgelist
from hpgraph.io.load import cached_graph, detect_format, load_graph, write_cache
from hpgraph.io.parquet import (
    concat_columns,
    edge_columns,
    parquet_columns,
    parquet_files,
    read_parquet,
)
from hpgraph.io.scan import ShareScan, chunk_bytes, scan_share
from hpgraph.io.shares import share_range
from hpgraph.runtimes.mpi.assemble import build_rows, gather_ids, renumber
from hpgraph.runtimes.mpi.budget import whole_graph_fits
from hpgraph.runtimes.mpi.comm import load_mpi
from hpgraph.runtimes.mpi.names import fetch
from hpgraph.runtimes.mpi.parts import part_of_rows

__all__ = ["read_edgelist_mpi", "read_parquet_mpi", "load_graph_mpi"]


def _problem(exc: GraphFormatError):
    """(message without its ``file:line:`` prefix, line) of a format error."""
    text = str(exc)
    if exc.path is not None:
        prefix = exc.path if exc.line is None else f"{exc.path}:{exc.line}"
        text = text.removeprefix(prefix + ": ")
    return text, exc.line


def _agree(comm, path, problem):
    """Raise, on every rank, the first rank's problem (``(message, line)`` or None),
    marked as the same on every rank (the CLI prints it once)."""
    for p in comm.allgather(problem):
        if p is not None:
            raise agreed(GraphFormatError(p[0], path, p[1]))


def _everyone(comm, read, path, **kw):
    """``read(path, **kw)`` on every rank (the one-process reader), errors agreed."""
    try:
        graph, problem = read(path, **kw), None
    except GraphFormatError as e:
        graph, problem = None, _problem(e)
    _agree(comm, path, problem)
    return graph


def _no_edges(path, why, allow_empty, directed, name):
    """The empty graph of an input without edges, or the error unless ``allow_empty``."""
    if not allow_empty:
        raise GraphFormatError(f"no edges ({why})", path)
    empty = np.empty(0, np.int32)
    return Graph.from_edges(empty, empty, None, n=0, directed=directed, name=name)


def _whole(comm, partitioned, graph):
    """``graph`` (read whole by every rank), or this rank's part of it."""
    if not partitioned:
        return graph
    return PartGraph.from_graph(graph, comm.Get_size(), comm.Get_rank(), comm)


def _rows_graph(comm, MPI, edges, n, directed, ids, name, partitioned):
    """The graph (or this rank's part) from every rank's renumbered edges ``[src, dst,
    weights or None]`` (emptied: their memory is freed as soon as they are shuffled);
    ``ids`` as :func:`~hpgraph.runtimes.mpi.assemble.renumber` gives them (this rank's
    slice of the sorted ids, handed out after the rows, so they never add to the
    shuffle's peak: every vertex's id to a whole graph, the own vertices' ids to a
    part)."""
    if not partitioned:

        def fits(stored, weighted):
            size = np.dtype(index_dtype(n)).itemsize
            whole_graph_fits(comm, MPI, n, stored, size, weighted, name)

        indptr, indices, w = build_rows(comm, MPI, edges, n, directed, before_gather=fits)
        ids = gather_ids(comm, MPI, ids)
        return Graph(indptr, indices, w, directed=directed, ids=ids, name=name)
    cuts, indptr, indices, w = build_rows(comm, MPI, edges, n, directed, gather=False)
    own = _own_ids(comm, MPI, ids, cuts)
    return part_of_rows(
        comm, n, cuts, indptr, indices, w, directed=directed, own_ids=own, name=name
    )


def _own_ids(comm, MPI, ids, cuts):
    """The ids of this rank's own vertices ``[cuts[rank], cuts[rank + 1])`` (an
    :class:`~hpgraph.graph.part.OwnIds`; None for ids 0..n-1), taken from the ranks'
    slices of the sorted ids (``ids``: this rank's; the ranks' row ranges are not the
    slices' ranges)."""
    lo, hi = int(cuts[comm.Get_rank()]), int(cuts[comm.Get_rank() + 1])
    if ids is None:
        return None
    held = np.zeros(comm.Get_size() + 1, dtype=np.int64)
    np.cumsum(comm.allgather(len(ids)), out=held[1:])
    return OwnIds(fetch(comm, MPI, ids, held, np.arange(lo, hi, dtype=np.int64)), lo)


def _diagnosed(buf, path, first_line, **kw):
    """The problem :func:`~hpgraph.io._text.diagnose` finds in a share."""
    try:
        diagnose(buf.tobytes(), path, first_line=first_line, **kw)
    except GraphFormatError as e:
        return _problem(e)
    raise AssertionError("diagnose always raises")  # pragma: no cover


def read_edgelist_mpi(
    path,
    comm=None,
    *,
    directed: bool = False,
    weighted: bool | None = None,
    allow_empty: bool = False,
    name: str | None = None,
    partitioned: bool = False,
) -> Graph | PartGraph:
    """:func:`hpgraph.io.read_edgelist` with the ranks of ``comm`` (default: every rank)
    each parsing a share of the file (see the module docstring). Collective: every rank
    calls it and gets the same graph, or the same error. ``partitioned``: every rank gets
    its own rows only (a :class:`~hpgraph.graph.part.PartGraph`; the whole graph is never
    built, except from a gzipped file or by one rank)."""
    MPI = load_mpi()
    comm = MPI.COMM_WORLD if comm is None else comm
    rank, size = comm.Get_rank(), comm.Get_size()
    name = graph_name(path) if name is None else name
    if size == 1 or str(path).endswith(".gz"):
        return _whole(comm, partitioned, _everyone(
            comm, read_edgelist, path, directed=directed, weighted=weighted,
            allow_empty=allow_empty, name=name,
        ))  # fmt: skip
    scan, problem = ShareScan(), None
    try:
        with file_errors(path):
            start, end = share_range(path, rank, size)
            scan = scan_share(path, start, end, keep_weights=weighted is not False)
    except GraphFormatError as e:
        problem = _problem(e)
    _agree(comm, path, problem)
    scan.absolute((comm.exscan(scan.lines) or 0) + 1)
    shares = comm.allgather(scan.summary())
    total = sum(s[1] for s in shares)
    lead = next((r for r, s in enumerate(shares) if s[1] > 0), None)  # first data line
    if total == 0 and all(s[2] == _tokenize.OK for s in shares):
        empty = _no_edges(path, "only comments or blank lines", allow_empty, directed, name)
        return _whole(comm, partitioned, empty)
    cols = shares[lead][0] if lead is not None else -1
    _agree(comm, path, _share_problem(shares, rank, lead, cols, scan, path, weighted))
    if weighted and cols < 3:
        raise GraphFormatError(
            "weighted=True but the first data line has no weight (third) field",
            path,
            shares[lead][3],
        )
    weighted = cols >= 3 if weighted is None else weighted
    kinds = set().union(*comm.allgather(scan.kinds))
    if len(kinds) > 1:  # some chunks' ids are all integers, others' are not: strings
        if scan.kinds != {"str"}:
            scan.drop_columns()
            scan = scan_share(path, start, end, keep_weights=weighted, str_ids=True)
        kinds = {"str"}
    columns = [scan.src, scan.dst]
    w = _joined(scan.weights) if weighted else None
    del scan
    s, d, ids, n = renumber(comm, MPI, columns, kinds == {"int"} or not kinds)
    edges = [s, d, w if weighted else None]
    del s, d, w
    pa.default_memory_pool().release_unused()  # the parsed columns, back to the system
    return _rows_graph(comm, MPI, edges, n, directed, ids, name, partitioned)


def read_parquet_mpi(
    path,
    comm=None,
    *,
    directed: bool = False,
    weighted: bool | None = None,
    allow_empty: bool = False,
    name: str | None = None,
    partitioned: bool = False,
) -> Graph | PartGraph:
    """:func:`hpgraph.io.read_parquet` with the ranks of ``comm`` (default: every rank)
    each reading a contiguous run of the row groups (of a dataset folder's files, in path
    order), then renumbering and building rows as :func:`read_edgelist_mpi` does. Fewer
    row groups than ranks leave some ranks without rows to read. Collective: the same
    graph, or error, everywhere; ``partitioned`` as for :func:`read_edgelist_mpi`."""
    MPI = load_mpi()
    comm = MPI.COMM_WORLD if comm is None else comm
    rank, size = comm.Get_rank(), comm.Get_size()
    name = graph_name(path) if name is None else name
    if size == 1:
        return _whole(comm, partitioned, _everyone(
            comm, read_parquet, path, directed=directed, weighted=weighted,
            allow_empty=allow_empty, name=name,
        ))  # fmt: skip
    src = dst = w = None
    problem = None
    try:
        files = parquet_files(path)
        cols, weighted = parquet_columns(files, weighted)
        units = _row_groups(files)  # (file, row group, its first row in the file)
        mine = units[rank * len(units) // size : (rank + 1) * len(units) // size]
        parts = []
        for fi in sorted({u[0] for u in mine}):
            groups = [u for u in mine if u[0] == fi]
            table = pq.ParquetFile(files[fi]).read_row_groups([u[1] for u in groups], columns=cols)
            parts.append(edge_columns(table, cols, files[fi], groups[0][2]))
            del table
        if not parts:
            empty = pq.read_schema(files[0]).empty_table().select(cols)
            parts.append(edge_columns(empty, cols, files[0]))
        src, dst, w = concat_columns(parts)
        del parts
    except (pa.ArrowInvalid, OSError) as e:
        problem = (f"cannot read the Parquet data ({e})", None)
    except GraphFormatError as e:
        problem = _problem(e)
    _agree(comm, path, problem)
    if comm.allreduce(len(src)) == 0:
        empty = _no_edges(path, "the table has no rows", allow_empty, directed, name)
        return _whole(comm, partitioned, empty)
    ints = is_int_type(src.type)
    columns = [[src], [dst]]
    del src, dst
    s, d, ids, n = renumber(comm, MPI, columns, ints)
    edges = [s, d, w]
    del s, d, w
    pa.default_memory_pool().release_unused()
    return _rows_graph(comm, MPI, edges, n, directed, ids, name, partitioned)


def _row_groups(files):
    """Every (file index, row group, the group's first row in its file) of a dataset."""
    units = []
    for fi, f in enumerate(files):
        meta = pq.ParquetFile(f).metadata
        row = 0
        for g in range(meta.num_row_groups):
            units.append((fi, g, row))
            row += meta.row_group(g).num_rows
    return units


def _share_problem(shares, rank, lead, cols, scan, path, weighted):
    """This rank's problem, if it is the first rank with one (so the first bad line of
    the file is named, as the one-process reader names it): a share whose field count
    is not the first data line's, a one-field first data line, a malformed line, or a
    value that does not convert; worded from its chunk, read again."""
    for r, (ncols, rows, status, _, bad) in enumerate(shares):
        ragged = rows > 0 and ncols != cols
        if status == _tokenize.OK and not (ragged or bad or (r == lead and cols < 2)):
            continue
        if r != rank:
            return None
        fallback = "malformed edge list"
        if ragged or (status == _tokenize.OK and not bad):
            chunk = scan.lead
        elif bad:  # before any shape problem: the scan goes on past a bad value
            chunk, fallback = scan.bad
        else:
            chunk = scan.shape
        first_data = lead is None or (r == lead and chunk == scan.lead)
        if weighted is None and lead is not None:  # the file's first data line decides
            weighted = cols >= 3
        return _diagnosed(
            chunk_bytes(path, chunk), path, chunk.line, fallback=fallback, weighted=weighted,
            ref=None if first_data else (cols, shares[lead][3]),
        )  # fmt: skip
    return None


def _joined(arrays):
    """One array of a share's per-chunk arrays (emptied as they are joined)."""
    out = np.concatenate(arrays) if arrays else np.empty(0, dtype=np.float64)
    arrays.clear()
    return out


def load_graph_mpi(
    path, comm=None, *, format=None, directed=None, weighted=None, cache=True, partitioned=False
):
    """:func:`hpgraph.io.load_graph` for the ranks of ``comm``: a text edge list or a
    Parquet file without a fresh cache is read in parallel (:func:`read_edgelist_mpi`,
    :func:`read_parquet_mpi`) and rank 0 writes the cache; other inputs and fresh caches
    are loaded by every rank, as before.

    ``partitioned``: every rank keeps its own rows only (a
    :class:`~hpgraph.graph.part.PartGraph`). A parallel read then never builds the whole
    graph and writes no cache; a cache (``.hpgc``, memory-mapped) is read for the own
    rows (and ``indptr``); other formats are read whole by every rank, then cut."""
    MPI = load_mpi()
    comm = MPI.COMM_WORLD if comm is None else comm
    fmt = format or detect_format(path)
    parallel = fmt == "parquet" or (fmt == "edgelist" and not str(path).endswith(".gz"))
    if not parallel or comm.Get_size() == 1:
        graph = load_graph(path, format=fmt, directed=directed, weighted=weighted, cache=cache)
        return _whole(comm, partitioned, graph)
    options = dict(format=fmt, directed=directed, weighted=weighted, allow_empty=False)
    src = None
    if cache and not os.path.isdir(path):  # a Parquet dataset folder is never cached
        try:
            src = source_info(path)
        except OSError:
            src = None  # the parallel read words the error
        graph = cached_graph(path, src, options) if src is not None else None
        if comm.allreduce(graph is None, op=MPI.LOR) is False:
            return _whole(comm, partitioned, graph)  # every rank found a fresh cache
        del graph
    read = read_edgelist_mpi if fmt == "edgelist" else read_parquet_mpi
    graph = read(path, comm, directed=bool(directed), weighted=weighted, partitioned=partitioned)
    if cache and src is not None and comm.Get_rank() == 0 and not partitioned:
        write_cache(graph, path, src, options)
    return graph
