"""The Parquet mention reader.

Given a Parquet mention file (columns ``source``, ``target`` and optionally
``hashtags``), :func:`_read_parquet` returns the users as two checked Arrow columns and
the hashtags as dictionary indexes per row (a string column split like the text format,
or a list of strings).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hpgraph.errors import GraphFormatError
from hpgraph.io._ids import is_int_type, is_string_type
from hpgraph.io.mentions.tags import _dict_encoded, _expand

__all__: list[str] = []


def _read_parquet(path, groups=None, first_row=0):
    """``(src, dst, ptr, vals, dictionary, where)`` of the whole file, or of its row
    groups ``groups`` (a list, maybe empty: no rows is then not an error), whose first
    row is row ``first_row`` of the file (for errors)."""
    try:
        meta = pq.ParquetFile(path).metadata
    except FileNotFoundError:
        raise GraphFormatError("no such file", path) from None
    except (pa.ArrowInvalid, OSError) as e:
        raise GraphFormatError(f"not a readable Parquet file ({e})", path) from None
    schema = meta.schema.to_arrow_schema()
    names = schema.names
    if "source" not in names or "target" not in names:
        raise GraphFormatError(f"expected columns source, target[, hashtags]; got {names}", path)
    cols = ["source", "target"] + (["hashtags"] if "hashtags" in names else [])
    leaf = [meta.schema.column(i).path for i in range(len(meta.schema))]
    dict_cols = [p for p in leaf if p == "hashtags" or p.startswith("hashtags.")]
    try:
        if groups is None:
            table = pq.read_table(path, columns=cols, read_dictionary=dict_cols[:1] or None)
        else:  # group by group: dictionary-read nested columns do not come out chunked
            f = pq.ParquetFile(path)
            table = pa.concat_tables(
                [f.read_row_group(g, columns=cols) for g in groups]
                or [schema.empty_table().select(cols)]
            )
    except (pa.ArrowException, OSError) as e:
        raise GraphFormatError(f"cannot read the Parquet data ({e})", path) from None
    m = table.num_rows
    if m == 0 and groups is None:
        raise GraphFormatError("no mentions (the table has no rows)", path)
    src = _user_column(table["source"], "source", path, first_row)
    dst = _user_column(table["target"], "target", path, first_row)
    if is_int_type(src.type) != is_int_type(dst.type):
        src, dst = src.cast(pa.string()), dst.cast(pa.string())
    if "hashtags" in cols:
        ptr, vals, dictionary = _tag_column(table["hashtags"], path)
    else:
        ptr, vals, dictionary = (
            np.zeros(m + 1, np.int64),
            np.empty(0, np.int32),
            pa.array([], pa.string()),
        )

    def where(row):
        return f"row {first_row + row + 1}", None

    return src, dst, ptr, vals, dictionary, where


def _user_column(col, name, path, first_row=0):
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if not (is_int_type(col.type) or is_string_type(col.type)):
        raise GraphFormatError(
            f"user column {name!r} has type {col.type}; expected integers or strings", path
        )
    if col.null_count:
        row = pc.index(pc.is_null(col), True).as_py()
        raise GraphFormatError(f"column {name!r} is null in row {first_row + row + 1}", path)
    if is_string_type(col.type):
        empty = pc.equal(pc.utf8_length(col), 0)
        if pc.any(empty).as_py():
            row = pc.index(empty, True).as_py()
            raise GraphFormatError(
                f"column {name!r} is an empty user in row {first_row + row + 1}", path
            )
    return col


def _tag_column(col, path):
    """``(ptr, vals, dictionary)``: row offsets into ``vals`` (dictionary indexes, -1 =
    no tag) for a string or list-of-strings hashtags column."""
    m = len(col)
    t = col.type
    if pa.types.is_null(t):
        return np.zeros(m + 1, np.int64), np.empty(0, np.int32), pa.array([], pa.string())
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = t.value_type
        if pa.types.is_dictionary(inner):
            inner = inner.value_type
        if not is_string_type(inner):
            raise GraphFormatError(
                f"column 'hashtags' has type {t}; expected strings or lists of strings", path
            )
        lengths = pc.fill_null(pc.list_value_length(col), 0)
        ptr = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(lengths.to_numpy(), out=ptr[1:])
        vals, dictionary = _dict_encoded(pc.list_flatten(col))
        return ptr, vals, dictionary
    base = t.value_type if pa.types.is_dictionary(t) else t
    if not is_string_type(base):
        raise GraphFormatError(
            f"column 'hashtags' has type {t}; expected strings or lists of strings", path
        )
    idx, dictionary = _dict_encoded(col)
    parts = pc.split_pattern_regex(dictionary, r"[\s,]+")
    d_len = pc.list_value_length(parts).to_numpy().astype(np.int64)
    d_off = np.zeros(d_len.shape[0] + 1, dtype=np.int64)
    np.cumsum(d_len, out=d_off[1:])
    v_idx, v_dict = _dict_encoded(pc.list_flatten(parts))
    ptr, vals = _expand(idx, d_off, v_idx)
    return ptr, vals, v_dict
