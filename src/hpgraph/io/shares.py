"""Shares of a text file for parallel readers: part ``k`` of ``parts`` is a byte range that
starts and ends at line starts, so every line is read by exactly one part and the parts,
in order, are the file.

The nominal cut ``k * size // parts`` moves forward to the start of the next line (the
byte after the first ``\\n`` at or after ``cut - 1``: a cut that already sits at a line
start stays there). Each part finds both of its ends by itself, reading a few bytes past
each cut, so no part needs to talk to another. Only uncompressed files can be cut: a
gzip stream has no random access.
"""

from __future__ import annotations

import os

import numpy as np

from hpgraph.io._errors import file_errors
from hpgraph.io._text import BOM

__all__ = ["line_cut", "share_range", "read_share"]

_PROBE = 1 << 16  # bytes read at a time while looking for the end of a line


def line_cut(f, size: int, cut: int) -> int:
    """The first line start at or after byte ``cut`` of the open binary file ``f`` of
    ``size`` bytes (``size`` when no line starts there)."""
    if cut <= 0:
        return 0
    if cut >= size:
        return size
    pos = cut - 1
    while pos < size:
        f.seek(pos)
        block = f.read(min(_PROBE, size - pos))
        i = block.find(b"\n")
        if i >= 0:
            return pos + i + 1
        pos += len(block)
    return size


def share_range(path, part: int, parts: int) -> tuple[int, int]:
    """``(start, end)``: the bytes of ``path`` that part ``part`` of ``parts`` reads."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        return (
            line_cut(f, size, part * size // parts),
            line_cut(f, size, (part + 1) * size // parts),
        )


def read_share(path, part: int, parts: int) -> tuple[np.ndarray, int]:
    """``(bytes as uint8, start)`` of part ``part``'s share of ``path`` (a UTF-8 byte
    order mark at the start of the file is dropped, as the whole-file readers do)."""
    with file_errors(path):
        start, end = share_range(path, part, parts)
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(end - start)
    if start == 0 and data.startswith(BOM):
        data = data[3:]
    return np.frombuffer(data, dtype=np.uint8), start
