"""The mention writer.

Given the users' ids of every mention and a tag CSR, :func:`write_mentions` writes a file
that :func:`~hpgraph.io.mentions.read_mentions` reads back equal: Parquet, or text
(``.tsv``, ``.txt``, optionally ``.gz``) as :func:`mention_format` picks from the name.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hpgraph.errors import InvalidArgumentError
from hpgraph.io._atomic import atomic_output
from hpgraph.io._ids import is_int_type, is_string_type
from hpgraph.io.mentions.tags import _check_tag_csr

__all__ = ["write_mentions", "mention_format"]


_TEXT_SEPARATORS = {".tsv": "\t", ".txt": " "}


_CHUNK_ROWS = 1 << 20


#: Mentions per Parquet row group: MPI ranks read a file by row groups, so a file of
#: millions of mentions gives every rank a share (pyarrow's default is 1M rows).
ROW_GROUP = 1 << 17


def write_mentions(path, src_ids, dst_ids, tag_ptr, tag_ids, tag_names) -> None:
    """Write mentions, read back by :func:`read_mentions`: ``src_ids``/``dst_ids`` are
    the users' ids (integers or strings), mention i carries the hashtags
    ``tag_names[tag_ids[tag_ptr[i]:tag_ptr[i + 1]]]`` (names without ``#``; write them
    lowercase for an exact round trip). The format by extension: ``.parquet`` (columns
    source, target, hashtags as a list of dictionary-encoded strings), ``.tsv`` (tab
    separated) or ``.txt`` (space separated), ``.gz`` compressing text; text lines are
    ``source<TAB>target<TAB>tag,tag``, a ``#`` comment line first; Parquet in row groups
    of :data:`ROW_GROUP` mentions (MPI ranks each read a run of them). Atomic."""
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
        pq.write_table(table, tmp, row_group_size=ROW_GROUP)


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
