"""Edge lists: one edge per line, ``source target [weight]``.

Format: fields separated by spaces, tabs or one comma (with optional blanks around it);
lines whose first non-blank character is ``#`` or ``%`` and blank lines are skipped; every
data line has the same number of fields as the first one (2, or 3+ with the weight third;
further fields are ignored). A name ending in ``.gz`` is gunzipped. Vertex ids are
integers if every id is one (kept as the user's ids, see :mod:`hpgraph.io._ids`), else
strings. No quoting: string ids cannot hold blanks or commas.

Reading is two passes over each 8 MiB chunk of the file (:mod:`hpgraph.io.scan`): a
compiled normaliser (comments, delimiters) and pyarrow's multi-threaded CSV conversion;
about 10M edges per few seconds. Only the ids (int32 where they fit) and weights of the
chunks are kept, so the peak is about the edge list's ids twice plus the graph (Kronecker
scale 21, 478 MiB of text: 0.8 GB in all, the CSR 265 MiB). A ``.gz`` file is read into
memory whole (about three times its uncompressed size plus the graph).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.io import _tokenize
from hpgraph.io._atomic import atomic_output
from hpgraph.io._errors import file_errors
from hpgraph.io._ids import dense_ids
from hpgraph.io._text import arrow_columns, diagnose, graph_name, read_bytes
from hpgraph.io.chunk_ids import chunk_ids
from hpgraph.io.scan import chunk_bytes, scan_share

__all__ = ["read_edgelist", "write_edgelist", "user_edge_table"]


def read_edgelist(
    path,
    *,
    directed: bool = False,
    weighted: bool | None = None,
    allow_empty: bool = False,
    name: str | None = None,
) -> Graph:
    """Read an edge list (see the module docstring for the format).

    ``weighted``: ``None`` takes a weight from the third field when the first data line
    has one, ``True`` requires it, ``False`` ignores it. An edge list without edges is an
    error unless ``allow_empty``. Multi-edges and self-loops are kept.

    Raises :class:`~hpgraph.errors.GraphFormatError` naming the file and line.
    """
    name = graph_name(path) if name is None else name
    if str(path).endswith(".gz"):  # a gzip stream is read whole
        return _read_whole(path, directed, weighted, allow_empty, name)
    with file_errors(path):
        size = os.path.getsize(path)
        scan = scan_share(path, 0, size, keep_weights=weighted is not False)
    asked = weighted
    if scan.status != _tokenize.OK or scan.bad or (scan.rows and scan.ncols < 2):
        chunk, fallback = scan.bad or (scan.shape or scan.lead, "malformed edge list")
        first_data = scan.lead is None or chunk == scan.lead
        if weighted is None and scan.lead is not None:  # the first data line decides
            weighted = scan.ncols >= 3
        diagnose(
            chunk_bytes(path, chunk), path, first_line=chunk.line, weighted=weighted,
            fallback=fallback, ref=None if first_data else (scan.ncols, scan.first),
        )  # fmt: skip
    if scan.rows == 0:
        return _no_edges(path, allow_empty, directed, name)
    weighted = _weighted(path, asked, scan.ncols, scan.first)
    if len(scan.kinds) > 1:  # some chunks' ids are all integers, others' are not
        scan.drop_columns()
        with file_errors(path):
            scan = scan_share(path, 0, size, keep_weights=weighted, str_ids=True)
    w = np.concatenate(scan.weights) if weighted else None
    s, d, ids, n = chunk_ids(scan.src, scan.dst, scan.kinds == {"int"})
    del scan
    return Graph.from_edges(s, d, w, n=n, directed=directed, ids=ids, name=name)


def _no_edges(path, allow_empty, directed, name):
    if not allow_empty:
        raise GraphFormatError("no edges (only comments or blank lines)", path)
    empty = np.empty(0, np.int32)
    return Graph.from_edges(empty, empty, None, n=0, directed=directed, name=name)


def _weighted(path, asked, ncols, first):
    """Whether the graph is weighted: as asked, or when the first data line (``first``)
    has a third field."""
    if asked is None:
        return ncols >= 3
    if asked and ncols < 3:
        raise GraphFormatError(
            "weighted=True but the first data line has no weight (third) field", path, first
        )
    return asked


def _read_whole(path, directed, weighted, allow_empty, name):
    """:func:`read_edgelist` of a file read into memory whole (a gzip stream)."""
    buf = np.frombuffer(read_bytes(path), dtype=np.uint8)
    norm, ncols, rows, status, _, first = _tokenize.normalize(buf)
    del buf
    asked = weighted

    def fail(fallback):
        diagnose(read_bytes(path), path, weighted=asked, fallback=fallback)

    if status != _tokenize.OK or (rows and ncols < 2):
        fail("malformed edge list")
    if rows == 0:
        return _no_edges(path, allow_empty, directed, name)
    weighted = _weighted(path, asked, ncols, first)
    try:
        src, dst, w = arrow_columns(norm, ncols, 3 if weighted else 2)
    except pa.ArrowInvalid as e:
        fail(f"cannot convert the edge list: {e}")
    del norm
    if w is not None and np.isnan(w).any():
        fail("a weight is NaN")
    s, d, ids, n = dense_ids(src, dst)
    del src, dst
    return Graph.from_edges(s, d, w, n=n, directed=directed, ids=ids, name=name)


def user_edge_table(graph: Graph) -> pa.Table:
    """``src``, ``dst`` (user ids) and ``weight`` (if weighted) of every edge; an
    undirected edge appears once (as stored with source <= target)."""
    src, dst, w = graph.edges()
    if not graph.directed:
        keep = src <= dst
        src, dst = src[keep], dst[keep]
        w = None if w is None else w[keep]
    ids = graph.ids
    if ids is None:
        cols = {"src": pa.array(src.astype(np.int64)), "dst": pa.array(dst.astype(np.int64))}
    elif np.asarray(ids).dtype == object:
        names = pa.array(np.asarray(ids), type=pa.string())
        cols = {"src": names.take(pa.array(src)), "dst": names.take(pa.array(dst))}
    else:
        ids = np.asarray(ids, dtype=np.int64)
        cols = {"src": pa.array(ids[src]), "dst": pa.array(ids[dst])}
    if w is not None:
        cols["weight"] = pa.array(np.asarray(w, dtype=np.float64))
    return pa.table(cols)


_DELIMITERS = {".csv": ",", ".tsv": "\t"}


def write_edgelist(graph: Graph, path) -> None:
    """Write ``graph`` as an edge list readable by :func:`read_edgelist`: user ids, one
    line per edge (an undirected edge once), the weight third when weighted, floats in
    shortest round-trip form. Separator by extension: ``.csv`` comma, ``.tsv`` tab, else a
    space; ``.gz`` compresses. A ``#`` comment line comes first. Isolated vertices are lost,
    and string ids that all look like integers are read back as integers. Atomic: the file
    appears complete or not at all."""
    base = str(path)[:-3] if str(path).endswith(".gz") else str(path)
    delimiter = _DELIMITERS.get(Path(base).suffix.lower(), " ")
    table = user_edge_table(graph)
    if pa.types.is_string(table["src"].type):
        _check_plain_ids(graph)
    kind = "directed" if graph.directed else "undirected"
    name = " ".join((graph.name or "graph").split())
    head = f"# {name}: {kind}, {graph.n} vertices, {table.num_rows} edges\n"
    options = pcsv.WriteOptions(include_header=False, delimiter=delimiter, quoting_style="none")
    with atomic_output(path) as tmp:
        with pa.output_stream(tmp, compression="gzip" if base != str(path) else None) as out:
            out.write(head.encode())
            pcsv.write_csv(table, out, options)


def _check_plain_ids(graph: Graph) -> None:
    ids = pa.array(np.asarray(graph.ids), type=pa.string())
    bad = pc.match_substring_regex(ids, r"[\s,]|^[#%]|^$")
    if pc.any(bad).as_py():
        first = ids.filter(bad)[0].as_py()
        raise InvalidArgumentError(
            f"vertex id {first!r} cannot be written to an edge list (it is empty, holds a "
            "blank or a comma, or starts with # or %); write Parquet instead"
        )
