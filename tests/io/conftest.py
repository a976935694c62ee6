"""Fixtures shared by the io tests (tests/io has no __init__.py, so that the folder name
``io`` never shadows the standard library)."""

import numpy as np
import pytest


def _edges(graph):
    """Sorted (user src, user dst[, weight]) tuples, an undirected edge once as (min, max)."""
    src, dst, w = graph.edges()
    ids = graph.user_ids()
    if not graph.directed:
        keep = src <= dst
        src, dst = src[keep], dst[keep]
        w = None if w is None else w[keep]
    us, ud = ids[src].tolist(), ids[dst].tolist()
    if not graph.directed:
        pairs = [(a, b) if _key(a) <= _key(b) else (b, a) for a, b in zip(us, ud, strict=True)]
        us, ud = [p[0] for p in pairs], [p[1] for p in pairs]
    if w is None:
        return sorted(zip(us, ud, strict=True), key=_tkey)
    return sorted(zip(us, ud, np.asarray(w).tolist(), strict=True), key=_tkey)


def _key(x):
    return (isinstance(x, str), x)


def _tkey(t):
    return tuple(_key(x) for x in t)


@pytest.fixture
def edges_of():
    """``edges_of(graph)``: the graph's edges in user ids, sorted, for comparisons."""
    return _edges


@pytest.fixture
def write(tmp_path):
    """``write(name, text)``: a file under tmp_path holding ``text`` (gzipped if .gz)."""
    import gzip

    def _write(name, text):
        p = tmp_path / name
        data = text.encode() if isinstance(text, str) else text
        if name.endswith(".gz"):
            data = gzip.compress(data)
        p.write_bytes(data)
        return p

    return _write


@pytest.fixture
def rng(request):
    seed = 12345
    print(f"seed={seed} ({request.node.name})")
    return np.random.default_rng(seed)
