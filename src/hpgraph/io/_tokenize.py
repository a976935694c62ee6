"""Compiled text kernel shared by the edge-list and Matrix Market readers.

Given the raw bytes of a whitespace/comma separated table, returns the same table
rewritten with one space between fields, one ``\\n`` per row, and no comment (``#``,
``%``), blank or ``\\r``-ended lines, so that pyarrow's multi-threaded CSV parser (which
has no comment option and no "any run of whitespace" delimiter) can convert it. One pass,
O(bytes); the output buffer is at most one byte longer than the input.

Only the shape is checked here (every row has the first row's field count, no empty
field between two commas); values are converted by pyarrow. On a problem the kernel
stops and reports the 1-based line, and the caller re-reads the file line by line to
word the error.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["OK", "RAGGED", "EMPTY_FIELD", "normalize"]

OK = 0
RAGGED = 1
EMPTY_FIELD = 2

_NL = 10
_CR = 13
_SPACE = 32
_TAB = 9
_COMMA = 44
_HASH = 35
_PERCENT = 37


@njit(**NUMBA_FLAGS)
def _normalize(buf, out, first_line):
    """Returns (out_len, columns, rows, status, bad_line, first_data_line)."""
    n = buf.shape[0]
    i = 0
    o = 0
    line = first_line - 1
    ncols = -1
    first_data_line = 0
    rows = 0
    while i < n:
        line += 1
        # leading blanks
        while i < n and (buf[i] == _SPACE or buf[i] == _TAB or buf[i] == _CR):
            i += 1
        if i >= n:
            break
        c = buf[i]
        if c == _NL:
            i += 1
            continue
        if c == _HASH or c == _PERCENT:
            while i < n and buf[i] != _NL:
                i += 1
            i += 1
            continue
        row_start = o
        col = 0
        while True:
            start = i
            while i < n:
                c = buf[i]
                if c == _SPACE or c == _TAB or c == _CR or c == _COMMA or c == _NL:
                    break
                out[o] = c
                o += 1
                i += 1
            if i == start:  # a comma with no field before it
                return row_start, ncols, rows, EMPTY_FIELD, line, first_data_line
            col += 1
            while i < n and (buf[i] == _SPACE or buf[i] == _TAB or buf[i] == _CR):
                i += 1
            comma = i < n and buf[i] == _COMMA
            if comma:
                i += 1
                while i < n and (buf[i] == _SPACE or buf[i] == _TAB or buf[i] == _CR):
                    i += 1
            if i >= n or buf[i] == _NL:
                if comma:  # trailing comma: an empty last field
                    return row_start, ncols, rows, EMPTY_FIELD, line, first_data_line
                i += 1
                break
            out[o] = _SPACE
            o += 1
        out[o] = _NL
        o += 1
        if ncols < 0:
            ncols = col
            first_data_line = line
        elif col != ncols:
            return row_start, ncols, rows, RAGGED, line, first_data_line
        rows += 1
    return o, ncols, rows, OK, 0, first_data_line


def normalize(buf: np.ndarray, first_line: int = 1):
    """Normalise ``buf`` (uint8); returns ``(out, columns, rows, status, bad_line,
    first_data_line)`` where ``out`` is a uint8 view of the rewritten bytes, ``columns`` the
    field count of the first data row (-1 when there is none) and ``first_line`` the line
    number of ``buf[0]`` in the file."""
    out = np.empty(buf.shape[0] + 1, dtype=np.uint8)
    o, ncols, rows, status, bad, first = _normalize(buf, out, first_line)
    return out[:o], int(ncols), int(rows), int(status), int(bad), int(first)
