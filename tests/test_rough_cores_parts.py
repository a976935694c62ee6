"""BMLPA's rough cores on partitioned ranks (issue 14): under ``mpiexec -n 1, 2, 3`` the
ranks build, each from its own rows and its ghosts' fetched rows, exactly the whole
graph's cores and initial labels, and ``bmlpa(part)`` from its default start gives
``bmlpa(graph)``'s cover (tests/mpi/check_rough_cores_parts.py); the partitioned
``hpgraph run bmlpa`` writes the one-process file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi
from hpgraph import generators
from hpgraph.algorithms.bmlpa.initial import _cores, rough_cores
from hpgraph.graph.views import simple_view

CASES = ("mention seed=0", "mention seed=1", "mention seed=7", "kron", "clique-ring", "star",
         "path", "multigraph-loops", "empty-rank")  # fmt: skip


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_rough_cores_on_parts_equal_the_whole_graphs(ranks):
    out = run_mpi(ranks, "check_rough_cores_parts.py", timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    for case in CASES:
        assert f"OK {case}" in out.stdout, case
        front = case.split()[0]
        assert f"OK front/{front} communities=" in out.stdout or front == "mention", case
    assert "OK front/mention communities=" in out.stdout
    assert "OK path seed=0 cores=0 rounds=0" in out.stdout  # no vertex of degree >= 3
    assert "OK star seed=0 cores=0 rounds=0" in out.stdout


def test_the_shared_core_kernel_keeps_the_whole_graphs_cores():
    """The whole graph's greedy (now built on the per-vertex ``_core_of`` the ranks share)
    against a naive reading of the paper's rule, in Python."""
    g = generators.kronecker(7, 6, seed=3, directed=False)
    ip, ix = simple_view(g)
    deg = np.diff(ip)
    seed = 4
    from hpgraph.generators._rng import stream

    key = np.random.Generator(stream(seed, 0)).permutation(g.n)
    rows = [set(ix[ip[v] : ip[v + 1]].tolist()) for v in range(g.n)]
    free = np.ones(g.n, bool)
    want = []
    for i in sorted(np.flatnonzero(deg >= 3), key=lambda v: (-deg[v], key[v])):
        free_nb = [u for u in rows[i] if free[u]]
        if not free[i] or not free_nb:
            continue
        j = max(free_nb, key=lambda u: (deg[u], -key[u]))
        cand = sorted(rows[i] & rows[j], key=lambda x: (deg[x], key[x]))
        core = [i, j]
        while cand:
            core.append(cand[0])
            cand = [x for x in cand[1:] if x in rows[cand[0]]]
        if len(core) >= 3:
            want.append(core)
            free[core] = False
    cptr, members = _cores(ip, ix, seed)
    got = [members[cptr[c] : cptr[c + 1]].tolist() for c in range(cptr.size - 1)]
    assert got == want and len(got) > 5
    assert [c.tolist() for c in rough_cores(g, seed)] == want


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_partitioned_cli_run_writes_the_one_process_file(tmp_path):
    src = Path(__file__).parent.parent / "src"
    env = dict(os.environ, PYTHONPATH=str(src))
    g = tmp_path / "g.txt"
    graph = generators.kronecker(8, 8, seed=6, directed=False)
    s, d = graph.edges()[:2]
    np.savetxt(g, np.column_stack([s, d]), fmt="%d")
    cli = [sys.executable, "-c", "from hpgraph.cli.main import main; main()"]
    one = subprocess.run([*cli, "run", "bmlpa", str(g), "-o", str(tmp_path / "one.csv")],
                         capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert one.returncode == 0, one.stdout + one.stderr
    two = subprocess.run(
        [MPIEXEC, "-n", "2", *cli, "run", "bmlpa", str(g), "--runtime", "mpi",
         "-o", str(tmp_path / "two.csv")],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert two.returncode == 0, two.stdout + two.stderr
    assert (tmp_path / "one.csv").read_text() == (tmp_path / "two.csv").read_text()
