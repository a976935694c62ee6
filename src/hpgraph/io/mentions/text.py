"""The text mention reader.

Given a text mention file (the format in :mod:`hpgraph.io.mentions`), :func:`_read_text`
returns the users as two Arrow columns and the hashtags as dictionary indexes per row:
one compiled pass over the bytes (:func:`_scan`) writes the users for pyarrow's
multi-threaded CSV conversion and cuts the hashtag bytes into a string array.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import GraphFormatError
from hpgraph.io._text import arrow_columns, read_bytes
from hpgraph.io.mentions.tags import _dict_encoded

__all__: list[str] = []


_OK, _ONE_FIELD, _EMPTY_SOURCE, _EMPTY_TARGET, _COMMA_USER, _HASH_TARGET, _EMPTY_TAG = range(7)


_MESSAGES = {
    _ONE_FIELD: "expected 'source target [hashtags]', got 1 field",
    _EMPTY_SOURCE: "empty source user (the line starts with a tab)",
    _EMPTY_TARGET: "empty target user (two tabs after the source)",
    _COMMA_USER: "a user id holds a comma (users are separated by blanks; hashtags by commas)",
    _HASH_TARGET: "the target user starts with '#' or '%' (user ids cannot; a hashtag in "
    "the target column?)",
    _EMPTY_TAG: "empty hashtag (a lone '#')",
}


_NL, _CR, _SP, _TAB, _COMMA, _HASH, _PCT = 10, 13, 32, 9, 44, 35, 37


@njit(**NUMBA_FLAGS)
def _grow(a, k):
    if k < a.shape[0]:
        return a
    b = np.empty(2 * a.shape[0], dtype=a.dtype)
    b[:k] = a[:k]
    return b


@njit(**NUMBA_FLAGS)
def _scan(buf, users, tags, tag_end, counts):
    """One pass over a mention file. Writes ``src dst\\n`` per mention to ``users`` and
    the hashtag bytes (``#`` stripped) to ``tags`` with each tag's end in ``tag_end``
    and each mention's tag count in ``counts`` (both grown as needed). Returns
    (users_len, rows, tags_count, status, bad_line, bad_line_start, tag_end, counts)."""
    n = buf.shape[0]
    i = 0
    o = 0
    t = 0
    k = 0
    rows = 0
    line = 0
    while i < n:
        line += 1
        ls = i
        j = i
        while j < n and (buf[j] == _SP or buf[j] == _TAB or buf[j] == _CR):
            j += 1
        if j >= n:
            break
        c = buf[j]
        if c == _NL:
            i = j + 1
            continue
        if c == _HASH or c == _PCT:
            while j < n and buf[j] != _NL:
                j += 1
            i = j + 1
            continue
        if buf[i] == _TAB:
            return o, rows, k, _EMPTY_SOURCE, line, ls, tag_end, counts
        i = j
        for field in range(2):
            while i < n:
                c = buf[i]
                if c == _SP or c == _TAB or c == _CR or c == _NL:
                    break
                if c == _COMMA:
                    return o, rows, k, _COMMA_USER, line, ls, tag_end, counts
                users[o] = c
                o += 1
                i += 1
            if field == 1:
                break
            tabs = 0
            while i < n and (buf[i] == _SP or buf[i] == _TAB or buf[i] == _CR):
                if buf[i] == _TAB:
                    tabs += 1
                i += 1
            if i >= n or buf[i] == _NL:
                return o, rows, k, _ONE_FIELD, line, ls, tag_end, counts
            if tabs > 1:
                return o, rows, k, _EMPTY_TARGET, line, ls, tag_end, counts
            if buf[i] == _HASH or buf[i] == _PCT:
                return o, rows, k, _HASH_TARGET, line, ls, tag_end, counts
            users[o] = _SP
            o += 1
        users[o] = _NL
        o += 1
        cnt = 0
        while i < n and buf[i] != _NL:
            c = buf[i]
            if c == _SP or c == _TAB or c == _CR or c == _COMMA:
                i += 1
                continue
            while i < n and buf[i] == _HASH:
                i += 1
            p0 = t
            while i < n:
                c = buf[i]
                if c == _SP or c == _TAB or c == _CR or c == _COMMA or c == _NL:
                    break
                tags[t] = c
                t += 1
                i += 1
            if t == p0:
                return o, rows, k, _EMPTY_TAG, line, ls, tag_end, counts
            tag_end = _grow(tag_end, k)
            tag_end[k] = t
            k += 1
            cnt += 1
        counts = _grow(counts, rows)
        counts[rows] = cnt
        rows += 1
        i += 1
    return o, rows, k, _OK, 0, 0, tag_end, counts


def _read_text(path):
    return _parse_text(np.frombuffer(read_bytes(path), dtype=np.uint8), path)


def _parse_text(buf, path, *, first_line=1, share=False, str_ids=False):
    """:func:`_read_text` of the bytes ``buf`` (whole lines): the whole file, or one
    share of it (``share``: no mentions is not an error, ``where`` is None (the caller
    knows the share's first row only later) and the users' normalised text is returned
    last, for a second conversion); ``first_line`` numbers its first line in the file,
    for errors; ``str_ids`` keeps the users strings (the other shares' users are)."""
    users = np.empty(buf.shape[0] + 1, dtype=np.uint8)
    tags = np.empty(buf.shape[0], dtype=np.uint8)
    cap = max(1024, buf.shape[0] // 32)
    tag_end0 = np.empty(cap, dtype=np.int64)
    counts0 = np.empty(cap, dtype=np.int32)
    o, rows, k, status, line, ls, tag_end, counts = _scan(buf, users, tags, tag_end0, counts0)
    if status != _OK:
        end = buf.shape[0] if (nl := bytes(buf[ls : ls + 200]).find(b"\n")) < 0 else ls + nl
        text = bytes(buf[ls:end]).decode("utf-8", "replace").strip()
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise GraphFormatError(f"{_MESSAGES[status]}: {shown!r}", path, first_line - 1 + line)
    if rows == 0 and not share:
        raise GraphFormatError("no mentions (the file has only comments or blank lines)", path)
    users = users[:o]
    src, dst = _user_columns(users, path, str_ids)
    ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(counts[:rows], out=ptr[1:])
    offsets = np.zeros(k + 1, dtype=np.int64)
    offsets[1:] = tag_end[:k]
    values = pa.LargeStringArray.from_buffers(
        k, pa.py_buffer(offsets), pa.py_buffer(tags[: offsets[-1]])
    )
    try:
        values.validate(full=True)
    except pa.ArrowInvalid:
        if share:  # the share's own lines, numbered from first_line
            _bad_utf8(path, tags, offsets, ptr, lambda r: first_line - 1 + _line_in(buf, r))
        else:
            _bad_utf8(path, tags, offsets, ptr, lambda r: _text_line_of(path, r))
    vals, dictionary = _dict_encoded(values)
    if share:
        return src, dst, ptr, vals, dictionary, None, users

    def where(row):
        return f"mention {row + 1}", _text_line_of(path, row)

    return src, dst, ptr, vals, dictionary, where


def _user_columns(users, path, str_ids=False):
    """The users' two arrow columns from their normalised text ``src dst\\n`` per row:
    integers when every id is one, else strings (``str_ids``: strings)."""
    if users.shape[0] == 0:
        t = pa.string() if str_ids else pa.int64()
        return pa.array([], t), pa.array([], t)
    try:
        src, dst, _ = arrow_columns(users, 2, 2, str_ids=str_ids)
    except pa.ArrowInvalid as e:
        raise GraphFormatError(f"cannot convert the user ids: {e}", path) from None
    return src, dst


def _bad_utf8(path, tags, offsets, ptr, line_of):
    """Raise for the first hashtag that is not UTF-8, on the line ``line_of(row)`` of its
    data row (error path: a Python pass)."""
    for q in range(offsets.shape[0] - 1):
        raw = bytes(tags[offsets[q] : offsets[q + 1]])
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            row = int(np.searchsorted(ptr, q, side="right")) - 1
            raise GraphFormatError(
                f"hashtag {raw!r} is not valid UTF-8", path, line_of(row)
            ) from None


def _text_line_of(path, row) -> int | None:
    """The line number of data line ``row`` (error path only: a Python pass)."""
    return _line_in(read_bytes(path), row)


def _line_in(data, row) -> int | None:
    """The line number, within the bytes ``data``, of their data line ``row``."""
    seen = -1
    for lineno, raw in enumerate(io.BytesIO(bytes(data)), 1):
        s = raw.strip(b" \t\r\n")
        if s and s[:1] not in (b"#", b"%"):
            seen += 1
            if seen == row:
                return lineno
    return None
