"""write_result: CSV/Parquet content, round trips with string ids, atomicity."""

import gzip
import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.io import write_result
from hpgraph.result import VertexResult


def result(ids=None, n=4, **extra):
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], n=n, ids=ids)
    cols = {
        "distance": np.array([0.0, 0.1, 1 / 3, np.inf][:n]),
        "parent": np.array([0, 0, 1, -1][:n], dtype=np.int64),
    }
    cols.update(extra)
    return VertexResult("sssp", g, cols, id_columns=("parent",))


def read_back_csv(path, string_ids):
    types = {"vertex": pa.string(), "parent": pa.string()} if string_ids else {}
    opts = pcsv.ConvertOptions(column_types=types, strings_can_be_null=False)
    return pcsv.read_csv(path, convert_options=opts)


def test_csv_layout(tmp_path):
    p = tmp_path / "r.csv"
    write_result(result(), p)
    assert p.read_text().splitlines() == [
        "vertex,distance,parent",
        "0,0,0",
        "1,0.1,0",
        "2,0.3333333333333333,1",
        "3,inf,-1",
    ]


def test_csv_floats_round_trip(tmp_path, rng):
    n = 500
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    x[:2] = [np.inf, 5e-324]
    g = Graph.from_edges([0], [1], n=n)
    p = tmp_path / "r.csv"
    write_result(VertexResult("x", g, {"rank": x}), p)
    back = read_back_csv(p, False)
    assert back.column_names == ["vertex", "rank"]
    np.testing.assert_array_equal(back["rank"].to_numpy(), x)  # bit for bit
    np.testing.assert_array_equal(back["vertex"].to_numpy(), np.arange(n))


@pytest.mark.parametrize("name", ["r.csv", "r.csv.gz", "r.parquet"])
def test_string_ids_round_trip(tmp_path, name):
    ids = np.array(["a,b", 'q"uote', "ünï", "plain"], dtype=object)
    r = result(ids=ids)
    p = tmp_path / name
    write_result(r, p)
    if name.endswith(".parquet"):
        back = pq.read_table(p)
    else:
        back = read_back_csv(p, True)
    assert back.column_names == ["vertex", "distance", "parent"]
    assert back["vertex"].to_pylist() == ids.tolist()
    assert back["parent"].to_pylist() == ["a,b", "a,b", 'q"uote', ""]  # "" = no parent
    assert back["distance"].to_pylist() == r["distance"].tolist()


def test_plain_string_ids_unquoted(tmp_path):
    p = tmp_path / "r.csv"
    write_result(result(ids=np.array(["a", "b", "c", "d"], dtype=object)), p)
    assert p.read_text().splitlines()[:2] == ["vertex,distance,parent", "a,0,a"]


def test_gzip_csv(tmp_path):
    p = tmp_path / "r.csv.gz"
    write_result(result(), p)
    assert gzip.decompress(p.read_bytes()).decode().startswith("vertex,distance,parent\n")


def test_parquet_types(tmp_path):
    p = tmp_path / "r.parquet"
    write_result(result(ids=np.array([10, 20, 30, 40])), p)
    t = pq.read_table(p)
    assert t.schema.types == [pa.int64(), pa.float64(), pa.int64()]
    assert t["parent"].to_pylist() == [10, 10, 20, -1]


def test_format_override_and_unknown(tmp_path):
    p = tmp_path / "r.out"
    write_result(result(), p, format="parquet")
    assert pq.read_table(p).num_rows == 4
    with pytest.raises(InvalidArgumentError, match="cannot tell the result format"):
        write_result(result(), tmp_path / "r.json")
    with pytest.raises(InvalidArgumentError, match="unknown result format"):
        write_result(result(), tmp_path / "r.csv", format="xlsx")
    assert sorted(f.name for f in tmp_path.iterdir()) == ["r.out"]


@pytest.mark.parametrize("name", ["r.csv", "r.parquet"])
def test_failure_leaves_nothing(tmp_path, name):
    bad = np.array([1.0, "x", object(), 2], dtype=object)  # cannot become a string column
    p = tmp_path / name
    with pytest.raises(InvalidArgumentError, match="result column 'bad'"):
        write_result(result(bad=bad), p)
    assert list(tmp_path.iterdir()) == []


def test_failure_keeps_previous_output(tmp_path, monkeypatch):
    p = tmp_path / "r.csv"
    p.write_text("previous\n")
    bad = np.array([1.0, "x", object(), 2], dtype=object)
    with pytest.raises(InvalidArgumentError):
        write_result(result(bad=bad), p)

    def fail(*a):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)  # fails after the data is written
    with pytest.raises(OSError, match="disk full"):
        write_result(result(), p)
    assert p.read_text() == "previous\n"
    assert [f.name for f in tmp_path.iterdir()] == ["r.csv"]
