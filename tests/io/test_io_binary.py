"""The .hpgc binary form and load_graph's cache."""

import json
import os
import re

import numpy as np
import pytest

from hpgraph import config
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.io import (
    cache_paths,
    detect_format,
    load_binary,
    load_graph,
    read_binary_header,
    save_binary,
)
from hpgraph.io import load as load_mod


def sample(rng, ids="none", weighted=True, directed=False, n=20, m=60):
    user = {
        "none": None,
        "int": np.arange(n, dtype=np.int64) * 3 + 10,
        "str": np.array(sorted(f"é{i}" for i in range(n)), dtype=object),
    }[ids]
    w = rng.random(m) if weighted else None
    return Graph.from_edges(
        rng.integers(0, n, m), rng.integers(0, n, m), w, n=n, directed=directed, ids=user, name="s"
    )


def same_graph(a, b):
    assert (a.n, a.directed, a.weighted, a.name) == (b.n, b.directed, b.weighted, b.name)
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert a.indices.dtype == b.indices.dtype
    if a.weighted:
        np.testing.assert_array_equal(a.weights, b.weights)
    assert (a.ids is None) == (b.ids is None)
    if a.ids is not None:
        assert np.asarray(a.ids).tolist() == np.asarray(b.ids).tolist()
        assert np.asarray(a.ids).dtype == np.asarray(b.ids).dtype


# ---------------------------------------------------------------- .hpgc


@pytest.mark.parametrize("ids", ["none", "int", "str"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("mmap", [False, True])
def test_binary_round_trip(tmp_path, rng, ids, weighted, directed, mmap):
    g = sample(rng, ids, weighted, directed)
    p = tmp_path / "g.hpgc"
    save_binary(g, p)
    assert [f.name for f in tmp_path.iterdir()] == ["g.hpgc"]  # no temporary left
    h = load_binary(p, mmap=mmap)
    same_graph(g, h)
    assert not h.indices.flags.writeable
    header = read_binary_header(p)
    assert header["n"] == g.n and header["m"] == g.num_stored_edges and header["version"] == 1


def test_binary_empty_graph(tmp_path):
    g = Graph.from_edges(np.empty(0, np.int64), np.empty(0, np.int64), n=0)
    save_binary(g, tmp_path / "e.hpgc")
    same_graph(g, load_binary(tmp_path / "e.hpgc"))


def test_binary_overwrite_is_atomic(tmp_path, rng):
    p = tmp_path / "g.hpgc"
    save_binary(sample(rng), p)
    g2 = sample(rng, "str")
    save_binary(g2, p)
    same_graph(g2, load_binary(p))


@pytest.mark.parametrize(
    ("mangle", "what"),
    [
        (lambda b: b"", "not an hpgraph binary graph"),
        (lambda b: b"XXXXXXXX" + b[8:], "not an hpgraph binary graph"),
        (lambda b: b[:40], "damaged .hpgc header"),
        (lambda b: b[:-300], "truncated .hpgc file"),
        (lambda b: b.replace(b'"version": 1', b'"version": 9'), "format version 9"),
    ],
)
def test_binary_damaged(tmp_path, rng, mangle, what):
    p = tmp_path / "g.hpgc"
    save_binary(sample(rng, m=100), p)
    p.write_bytes(mangle(p.read_bytes()))
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}: ")) as e:
        load_binary(p)
    assert what in str(e.value)


def test_load_graph_hpgc_options(tmp_path, rng):
    g = sample(rng, directed=True)
    p = tmp_path / "g.hpgc"
    save_binary(g, p)
    same_graph(load_graph(p), g)
    assert not load_graph(p, weighted=False).weighted
    assert load_graph(p, directed=False).num_stored_edges == g.symmetrized().num_stored_edges
    save_binary(sample(rng, weighted=False), p)
    with pytest.raises(GraphFormatError, match="weighted=True"):
        load_graph(p, weighted=True)


# ---------------------------------------------------------------- formats


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.txt", "edgelist"),
        ("a.EL", "edgelist"),
        ("a.csv.gz", "edgelist"),
        ("a.tsv", "edgelist"),
        ("a.edges", "edgelist"),
        ("a.mtx.gz", "mtx"),
        ("a.parquet", "parquet"),
        ("a.txt.hpgc", "hpgc"),
    ],
)
def test_detect_format(name, fmt):
    assert detect_format(name) == fmt


@pytest.mark.parametrize("name", ["a.json", "a", "a.parquet.gz"])
def test_detect_format_unknown(name):
    with pytest.raises(GraphFormatError, match="cannot tell the format"):
        detect_format(name)


def test_load_graph_unknown_format_argument(tmp_path):
    with pytest.raises(InvalidArgumentError, match="unknown format"):
        load_graph(tmp_path / "a.txt", format="graphml")


def test_load_graph_missing_file(tmp_path):
    with pytest.raises(GraphFormatError, match="no such file"):
        load_graph(tmp_path / "a.txt")


def test_load_graph_mtx_direction_from_header(write):
    p = write("m.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 1\n")
    assert not load_graph(p).directed
    p = write("n.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 1\n")
    assert load_graph(p).directed and not load_graph(p, directed=False, cache=False).directed


# ---------------------------------------------------------------- cache


@pytest.fixture
def parses(monkeypatch):
    """Count the parses load_graph does (cache misses)."""
    calls = []
    real = load_mod._parse

    def counting(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(load_mod, "_parse", counting)
    return calls


def test_cache_created_reused_invalidated(write, parses, edges_of):
    p = write("g.txt", "a b 1\nb c 2\n")
    g = load_graph(p)
    cache = p.with_name("g.txt.hpgc")
    assert cache.exists() and len(parses) == 1
    header = read_binary_header(cache)
    assert header["source"]["path"] == str(p.resolve())
    assert header["source"]["size"] == p.stat().st_size
    g2 = load_graph(p)
    assert len(parses) == 1
    same_graph(g, g2)
    # same size, other mtime: stale
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    load_graph(p)
    assert len(parses) == 2
    load_graph(p)
    assert len(parses) == 2
    # new content
    p.write_text("a b 1\nb c 2\nc d 3\n")
    g3 = load_graph(p)
    assert len(parses) == 3 and g3.num_edges == 3
    assert edges_of(load_graph(p)) == edges_of(g3) and len(parses) == 3


def test_cache_keyed_by_options(write, parses):
    p = write("g.txt", "0 1 1\n1 2 2\n")
    assert load_graph(p).weighted
    assert not load_graph(p, weighted=False).weighted
    assert load_graph(p, directed=True).directed
    assert len(parses) == 3
    assert load_graph(p, directed=True).directed and len(parses) == 3


def test_cache_off(write, parses):
    p = write("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    load_graph(p, cache=False)
    load_graph(p, cache=False)
    assert len(parses) == 2 and not p.with_name("g.mtx.hpgc").exists()


def test_cache_dir(write, parses, tmp_path):
    p = write("g.parquet.txt", "0 1\n")
    where = tmp_path / "caches"
    load_graph(p, cache_dir=where)
    load_graph(p, cache_dir=where)
    assert len(parses) == 1
    (c,) = where.iterdir()
    assert c.name.startswith("g.parquet.txt-") and c.suffix == ".hpgc"
    assert c == cache_paths(p, where)[0]


def test_cache_in_config_dir_when_folder_read_only(write, parses, tmp_path, monkeypatch):
    p = write("g.txt", "0 1\n")
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "home"))
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda f, mode: mode != os.W_OK and real_access(f, mode))
    load_graph(p)
    load_graph(p)
    assert len(parses) == 1
    assert not p.with_name("g.txt.hpgc").exists()
    assert len(list((tmp_path / "home" / "graphs").iterdir())) == 1


def test_cache_unwritable_everywhere_is_not_an_error(write, parses, tmp_path, monkeypatch):
    p = write("g.txt", "0 1\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    load_graph(p, cache_dir=blocker / "sub")  # cannot mkdir under a file
    assert len(parses) == 1


def test_damaged_cache_is_rebuilt(write, parses):
    p = write("g.txt", "0 1\n")
    load_graph(p)
    cache = p.with_name("g.txt.hpgc")
    cache.write_bytes(b"garbage")
    g = load_graph(p)
    assert len(parses) == 2 and g.num_edges == 1
    assert read_binary_header(cache)["n"] == 2


def test_cache_header_is_json(write):
    p = write("g.txt", "x y\n")
    load_graph(p)
    raw = p.with_name("g.txt.hpgc").read_bytes()
    size = int.from_bytes(raw[8:16], "little")
    header = json.loads(raw[16 : 16 + size])
    assert header["ids"] == "str" and header["options"]["format"] == "edgelist"
