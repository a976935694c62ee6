"""Pattern and label files.

Given a pattern file (``v <id> <label>`` and ``e <src> <dst>`` lines) :func:`read_pattern`
returns a :class:`~hpgraph.algorithms.simulation.pattern.Pattern`; given a vertex label
file and the data graph :func:`read_labels` returns one label per vertex.
"""

from __future__ import annotations

import re

import numpy as np

from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms.simulation.pattern import MAX_PATTERN_VERTICES, Pattern
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.graph.csr import Graph

__all__ = ["read_pattern", "read_labels"]


_INT = re.compile(r"[+-]?\d+")


_SPLIT = re.compile(r"[ \t]*,[ \t]*|[ \t]+")


def _token(text: str):
    """Ids and labels that are integers are read as integers, any other as strings."""
    return int(text) if _INT.fullmatch(text) else text


def _lines(path):
    from hpgraph.io._text import read_bytes

    try:
        text = read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise GraphFormatError(f"not UTF-8 text ({e.reason} at byte {e.start})", path) from None
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if s and s[0] not in "#%":
            yield lineno, _SPLIT.split(s)


def read_pattern(path) -> Pattern:
    """Read a pattern file: one record per line, ``#`` starts a comment line::

        v <id> <label>      # a pattern vertex (bit order = line order)
        e <src> <dst>       # a directed pattern edge between declared vertices

    Fields are separated by blanks or a comma; ids and labels that are integers are read
    as integers. Raises GraphFormatError naming the file and line."""
    ids, labels, where, edges = [], [], {}, []
    for lineno, f in _lines(path):
        if f[0] not in ("v", "e") or len(f) != 3:
            raise GraphFormatError(
                f"expected 'v <id> <label>' or 'e <src> <dst>', got {' '.join(f)!r}", path, lineno
            )
        a, b = _token(f[1]), _token(f[2])
        if f[0] == "v":
            if a in where:
                raise GraphFormatError(
                    f"pattern vertex {a!r} declared twice (first at line {where[a]})", path, lineno
                )
            where[a] = lineno
            ids.append(a)
            labels.append(b)
        else:
            edges.append((lineno, a, b))
    if not ids:
        raise GraphFormatError("no pattern vertices ('v <id> <label>' lines)", path)
    if len(ids) > MAX_PATTERN_VERTICES:
        raise GraphFormatError(
            f"{len(ids)} pattern vertices; simulation supports at most {MAX_PATTERN_VERTICES}",
            path,
        )
    index = {u: i for i, u in enumerate(ids)}
    for lineno, a, b in edges:
        for x in (a, b):
            if x not in index:
                raise GraphFormatError(
                    f"edge names undeclared pattern vertex {x!r} (declare it with 'v {x} LABEL')",
                    path,
                    lineno,
                )
    src = np.array([index[a] for _, a, _ in edges], dtype=np.int64)
    dst = np.array([index[b] for _, _, b in edges], dtype=np.int64)
    return Pattern(tuple(ids), tuple(labels), src, dst)


def read_labels(path, graph: Graph) -> np.ndarray:
    """Read a vertex label file, ``<vertex> <label>`` per line (blank- or comma-separated,
    ``#`` comment lines), for ``graph``'s vertices named in the input's ids. Returns the
    labels in internal-id order: int64 when every label is an integer, else an object
    array. Raises GraphFormatError (file and line) for an unknown vertex, a vertex
    labelled twice differently, or vertices left without a label."""
    check_graph(graph)
    n = graph.n
    out = np.full(n, None, dtype=object)
    line_of = np.zeros(n, dtype=np.int64)
    for lineno, f in _lines(path):
        if len(f) != 2:
            raise GraphFormatError(
                f"expected two fields '<vertex> <label>', got {len(f)}", path, lineno
            )
        try:
            v = graph.vertex_index(f[0])
        except InvalidArgumentError:
            raise GraphFormatError(
                f"unknown vertex {f[0]!r}: not in the graph", path, lineno
            ) from None
        lab = _token(f[1])
        if line_of[v] and out[v] != lab:
            raise GraphFormatError(
                f"vertex {f[0]!r} labelled {out[v]!r} at line {line_of[v]}, now {lab!r}",
                path,
                lineno,
            )
        out[v] = lab
        line_of[v] = lineno
    missing = np.flatnonzero(line_of == 0)
    if missing.size:
        some = ", ".join(repr(x) for x in graph.user_ids()[missing[:5]].tolist())
        raise GraphFormatError(f"no label for {missing.size} of {n} vertices (e.g. {some})", path)
    if all(isinstance(x, int) for x in out.tolist()):
        return out.astype(np.int64)
    return out
