"""Matrix Market (``.mtx``, ``.mtx.gz``) sparse matrices as graphs.

Format: a ``%%MatrixMarket matrix coordinate <field> <symmetry>`` banner, ``%`` comment
lines, a size line ``rows cols entries``, then one ``i j [value]`` line per entry with
1-based indices. Supported: field ``pattern`` (unweighted), ``real`` or ``integer``
(weighted), symmetry ``general`` or ``symmetric``. Entry ``(i, j)`` is the edge
``i-1 -> j-1``; the graph has ``max(rows, cols)`` vertices (``ids=None``), so vertices
without entries stay as isolated vertices.

The entries go through the same compiled normaliser and pyarrow conversion as edge
lists (:mod:`hpgraph.io.edgelist`); memory is about three times the file's size plus the
graph.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from hpgraph.errors import GraphFormatError
from hpgraph.graph.csr import Graph
from hpgraph.io import _tokenize
from hpgraph.io._text import arrow_columns, diagnose, graph_name, read_bytes

__all__ = ["read_matrix_market"]

_FIELDS = {"pattern": False, "real": True, "integer": True}
_SYMMETRY = ("general", "symmetric")


def read_matrix_market(
    path,
    *,
    directed: bool | None = None,
    weighted: bool | None = None,
    allow_empty: bool = False,
    name: str | None = None,
) -> Graph:
    """Read a Matrix Market coordinate file (see the module docstring).

    ``directed``: ``None`` gives an undirected graph for a ``symmetric`` matrix and a
    directed one for a ``general`` matrix; ``False`` reads a general matrix's entries as
    undirected edges; ``True`` reads a symmetric matrix as a directed graph with both
    directions of each off-diagonal entry. ``weighted``: ``None`` follows the field,
    ``False`` ignores the values, ``True`` requires them. A matrix without entries is an
    error unless ``allow_empty``.
    """
    name = graph_name(path) if name is None else name
    data = read_bytes(path)
    field, symmetric, rows, cols, nnz, size_line, start = _header(data, path)
    has_values = _FIELDS[field]
    if weighted and not has_values:
        raise GraphFormatError("weighted=True but the matrix is a 'pattern' (no values)", path, 1)
    weighted = has_values if weighted is None else weighted
    if directed is None:
        directed = not symmetric
    n = max(rows, cols)

    fields = 3 if has_values else 2
    norm, ncols, count, status, _, _ = _tokenize.normalize(
        np.frombuffer(data, dtype=np.uint8)[start:], size_line + 1
    )
    del data

    def fail(fallback):
        diagnose(
            read_bytes(path),
            path,
            fallback=fallback,
            start=start,
            first_line=size_line + 1,
            weighted=weighted,
            fields=fields,
            bounds=(rows, cols),
        )

    if status != _tokenize.OK or (count and ncols != fields):
        fail("malformed Matrix Market entries")
    if count != nnz:
        raise GraphFormatError(
            f"the size line announces {nnz} entries but the file has {count}", path, size_line
        )
    if count == 0:
        if not allow_empty:
            raise GraphFormatError("no edges (the matrix has no entries)", path, size_line)
        e = np.empty(0, np.int64)
        return Graph.from_edges(e, e, None, n=n, directed=directed, name=name)
    try:
        src, dst, w = arrow_columns(norm, ncols, 3 if weighted else 2, int_ids=True)
    except pa.ArrowInvalid as e:
        fail(f"cannot convert the entries: {e}")
    del norm
    s = src.to_numpy()
    d = dst.to_numpy()
    if s.min() < 1 or s.max() > rows or d.min() < 1 or d.max() > cols:
        fail("an index is out of range")
    if w is not None and np.isnan(w).any():
        fail("a value is NaN")
    s = s - 1
    d = d - 1
    if symmetric and directed:
        off = s != d
        s, d = np.concatenate([s, d[off]]), np.concatenate([d, s[off]])
        if w is not None:
            w = np.concatenate([w, w[off]])
    return Graph.from_edges(s, d, w, n=n, directed=directed, name=name)


def _header(data: bytes, path):
    """Parse banner and size line: ``(field, symmetric, rows, cols, nnz, size_line,
    offset of the first entry line)``."""
    pos = 0
    lineno = 0
    banner = None
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        text = data[pos:end].decode("utf-8", "replace").strip()
        pos = end + 1
        lineno += 1
        if lineno == 1:
            banner = text
            _check_banner(text, path)
            continue
        if not text or text.startswith("%"):
            continue
        parts = text.split()
        try:
            rows, cols, nnz = (int(p) for p in parts)
        except ValueError:
            raise GraphFormatError(
                f"expected the size line 'rows cols entries', got {text!r}", path, lineno
            ) from None
        if min(rows, cols, nnz) < 0:
            raise GraphFormatError(f"negative size in {text!r}", path, lineno)
        words = banner.lower().split()
        return words[3], words[4] == "symmetric", rows, cols, nnz, lineno, pos
    if banner is None:
        raise GraphFormatError("empty file, expected a Matrix Market banner", path)
    raise GraphFormatError("no size line 'rows cols entries' after the banner", path, lineno)


def _check_banner(text: str, path) -> None:
    words = text.lower().split()
    expected = "'%%MatrixMarket matrix coordinate <pattern|real|integer> <general|symmetric>'"
    if len(words) != 5 or words[0] != "%%matrixmarket" or words[1] != "matrix":
        raise GraphFormatError(
            f"not a Matrix Market banner: expected {expected}, got {text!r}", path, 1
        )
    if words[2] != "coordinate":
        raise GraphFormatError(
            f"only the sparse 'coordinate' format is supported, got {words[2]!r}", path, 1
        )
    if words[3] not in _FIELDS:
        raise GraphFormatError(
            f"unsupported field {words[3]!r}: expected pattern, real or integer", path, 1
        )
    if words[4] not in _SYMMETRY:
        raise GraphFormatError(
            f"unsupported symmetry {words[4]!r}: expected general or symmetric", path, 1
        )
