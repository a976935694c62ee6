"""Parquet edge tables: column lookup, id kinds, round trips, errors."""

import re

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hpgraph.errors import GraphFormatError
from hpgraph.graph.csr import Graph
from hpgraph.io import read_parquet, write_parquet_edges


@pytest.fixture
def table_file(tmp_path):
    def _make(name="g.parquet", **cols):
        p = tmp_path / name
        pq.write_table(pa.table(cols), p)
        return p

    return _make


def test_named_columns_in_any_order(table_file, edges_of):
    p = table_file(weight=[0.5, 2.0], dst=[1, 2], src=[0, 1])
    g = read_parquet(p)
    assert g.weighted and g.ids is None and not g.directed
    assert edges_of(g) == [(0, 1, 0.5), (1, 2, 2.0)]


def test_source_target_names(table_file, edges_of):
    p = table_file(extra=["x", "y"], source=[5, 9], target=[9, 9])
    g = read_parquet(p, directed=True)
    assert not g.weighted and g.ids.tolist() == [5, 9]
    assert edges_of(g) == [(5, 9), (9, 9)]


def test_positional_columns(table_file, edges_of):
    p = table_file(a=["x", "y"], b=["y", "z"], c=[1, 2])
    g = read_parquet(p)
    assert g.ids.tolist() == ["x", "y", "z"] and g.weighted
    assert edges_of(g) == [("x", "y", 1.0), ("y", "z", 2.0)]
    assert not read_parquet(p, weighted=False).weighted


def test_dictionary_and_mixed_ids(table_file, edges_of):
    src = pa.array(["b", "a", "b"]).dictionary_encode()
    g = read_parquet(table_file(src=src, dst=pa.array([1, 2, 3], pa.int32())))
    assert g.ids.tolist() == ["1", "2", "3", "a", "b"]
    assert edges_of(g) == [("1", "b"), ("2", "a"), ("3", "b")]


def test_allow_empty(table_file):
    p = table_file(src=pa.array([], pa.int64()), dst=pa.array([], pa.int64()))
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}: no edges")):
        read_parquet(p)
    assert read_parquet(p, allow_empty=True).n == 0


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("ids", ["none", "int", "str"])
@pytest.mark.parametrize("weighted", [False, True])
def test_round_trip(tmp_path, rng, edges_of, directed, ids, weighted):
    n, m = 25, 80
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    src[:3], dst[:3] = [2, 2, 6], [2, 2, 6]  # self-loops, one repeated
    src[3], dst[3] = 0, n - 1
    used = np.union1d(src, dst)
    user = {
        "none": None,
        "int": np.sort(rng.choice(10**12, used.size, replace=False)).astype(np.int64),
        "str": np.array([f'név {i}, "q"' for i in range(used.size)], dtype=object),
    }[ids]
    if ids == "str":
        user = np.sort(user)
    w = rng.standard_normal(m) if weighted else None
    g = Graph.from_edges(
        np.searchsorted(used, src),
        np.searchsorted(used, dst),
        w,
        n=used.size,
        directed=directed,
        ids=user,
    )
    p = tmp_path / "e.parquet"
    write_parquet_edges(g, p)
    assert pq.read_schema(p).names == ["src", "dst"] + (["weight"] if weighted else [])
    g2 = read_parquet(p, directed=directed)
    assert g2.n == g.n and (g2.ids is None) == (ids == "none")
    assert edges_of(g2) == edges_of(g)
    assert [f.name for f in tmp_path.iterdir()] == ["e.parquet"]


@pytest.mark.parametrize(
    ("cols", "what"),
    [
        ({"src": [1, 2]}, "expected columns (src, dst[, weight])"),
        ({"src": [1.0, 2.0], "dst": [1.0, 2.0]}, "id column 'src' has type double"),
        ({"src": pa.array([1, None]), "dst": [1, 2]}, "column 'src' is null in row 2"),
        ({"src": [1, 2], "dst": [1, 2], "weight": ["a", "b"]}, "weight column 'weight' has type"),
        ({"src": [1, 2], "dst": [1, 2], "weight": [1.0, float("nan")]}, "NaN in row 2"),
    ],
)
def test_errors(table_file, cols, what):
    p = table_file(**cols)
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}: ")) as e:
        read_parquet(p)
    assert what in str(e.value)


def test_weighted_true_needs_weight(table_file):
    p = table_file(src=[0], dst=[1])
    with pytest.raises(GraphFormatError, match="weighted=True but there is no weight column"):
        read_parquet(p, weighted=True)


def test_missing_and_not_parquet(tmp_path):
    with pytest.raises(GraphFormatError, match="no such file"):
        read_parquet(tmp_path / "x.parquet")
    p = tmp_path / "y.parquet"
    p.write_text("0 1\n")
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}: not a readable Parquet file")):
        read_parquet(p)


def test_dataset_folder_reads_as_its_files_in_path_order(tmp_path, rng):
    # a Spark-style folder: part files in sub-folders, _SUCCESS and hidden files skipped
    src, dst, w = rng.integers(0, 300, 900), rng.integers(0, 300, 900), rng.random(900)
    whole = tmp_path / "whole.parquet"
    pq.write_table(pa.table({"src": src, "dst": dst, "weight": w}), whole)
    folder = tmp_path / "edges.parquet"
    (folder / "b=2").mkdir(parents=True)
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-9.parquet.crc").write_text("x")
    cuts = [(0, 100, "a-0.parquet"), (100, 500, "a-1.pq"), (500, 900, "b=2/part-0.parquet")]
    for a, b, name in cuts:
        table = pa.table({"src": src[a:b], "dst": dst[a:b], "weight": w[a:b]})
        pq.write_table(table, folder / name, row_group_size=128)
    want, got = read_parquet(whole), read_parquet(folder)
    assert np.array_equal(want.indptr, got.indptr) and np.array_equal(want.indices, got.indices)
    assert np.array_equal(want.weights, got.weights)  # parallel edges' weights in order
    assert want.ids.tolist() == got.ids.tolist() and got.name == "edges"


def test_dataset_folder_errors(tmp_path):
    folder = tmp_path / "d.parquet"
    folder.mkdir()
    with pytest.raises(GraphFormatError, match="a folder with no .parquet files"):
        read_parquet(folder)
    pq.write_table(pa.table({"src": [0, 1], "dst": [1, 2]}), folder / "p0.parquet")
    pq.write_table(pa.table({"src": ["a"], "dst": ["b"]}), folder / "p1.parquet")
    with pytest.raises(GraphFormatError, match=re.escape(
        f"{folder / 'p1.parquet'}: column 'src' is string, but int64 in p0.parquet"
    )):  # fmt: skip
        read_parquet(folder)
    pq.write_table(pa.table({"src": [5, None], "dst": [1, 2]}), folder / "p1.parquet")
    with pytest.raises(GraphFormatError, match=re.escape(
        f"{folder / 'p1.parquet'}: column 'src' is null in row 2"
    )):  # fmt: skip
        read_parquet(folder)
