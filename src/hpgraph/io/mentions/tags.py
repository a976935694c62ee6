"""Hashtags as a CSR over a sorted dictionary.

Given each mention's raw hashtags (dictionary indexes per row), :func:`_finish_tags`
returns the rows over the normalised, sorted hashtag names (trimmed, leading ``#``
dropped, lowercased), every row ascending and distinct; :func:`_row_sets` and
:func:`_check_tag_csr` do the same for, and check, a tag CSR given as arrays.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.graph._rows import insert_distinct

__all__: list[str] = []


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
