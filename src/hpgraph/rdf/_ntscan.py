"""Compiled kernels of the N-Triples and N-Quads fast path: given a buffer of UTF-8 lines,
return the byte spans and 64-bit FNV-1a hashes of the three terms of every triple line
(four for quads: a quad without a graph name has an empty fourth span).

The grammar accepted is a strict subset of the line grammar in :mod:`hpgraph.rdf.parse`
(IRIs of printable ASCII, blank node labels not ending in ``.``): a line outside it stops
the scan, and the caller reads that block with the regular-expression path, which either
accepts the line or names it in its error. Hashes only group equal spans; the caller
checks every span against its group's first span (:func:`same_spans`), so a collision
sends the block to the slow path rather than merging two terms.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["scan_lines", "same_spans", "gather_spans"]

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(**NUMBA_FLAGS)
def _iri_end(buf, i, n):
    """End (exclusive) of an IRI starting at ``buf[i] == '<'``, or -1."""
    i += 1
    while i < n:
        c = buf[i]
        if c == 62:  # >
            return i + 1
        # < " { } | ^ ` \ and whitespace / control / non-ASCII are not taken here
        if c <= 32 or c >= 127 or c == 60 or c == 34 or c == 123 or c == 125:
            return -1
        if c == 124 or c == 94 or c == 96 or c == 92:
            return -1
        i += 1
    return -1


@njit(**NUMBA_FLAGS)
def _label_char(c):
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95


@njit(**NUMBA_FLAGS)
def _bnode_end(buf, i, n):
    """End of a blank node ``_:label`` at ``i``, or -1 (labels ending in '.' too)."""
    if i + 2 >= n or buf[i + 1] != 58 or not _label_char(buf[i + 2]):
        return -1
    i += 3
    while i < n and (_label_char(buf[i]) or buf[i] == 45 or buf[i] == 46):
        i += 1
    return -1 if buf[i - 1] == 46 else i


@njit(**NUMBA_FLAGS)
def _literal_end(buf, i, n):
    """End of a literal (with its @tag or ^^<datatype>) at ``buf[i] == '"'``, or -1."""
    i += 1
    while i < n:
        c = buf[i]
        if c == 34:
            break
        if c == 10 or c == 13:
            return -1
        if c == 92:  # an escape: any character but a line end follows
            if i + 1 >= n or buf[i + 1] == 10 or buf[i + 1] == 13:
                return -1
            i += 1
        i += 1
    if i >= n:
        return -1
    i += 1
    if i < n and buf[i] == 64:  # @lang(-sub)*
        i += 1
        start = i
        while i < n and ((65 <= buf[i] <= 90) or (97 <= buf[i] <= 122)):
            i += 1
        if i == start:
            return -1
        while i < n and buf[i] == 45:
            i += 1
            start = i
            while i < n and _label_char(buf[i]) and buf[i] != 95:
                i += 1
            if i == start:
                return -1
    elif i + 1 < n and buf[i] == 94 and buf[i + 1] == 94:
        if i + 2 >= n or buf[i + 2] != 60:
            return -1
        return _iri_end(buf, i + 2, n)
    return i


@njit(**NUMBA_FLAGS)
def _skip_blank(buf, i, n):
    while i < n and (buf[i] == 32 or buf[i] == 9):
        i += 1
    return i


@njit(**NUMBA_FLAGS)
def _fnv(buf, a, b):
    h = _FNV_OFFSET
    for k in range(a, b):
        h = (h ^ np.uint64(buf[k])) * _FNV_PRIME
    return np.int64(h)


@njit(**NUMBA_FLAGS)
def scan_lines(buf, quads=False):
    """Spans and hashes of the terms of ``buf`` (uint8, whole lines; ``quads``: N-Quads
    lines, an optional IRI or blank node graph name after the object). Returns (starts,
    ends, hashes) as (m, 3) arrays ((m, 4) for quads), the number of lines read and the
    0-based index of the first line outside the fast grammar (-1 when none; the arrays
    then stop before it)."""
    n = len(buf)
    cap = 1
    for k in range(n):
        if buf[k] == 10:
            cap += 1
    cols = 4 if quads else 3
    starts = np.empty((cap, cols), np.int64)
    ends = np.empty((cap, cols), np.int64)
    hashes = np.empty((cap, cols), np.int64)
    m = 0
    line = 0
    i = 0
    while i < n:
        i = _skip_blank(buf, i, n)
        if i >= n:
            break
        c = buf[i]
        if c == 10 or c == 13 or c == 35:  # blank line or comment: to the line end
            while i < n and buf[i] != 10:
                i += 1
            i += 1
            line += 1
            continue
        for t in range(3):
            c = buf[i] if i < n else 0
            if c == 60:
                e = _iri_end(buf, i, n)
            elif c == 95 and t != 1:
                e = _bnode_end(buf, i, n)
            elif c == 34 and t == 2:
                e = _literal_end(buf, i, n)
            else:
                e = -1
            if e < 0:
                return starts[:m], ends[:m], hashes[:m], line, line
            starts[m, t] = i
            ends[m, t] = e
            hashes[m, t] = _fnv(buf, i, e)
            i = _skip_blank(buf, e, n)
        if quads:  # the graph name, or an empty span for the default graph
            c = buf[i] if i < n else 0
            e = i
            if c == 60:
                e = _iri_end(buf, i, n)
            elif c == 95:
                e = _bnode_end(buf, i, n)
            if e < 0:
                return starts[:m], ends[:m], hashes[:m], line, line
            starts[m, 3] = i
            ends[m, 3] = e
            hashes[m, 3] = _fnv(buf, i, e)
            i = _skip_blank(buf, e, n)
        if i >= n or buf[i] != 46:
            return starts[:m], ends[:m], hashes[:m], line, line
        i = _skip_blank(buf, i + 1, n)
        if i < n and buf[i] == 35:
            while i < n and buf[i] != 10:
                i += 1
        if i < n and buf[i] == 13:
            i += 1
        if i < n and buf[i] != 10:
            return starts[:m], ends[:m], hashes[:m], line, line
        i += 1
        m += 1
        line += 1
    return starts[:m], ends[:m], hashes[:m], line, -1


@njit(**NUMBA_FLAGS)
def same_spans(buf, starts, ends, rep):
    """True when every span i has the bytes of span ``rep[i]``."""
    for i in range(len(starts)):
        a, b = starts[i], ends[i]
        r = starts[rep[i]]
        if b - a != ends[rep[i]] - r:
            return False
        for k in range(b - a):
            if buf[a + k] != buf[r + k]:
                return False
    return True


@njit(**NUMBA_FLAGS)
def gather_spans(buf, starts, ends):
    """The spans copied back to back, each followed by a newline."""
    total = 0
    for i in range(len(starts)):
        total += ends[i] - starts[i] + 1
    out = np.empty(total, np.uint8)
    j = 0
    for i in range(len(starts)):
        for k in range(starts[i], ends[i]):
            out[j] = buf[k]
            j += 1
        out[j] = 10
        j += 1
    return out
