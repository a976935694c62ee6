"""hpgraph under Slurm: a real single-node cluster on loopback, started and stopped by
``scripts/slurm.sh``, runs ``scripts/hpgraph.sbatch`` (two tasks, ``srun --mpi=pmi2``,
the MPI runtime) and the result equals the local runtime's; ``srun`` without PMI is
refused before MPI starts; ``-c`` sets the threads per process.

Needs Debian's slurm-wlm: the script installs it when missing (apt-get; .ci/run does it
first), and the cluster tests are skipped, with the reason, only when it cannot."""

from __future__ import annotations

import csv
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, SEED
from hpgraph.errors import InvalidArgumentError
from hpgraph.runtimes.slurm import check_mpi_launch, cpus_per_task, step_tasks

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "slurm.sh"
SRC = str(REPO / "src")


# ------------------------------------------------------------- the environment alone
def test_step_tasks_and_cpus_per_task_read_slurms_variables():
    assert step_tasks({}) == 0 and cpus_per_task({}) is None
    env = {"SLURM_STEP_NUM_TASKS": "4", "SLURM_CPUS_PER_TASK": "3"}
    assert step_tasks(env) == 4 and cpus_per_task(env) == 3
    with pytest.raises(InvalidArgumentError, match=r"SLURM_CPUS_PER_TASK.*'two'"):
        cpus_per_task({"SLURM_CPUS_PER_TASK": "two"})


@pytest.mark.parametrize(
    "env, refused",
    [
        ({}, False),  # not under Slurm
        ({"SLURM_NTASKS": "2"}, False),  # a batch script itself is no step
        ({"SLURM_STEP_NUM_TASKS": "1"}, False),  # one task: MPI alone is right
        ({"SLURM_STEP_NUM_TASKS": "2"}, True),  # srun --mpi=none -n 2
        ({"SLURM_STEP_NUM_TASKS": "2", "PMI_FD": "11", "PMI_RANK": "1"}, False),  # pmi2
        ({"SLURM_STEP_NUM_TASKS": "2", "PMIX_RANK": "0"}, False),  # pmix
        ({"SLURM_STEP_NUM_TASKS": "3", "OMPI_COMM_WORLD_SIZE": "3"}, False),  # Open MPI
    ],
)
def test_a_multi_task_step_without_pmi_is_refused(env, refused):
    if refused:
        with pytest.raises(InvalidArgumentError, match=r"2 tasks.*srun --mpi=pmi2"):
            check_mpi_launch(env)
    else:
        check_mpi_launch(env)


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_default_threads_follow_cpus_per_task():
    code = (
        "from hpgraph.runtimes import resolve_runtime; "
        "print(*(resolve_runtime(name, api=api)[0].threads "
        "for name, api in ((None, 'vertex'), (None, 'bsp'), ('mpi', 'vertex'))))"
    )

    def threads(**env):
        base = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "HPGRAPH_T"))}
        out = subprocess.run([sys.executable, "-c", code], env=dict(base, PYTHONPATH=SRC, **env),
                             capture_output=True, text=True, timeout=120)  # fmt: skip
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    assert threads(SLURM_CPUS_PER_TASK="3") == ["3", "3", "3"]  # local, peers, per rank
    # $HPGRAPH_THREADS before Slurm's on the local runtime; MPI ranks take Slurm's
    assert threads(SLURM_CPUS_PER_TASK="3", HPGRAPH_THREADS="5") == ["5", "5", "3"]


# ---------------------------------------------------------------- a real cluster
def _free_port_pair() -> int:
    """A port P with P and P + 1 free on loopback (slurmctld and slurmd)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port >= 65535:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise RuntimeError("no two free consecutive ports on 127.0.0.1")


def _script(*args, timeout=600):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """A single-node cluster from scripts/slurm.sh (installing slurm-wlm if needed):
    the environment for sbatch/srun; stopped, with its jobs, at the end."""
    if MPIEXEC is None:
        pytest.skip(NO_MPI)
    if shutil.which("bash") is None:
        pytest.skip("no bash for scripts/slurm.sh")
    where = ["--port", str(_free_port_pair()), "--dir", str(tmp_path_factory.mktemp("slurm"))]
    started = _script("start", *where)
    if started.returncode == 4:  # Slurm is missing and cannot be installed here
        pytest.skip(started.stderr.strip().splitlines()[-1])
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        conf = started.stdout.split("export SLURM_CONF=")[1].split()[0]
        assert _script("status", *where).returncode == 0
        bin_dir = str(Path(sys.executable).parent)  # the mpich wheel's mpiexec, hpgraph
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "PMI"))}
        yield dict(env, SLURM_CONF=conf, PYTHONPATH=SRC,
                   PATH=bin_dir + os.pathsep + env.get("PATH", ""))  # fmt: skip
    finally:
        stopped = _script("stop", *where)
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert _script("status", *where).returncode == 3  # no daemon left behind


def _graph(path: Path) -> Path:
    """A seeded random graph with string ids, as an edge list."""
    rng = np.random.default_rng(SEED)
    src, dst = rng.integers(0, 300, 1200), rng.integers(0, 300, 1200)
    path.write_text("".join(f"v{a} v{b}\n" for a, b in zip(src, dst, strict=True)))
    return path


def _read_csv(path: Path, column: str) -> dict[str, float]:
    with open(path, newline="") as f:
        return {row["vertex"]: float(row[column]) for row in csv.DictReader(f)}


def test_an_sbatch_job_of_two_ranks_equals_the_local_runtime(slurm, tmp_path):
    import hpgraph as hp

    graph = _graph(tmp_path / "g.el")
    job = subprocess.run(
        ["sbatch", "--wait", "-n", "2", "-c", "1", "-o", "job.out", "--chdir", str(tmp_path),
         str(REPO / "scripts" / "hpgraph.sbatch"), "run", "pagerank", str(graph),
         "-o", "ranks.csv", "--no-progress"],
        env=dict(slurm, HPGRAPH=f"{sys.executable} -m hpgraph.cli.main"),
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    report = (tmp_path / "job.out").read_text() if (tmp_path / "job.out").exists() else ""
    assert job.returncode == 0, job.stdout + job.stderr + report
    assert "srun --mpi=pmi2" in report and "mpi, 2 ranks" in report, report

    local = hp.pagerank(hp.load_graph(graph), threads=2).to_dict("rank")
    got = _read_csv(tmp_path / "ranks.csv", "rank")
    assert sorted(got) == sorted(local)
    np.testing.assert_allclose([got[v] for v in local], list(local.values()), rtol=1e-9)


def test_srun_without_pmi_stops_before_mpi_starts(slurm):
    code = "from hpgraph.runtimes.mpi.comm import load_mpi; load_mpi()"
    out = subprocess.run(["srun", "-n", "2", "--mpi=none", sys.executable, "-c", code],
                         env=slurm, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode != 0
    assert out.stderr.count("this Slurm job step has 2 tasks") == 2, out.stderr
