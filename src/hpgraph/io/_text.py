"""Shared plumbing of the text readers: reading (gzipped) bytes, the pyarrow conversion of
a normalised table, and the slow line-by-line pass that words an error.

The fast path never looks at a line twice: ``_tokenize.normalize`` rewrites the bytes
once, pyarrow converts the columns on all cores. When either fails, :func:`diagnose`
re-reads the file one line at a time (Python, only on the error path) and raises a
:class:`~hpgraph.errors.GraphFormatError` naming the file, the 1-based line and the
offending token.
"""

from __future__ import annotations

import gzip
import io
import math
import re
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv

from hpgraph.errors import GraphFormatError
from hpgraph.io._errors import file_errors
from hpgraph.io._ids import is_int_type, is_string_type

__all__ = ["read_bytes", "graph_name", "arrow_columns", "diagnose"]

BOM = b"\xef\xbb\xbf"
#: Bytes per pyarrow parse block (column types are inferred from the first block).
BLOCK_SIZE = 4 << 20
_SPLIT = re.compile(r"[ \t\r]*,[ \t\r]*|[ \t\r]+")


def read_bytes(path) -> bytes:
    """The file's bytes, gunzipped when the name ends in ``.gz``; a UTF-8 BOM is dropped."""
    p = Path(path)
    with file_errors(path):
        try:
            if p.name.endswith(".gz"):
                with gzip.open(p, "rb") as f:
                    data = f.read()
            else:
                data = p.read_bytes()
        except (gzip.BadGzipFile, EOFError, zlib.error) as e:
            raise GraphFormatError(f"not a valid gzip file ({e})", path) from None
    return data[3:] if data.startswith(BOM) else data


def graph_name(path) -> str:
    """``web-Google`` for ``.../web-Google.txt.gz``."""
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    return Path(name).stem


def _read(data: np.ndarray, columns: int, keep: int, id_type) -> pa.Table:
    names = [f"f{i}" for i in range(columns)]
    types = {"f2": pa.float64()} if keep >= 3 else {}
    if id_type is not None:
        types.update(f0=id_type, f1=id_type)
    return pcsv.read_csv(
        pa.BufferReader(pa.py_buffer(data)),
        read_options=pcsv.ReadOptions(column_names=names, block_size=BLOCK_SIZE),
        parse_options=pcsv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, escape_char=False
        ),
        convert_options=pcsv.ConvertOptions(
            include_columns=names[:keep],
            column_types=types,
            null_values=[],
            true_values=[],
            false_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            timestamp_parsers=[],
        ),
    )


def arrow_columns(
    data: np.ndarray, columns: int, keep: int, *, int_ids: bool = False, str_ids: bool = False
):
    """Convert a normalised table (``columns`` fields per row) into ``(src, dst, weights)``:
    arrow columns of integer ids when every id is an integer (optional ``-``, then digits,
    within int64), else of string ids, and a float64 numpy array (or ``None`` when
    ``keep`` is 2). ``int_ids`` demands integers, ``str_ids`` strings. Raises
    ``pa.ArrowInvalid`` when a value does not convert."""
    if int_ids or str_ids:
        t = _read(data, columns, keep, pa.int64() if int_ids else pa.string())
    else:
        try:
            t = _read(data, columns, keep, None)
        except pa.ArrowInvalid:  # types inferred on the first block fail on a later one
            t = None
        types = set() if t is None else {_kind(t["f0"].type), _kind(t["f1"].type)}
        if types not in ({"int"}, {"str"}):  # mixed, float, date...: every id is a string
            t = _read(data, columns, keep, pa.string())
    weights = None
    if keep >= 3:
        weights = np.asarray(t["f2"].to_numpy(), dtype=np.float64)
    return t["f0"], t["f1"], weights


def _kind(t: pa.DataType) -> str:
    return "int" if is_int_type(t) else "str" if is_string_type(t) else "other"


def diagnose(
    data: bytes,
    path,
    *,
    fallback: str,
    start: int = 0,
    first_line: int = 1,
    weighted: bool | None = None,
    fields: int | None = None,
    bounds: tuple[int, int] | None = None,
    ref: tuple[int, int] | None = None,
):
    """Walk the lines of ``data[start:]`` (line ``first_line`` first) and raise a
    GraphFormatError for the first bad one; raise ``fallback`` if none is found.
    ``ref``: (field count, line) of the file's first data line when it comes before
    ``data[start:]`` (a parallel reader's share of the file).

    ``weighted``: the third field must be a number other than NaN (``None``: when the
    first data line has a third field); ``fields``: the exact
    field count (Matrix Market); ``bounds``: the first two fields are integers in
    ``1..bounds[0]`` and ``1..bounds[1]`` (Matrix Market).
    """
    for lineno, raw in enumerate(io.BytesIO(memoryview(data)[start:]), first_line):
        text = raw.decode("utf-8", "replace").strip(" \t\r\n")
        if not text or text[0] in "#%":
            continue
        parts = _SPLIT.split(text)
        shown = text if len(text) <= 80 else text[:77] + "..."

        def fail(msg, lineno=lineno, shown=shown):
            raise GraphFormatError(f"{msg}: {shown!r}", path, lineno)

        if "" in parts:
            fail("empty field (two commas in a row, or a comma at the start or end of the line)")
        if ref is None:
            if fields is not None and len(parts) != fields:
                fail(f"expected {fields} fields, got {len(parts)}")
            if len(parts) < 2:
                fail("expected 'source target [weight]', got 1 field")
            if weighted and len(parts) < 3:
                fail("weighted=True but the line has no weight (third) field")
            if weighted is None:
                weighted = len(parts) >= 3
            ref = (len(parts), lineno)
        elif len(parts) != ref[0]:
            fail(f"{len(parts)} fields, but the first data line (line {ref[1]}) has {ref[0]}")
        if bounds is not None:
            for what, tok, hi in (("row", parts[0], bounds[0]), ("column", parts[1], bounds[1])):
                try:
                    v = int(tok)
                except ValueError:
                    fail(f"{what} index {tok!r} is not an integer")
                if not 1 <= v <= hi:
                    fail(f"{what} index {v} is outside 1..{hi}")
        if weighted:
            tok = parts[2]
            try:
                w = float(tok)
            except ValueError:
                fail(f"weight {tok!r} is not a number")
            if math.isnan(w):
                fail(f"weight {tok!r} is NaN")
    raise GraphFormatError(fallback, path)
