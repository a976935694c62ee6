"""The MPI runtime, really started: ``mpiexec -n 1, 2, 3`` (3: uneven parts) runs every
kernel and engine feature and compares with the local runtime (tests/mpi/)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi

HERE = Path(__file__).parent / "mpi"
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)


def _run(n, script, timeout, *args, env=None):
    return run_mpi(n, script, *args, timeout=timeout, env=env)


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_kernels_match_the_local_runtime(ranks):
    out = _run(ranks, "check_runtime.py", timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ALL OK" in out.stdout


@pytest.mark.parametrize(
    "ranks, per_node",
    [(4, 2), (3, 2), (2, 0)],  # 2 nodes x 2 ranks; uneven nodes (2 + 1); real shared memory
    ids=["2x2", "2+1", "shm"],
)
def test_node_aggregation_matches_the_local_runtime(ranks, per_node):
    env = {"HPGRAPH_MPI_RANKS_PER_NODE": str(per_node)} if per_node else {}
    out = _run(ranks, "check_runtime.py", 900, "--aggregation", "node", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "aggregation='node'" in out.stdout and "ALL OK" in out.stdout


@pytest.mark.parametrize("aggregation", ["direct", "node"])
def test_hybrid_ranks_times_threads(aggregation):
    out = _run(2, "check_runtime.py", 900, "--threads", "2", "--aggregation", aggregation,
               env={"HPGRAPH_MPI_RANKS_PER_NODE": "1"})  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert "threads=2" in out.stdout and "ALL OK" in out.stdout


@pytest.mark.parametrize("ranks", [2, 3])
def test_own_rows_mode_touches_only_a_ranks_rows(ranks, tmp_path):
    out = _run(ranks, "check_own_rows.py", 600, str(tmp_path / "k17.hpgc"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("OWN ROWS OK") == ranks


def test_a_failing_rank_stops_every_rank():
    out = _run(3, "fail_one_rank.py", timeout=300)  # a hang would hit the timeout
    # ranks print concurrently, so lines may interleave: match the reports anywhere
    reports = dict(re.findall(r"rank (\d): (\w+):", out.stdout))
    assert sorted(reports) == ["0", "1", "2"], out.stdout + out.stderr
    assert sorted(reports.values()) == ["IndexError", "RuntimeErrorInJob", "RuntimeErrorInJob"]
    assert out.stdout.count("other MPI rank(s) failed") == 2
    assert out.returncode != 0


def test_cli_ranks_option_runs_the_same_job_on_mpi(tmp_path):
    exe = Path(sys.executable).parent / "hpgraph"
    if not exe.exists():
        pytest.skip("the hpgraph script is not installed beside the interpreter")
    edges = tmp_path / "g.el"
    edges.write_text("a b\nb c\nc d\nx y\n")
    out = tmp_path / "depth.csv"
    r = subprocess.run(
        [str(exe), "run", "bfs", str(edges), "--source", "a", "--ranks", "2", "--verify",
         "--stats", "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert "mpi, 2 ranks" in r.stdout and "verified: yes" in r.stdout
    assert r.stdout.count("wrote ") == 1  # only rank 0 reports and writes
    rows = out.read_text().splitlines()
    assert rows[0] == "vertex,depth,parent"
    assert sorted(rows[1:]) == ["a,0,a", "b,1,a", "c,2,b", "d,3,c", "x,-1,", "y,-1,"]


def test_cli_hybrid_node_aggregation_and_parts(tmp_path):
    exe = Path(sys.executable).parent / "hpgraph"
    if not exe.exists():
        pytest.skip("the hpgraph script is not installed beside the interpreter")
    edges = tmp_path / "g.el"
    edges.write_text("a b\nb c\nc d\nx y\n")
    r = subprocess.run(
        [str(exe), "run", "bfs", str(edges), "--source", "a", "--ranks", "2", "--threads",
         "2", "--aggregation", "node", "--parts", "-o", str(tmp_path / "depth.csv")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert "mpi, 2 ranks x 2 threads, node exchange" in r.stdout
    files = sorted(tmp_path.glob("depth.part*.csv"))
    assert [f.name for f in files] == ["depth.part00000.csv", "depth.part00001.csv"]
    rows = []
    for f in files:
        lines = f.read_text().splitlines()
        assert lines[0] == "vertex,depth,parent"
        rows += lines[1:]
    assert sorted(rows) == ["a,0,a", "b,1,a", "c,2,b", "d,3,c", "x,-1,", "y,-1,"]


def test_a_killed_rank_ends_the_job():
    out = _run(3, "kill_one_rank.py", timeout=300)  # a hang would hit the timeout
    assert out.returncode != 0
    assert "finished, which it must not" not in out.stdout


@pytest.mark.parametrize("ranks", [1, 3])
def test_peer_level_bsp_on_mpi(ranks):
    out = _run(ranks, "check_bsp.py", timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("BSP OK") == ranks


def test_peer_level_bsp_through_node_leaders():
    out = _run(5, "check_bsp.py", 300, "node", env={"HPGRAPH_MPI_RANKS_PER_NODE": "2"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("BSP OK") == 5


def test_a_failing_bsp_peer_aborts_the_job():
    out = _run(3, "check_bsp.py", 300, "fail")
    assert out.returncode != 0
    assert "peer 1 failed: ValueError: peer one gives up" in out.stderr
    assert "BSP OK" not in out.stdout


@pytest.mark.parametrize("api", ["vertex", "bsp"])
def test_a_stopped_rank_is_named_and_ends_the_job(api):
    # rank 1 stops for good (SIGSTOP); rank 0 waits 4 s at the next exchange, names it
    # from the heartbeats and aborts: every rank, the stopped one too, ends non-zero
    t0 = time.perf_counter()
    out = _run(2, "hang_one_rank.py", 240, api, "stop", env={"HPGRAPH_MPI_TIMEOUT": "4"})
    assert out.returncode != 0 and "FINISHED" not in out.stdout, out.stdout + out.stderr
    lines = [x for x in out.stderr.splitlines() if x.startswith("hpgraph: rank 0 waited 4 s")]
    assert lines and "for rank 1 (last seen" in lines[0], out.stderr
    assert time.perf_counter() - t0 < 200


def test_a_slow_rank_is_not_a_hung_one():
    out = _run(2, "hang_one_rank.py", 240, "bsp", "1.5", env={"HPGRAPH_MPI_TIMEOUT": "6"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("FINISHED") == 2
