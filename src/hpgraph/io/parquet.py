"""Parquet edge tables: ``src``, ``dst`` and optionally ``weight``.

Columns are found by name (``src``/``dst`` or ``source``/``target``, and ``weight``) or,
failing that, by position (first, second, third). Ids are integer or string columns
(dictionary-encoded columns are decoded), with the same id logic as edge lists
(:mod:`hpgraph.io._ids`); weights any numeric column without nulls or NaN.
Memory: the id (and weight) columns in arrow form plus the graph.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hpgraph.errors import GraphFormatError
from hpgraph.graph.csr import Graph
from hpgraph.io._atomic import atomic_output
from hpgraph.io._ids import dense_ids, is_int_type, is_string_type
from hpgraph.io._text import graph_name
from hpgraph.io.edgelist import user_edge_table

__all__ = ["read_parquet", "write_parquet_edges", "parquet_columns", "edge_columns"]

_NAMES = (("src", "dst"), ("source", "target"))


def read_parquet(
    path,
    *,
    directed: bool = False,
    weighted: bool | None = None,
    allow_empty: bool = False,
    name: str | None = None,
) -> Graph:
    """Read a Parquet edge table (see the module docstring). ``weighted``: ``None`` uses
    a weight column when there is one, ``True`` requires it, ``False`` ignores it."""
    name = graph_name(path) if name is None else name
    cols, weighted = parquet_columns(path, weighted)
    try:
        table = pq.read_table(path, columns=cols)
    except (pa.ArrowInvalid, OSError) as e:
        raise GraphFormatError(f"cannot read the Parquet data ({e})", path) from None
    if table.num_rows == 0 and not allow_empty:
        raise GraphFormatError("no edges (the table has no rows)", path)
    src, dst, w = edge_columns(table, cols, path)
    del table
    s, d, ids, n = dense_ids(src, dst)
    return Graph.from_edges(s, d, w, n=n, directed=directed, ids=ids, name=name)


def parquet_columns(path, weighted: bool | None) -> tuple[list[str], bool]:
    """(the columns to read: source, target and, when used, weight; whether weighted) of
    the Parquet edge table ``path``, from its schema (see the module docstring)."""
    try:
        schema = pq.read_schema(path)
    except FileNotFoundError:
        raise GraphFormatError("no such file", path) from None
    except IsADirectoryError:
        raise GraphFormatError("is a directory, not a graph file", path) from None
    except (pa.ArrowInvalid, OSError) as e:
        raise GraphFormatError(f"not a readable Parquet file ({e})", path) from None
    names = schema.names
    for s, d in _NAMES:
        if s in names and d in names:
            cols = [s, d] + (["weight"] if "weight" in names else [])
            break
    else:
        if len(names) < 2:
            raise GraphFormatError(f"expected columns (src, dst[, weight]), got {names}", path)
        cols = names[:3]
    if weighted is None:
        weighted = len(cols) == 3
    elif weighted and len(cols) < 3:
        raise GraphFormatError(f"weighted=True but there is no weight column in {names}", path)
    return (cols[:3] if weighted else cols[:2]), weighted


def edge_columns(table, cols, path, first_row: int = 0):
    """(src, dst, weights or None) of the rows of ``table`` (columns ``cols`` of
    :func:`parquet_columns`), checked: ids integer or string (both strings when one is),
    no nulls, weights numeric and not NaN. ``first_row``: the file's row number of the
    table's first row, for errors."""
    src, dst = (_id_column(table[c], c, path, first_row) for c in cols[:2])
    if is_int_type(src.type) != is_int_type(dst.type):
        src, dst = src.cast(pa.string()), dst.cast(pa.string())
    w = _weight_column(table[cols[2]], cols[2], path, first_row) if len(cols) == 3 else None
    return src, dst, w


def _id_column(col, name, path, first_row):
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if not (is_int_type(col.type) or is_string_type(col.type)):
        raise GraphFormatError(
            f"id column {name!r} has type {col.type}; expected integers or strings", path
        )
    _no_nulls(col, name, path, first_row)
    return col


def _weight_column(col, name, path, first_row) -> np.ndarray:
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        raise GraphFormatError(
            f"weight column {name!r} has type {col.type}; expected numbers", path
        )
    _no_nulls(col, name, path, first_row)
    w = np.asarray(col.to_numpy(), dtype=np.float64)
    bad = np.flatnonzero(np.isnan(w))
    if bad.size:
        raise GraphFormatError(
            f"weight column {name!r} is NaN in row {first_row + bad[0] + 1}", path
        )
    return w


def _no_nulls(col, name, path, first_row) -> None:
    if col.null_count:
        row = pc.index(pc.is_null(col), True).as_py()
        raise GraphFormatError(f"column {name!r} is null in row {first_row + row + 1}", path)


def write_parquet_edges(graph: Graph, path) -> None:
    """Write ``graph``'s edges (user ids; an undirected edge once) as a Parquet table with
    columns ``src``, ``dst`` and, if weighted, ``weight``; read back by
    :func:`read_parquet`. Isolated vertices are lost. Atomic."""
    table = user_edge_table(graph)
    with atomic_output(path) as tmp:
        pq.write_table(table, tmp)
