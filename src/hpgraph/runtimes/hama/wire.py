"""The hama runtime's wire format: one bundle (Hama's ``BSPMessageBundle``) of a task's
payloads for one destination, as the frames of one multi-part ZeroMQ message, with no
pickling on the hot path.

A bundle is ``[meta, packed, big...]``; ``meta`` holds (superstep, sender, count) and per
message its kind, dtype and shape; numpy arrays under 64 KiB are copied into ``packed``
(16-byte aligned), larger ones travel as frames of their own straight from the array's
memory (zero copy; the send is complete before ``sync()`` returns, so the array may
change afterwards). The receiver builds arrays over the received frames without copying.
Other objects are pickled into ``packed``.
"""

from __future__ import annotations

import pickle
import struct

import numpy as np

__all__ = ["HEAD", "encode", "decode"]

#: Arrays at least this big travel as frames of their own, without a copy; smaller ones
#: are packed into one frame per bundle (one copy, like zmq itself does for small frames).
_OWN_FRAME_BYTES = 65536
_ALIGN = 16  # packed arrays start at 16-byte offsets: aligned for every numeric dtype

#: The head of ``meta``: superstep, sender task, message count.
HEAD = struct.Struct("<qii")
_DESC = struct.Struct("<BBB")  # kind, ndim, len(dtype.str)
_PACKED, _OWN, _PICKLED = 0, 1, 2


def encode(step: int, src: int, payloads: list) -> list:
    """One bundle: ``[meta, packed, big...]`` (see the module docstring)."""
    meta = [HEAD.pack(step, src, len(payloads))]
    packed, big = [], []
    off = 0
    for p in payloads:
        raw = isinstance(p, np.ndarray) and p.dtype.fields is None and not p.dtype.hasobject
        if raw:
            a = p if p.flags.c_contiguous else np.ascontiguousarray(p)
            dt = a.dtype.str.encode()
            kind = _OWN if a.nbytes >= _OWN_FRAME_BYTES else _PACKED
            meta.append(_DESC.pack(kind, a.ndim, len(dt)) + dt)
            meta.append(struct.pack(f"<{a.ndim}q", *a.shape))
            buf = a.reshape(-1).view(np.uint8)
        else:
            buf = pickle.dumps(p, protocol=5)
            kind = _PICKLED
            meta.append(_DESC.pack(kind, 1, 0) + struct.pack("<q", len(buf)))
        if kind == _OWN:
            big.append(buf)
            continue
        pad = -off % _ALIGN
        if pad:
            packed.append(bytes(pad))
        packed.append(buf)
        off += pad + len(buf)
    return [b"".join(meta), b"".join(packed), *big]


def decode(frames) -> tuple[int, int, list]:
    """(superstep, sender, payloads) of a received bundle; arrays are views of the frames."""
    meta = frames[0].bytes
    step, src, count = HEAD.unpack_from(meta, 0)
    pos = HEAD.size
    packed = frames[1]
    nbig = 2
    off = 0
    out = []
    for _ in range(count):
        kind, ndim, dlen = _DESC.unpack_from(meta, pos)
        pos += _DESC.size
        if kind == _PICKLED:
            (n,) = struct.unpack_from("<q", meta, pos)
            pos += 8
            off += -off % _ALIGN
            out.append(pickle.loads(packed.buffer[off : off + n]))
            off += n
            continue
        dtype = np.dtype(meta[pos : pos + dlen].decode())
        pos += dlen
        shape = struct.unpack_from(f"<{ndim}q", meta, pos)
        pos += 8 * ndim
        count_items = int(np.prod(shape, dtype=np.int64))
        if kind == _OWN:
            a = np.frombuffer(frames[nbig], dtype=dtype, count=count_items)
            nbig += 1
        else:
            off += -off % _ALIGN
            a = np.frombuffer(packed, dtype=dtype, count=count_items, offset=off)
            off += count_items * dtype.itemsize
        out.append(a.reshape(shape))
    return step, src, out
