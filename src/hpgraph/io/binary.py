"""The binary cached form of a graph (``.hpgc``): one memory-mappable file.

Layout (little-endian)::

    b"HPGCACHE"  uint64 header_length  header (UTF-8 JSON)  padding
    arrays, each starting at a multiple of 64 bytes after the padded header

The JSON header holds ``format``, ``version``, ``n``, ``m`` (stored edges), ``directed``,
``weighted``, ``name``, ``ids`` (``"none"``, ``"int"`` or ``"str"``), ``source`` (the
parsed input's absolute path, size and mtime_ns, or null), ``options`` (the load options
the graph was parsed with) and ``arrays``: name -> dtype, length and offset. Arrays:
``indptr`` (int64), ``indices`` (int32/int64), ``weights`` (float64, if weighted), and
``ids`` (int64) or ``ids_offsets`` (int64, n+1) + ``ids_data`` (UTF-8 bytes) for string
ids.

Memory: :func:`load_binary` with ``mmap=True`` maps the file, so the CSR arrays cost page
cache, not heap, and loading is O(1) apart from string ids (one Python string each).
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np
import pyarrow as pa

from hpgraph.errors import GraphFormatError
from hpgraph.graph.csr import Graph
from hpgraph.io._atomic import atomic_output
from hpgraph.io._errors import file_errors

__all__ = ["save_binary", "load_binary", "read_binary_header", "source_info", "FORMAT_VERSION"]

FORMAT_VERSION = 1
_MAGIC = b"HPGCACHE"
_ALIGN = 64
_PAD = bytes(_ALIGN)


def _align(x: int) -> int:
    return -(-x // _ALIGN) * _ALIGN


def save_binary(graph: Graph, path, *, source=None, options: dict | None = None) -> None:
    """Write ``graph`` to ``path`` in the ``.hpgc`` form, atomically (a temporary file
    beside it, then a rename). ``source`` (the parsed input file, or its
    :func:`source_info`) and ``options`` are recorded so that
    :func:`hpgraph.io.load_graph` can tell whether the cache is stale."""
    arrays = {"indptr": graph.indptr, "indices": graph.indices}
    if graph.weights is not None:
        arrays["weights"] = graph.weights
    ids = graph.ids
    if ids is None:
        kind = "none"
    elif np.asarray(ids).dtype == object:
        kind = "str"
        s = pa.array(np.asarray(ids), type=pa.large_string())
        bufs = s.buffers()
        offsets = np.frombuffer(bufs[1], dtype=np.int64, count=len(s) + 1)
        data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.empty(0)
        arrays["ids_offsets"] = offsets
        arrays["ids_data"] = data[: int(offsets[-1])].astype(np.uint8, copy=False)
    else:
        kind = "int"
        arrays["ids"] = np.asarray(ids, dtype=np.int64)
    table, offset = {}, 0
    for key, a in arrays.items():
        a = np.ascontiguousarray(a)
        arrays[key] = a
        table[key] = {"dtype": a.dtype.str, "length": int(a.shape[0]), "offset": offset}
        offset = _align(offset + a.nbytes)
    src = source if source is None or isinstance(source, dict) else source_info(source)
    header = {
        "format": "hpgc",
        "version": FORMAT_VERSION,
        "n": graph.n,
        "m": graph.num_stored_edges,
        "directed": graph.directed,
        "weighted": graph.weighted,
        "name": graph.name,
        "ids": kind,
        "source": src,
        "options": options or {},
        "arrays": table,
    }
    text = json.dumps(header).encode()
    start = _align(16 + len(text))
    with atomic_output(path) as tmp, open(tmp, "wb") as f:
        f.write(_MAGIC + struct.pack("<Q", len(text)) + text)
        f.write(_PAD[: start - 16 - len(text)])
        for a in arrays.values():
            f.write(memoryview(a).cast("B"))
            f.write(_PAD[: _align(a.nbytes) - a.nbytes])


def source_info(path) -> dict:
    """What a cache records of its input: absolute path, size and mtime_ns."""
    st = os.stat(path)
    return {"path": os.path.abspath(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def read_binary_header(path) -> dict:
    """The JSON header of an ``.hpgc`` file, plus ``data_start`` (the arrays' base offset).
    Raises GraphFormatError if the file is missing or not a readable ``.hpgc`` file."""
    try:
        with file_errors(path, "an .hpgc file"), open(path, "rb") as f:
            head = f.read(16)
            if len(head) < 16 or head[:8] != _MAGIC:
                raise GraphFormatError("not an hpgraph binary graph (.hpgc) file", path)
            (size,) = struct.unpack("<Q", head[8:])
            header = json.loads(f.read(size))
    except GraphFormatError:
        raise
    except (ValueError, UnicodeDecodeError) as e:  # json errors are ValueErrors
        raise GraphFormatError(f"damaged .hpgc header ({e})", path) from None
    if not isinstance(header, dict) or header.get("format") != "hpgc":
        raise GraphFormatError("damaged .hpgc header", path)
    if header.get("version") != FORMAT_VERSION:
        raise GraphFormatError(
            f".hpgc format version {header.get('version')}, this hpgraph reads "
            f"{FORMAT_VERSION}; delete the file to rebuild it",
            path,
        )
    header["data_start"] = _align(16 + size)
    return header


def load_binary(path, mmap: bool = True) -> Graph:
    """Load a graph written by :func:`save_binary`. With ``mmap`` the arrays are read-only
    views of the mapped file (pages load on first touch); else the file is read whole."""
    header = read_binary_header(path)
    raw = np.memmap(path, dtype=np.uint8, mode="r") if mmap else np.fromfile(path, np.uint8)
    base = header["data_start"]
    arrays = {}
    try:
        for key, spec in header["arrays"].items():
            dt = np.dtype(spec["dtype"])
            lo = base + spec["offset"]
            hi = lo + spec["length"] * dt.itemsize
            if hi > raw.shape[0]:
                raise GraphFormatError(f"truncated .hpgc file (array {key!r})", path)
            arrays[key] = raw[lo:hi].view(dt)
        ids = None
        if header["ids"] == "int":
            ids = arrays["ids"]
        elif header["ids"] == "str":
            offsets, data = arrays["ids_offsets"], arrays["ids_data"]
            s = pa.LargeStringArray.from_buffers(
                offsets.shape[0] - 1, pa.py_buffer(offsets), pa.py_buffer(data)
            )
            ids = np.asarray(s.to_numpy(zero_copy_only=False), dtype=object)
        return Graph(
            arrays["indptr"],
            arrays["indices"],
            arrays.get("weights"),
            directed=header["directed"],
            ids=ids,
            name=header["name"],
        )
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, GraphFormatError):
            raise
        raise GraphFormatError(f"damaged .hpgc file ({e!r})", path) from None
