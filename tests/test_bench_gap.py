"""``hpgraph bench --gap DIR`` against a fake GAP: shell scripts named like GAP's programs
that print what GAP's print (``src/benchmark.h``, ``util.h`` and each kernel's analysis;
lines copied from GAP's bfs, pr_spmv, cc and sssp), so that running, parsing and ratio
reporting are tested without GAP. The graph header comes from the serialized file the
harness wrote; the analysis counts from FAKE_REACHED / FAKE_COMPONENTS."""

from __future__ import annotations

import stat
import sys

import numpy as np
import pytest

from hpgraph.bench import run_bench
from hpgraph.bench.gap import (
    WEIGHT_SCALE,
    analysis_count,
    quantize_weights,
    trial_times,
    write_serialized,
)
from hpgraph.graph import Graph

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="shell scripts")

# what GAP's programs print, the timings replaced: trial k (k >= 1) takes 0.k s, the first
# (the harness's warm-up) 9 s
FAKE = r"""#!/bin/sh
name=$(basename "$0")
echo "$name $* OMP_NUM_THREADS=$OMP_NUM_THREADS" >> "$FAKE_LOG"
n=1; file=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n) n=$2; shift ;;
    -f) file=$2; shift ;;
  esac
  shift
done
set -- $(od -An -t d8 -j 1 -N 16 "$file")
echo "Read Time:           0.00021"
echo "Graph has $2 nodes and $(($1 / 2)) undirected edges for degree: 1"
echo "Trial Time:          9.00000"
i=1
while [ $i -lt $n ]; do
  echo "Trial Time:          0.${i}0000"
  i=$((i + 1))
done
case "$name" in
  bfs) echo "BFS Tree has $FAKE_REACHED nodes and 6 edges" ;;
  sssp) echo "SSSP Tree reaches $FAKE_REACHED nodes" ;;
  cc) printf '\n2 biggest clusters\n0:4\n4:1\nThere are %s components\n' "$FAKE_COMPONENTS" ;;
  pr_spmv) printf '1:0.3\n2:0.3\n0:0.17\n' ;;
esac
echo "Average Time:        0.15000"
"""


def _fake_gap(directory, programs=("bfs", "pr_spmv", "cc", "sssp")):
    directory.mkdir(exist_ok=True)
    for name in programs:
        path = directory / name
        path.write_text(FAKE)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return directory


def _path_and_isolated():
    """0 - 1 - 2 - 3 weighted, vertex 4 isolated: 2 components, every root reaches 4."""
    return Graph.from_edges([0, 1, 2], [1, 2, 3], [0.25, 0.5, 0.3], n=5, directed=False)


@pytest.fixture
def fake_env(tmp_path, monkeypatch):
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_REACHED", "4")
    monkeypatch.setenv("FAKE_COMPONENTS", "2")
    return log


def test_gap_rows_times_checks_and_ratios(tmp_path, fake_env):
    gap = _fake_gap(tmp_path / "gap")
    out = tmp_path / "bench.md"
    report = run_bench(
        ["pagerank", "bfs", "wcc", "sssp"],
        [("tiny", _path_and_isolated())],
        trials=2,
        threads=2,
        roots=2,
        quiet=True,
        competitors=["scipy"],
        gap=gap,
        out=out,
    )
    assert report.ok, report.failures
    rows = {(r["kernel"], r["system"]): r for r in report.rows}
    for kernel, check in (
        ("pagerank", "-"),
        ("bfs", "reached equal vs hpgraph"),
        ("wcc", "components equal vs hpgraph"),
        ("sssp", "reached equal vs hpgraph"),
    ):
        row = rows[(kernel, "gap")]
        rooted = kernel in ("bfs", "sssp")
        assert row["runs"] == 2 * (2 if rooted else 1), kernel  # the 9 s warm-up dropped
        assert row["median_s"] == pytest.approx(0.15) and row["min_s"] == pytest.approx(0.1)
        assert row["spread"] == pytest.approx(0.5)  # trials 0.1 and 0.2 s of every root
        assert row["check"] == check and row["agree"], (kernel, row["check"])
        assert row["ratio"] == pytest.approx(0.15 / rows[(kernel, "hpgraph")]["median_s"])
        assert row["threads"].startswith("2 threads")
        assert (row["teps"] is not None) == rooted
    calls = fake_env.read_text().splitlines()
    assert len(calls) == 1 + 2 + 1 + 2  # pagerank, bfs per root, wcc, sssp per root
    assert all(" -n 3 -a" in c and c.endswith("OMP_NUM_THREADS=2") for c in calls)
    assert any(c.startswith("pr_spmv ") and "-i 20 -t 0" in c for c in calls)
    roots = {int(c.split("-r ")[1].split()[0]) for c in calls if c.startswith("bfs ")}
    assert roots == set(report.graphs[0]["roots"])
    sssp = [c for c in calls if c.startswith("sssp ")]
    assert all(".wsg" in c and " -d " in c for c in sssp) and ".sg " in calls[0]
    text = out.read_text()
    assert "## hpgraph time / GAP time" in text
    hp = rows[("bfs", "hpgraph")]["median_s"]
    assert f"- bfs on tiny: hpgraph / GAP = {hp / 0.15:.2f}x" in text
    assert "| pagerank | tiny | " in text and "gap" in text.split("## Competitor time")[1]


def test_gap_count_that_differs_is_shown_and_missing_programs(tmp_path, fake_env, monkeypatch):
    monkeypatch.setenv("FAKE_COMPONENTS", "3")
    gap = _fake_gap(tmp_path / "gap", programs=("cc",))
    report = run_bench(
        ["bfs", "wcc"],
        [("tiny", _path_and_isolated())],
        trials=1,
        threads=1,
        roots=1,
        quiet=True,
        competitors=[],
        gap=gap,
    )
    assert report.ok  # GAP is a comparison, not a verified system
    rows = {(r["kernel"], r["system"]): r for r in report.rows}
    assert rows[("wcc", "gap")]["check"] == "components 3 != 2"
    assert not rows[("wcc", "gap")]["agree"]
    assert rows[("bfs", "gap")]["runs"] == 0
    assert "no executable bfs" in rows[("bfs", "gap")]["note"]


def test_cli_gap_option(tmp_path, fake_env, monkeypatch):
    from hpgraph.bench.__main__ import main

    monkeypatch.setenv("FAKE_COMPONENTS", "1")
    graph = tmp_path / "path.el"
    graph.write_text("0 1\n1 2\n2 3\n")
    gap = _fake_gap(tmp_path / "gap")
    out = tmp_path / "r.csv"
    argv = ["--graph", str(graph), "--kernels", "wcc,bfs", "--trials", "1", "--roots", "1"]
    argv += ["--threads", "1", "--competitors", "scipy", "--gap", str(gap), "--out", str(out)]
    assert main(argv) == 0
    lines = out.read_text().splitlines()
    gap_rows = [x for x in lines if ",gap," in x]
    assert len(gap_rows) == 2 and all("equal vs hpgraph" in x for x in gap_rows)


def test_serialized_graph_layout(tmp_path):
    g = _path_and_isolated()
    write_serialized(g, tmp_path / "g.sg")
    write_serialized(g, tmp_path / "g.wsg", weighted=True)
    raw = (tmp_path / "g.sg").read_bytes()
    assert raw[0] == 0  # undirected
    m, n = np.frombuffer(raw[1:17], dtype=np.int64)
    assert (m, n) == (6, 5)
    offsets = np.frombuffer(raw[17 : 17 + 8 * (n + 1)], dtype=np.int64)
    neigh = np.frombuffer(raw[17 + 8 * (n + 1) :], dtype=np.int32)
    assert offsets.tolist() == g.indptr.tolist() and neigh.tolist() == g.indices.tolist()
    wraw = (tmp_path / "g.wsg").read_bytes()
    pairs = np.frombuffer(wraw[17 + 8 * (n + 1) :], dtype=np.int32).reshape(-1, 2)
    assert pairs[:, 0].tolist() == g.indices.tolist()
    assert (pairs[:, 1] / WEIGHT_SCALE).tolist() == quantize_weights(g.weights).tolist()


def test_quantized_weights_are_exact_multiples():
    w = np.array([0.0, 1e-9, 0.3, 0.999999999])
    q = quantize_weights(w)
    assert np.array_equal(q * WEIGHT_SCALE, np.rint(q * WEIGHT_SCALE))
    assert np.max(np.abs(q - w)) <= 1.0 / WEIGHT_SCALE
    assert q[0] == 0.0 and q[1] == 1.0 / WEIGHT_SCALE  # no new zero weights


def test_parsing_gap_output():
    # printed by GAP's sssp (github sbeamer/gapbs) on a serialized Kronecker graph
    text = (
        "Read Time:           0.02779\n"
        "Graph has 1024 nodes and 16319 undirected edges for degree: 15\n"
        "Trial Time:          0.11191\n"
        "Trial Time:          0.09000\n"
        "SSSP Tree reaches 896 nodes\n"
        "Verification:           PASS\n"
        "Verification Time:   0.03592\n"
        "Average Time:        0.10095\n"
    )
    assert trial_times(text) == [0.11191, 0.09]
    assert analysis_count(text, r"SSSP Tree reaches (\d+) nodes") == 896
    assert analysis_count(text, r"BFS Tree has (\d+) nodes") is None
    assert analysis_count(text, None) is None


def test_gap_dir_must_exist(tmp_path):
    from hpgraph.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="not a directory"):
        run_bench(["bfs"], [("tiny", _path_and_isolated())], quiet=True, gap=tmp_path / "no")
