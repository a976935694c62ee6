"""Parquet edge tables: ``src``, ``dst`` and optionally ``weight``.

Columns are found by name (``src``/``dst`` or ``source``/``target``, and ``weight``) or,
failing that, by position (first, second, third). Ids are integer or string columns
(dictionary-encoded columns are decoded), with the same id logic as edge lists
(:mod:`hpgraph.io._ids`); weights any numeric column without nulls or NaN.
Memory: the id (and weight) columns in arrow form plus the graph.

A **dataset folder** (as Spark, Dask or ``pyarrow.dataset`` write one) is read as the
concatenation of its ``.parquet``/``.pq`` files in path order (sub-folders included;
names starting with ``_`` or ``.``, such as ``_SUCCESS``, skipped). Every file must have
the first one's columns and types; errors name the file and its row.
"""

from __future__ import annotations

import os

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

__all__ = [
    "read_parquet",
    "write_parquet_edges",
    "parquet_files",
    "parquet_columns",
    "edge_columns",
    "concat_columns",
]

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
    files = parquet_files(path)
    cols, weighted = parquet_columns(files, weighted)
    parts = []
    for f in files:
        try:
            table = pq.read_table(f, columns=cols)
        except (pa.ArrowInvalid, OSError) as e:
            raise GraphFormatError(f"cannot read the Parquet data ({e})", f) from None
        parts.append(edge_columns(table, cols, f))
        del table
    if sum(len(p[0]) for p in parts) == 0 and not allow_empty:
        raise GraphFormatError("no edges (the table has no rows)", path)
    src, dst, w = concat_columns(parts)
    del parts
    s, d, ids, n = dense_ids(src, dst)
    return Graph.from_edges(s, d, w, n=n, directed=directed, ids=ids, name=name)


def parquet_files(path) -> list[str]:
    """``[path]`` for a file; a dataset folder's Parquet files in path order."""
    if not os.path.isdir(path):
        return [str(path)]
    found = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", ".")))
        found += [
            os.path.join(root, f)
            for f in names
            if f.lower().endswith((".parquet", ".pq")) and not f.startswith(("_", "."))
        ]
    if not found:
        raise GraphFormatError("a folder with no .parquet files", path)
    return sorted(found)


def concat_columns(parts):
    """(src, dst, weights or None) of several files' :func:`edge_columns`, in order; ids
    as strings in every file when some file's ids are."""
    if any(not is_int_type(p[0].type) for p in parts):
        parts = [(s.cast(pa.string()), d.cast(pa.string()), w) for s, d, w in parts]
    src = pa.chunked_array([p[0] for p in parts], type=parts[0][0].type)
    dst = pa.chunked_array([p[1] for p in parts], type=parts[0][1].type)
    w = None if parts[0][2] is None else np.concatenate([p[2] for p in parts])
    return src, dst, w


def _schema(path):
    try:
        return pq.read_schema(path)
    except FileNotFoundError:
        raise GraphFormatError("no such file", path) from None
    except (pa.ArrowInvalid, OSError) as e:
        raise GraphFormatError(f"not a readable Parquet file ({e})", path) from None


def parquet_columns(files, weighted: bool | None) -> tuple[list[str], bool]:
    """(the columns to read: source, target and, when used, weight; whether weighted) of
    the Parquet edge table in ``files`` (:func:`parquet_files`), from the first file's
    schema (see the module docstring); every other file must have the same columns."""
    schema = _schema(files[0])
    cols, weighted = _pick(schema.names, weighted, files[0])
    for f in files[1:]:
        other = _schema(f)
        for c in cols:
            if c not in other.names or other.field(c).type != schema.field(c).type:
                got = other.field(c).type if c in other.names else "missing"
                raise GraphFormatError(
                    f"column {c!r} is {got}, but {schema.field(c).type} in "
                    f"{os.path.basename(files[0])} (a dataset's files must agree)",
                    f,
                )
    return cols, weighted


def _pick(names, weighted, path):
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
