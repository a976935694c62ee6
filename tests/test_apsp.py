"""All-pairs shortest paths against NetworkX (``all_pairs_shortest_path_length`` /
``all_pairs_dijkstra_path_length``) on every shape, in memory with 1, 2 and 3 peers and
streamed to Parquet (forced with a tiny ``max_memory``); the refusals and their size
estimates; ids; bad weights."""

from __future__ import annotations

import importlib
from pathlib import Path

import networkx as nx
import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import SHAPE_CASES, make_shape, to_networkx
from hpgraph.algorithms.apsp import apsp
from hpgraph.errors import InvalidArgumentError, InvalidGraphError
from hpgraph.graph import Graph

# the module itself: the package's attribute of that name is the function
apsp_module = importlib.import_module("hpgraph.algorithms.apsp")

CASES = SHAPE_CASES


def _reference(g, weighted):
    G = to_networkx(g)  # a MultiGraph: Dijkstra takes the smallest parallel weight
    rows = (
        nx.all_pairs_dijkstra_path_length(G, weight="weight")
        if weighted
        else nx.all_pairs_shortest_path_length(G)
    )
    ref = np.full((g.n, g.n), np.inf)
    for s, row in rows:
        for t, d in row.items():
            ref[s, t] = d
    return ref


def _read(path, n):
    t = pq.read_table(path)
    assert t.column_names == ["source", "target", "distance"]
    m = np.full((n, n), np.inf)
    m[t["source"].to_numpy(), t["target"].to_numpy()] = t["distance"].to_numpy()
    return m, t


@pytest.mark.parametrize("shape,directed,weighted", CASES)
def test_apsp_matches_networkx_in_memory_and_streamed(shape, directed, weighted, tmp_path):
    g = make_shape(shape, directed, weighted)
    ref = _reference(g, weighted)
    for threads in (1, 2, 3):
        r = apsp(g, threads=threads)
        assert r.distances.dtype == np.float64 and r.distances.shape == (g.n, g.n)
        np.testing.assert_allclose(r.distances, ref, rtol=1e-12)
        assert not r.meta["streamed"] and r.meta["bytes"] == 8 * g.n * g.n
    if g.n:
        with pytest.raises(InvalidArgumentError, match=f"needs {8 * g.n * g.n:,} bytes"):
            apsp(g, max_memory=8 * g.n * g.n - 1)
    s = apsp(g, threads=3, output=tmp_path / "d.parquet", max_memory=1, block=7)
    m, t = _read(s.path, g.n)
    np.testing.assert_array_equal(m, r.distances)
    assert s.distances is None and s.meta["pairs"] == t.num_rows == np.isfinite(ref).sum()
    key = t["source"].to_numpy() * max(g.n, 1) + t["target"].to_numpy()
    assert (np.diff(key) > 0).all()  # ordered by source, then target; no duplicates


def test_streamed_output_to_a_folder_with_string_ids(tmp_path):
    ids = np.array(["a", "b", "c", "x"], dtype=object)
    g = Graph.from_edges([0, 1], [1, 2], [2.0, 0.5], n=4, directed=True, ids=ids)
    s = apsp(g, output=tmp_path / "out", threads=2, block=1)
    assert Path(s.path) == tmp_path / "out" / "apsp.parquet"
    rows = sorted(zip(*pq.read_table(s.path).to_pydict().values(), strict=True))
    assert rows == [
        ("a", "a", 0.0), ("a", "b", 2.0), ("a", "c", 2.5), ("b", "b", 0.0), ("b", "c", 0.5),
        ("c", "c", 0.0), ("x", "x", 0.0),
    ]  # fmt: skip
    r = apsp(g)
    assert r.distance("a", "c") == 2.5 and r.distance("c", "a") == np.inf
    assert r.to_dict()[("a", "c")] == 2.5 and ("c", "a") not in r.to_dict()
    with pytest.raises(InvalidArgumentError, match="streamed"):
        s.distance("a", "c")


def test_unweighted_means_hop_counts_and_zero_weights_are_fine():
    g = Graph.from_edges([0, 1, 0], [1, 2, 2], [0.0, 0.0, 5.0], n=3, directed=False)
    assert apsp(g).distances[0].tolist() == [0.0, 0.0, 0.0]
    assert apsp(g, weighted=False).distances[0].tolist() == [0.0, 1.0, 1.0]


def test_refusals_state_the_size(tmp_path, monkeypatch):
    g = make_shape("components", False, False)
    with pytest.raises(InvalidArgumentError, match=r"needs 320,000 bytes.*pass output="):
        apsp(g, max_memory=1000)
    # exact for undirected graphs: 16 B per pair inside a component
    sizes = np.bincount(
        np.asarray(
            [min(c) for c in nx.connected_components(to_networkx(g)) for _ in c], dtype=np.int64
        )
    )
    need = 16 * int((sizes.astype(np.int64) ** 2).sum())

    class Tiny:
        free = need - 1

    monkeypatch.setattr(apsp_module.shutil, "disk_usage", lambda _p: Tiny)
    with pytest.raises(InvalidArgumentError, match=f"need about {need:,} bytes on disk"):
        apsp(g, output=tmp_path / "d.parquet")
    assert not (tmp_path / "d.parquet").exists()
    Tiny.free = need
    assert apsp(g, output=tmp_path / "d.parquet").meta["streamed"]


def test_bad_arguments(tmp_path):
    neg = Graph.from_edges([0, 1], [1, 2], [1.0, -2.0], n=3)
    with pytest.raises(InvalidGraphError, match=r"non-negative edge weights; edge 1 -> 2"):
        apsp(neg)
    assert apsp(neg, weighted=False).distances[0, 2] == 2.0
    with pytest.raises(InvalidArgumentError, match="no edge weights"):
        apsp(make_shape("path", False, False), weighted=True)
    g = make_shape("path", True, False)
    with pytest.raises(InvalidArgumentError, match="block"):
        apsp(g, block=0)
    with pytest.raises(InvalidArgumentError, match="max_memory"):
        apsp(g, max_memory="lots")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(InvalidArgumentError, match="neither a .parquet path nor a folder"):
        apsp(g, output=tmp_path / "file.txt")
    with pytest.raises(InvalidArgumentError, match="does not exist"):
        apsp(g, output=tmp_path / "missing" / "d.parquet")
