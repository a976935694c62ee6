"""The benchmark harness: helpers, and a tiny run of the peer side (peers must agree)."""

import math
import re

import numpy as np
import pytest

from hpgraph.bench import harness, parse_graph_spec, run_bench
from hpgraph.bench._convert import (
    canonical_components,
    dedup_csr,
    depth_from_parents,
    traversed_edges,
)
from hpgraph.bench.report import _cell
from hpgraph.bench.timing import trial_spread
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators import kronecker, path_graph
from hpgraph.graph import Graph


def test_parse_graph_spec():
    assert parse_graph_spec("kronecker:16") == {"kind": "kronecker", "scale": 16, "edge_factor": 16}
    assert parse_graph_spec("kron:10:8")["edge_factor"] == 8
    assert parse_graph_spec("uniform:1M:16M") == {"kind": "uniform", "n": 10**6, "m": 16 * 10**6}
    assert parse_graph_spec("urand:2^10:100_000")["n"] == 1024
    assert parse_graph_spec("file:/x/y.el") == {"kind": "file", "path": "/x/y.el"}
    for bad in ("kronecker", "uniform:10", "grid:3:3", "kron:x"):
        with pytest.raises(InvalidArgumentError):
            parse_graph_spec(bad)


def test_dedup_and_traversed_edges():
    # 0-1 twice, 1-2, a self-loop on 2, vertex 3 isolated
    g = Graph.from_edges([0, 0, 1, 2], [1, 1, 2, 2], [3.0, 1.0, 2.0, 5.0], n=4, directed=False)
    ip, ix, cnt = dedup_csr(g, weighted=False)
    assert ip.tolist() == [0, 1, 3, 5, 5] and ix.tolist() == [1, 0, 2, 1, 2]
    assert cnt.tolist() == [2, 2, 1, 1, 1]
    _, _, w = dedup_csr(g, weighted=True)
    assert w.tolist() == [1.0, 1.0, 2.0, 2.0, 5.0]
    reached = np.array([True, True, True, False])
    assert traversed_edges(g, reached) == 4  # every input edge once
    assert traversed_edges(g, np.array([False, False, False, True])) == 0


def test_depth_from_parents_and_components():
    parent = np.array([0, 0, 1, 2, 3, -9999])  # a path 0-1-2-3-4, vertex 5 unreached
    reached = np.array([True] * 5 + [False])
    assert depth_from_parents(parent, reached, 0).tolist() == [0, 1, 2, 3, 4, -1]
    assert depth_from_parents(np.array([1, 1, 1]), np.ones(3, bool), 1).tolist() == [1, 0, 1]
    assert canonical_components([7, 7, 3, 7, 3]).tolist() == [0, 0, 2, 0, 2]


def test_peers_agree_on_a_small_kronecker_graph(monkeypatch):
    # the peer side alone (hpgraph's kernels hidden): SciPy is the reference of the others
    monkeypatch.setattr(harness, "_hpgraph_kernels", lambda: ({}, {}, "hidden by the test"))
    g = kronecker(8, seed=1, weighted=True)
    report = run_bench(
        ["pagerank", "bfs", "wcc", "sssp"],
        [("kron8", g)],
        trials=1,
        threads=1,
        roots=2,
        quiet=True,
        peers=["scipy", "graphblas", "networkit", "igraph"],  # the slow imports left out
    )
    assert report.ok
    rows = {(r["kernel"], r["system"]): r for r in report.rows}
    assert rows[("bfs", "hpgraph")]["note"] == "hidden by the test"
    assert rows[("bfs", "scipy")]["runs"] == 2  # one trial per root
    assert rows[("bfs", "scipy")]["teps"] > 0
    compared = 0
    for (kernel, system), r in rows.items():
        if system in ("hpgraph", "scipy"):
            continue
        assert r["runs"] > 0, (kernel, system, r["note"])
        assert r["agree"], (kernel, system, r["check"])
        if kernel in ("bfs", "wcc"):
            assert r["check"] == "equal vs scipy", (kernel, system, r["check"])
            compared += 1
    assert compared >= 4  # at least two peers besides SciPy on BFS and WCC
    assert report.graphs[0]["bytes_per_edge"] > 4


def test_pagerank_and_sssp_in_single_precision_against_double_peers():
    # hpgraph's PageRank and SSSP in float32 (GAP's precision), verified, the peers in
    # double; BFS takes no precision and has no note
    g = kronecker(8, seed=1, weighted=True)
    report = run_bench(
        ["pagerank", "sssp", "bfs"], [("kron8", g)], trials=1, threads=1, quiet=True,
        competitors=["scipy"], dtype="float32", roots=1,
    )  # fmt: skip
    assert report.ok
    for kernel in ("pagerank", "sssp"):
        rows = {r["system"]: r for r in report.rows if r["kernel"] == kernel}
        assert rows["hpgraph"]["note"] == "float32" and rows["hpgraph"]["check"] == "verified"
        assert rows["scipy"]["agree"], (kernel, rows["scipy"]["check"])
    bfs_row = next(r for r in report.rows if r["kernel"] == "bfs" and r["system"] == "hpgraph")
    assert bfs_row["note"] == ""
    assert "hpgraph in float32" in report.env["pagerank"]
    assert "SSSP distances in float32" in report.env["precision"]
    with pytest.raises(InvalidArgumentError, match="dtype must be one of float64, float32"):
        run_bench(["pagerank"], [("kron8", g)], quiet=True, dtype="half")
    # the old name, still accepted
    old = run_bench(["pagerank"], [("kron8", g)], trials=1, threads=1, quiet=True,
                    competitors=["scipy"], pagerank_dtype="float32")  # fmt: skip
    assert old.rows[0]["note"] == "float32"
    with pytest.raises(InvalidArgumentError, match="not both"):
        run_bench(["pagerank"], [("kron8", g)], quiet=True, dtype="float32",
                  pagerank_dtype="float32")  # fmt: skip


def test_bench_order_hubs_notes_the_view_and_its_build():
    # PageRank and SSSP on the hub-grouped view, built before the timed calls; BFS has no
    # order and runs as before
    g = kronecker(8, seed=1)
    report = run_bench(
        ["pagerank", "sssp", "bfs"], ["kronecker:8"], trials=1, threads=1, roots=2,
        quiet=True, competitors=["scipy"], order="hubs",
    )  # fmt: skip
    assert report.ok, report.failures
    notes = {r["kernel"]: r["note"] for r in report.rows if r["system"] == "hpgraph"}
    assert re.fullmatch(r"hubs first \(view built in \d+\.\d\d s, untimed\)", notes["pagerank"])
    assert notes["sssp"].startswith("hubs first") and notes["bfs"] == ""
    assert all(r["agree"] for r in report.rows), [r["check"] for r in report.rows]
    assert "numbering (PageRank, SSSP): hubs" in report.env["order"]
    # auto on a graph this small: the input's numbering, no note
    auto = run_bench(["pagerank"], [("kron8", g)], trials=1, threads=1, quiet=True,
                     competitors=["scipy"])  # fmt: skip
    assert [r["note"] for r in auto.rows if r["system"] == "hpgraph"] == [""]
    with pytest.raises(InvalidArgumentError, match="order must be one of"):
        run_bench(["pagerank"], [("kron8", g)], quiet=True, order="degree")


def test_bench_on_a_graph_numbered_hubs_first_takes_the_same_roots():
    # the roots are drawn by id, so the renumbered graph gets the same vertices; hpgraph
    # names a source by its id and SciPy by its number, and they agree
    g = kronecker(8, seed=1, weighted=True)
    h = g.renumbered()
    kw = {"trials": 1, "threads": 1, "roots": 3, "quiet": True, "competitors": ["scipy"]}
    plain = run_bench(["sssp", "bfs"], [("kron8", g)], **kw)
    report = run_bench(["pagerank", "sssp", "bfs"], [("kron8", h)], order="hubs", **kw)
    assert report.ok, report.failures
    assert all(r["agree"] for r in report.rows), [r["check"] for r in report.rows]
    assert sorted(report.graphs[0]["roots"]) == plain.graphs[0]["roots"]
    notes = {r["kernel"]: r["note"] for r in report.rows if r["system"] == "hpgraph"}
    assert notes["pagerank"] == notes["sssp"] == "hubs first (the graph's own numbering)"


def test_trial_spread_is_per_root():
    # two roots of different work, each run alike three times: no spread, though the
    # fastest trial of all is 10x the median one
    assert trial_spread({1: [1.0, 1.0, 1.0], 2: [0.1, 0.1, 0.1]}) == 0.0
    # a root's median trial 1.5 s against its best 1.0 s, the other's 0.2 against 0.2:
    # (1.5 + 0.2) / (1.0 + 0.2)
    got = trial_spread({1: [1.0, 1.5, 3.0], 2: [0.2, 0.2, 0.2]})
    assert got == pytest.approx(1.7 / 1.2 - 1)
    assert trial_spread({None: [2.0, 3.0]}) == pytest.approx(0.25)
    assert math.isnan(trial_spread({1: [1.0], 2: [0.5]}))  # one trial each: nothing to say
    assert _cell("spread", 0.123) == "12%" and _cell("spread", float("nan")) == "-"


def test_report_files(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "_hpgraph_kernels", lambda: ({}, {}, "hidden by the test"))
    md, csv = tmp_path / "b.md", tmp_path / "b.csv"
    args = dict(kernels="wcc", graphs=[("p", path_graph(50))], trials=1, roots=1, quiet=True)
    run_bench(**args, peers=["scipy"], out=md)
    run_bench(**args, peers=["scipy", "nope"], out=csv)
    text = md.read_text()
    assert "| wcc | p | 50 | 49 | scipy |" in text
    assert "| min s | spread |" in text
    assert csv.read_text().splitlines()[0].startswith("kernel,graph,V,E,system")
    with pytest.raises(InvalidArgumentError):
        run_bench(**args, out=tmp_path / "b.txt")
    with pytest.raises(InvalidArgumentError):
        run_bench(kernels="bfs,tc", graphs=["kron:4"], quiet=True)


def test_competitors_by_their_name_and_their_old_name(monkeypatch):
    # run_bench(competitors=), python -m hpgraph.bench --competitors; peers= and --peers
    # (hidden) are the old names, still accepted
    from hpgraph.bench.__main__ import build_parser

    monkeypatch.setattr(harness, "_hpgraph_kernels", lambda: ({}, {}, "hidden by the test"))
    args = dict(kernels="wcc", graphs=[("p", path_graph(20))], trials=1, roots=1, quiet=True)
    report = run_bench(**args, competitors=["scipy"])
    assert [r["system"] for r in report.rows] == ["hpgraph", "scipy"]
    assert list(report.env["competitors"]) == ["scipy"]
    with pytest.raises(InvalidArgumentError, match="not both"):
        run_bench(**args, competitors=["scipy"], peers=["scipy"])
    parser = build_parser()
    assert parser.parse_args(["--competitors", "scipy,igraph"]).competitors == "scipy,igraph"
    assert parser.parse_args(["--peers", "scipy"]).competitors == "scipy"
    assert "--competitors" in parser.format_help() and "--peers" not in parser.format_help()


def test_python_m_bench_names_graphs_as_hpgraph_bench_does(monkeypatch):
    # positional GRAPH specs (as `hpgraph bench` takes them) and --kronecker/--uniform/
    # --graph, in that order; -o/--output as well as --out; --dtype and its old name
    import hpgraph.bench.harness as h
    from hpgraph.bench.__main__ import main

    seen = {}
    monkeypatch.setattr(h, "run_bench", lambda **kw: seen.update(kw) or type("R", (), {"ok": 1}))
    argv = ["kronecker:10", "uniform:1k:8k", "--kronecker", "12", "-o", "r.md", "--dtype",
            "float32"]  # fmt: skip
    assert main(argv) == 0
    assert seen["graphs"] == ["kronecker:10", "uniform:1k:8k", "kronecker:12"]
    assert seen["out"] == "r.md" and seen["dtype"] == "float32"
    assert main(["--pagerank-dtype", "float32"]) == 0
    assert seen["graphs"] == ["kronecker:16"] and seen["dtype"] == "float32"


def test_hpgraph_side_verification_and_failures(monkeypatch):
    # hpgraph's side with stand-in kernels: a right WCC, a wrong BFS its verifier rejects
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    from hpgraph.errors import VerificationError
    from hpgraph.result import VertexResult

    def fake_wcc(graph, threads=None):
        ones = np.ones(graph.num_stored_edges)
        m = sp.csr_matrix((ones, graph.indices, graph.indptr), shape=(graph.n, graph.n))
        labels = connected_components(m, directed=False)[1]
        return VertexResult("wcc", graph, {"component": canonical_components(labels)})

    def fake_bfs(graph, source, threads=None):
        depth = np.full(graph.n, 7, dtype=np.int64)  # wrong on purpose
        return VertexResult("bfs", graph, {"depth": depth})

    seen = []

    def verify_wcc(graph, result):
        seen.append("wcc")

    def verify_bfs(graph, source, result):
        raise VerificationError(f"depth of {source} is not 0")

    monkeypatch.setattr(
        harness,
        "_hpgraph_kernels",
        lambda: (
            {"wcc": fake_wcc, "bfs": fake_bfs},
            {"wcc": verify_wcc, "bfs": verify_bfs},
            "",
        ),
    )
    g = kronecker(7, seed=2)
    report = run_bench("bfs,wcc", [("k7", g)], trials=2, roots=2, quiet=True, peers=["scipy"])
    rows = {(r["kernel"], r["system"]): r for r in report.rows}
    assert seen == ["wcc"]  # verified once (first trial), not per trial
    assert rows[("wcc", "hpgraph")]["check"] == "verified"
    assert rows[("wcc", "scipy")]["check"] == "equal vs hpgraph"
    assert rows[("wcc", "scipy")]["ratio"] > 0
    assert not report.ok and "bfs on k7" in report.failures[0]
    assert rows[("bfs", "hpgraph")]["check"].startswith("FAILED")
    assert rows[("bfs", "scipy")]["check"] == "-"  # a failed result is no reference
