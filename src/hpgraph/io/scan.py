"""A text edge list, or one rank's share of it, parsed in chunks (the one-process reader
:func:`hpgraph.io.read_edgelist` and step 2 of :mod:`hpgraph.runtimes.mpi.ingest`).

A byte range is read :data:`READ_CHUNK` bytes at a time, each chunk ending at a line
start; each chunk is normalised and converted at once and only its ids (int32 where they
fit, else int64; arrow strings for string ids) and weights are kept. A reader therefore
holds the parsed columns and one chunk's text, never the whole text, its normalised copy
and pyarrow's buffers together: this is what lets an MPI rank read a graph bigger than it
could hold whole, and keeps one process's read near the size of its edge list.

A chunk's problems are only located here (which chunk, which kind); they are worded
after the ranks have agreed on line numbers, by reading that chunk again
(:func:`hpgraph.io._text.diagnose`), so the error is the one-process reader's. Shape
problems (a ragged line, an empty field) come before conversion problems, as in the
one-process reader, which normalises the whole file before converting it: after a
conversion problem the rest of the share is still normalised.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from hpgraph.io import _tokenize
from hpgraph.io._ids import int64_ids, is_int_type
from hpgraph.io._text import BOM, arrow_columns
from hpgraph.io.shares import line_cut

__all__ = ["READ_CHUNK", "Chunk", "ShareScan", "scan_share", "chunk_bytes"]

#: Bytes of its share a rank normalises and converts at a time.
READ_CHUNK = 8 << 20


@dataclass(frozen=True)
class Chunk:
    """Bytes ``start .. end`` of the file, whose first line is line ``line`` of the share
    (1 for the share's first line; :meth:`ShareScan.absolute` makes it the file's)."""

    start: int
    end: int
    line: int


@dataclass
class ShareScan:
    """What a rank found in its share: the normaliser's summary (field count of the first
    data line, data rows, status, first data line), the share's line count, where a
    problem lies, and the converted columns (lists of per-chunk arrays)."""

    ncols: int = -1
    rows: int = 0
    status: int = _tokenize.OK
    first: int = 0
    lines: int = 0
    lead: Chunk | None = None  # the first chunk with data rows
    shape: Chunk | None = None  # the chunk of the first shape problem
    bad: tuple[Chunk, str] | None = None  # the chunk of the first conversion problem
    src: list = field(default_factory=list)
    dst: list = field(default_factory=list)
    weights: list = field(default_factory=list)
    kinds: set = field(default_factory=set)

    def absolute(self, first_line: int):
        """Make every line number the file's, the share starting at ``first_line``."""
        shift = first_line - 1

        def move(c):
            return None if c is None else Chunk(c.start, c.end, c.line + shift)

        self.first = self.first + shift if self.rows else self.first
        self.lead, self.shape = move(self.lead), move(self.shape)
        if self.bad is not None:
            self.bad = (move(self.bad[0]), self.bad[1])

    def summary(self):
        """``(columns, rows, status, first data line, a value did not convert)`` for the
        ranks' ``allgather``."""
        return self.ncols, self.rows, self.status, self.first, self.bad is not None

    def drop_columns(self):
        self.src, self.dst, self.weights = [], [], []


def chunk_bytes(path, chunk: Chunk) -> np.ndarray:
    """The bytes of ``chunk`` again (to word a problem), a leading byte order mark
    dropped as the readers drop it."""
    with open(path, "rb") as f:
        f.seek(chunk.start)
        data = f.read(chunk.end - chunk.start)
    if chunk.start == 0 and data.startswith(BOM):
        data = data[3:]
    return np.frombuffer(data, dtype=np.uint8)


def _ids(col):
    """A chunk's integer id column as int32 where every id fits, else int64."""
    a = int64_ids(col)
    if a.shape[0] and a.min() >= -(2**31) and a.max() < 2**31:
        return a.astype(np.int32)
    return a


def scan_share(path, start: int, end: int, *, keep_weights: bool, str_ids: bool = False):
    """Normalise and convert bytes ``start .. end`` of ``path`` (a share: both ends at
    line starts) chunk by chunk; ``keep_weights``: keep a third field as weights (the
    caller drops them if the file turns out unweighted); ``str_ids``: every id as a
    string. Raises OSError only (format problems are recorded in the result)."""
    scan = ShareScan()
    pos, line = start, 1
    with open(path, "rb") as f:
        while pos < end:
            stop = line_cut(f, end, min(end, pos + READ_CHUNK))
            f.seek(pos)
            data = f.read(stop - pos)
            if pos == 0 and data.startswith(BOM):
                data = data[3:]
            buf = np.frombuffer(data, dtype=np.uint8)
            chunk = Chunk(pos, stop, line)
            if not _scan_chunk(scan, buf, chunk, keep_weights, str_ids):
                break
            line += int(np.count_nonzero(buf == 10))
            pos = stop
    scan.lines = line - 1
    return scan


def _scan_chunk(scan: ShareScan, buf, chunk: Chunk, keep_weights, str_ids) -> bool:
    """Add one chunk to ``scan``; False once a shape problem ends the scan."""
    norm, ncols, rows, status, _, first = _tokenize.normalize(buf, chunk.line)
    del buf
    ragged = rows > 0 and scan.ncols >= 0 and ncols != scan.ncols
    if rows > 0 and scan.ncols < 0:
        scan.ncols, scan.first, scan.lead = ncols, first, chunk
    scan.rows += rows
    if status != _tokenize.OK or ragged:
        scan.status = status if status != _tokenize.OK else _tokenize.RAGGED
        scan.shape = chunk
        return False
    if rows > 0 and scan.bad is None and ncols >= 2:
        _convert(scan, norm, ncols, chunk, keep_weights, str_ids)
    return True


def _convert(scan: ShareScan, norm, ncols, chunk, keep_weights, str_ids):
    """Convert one chunk's normalised rows into ``scan``'s columns, or record why not."""
    keep = min(ncols, 3) if keep_weights else 2
    try:
        src, dst, w = arrow_columns(norm, ncols, keep, str_ids=str_ids)
    except pa.ArrowInvalid as e:
        scan.bad = (chunk, f"cannot convert the edge list: {e}")
        scan.drop_columns()
        return
    if w is not None and np.isnan(w).any():
        scan.bad = (chunk, "a weight is NaN")
        scan.drop_columns()
        return
    ints = is_int_type(src.type) and is_int_type(dst.type)
    scan.kinds.add("int" if ints else "str")
    if ints:
        src, dst = _ids(src), _ids(dst)
    scan.src.append(src)
    scan.dst.append(dst)
    if w is not None:
        scan.weights.append(w)
