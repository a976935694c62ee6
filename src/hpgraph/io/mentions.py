"""Mention data: who mentioned whom, with the tweet's hashtags (the seed paper's input).

Given a text or Parquet file of mentions (user i mentioned user j in a tweet carrying
hashtags h1, h2...), returns :class:`Mentions`: the directed user graph (one edge per
mention, parallel edges kept), the mentions' endpoints in input order, and each
mention's hashtags as a CSR over a sorted hashtag dictionary.
:meth:`Mentions.initial_labels` turns them into BMLPA's initial labels by the seed
paper's rule ("if the edge-generating tweet included a hashtag, that hashtag was added
to the initial label list for user i"), weighted by how often the user used each one.

Text (``.tsv``, ``.txt``, any other name; ``.gz`` is gunzipped): one mention per line,
``source target [hashtags]``. Users are separated by blanks (spaces or tabs); everything
after the target is the hashtag list, split on commas and blanks (``#ai,#ml``,
``ai ml``, ``#ai, ml`` are the same two tags). Blank lines, and lines whose first
non-blank character is ``#`` or ``%``, are skipped, so a user id never starts with
``#`` or ``%``, and a target that does is an error (a hashtag in the target column).
User ids hold no blank or comma; a line that starts with a tab, or two tabs between
source and target, is an empty user (an error). Hashtags: leading ``#`` characters
dropped, lowercased (Twitter hashtags are case-insensitive), repeated tags within one
mention counted once; a lone ``#`` is an error.

Parquet: columns ``source``, ``target`` (integers or strings, dictionary encoding
allowed, no nulls or empty strings) and optionally ``hashtags``: a string column
(``"ai,ml"``, split like the text format) or a list of strings; null means none.

Users become dense internal ids as in every reader (:mod:`hpgraph.io._ids`): integer ids
when every id is an integer, else strings, sorted. Hashtag ids index ``tag_names``,
sorted by code point; each mention's tag ids are ascending and distinct. So a text file
and the Parquet file :func:`write_mentions` makes from it read back equal.

Reading text is one compiled pass over the bytes (users rewritten for pyarrow's
multi-threaded CSV conversion, hashtag bytes cut into a string array), then hashing:
no Python loop per line. Peak memory about three times the (uncompressed) text plus the
result. Every error is a :class:`~hpgraph.errors.GraphFormatError` naming the file (and
the line, or the Parquet row).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.graph._rows import insert_distinct
from hpgraph.graph.csr import Graph, index_dtype
from hpgraph.io._atomic import atomic_output
from hpgraph.io._ids import dense_ids, is_int_type, is_string_type
from hpgraph.io._text import arrow_columns, graph_name, read_bytes

__all__ = ["Mentions", "read_mentions", "write_mentions", "mention_format"]


@dataclass(eq=False, repr=False)
class Mentions:
    """Mentions with hashtags. ``graph``: directed, one edge per mention (user ids in
    ``graph.ids``); ``src``/``dst``: internal id of each mention's endpoints, input order;
    mention i's hashtags are ``tag_ids[tag_ptr[i]:tag_ptr[i + 1]]`` (ascending, distinct)
    indexing ``tag_names`` (no ``#``, lowercase, sorted)."""

    graph: Graph
    src: np.ndarray
    dst: np.ndarray
    tag_ptr: np.ndarray
    tag_ids: np.ndarray
    tag_names: list[str]
    path: str | None = None

    @classmethod
    def from_arrays(
        cls, src, dst, tag_ptr, tag_ids, tag_names, *, n=None, ids=None, path=None, name=""
    ) -> Mentions:
        """Build from internal ids ``0..n-1`` (``ids``: the users' ids, as for
        :class:`Graph`) and a tag CSR; rows are sorted and deduplicated here."""
        src = np.asarray(src)
        dst = np.asarray(dst)
        ptr, tags = _check_tag_csr(src.shape[0], tag_ptr, tag_ids, len(tag_names))
        ptr, tags = _row_sets(ptr, tags)
        graph = Graph.from_edges(src, dst, n=n, directed=True, ids=ids, name=name)
        idt = index_dtype(graph.n)
        return cls(
            graph,
            src.astype(idt, copy=False),
            dst.astype(idt, copy=False),
            ptr,
            tags,
            list(tag_names),
            None if path is None else str(path),
        )

    def __repr__(self):
        return (
            f"<Mentions {self.graph.name!r}: {self.num_mentions:,} mentions, "
            f"{self.num_users:,} users, {self.num_hashtags:,} hashtags>"
        )

    @property
    def num_mentions(self) -> int:
        return int(self.src.shape[0])

    @property
    def num_users(self) -> int:
        return self.graph.n

    @property
    def num_hashtags(self) -> int:
        return len(self.tag_names)

    def tagged_share(self) -> float:
        """Share of the mentions that carry at least one hashtag."""
        if not self.num_mentions:
            return 0.0
        return float(np.count_nonzero(np.diff(self.tag_ptr))) / self.num_mentions

    def memory_bytes(self) -> int:
        """Bytes of the numpy arrays, the graph's CSR and the hashtags' UTF-8 text (not
        Python's per-object overhead of string ids and names)."""
        arrays = self.src.nbytes + self.dst.nbytes + self.tag_ptr.nbytes + self.tag_ids.nbytes
        text = sum(len(s.encode()) for s in self.tag_names)
        return int(arrays + self.graph.memory_bytes() + text)

    def initial_labels(self):
        """BMLPA initial labels by the seed's rule: user i gets every hashtag of the
        mentions it sent, weighted by how many of them carried it. Returns
        :class:`~hpgraph.algorithms.bmlpa.VertexLabels` (CSR by internal id, labels
        ascending, ``names`` = ``tag_names``, ``weights`` = counts); users who never
        sent a tagged mention have no row entries (BMLPA gives them their own label)."""
        from hpgraph.algorithms.bmlpa import VertexLabels

        ptr, labels, weights = _user_tag_counts(self.graph.n, self.src, self.tag_ptr, self.tag_ids)
        return VertexLabels(ptr, labels, list(self.tag_names), weights)

    def write(self, path) -> None:
        """Write these mentions with :func:`write_mentions` (users by their ids)."""
        ids = self.graph.user_ids()
        write_mentions(
            path, ids[self.src], ids[self.dst], self.tag_ptr, self.tag_ids, self.tag_names
        )


# ------------------------------------------------------------------------- reading
def read_mentions(path, *, progress=None) -> Mentions:
    """Read a mention file (see the module docstring): Parquet when the name ends in
    ``.parquet``/``.pq`` or the bytes start with Parquet's magic, else text.
    ``progress``: an optional callable given a short stage name ("reading", "users",
    "hashtags", "graph") as each stage starts."""
    say = progress or (lambda stage: None)
    name = graph_name(path)
    p = Path(path)
    if p.is_dir():
        raise GraphFormatError("is a directory, not a mention file", path)
    say("reading")
    if p.suffix.lower() in (".parquet", ".pq") or _has_parquet_magic(p):
        src, dst, ptr, vals, dictionary, where = _read_parquet(path)
    else:
        src, dst, ptr, vals, dictionary, where = _read_text(path)
    say("hashtags")
    ptr, tags, names = _finish_tags(ptr, vals, dictionary, path, where)
    say("users")
    s, d, ids, n = dense_ids(src, dst)
    del src, dst
    say("graph")
    graph = Graph.from_edges(s, d, n=n, directed=True, ids=ids, name=name)
    return Mentions(graph, s, d, ptr, tags, names, str(path))


def _has_parquet_magic(p: Path) -> bool:
    if p.name.endswith(".gz"):
        return False
    try:
        with open(p, "rb") as f:
            return f.read(4) == b"PAR1"
    except OSError:
        return False  # the text reader words the error


# text ------------------------------------------------------------------------------
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
    buf = np.frombuffer(read_bytes(path), dtype=np.uint8)
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
        raise GraphFormatError(f"{_MESSAGES[status]}: {shown!r}", path, line)
    if rows == 0:
        raise GraphFormatError("no mentions (the file has only comments or blank lines)", path)
    try:
        src, dst, _ = arrow_columns(users[:o], 2, 2)
    except pa.ArrowInvalid as e:
        raise GraphFormatError(f"cannot convert the user ids: {e}", path) from None
    del users
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
        _bad_utf8(path, tags, offsets, ptr)
    vals, dictionary = _dict_encoded(values)

    def where(row):
        return f"mention {row + 1}", _text_line_of(path, row)

    return src, dst, ptr, vals, dictionary, where


def _bad_utf8(path, tags, offsets, ptr):
    """Raise for the first hashtag that is not UTF-8 (error path: a Python pass)."""
    for q in range(offsets.shape[0] - 1):
        raw = bytes(tags[offsets[q] : offsets[q + 1]])
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            row = int(np.searchsorted(ptr, q, side="right")) - 1
            raise GraphFormatError(
                f"hashtag {raw!r} is not valid UTF-8", path, _text_line_of(path, row)
            ) from None


def _text_line_of(path, row) -> int | None:
    """The line number of data line ``row`` (error path only: a Python pass)."""
    data = read_bytes(path)
    seen = -1
    for lineno, raw in enumerate(io.BytesIO(data), 1):
        s = raw.strip(b" \t\r\n")
        if s and s[:1] not in (b"#", b"%"):
            seen += 1
            if seen == row:
                return lineno
    return None


# parquet ---------------------------------------------------------------------------
def _read_parquet(path):
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
        table = pq.read_table(path, columns=cols, read_dictionary=dict_cols[:1] or None)
    except (pa.ArrowInvalid, OSError) as e:
        raise GraphFormatError(f"cannot read the Parquet data ({e})", path) from None
    m = table.num_rows
    if m == 0:
        raise GraphFormatError("no mentions (the table has no rows)", path)
    src = _user_column(table["source"], "source", path)
    dst = _user_column(table["target"], "target", path)
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
        return f"row {row + 1}", None

    return src, dst, ptr, vals, dictionary, where


def _user_column(col, name, path):
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if not (is_int_type(col.type) or is_string_type(col.type)):
        raise GraphFormatError(
            f"user column {name!r} has type {col.type}; expected integers or strings", path
        )
    if col.null_count:
        row = pc.index(pc.is_null(col), True).as_py()
        raise GraphFormatError(f"column {name!r} is null in row {row + 1}", path)
    if is_string_type(col.type):
        empty = pc.equal(pc.utf8_length(col), 0)
        if pc.any(empty).as_py():
            row = pc.index(empty, True).as_py()
            raise GraphFormatError(f"column {name!r} is an empty user in row {row + 1}", path)
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


def _dict_encoded(arr):
    """``(indices int32 with -1 for null, dictionary)`` of a string (or dictionary)
    array, chunked or not."""
    if isinstance(arr, pa.Array):
        arr = pa.chunked_array([arr])
    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    arr = arr.unify_dictionaries()
    vt = arr.type.value_type
    if arr.num_chunks == 0:
        return np.empty(0, np.int32), pa.array([], vt)
    dictionary = arr.chunk(0).dictionary
    idx = [pc.fill_null(c.indices, -1).to_numpy().astype(np.int32) for c in arr.chunks]
    return np.concatenate(idx), dictionary


@njit(**NUMBA_FLAGS)
def _expand(idx, d_off, v_idx):
    """Rows of dictionary entries -> rows of tag values: row r gets
    ``v_idx[d_off[idx[r]]:d_off[idx[r] + 1]]`` (nothing for idx -1)."""
    m = idx.shape[0]
    ptr = np.zeros(m + 1, dtype=np.int64)
    for r in range(m):
        e = idx[r]
        ptr[r + 1] = ptr[r] + (d_off[e + 1] - d_off[e] if e >= 0 else 0)
    vals = np.empty(ptr[m], dtype=np.int32)
    for r in range(m):
        e = idx[r]
        if e >= 0:
            a = d_off[e]
            for q in range(ptr[r + 1] - ptr[r]):
                vals[ptr[r] + q] = v_idx[a + q]
    return ptr, vals


# hashtags --------------------------------------------------------------------------
def _finish_tags(ptr, vals, dictionary, path, where):
    """Normalise the dictionary (trim, drop leading '#', lowercase), drop empty tags,
    sort the names and make every row's tag ids ascending and distinct."""
    raw = pc.utf8_trim_whitespace(dictionary.cast(pa.large_string()))
    norm = pc.utf8_lower(pc.replace_substring_regex(raw, r"^#+", ""))
    empty_raw = pc.equal(pc.utf8_length(raw), 0).to_numpy(zero_copy_only=False)
    empty = pc.equal(pc.utf8_length(norm), 0).to_numpy(zero_copy_only=False)
    bad_sep = pc.match_substring_regex(norm, r"[\s,]").to_numpy(zero_copy_only=False)
    for bad, msg in (
        (empty & ~empty_raw, "empty hashtag (a lone '#')"),
        (bad_sep, "a hashtag holds a blank or a comma"),
    ):
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            pos = int(np.flatnonzero(vals == j)[0])
            row = int(np.searchsorted(ptr, pos, side="right")) - 1
            label, line = where(row)
            shown = dictionary[j].as_py()
            raise GraphFormatError(f"{msg}: {shown!r} in {label}", path, line)
    keep = pa.array(~empty)
    uniq = pc.unique(norm.filter(keep))
    uniq = uniq.take(pc.sort_indices(uniq))
    lut = pc.fill_null(pc.index_in(norm, value_set=uniq), -1).to_numpy().astype(np.int32)
    lut = np.append(lut, np.int32(-1))  # vals == -1 (null) looks up the last entry
    tags = lut[vals]
    ptr, tags = _row_sets(ptr, tags)
    return ptr, tags, uniq.to_pylist()


@njit(**NUMBA_FLAGS)
def _row_sets_kernel(ptr, tags):
    m = ptr.shape[0] - 1
    out_ptr = np.zeros(m + 1, dtype=np.int64)
    out = np.empty(tags.shape[0], dtype=np.int32)
    o = 0
    for r in range(m):
        a = o
        for e in range(ptr[r], ptr[r + 1]):
            x = tags[e]
            if x < 0:
                continue
            o = insert_distinct(out, a, o, x)  # the sorted row out[a:o], no repeats
        out_ptr[r + 1] = o
    return out_ptr, out[:o].copy()


def _row_sets(ptr, tags):
    """Every row's entries ascending and distinct; negative entries dropped."""
    return _row_sets_kernel(
        np.ascontiguousarray(ptr, dtype=np.int64), np.ascontiguousarray(tags, dtype=np.int32)
    )


def _check_tag_csr(m, tag_ptr, tag_ids, num_names):
    ptr = np.asarray(tag_ptr, dtype=np.int64)
    tags = np.asarray(tag_ids)
    if ptr.shape != (m + 1,) or ptr[0] != 0 or ptr[-1] != tags.shape[0] or (np.diff(ptr) < 0).any():
        raise InvalidArgumentError(
            f"tag_ptr must rise from 0 to len(tag_ids) = {tags.shape[0]} in {m + 1} entries "
            f"(one row per mention); got shape {ptr.shape}"
        )
    if tags.size and (tags.dtype.kind not in "iu" or tags.min() < 0 or tags.max() >= num_names):
        raise InvalidArgumentError(f"tag_ids must be integers in 0..{num_names - 1}")
    return ptr, tags.astype(np.int32, copy=False)


@njit(**NUMBA_FLAGS)
def _user_tag_counts_kernel(n, src, tag_ptr, tag_ids):
    m = src.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    for i in range(m):
        start[src[i] + 1] += tag_ptr[i + 1] - tag_ptr[i]
    for u in range(n):
        start[u + 1] += start[u]
    fill = start[:-1].copy()
    buf = np.empty(start[n], dtype=np.int32)
    for i in range(m):
        u = src[i]
        for e in range(tag_ptr[i], tag_ptr[i + 1]):
            buf[fill[u]] = tag_ids[e]
            fill[u] += 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    labels = np.empty(start[n], dtype=np.int32)
    weights = np.empty(start[n], dtype=np.float64)
    o = 0
    for u in range(n):
        if start[u + 1] - start[u] == 1:
            labels[o] = buf[start[u]]
            weights[o] = 1.0
            o += 1
            ptr[u + 1] = o
            continue
        row = buf[start[u] : start[u + 1]]
        if row.shape[0] > 1:
            row.sort()
        q = 0
        while q < row.shape[0]:
            x = row[q]
            c = 0
            while q < row.shape[0] and row[q] == x:
                c += 1
                q += 1
            labels[o] = x
            weights[o] = c
            o += 1
        ptr[u + 1] = o
    return ptr, labels[:o].copy(), weights[:o].copy()


def _user_tag_counts(n, src, tag_ptr, tag_ids):
    return _user_tag_counts_kernel(
        n,
        np.ascontiguousarray(src),
        np.ascontiguousarray(tag_ptr, dtype=np.int64),
        np.ascontiguousarray(tag_ids, dtype=np.int32),
    )


# ------------------------------------------------------------------------- writing
_TEXT_SEPARATORS = {".tsv": "\t", ".txt": " "}
_CHUNK_ROWS = 1 << 20


def write_mentions(path, src_ids, dst_ids, tag_ptr, tag_ids, tag_names) -> None:
    """Write mentions, read back by :func:`read_mentions`: ``src_ids``/``dst_ids`` are
    the users' ids (integers or strings), mention i carries the hashtags
    ``tag_names[tag_ids[tag_ptr[i]:tag_ptr[i + 1]]]`` (names without ``#``; write them
    lowercase for an exact round trip). The format by extension: ``.parquet`` (columns
    source, target, hashtags as a list of dictionary-encoded strings), ``.tsv`` (tab
    separated) or ``.txt`` (space separated), ``.gz`` compressing text; text lines are
    ``source<TAB>target<TAB>tag,tag``, a ``#`` comment line first. Atomic."""
    fmt = mention_format(path)
    src = _user_array(src_ids, "src_ids")
    dst = _user_array(dst_ids, "dst_ids")
    if len(src) != len(dst):
        raise InvalidArgumentError(
            f"src_ids and dst_ids differ in length ({len(src)} != {len(dst)})"
        )
    if len(src) == 0:
        raise InvalidArgumentError("no mentions to write")
    if is_int_type(src.type) != is_int_type(dst.type):
        src, dst = src.cast(pa.string()), dst.cast(pa.string())
    ptr, tags = _check_tag_csr(len(src), tag_ptr, tag_ids, len(tag_names))
    names = pa.array(list(tag_names), type=pa.string())
    _check_names(names, src, dst, text=fmt != "parquet")
    if fmt != "parquet":
        gz = str(path).endswith(".gz")
        _write_text(path, _TEXT_SEPARATORS[fmt], gz, src, dst, ptr, tags, names)
        return
    list_type = pa.large_list if ptr[-1] >= 2**31 else pa.list_
    values = pa.DictionaryArray.from_arrays(pa.array(tags, pa.int32()), names)
    offsets = pa.array(ptr, pa.int64() if list_type is pa.large_list else pa.int32())
    hashtags = (pa.LargeListArray if list_type is pa.large_list else pa.ListArray).from_arrays(
        offsets, values
    )
    table = pa.table({"source": src, "target": dst, "hashtags": hashtags})
    with atomic_output(path) as tmp:
        pq.write_table(table, tmp)


def mention_format(path) -> str:
    """The format :func:`write_mentions` picks for ``path``: ``"parquet"`` (``.parquet``,
    ``.pq``), ``".tsv"`` or ``".txt"`` (optionally ``.gz``); InvalidArgumentError for
    anything else."""
    name = str(path)
    gz = name.endswith(".gz")
    suffix = Path(name[:-3] if gz else name).suffix.lower()
    if suffix in _TEXT_SEPARATORS:
        return suffix
    if suffix in (".parquet", ".pq") and not gz:
        return "parquet"
    raise InvalidArgumentError(
        f"{path}: cannot tell the mention format from the name; use .parquet, .tsv or "
        ".txt (text may end in .gz)"
    )


def _user_array(ids, what) -> pa.Array:
    a = np.asarray(ids)
    if a.ndim != 1:
        raise InvalidArgumentError(f"{what} must be one-dimensional")
    if a.dtype.kind in "iu" or a.size == 0:
        return pa.array(a.astype(np.int64, copy=False))
    if a.dtype.kind in "UO":
        try:
            return pa.array(a.tolist() if a.dtype.kind == "U" else a, type=pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
    raise InvalidArgumentError(f"{what} must hold integer or string user ids, got {a.dtype}")


def _check_names(names, src, dst, *, text: bool) -> None:
    bad = pc.match_substring_regex(names, r"[\s,]|^#|^$")
    if len(names) and pc.any(bad).as_py():
        first = names.filter(bad)[0].as_py()
        raise InvalidArgumentError(
            f"hashtag name {first!r} cannot be written (it is empty, holds a blank or a "
            "comma, or starts with #)"
        )
    if not is_string_type(src.type):
        return
    pattern = r"[\s,]|^[#%]|^$" if text else r"^$"
    for col in (src, dst):
        bad = pc.match_substring_regex(col, pattern)
        if pc.any(bad).as_py():
            first = col.filter(bad)[0].as_py()
            raise InvalidArgumentError(
                f"user id {first!r} cannot be written to a mention file (it is empty"
                + (
                    ", holds a blank or a comma, or starts with # or %); write Parquet instead"
                    if text
                    else ")"
                )
            )


def _write_text(path, sep, gz, src, dst, ptr, tags, names) -> None:
    head = (
        f"# mentions: source{sep}target{sep}hashtags; {len(src)} mentions, {len(names)} hashtags\n"
    )
    with atomic_output(path) as tmp:
        with pa.output_stream(tmp, compression="gzip" if gz else None) as out:
            out.write(head.encode())
            for lo in range(0, len(src), _CHUNK_ROWS):
                hi = min(lo + _CHUNK_ROWS, len(src))
                p = ptr[lo : hi + 1]
                counts = np.diff(p)
                values = names.take(pa.array(tags[p[0] : p[-1]]))
                lists = pa.ListArray.from_arrays(
                    pa.array(p - p[0], pa.int32()), values, mask=pa.array(counts == 0)
                )
                joined = pc.binary_join(lists, ",")
                cols = [
                    src.slice(lo, hi - lo).cast(pa.large_string()),
                    dst.slice(lo, hi - lo).cast(pa.large_string()),
                    joined.cast(pa.large_string()),
                ]
                line = pc.binary_join_element_wise(*cols, _large(sep), null_handling="skip")
                line = pc.binary_join_element_wise(line, _large("\n"), _large(""))
                offs = np.frombuffer(line.buffers()[1], dtype=np.int64)[
                    line.offset : line.offset + len(line) + 1
                ]
                out.write(line.buffers()[2][int(offs[0]) : int(offs[-1])])


def _large(text):
    return pa.scalar(text, pa.large_string())
