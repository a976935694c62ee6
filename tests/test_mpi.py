"""The MPI runtime, really started: ``mpiexec -n 1, 2, 3`` (3: uneven parts) runs every
kernel and engine feature and compares with the local runtime (tests/mpi/)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MPIEXEC, NO_MPI

HERE = Path(__file__).parent / "mpi"
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)


def _run(n, script, timeout, *args):
    env = dict(os.environ, PYTHONPATH=str(HERE.parent.parent / "src"))
    return subprocess.run(
        [MPIEXEC, "-n", str(n), sys.executable, str(HERE / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_kernels_match_the_local_runtime(ranks):
    out = _run(ranks, "check_runtime.py", timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ALL OK" in out.stdout


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


def test_a_killed_rank_ends_the_job():
    out = _run(3, "kill_one_rank.py", timeout=300)  # a hang would hit the timeout
    assert out.returncode != 0
    assert "finished, which it must not" not in out.stdout


@pytest.mark.parametrize("ranks", [1, 3])
def test_peer_level_bsp_on_mpi(ranks):
    out = _run(ranks, "check_bsp.py", timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("BSP OK") == ranks


def test_a_failing_bsp_peer_aborts_the_job():
    out = _run(3, "check_bsp.py", 300, "fail")
    assert out.returncode != 0
    assert "peer 1 failed: ValueError: peer one gives up" in out.stderr
    assert "BSP OK" not in out.stdout
