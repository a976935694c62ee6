"""The ``hpgraph`` command line: every command on tiny graphs, result files in the user's
ids, and the exit codes (0 ok, 1 verification/kernel failure, 2 bad input or usage)."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from hpgraph.cli.main import cli

# a path a-b-c-d (weights 1.5, 2, 0.5) and a triangle x-y-z (weights 1), string ids
EDGES = "# a path and a triangle\na b 1.5\nb c 2\nc d 0.5\nx y 1\ny z 1\nz x 1\n"
PATH_VERTICES = ["a", "b", "c", "d"]
TRIANGLE = ["x", "y", "z"]


def _runner():
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)
    except TypeError:
        return CliRunner()


def invoke(*args):
    return _runner().invoke(cli, [str(a) for a in args])


def ok(*args):
    r = invoke(*args)
    assert r.exit_code == 0, f"exit {r.exit_code}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r


def one_line_error(r, code):
    """Exit ``code`` with exactly one line on stderr, ``hpgraph: error: ...``."""
    assert r.exit_code == code, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hpgraph: error: "), r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    return lines[0]


@pytest.fixture
def edges(tmp_path):
    p = tmp_path / "small.el"
    p.write_text(EDGES)
    return p


def read_csv(path):
    # every column as text, so that ids and values are compared as written
    t = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(strings_can_be_null=False))
    return {c: t[c].to_pylist() for c in t.column_names}


# ------------------------------------------------------------------------ the script
def _script():
    exe = Path(sys.executable).parent / ("hpgraph.exe" if os.name == "nt" else "hpgraph")
    if not exe.exists():
        pytest.skip(f"the hpgraph script is not installed beside {sys.executable}")
    return str(exe)


def test_installed_script_generates_then_describes(tmp_path):
    exe = _script()
    out = tmp_path / "k6.hpgc"
    run = dict(capture_output=True, text=True, timeout=300)
    r = subprocess.run([exe, "generate", "kronecker", "--scale", "6", "-o", out], **run)
    assert r.returncode == 0, r.stderr
    assert out.exists() and f"wrote {out}" in r.stdout
    r = subprocess.run([exe, "info", out], **run)
    assert r.returncode == 0, r.stderr
    assert "vertices           64" in r.stdout
    assert "edges              1,024 (undirected)" in r.stdout
    assert "B per stored edge" in r.stdout
    r = subprocess.run([exe, "info", tmp_path / "missing.el"], **run)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"hpgraph: error: {tmp_path / 'missing.el'}: no such file (nor a generator spec "
        "such as kronecker:16 or uniform:1M:16M)"
    ]


def test_help_and_version_do_not_load_the_kernels():
    code = (
        "import sys; from hpgraph.cli.main import cli\n"
        "try:\n    cli.main(['--help'], standalone_mode=False)\n"
        "finally:\n    print(sorted(m for m in ('numpy', 'numba') if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("[]")
    assert "Commands:" in r.stdout and "demo" in r.stdout
    r = ok("--version")
    assert r.stdout.startswith("hpgraph ")


# --------------------------------------------------------------------------- run
def test_bfs_writes_depths_and_parents_in_user_ids(edges, tmp_path):
    csv, par = tmp_path / "bfs.csv", tmp_path / "bfs.parquet"
    r = ok("run", "bfs", edges, "--source", "a", "-t", "1", "--verify", "-o", csv)
    assert "reached     4 of 7 vertices" in r.stdout
    assert "verified: yes" in r.stdout
    got = read_csv(csv)
    assert got["vertex"] == PATH_VERTICES + TRIANGLE
    assert got["depth"] == [0, 1, 2, 3, -1, -1, -1]
    assert got["parent"] == ["a", "a", "b", "c", "", "", ""]
    ok("run", "bfs", edges, "--source", "a", "-t", "2", "-o", par)
    t = pq.read_table(par).to_pydict()
    assert t["vertex"] == PATH_VERTICES + TRIANGLE
    assert t["depth"] == [0, 1, 2, 3, -1, -1, -1]


def test_sssp_distances_and_negative_weights(edges, tmp_path):
    par = tmp_path / "sssp.parquet"
    r = ok("run", "sssp", edges, "-s", "b", "-t", "2", "--verify", "-o", par)
    assert "verified: yes" in r.stdout
    assert re.search(r"variant\s+delta-stepping \([\d,]+ rounds, bucket width", r.stdout)
    r = ok("run", "sssp", edges, "-s", "b", "--variant", "bellman-ford", "--dtype", "float32")
    assert re.search(r"variant\s+bellman-ford\n", r.stdout) and "precision     float32" in r.stdout
    t = pq.read_table(par).to_pydict()
    dist = dict(zip(t["vertex"], t["distance"], strict=True))
    assert [dist[v] for v in PATH_VERTICES] == [1.5, 0.0, 2.0, 2.5]
    assert all(math.isinf(dist[v]) for v in TRIANGLE)
    parent = dict(zip(t["vertex"], t["parent"], strict=True))
    assert parent["a"] == "b" and parent["d"] == "c" and parent["x"] == ""

    neg = tmp_path / "neg.el"
    neg.write_text("a b 1\nb c -2\n")
    line = one_line_error(invoke("run", "sssp", neg, "-s", "a"), 2)
    assert "non-negative" in line and "'b' -> 'c'" in line and "-2.0" in line


def test_wcc_and_pagerank_results(edges, tmp_path):
    ok("run", "wcc", edges, "-t", "2", "--verify", "-o", tmp_path / "wcc.csv")
    comp = dict(zip(*read_csv(tmp_path / "wcc.csv").values(), strict=True))
    assert {comp[v] for v in PATH_VERTICES} == {"a"}  # the smallest member, in user ids
    assert {comp[v] for v in TRIANGLE} == {"x"}

    r = ok("run", "pagerank", edges, "-t", "1", "--verify", "--iterations", "30", "-o",
           tmp_path / "pr.parquet")  # fmt: skip
    assert "top 5 vertices by rank" in r.stdout and "iterations  30" in r.stdout
    r_double = r.stdout
    t = pq.read_table(tmp_path / "pr.parquet").to_pydict()
    rank = dict(zip(t["vertex"], t["rank"], strict=True))
    assert math.isclose(sum(rank.values()), 1.0, rel_tol=1e-9)
    assert rank["x"] == pytest.approx(rank["y"]) == pytest.approx(rank["z"])
    assert rank["b"] > rank["a"] and rank["c"] > rank["d"]

    r = ok("run", "pagerank", edges, "-t", "2", "--verify", "--iterations", "30", "--dtype",
           "float32", "-o", tmp_path / "pr32.parquet")  # fmt: skip
    assert "precision   float32" in r.stdout and "precision" not in r_double
    t32 = pq.read_table(tmp_path / "pr32.parquet")
    assert t32.schema.field("rank").type == "float"
    single = dict(zip(*t32.to_pydict().values(), strict=True))
    assert single == pytest.approx(rank, rel=1e-5)

    # the hub-grouped view: the same ranks in the input's ids, and the report says so
    r = ok("run", "pagerank", edges, "-t", "2", "--verify", "--iterations", "30", "--order",
           "hubs", "-o", tmp_path / "prh.parquet")  # fmt: skip
    assert "vertex order  hubs first" in r.stdout and "vertex order" not in r_double
    hubs = dict(zip(*pq.read_table(tmp_path / "prh.parquet").to_pydict().values(), strict=True))
    assert hubs == pytest.approx(rank, rel=1e-12)


def test_stats_table_and_default_source_on_a_generated_graph():
    r = ok("run", "sssp", "kronecker:5", "-t", "2", "--stats", "--verify")
    out = r.stdout
    assert "default: the vertex of highest out-degree" in out
    assert "weighted; generated (seed 0)" in out  # sssp gets weights on a generated graph
    for head in ("superstep", "active", "msgs local", "msgs remote", "bytes", "mode",
                 "compute ms", "comm ms", "barrier ms", "total"):  # fmt: skip
        assert head in out
    assert "verified: yes" in out


def test_integer_ids_resolve_from_command_line_strings(tmp_path):
    p = tmp_path / "ints.el"
    p.write_text("10 20\n20 30\n")
    ok("run", "bfs", p, "--source", "20", "-t", "1", "-o", tmp_path / "d.csv")
    got = read_csv(tmp_path / "d.csv")
    assert got == {"vertex": [10, 20, 30], "depth": [1, 0, 1], "parent": [20, 20, 20]}


# ------------------------------------------------------------------------ errors
def test_bad_input_is_exit_2_with_one_line(tmp_path, edges):
    line = one_line_error(invoke("info", tmp_path / "missing.el"), 2)
    assert "missing.el: no such file" in line
    ragged = tmp_path / "ragged.el"
    ragged.write_text("a b\nb c 2\nc d\n")
    line = one_line_error(invoke("run", "bfs", ragged, "-s", "a"), 2)
    assert f"{ragged}:2:" in line
    assert "choose from bfs, wcc, pagerank, sssp" in one_line_error(
        invoke("run", "nosuch", edges), 2
    )
    assert "unknown vertex 'q'" in one_line_error(invoke("run", "bfs", edges, "-s", "q"), 2)
    assert "does not apply to bfs" in one_line_error(
        invoke("run", "bfs", edges, "--damping", "0.5"), 2
    )
    assert "--source applies only to" in one_line_error(invoke("run", "wcc", edges, "-s", "a"), 2)
    assert "result format" in one_line_error(invoke("run", "wcc", edges, "-o", "x.txt"), 2)
    assert "damping must lie in [0, 1]" in one_line_error(
        invoke("run", "pagerank", edges, "--damping", "2"), 2
    )
    one_line_error(invoke("run", "bfs"), 2)  # click usage error
    one_line_error(invoke("generate", "kronecker"), 2)
    one_line_error(invoke("convert", edges, tmp_path / "out.mtx"), 2)


def test_debug_shows_the_traceback(tmp_path):
    r = invoke("--debug", "info", tmp_path / "missing.el")
    assert r.exit_code == 2
    assert "Traceback" in r.stderr and "hpgraph: error: " in r.stderr


def test_verification_failure_and_kernel_error_are_exit_1(edges, monkeypatch):
    from hpgraph.algorithms import ALGORITHMS, Algorithm, verify
    from hpgraph.errors import VerificationError

    def reject(*args):
        raise VerificationError("bfs: made up by the test")

    monkeypatch.setattr(verify, "verify_bfs", reject)
    r = invoke("run", "bfs", edges, "-s", "a", "-t", "1", "--verify")
    assert "made up by the test" in one_line_error(r, 1)
    assert "verified: FAILED" in r.stdout

    def boom(graph, **kw):
        raise RuntimeError("kernel exploded")

    monkeypatch.setitem(ALGORITHMS, "wcc", Algorithm("wcc", boom, False, "broken"))
    line = one_line_error(invoke("run", "wcc", edges), 1)
    assert "internal error: RuntimeError: kernel exploded" in line


# -------------------------------------------------------------- generate, convert
def test_generate_convert_info_roundtrip(tmp_path):
    el = tmp_path / "u.el"
    r = ok("generate", "uniform", "-n", "100", "-m", "300", "--weighted", "--seed", "3", "-o", el)
    assert "vertices           100" in r.stdout
    par = tmp_path / "u.parquet"
    ok("convert", el, par)
    r1, r2 = ok("info", el, "--no-cache"), ok("info", par)
    facts = [line for line in r1.stdout.splitlines() if line.startswith(("edges", "weighted"))]
    assert facts == [
        "edges              300 (undirected)",
        "weighted           yes",
    ]
    assert all(f in r2.stdout for f in facts)
    one_line_error(invoke("generate", "uniform", "-n", "10", "-m", "5", "-o", tmp_path / "x.y"), 2)


def test_writing_edges_only_names_the_isolated_vertices_it_loses(tmp_path):
    # 100 vertices, 20 edges: most vertices are isolated; only .hpgc keeps them
    hpgc = tmp_path / "u.hpgc"
    r = ok("generate", "uniform", "-n", "100", "-m", "20", "--seed", "1", "-o", hpgc)
    assert "note:" not in r.stdout
    isolated = int(r.stdout.split("isolated vertices")[1].split()[0])
    assert isolated > 50
    for out, what in (("u.parquet", "Parquet edge table"), ("u.el", "edge list")):
        r = ok("convert", hpgc, tmp_path / out)
        note = f"note: {isolated} isolated vertices are not in the {what} (only .hpgc keeps them)"
        assert note in r.stdout
        kept = ok("info", tmp_path / out, "--no-cache").stdout
        assert f"vertices           {100 - isolated}" in kept  # the note tells the truth


def test_convert_order_hubs_numbers_the_graph_hubs_first_with_its_ids(tmp_path):
    hubs = tmp_path / "k.hpgc"
    r = ok("convert", "kronecker:9", hubs, "--order", "hubs", "--threads", "2", "--weighted")
    assert "numbered hubs first in" in r.stdout
    facts = ok("info", hubs).stdout
    assert "vertex order       hubs first (PageRank and SSSP need no view)" in facts
    assert "vertex order" not in ok("info", "kronecker:9").stdout
    assert "already numbered hubs first" in ok("convert", hubs, tmp_path / "again.hpgc",
                                               "--order", "hubs").stdout  # fmt: skip
    # results name vertices by the input's ids: the same rows, in another order
    rows = {}
    for name, graph in (("plain", "kronecker:9"), ("hubs", hubs)):
        out = tmp_path / f"{name}.csv"
        ok("run", "sssp", graph, "--source", "5", "-o", out)
        rows[name] = sorted(out.read_text().splitlines()[1:])
    dist = {k: [line.split(",")[:2] for line in v] for k, v in rows.items()}
    assert dist["plain"] == dist["hubs"]
    r = ok("run", "pagerank", hubs, "--order", "hubs")  # no view: the graph as it is
    assert "vertex order  hubs first (the graph's own numbering)" in r.stdout
    err = one_line_error(invoke("convert", hubs, tmp_path / "k.el", "--order", "hubs"), 2)
    assert "--order hubs writes .hpgc only" in err and not (tmp_path / "k.el").exists()


# --------------------------------------------------------------------- demo, bench
def test_demo_small_scale_verifies_every_kernel():
    r = ok("demo", "--scale", "8", "--threads", "2")
    for kernel in ("pagerank", "bfs", "wcc", "sssp"):
        assert kernel in r.stdout
    assert "all 4 kernels verified" in r.stdout


def test_bench_runs_and_rejects_unknown_kernels(tmp_path):
    out = tmp_path / "bench.csv"
    ok("bench", "kronecker:6", "-k", "bfs", "--trials", "1", "--roots", "1", "--threads", "1",
       "--peers", "scipy", "-o", out)  # fmt: skip
    assert out.read_text().startswith("kernel,")
    assert "unknown kernels" in one_line_error(invoke("bench", "kronecker:6", "-k", "xx"), 2)


def test_bench_competitors_and_their_old_option_name(tmp_path):
    out = tmp_path / "bench.csv"
    args = ("bench", "kronecker:5", "-k", "wcc", "--trials", "1", "--threads", "1", "-o", out)
    for option in ("--competitors", "--peers"):  # --peers: the old name, hidden
        r = ok(*args, option, "scipy")
        systems = [line.split(",")[4] for line in out.read_text().splitlines()[1:]]
        assert systems == ["hpgraph", "scipy"]
    assert "--peers is now --competitors" in r.stderr
    text = ok("bench", "--help").stdout
    assert "--competitors" in text and "--peers" not in text


def test_a_parquet_dataset_folder_is_an_input(tmp_path):
    folder = tmp_path / "edges.parquet"
    folder.mkdir()
    pq.write_table(pa.table({"src": ["a", "b"], "dst": ["b", "c"]}), folder / "part-0.parquet")
    pq.write_table(pa.table({"src": ["x"], "dst": ["y"]}), folder / "part-1.parquet")
    r = ok("run", "wcc", folder)
    assert "5 vertices, 3 edges" in r.stdout and "components  2" in r.stdout
    plain = tmp_path / "plain"
    plain.mkdir()
    r = invoke("run", "wcc", plain)
    assert r.exit_code != 0 and "is a folder, not a graph file" in r.stderr
    r = invoke("run", "wcc", plain, "--format", "parquet")  # named: read as a dataset
    assert r.exit_code != 0 and "a folder with no .parquet files" in r.stderr
