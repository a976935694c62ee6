"""BMLPA's checkpoints (a peer-level program that names its state between sweeps): a run
stopped after a checkpoint and resumed gives the cover of a run through, bit for bit, on
1-3 threads, under both stop rules and on MPI; another graph's or other parameters'
checkpoints are refused; ``hpgraph run bmlpa`` restarts from one after a SIGKILL."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi
from hpgraph.algorithms.bmlpa import bmlpa
from hpgraph.engine.checkpoint import Checkpoints, complete_checkpoints
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.generators.mention import mention_graph
from hpgraph.io.edgelist import write_edgelist
from test_checkpoint import Stop
from test_faults import _hpgraph, _write

GRAPH = mention_graph(3000, 4000, seed=3)
mpi = pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)


def _same(a, b):
    for name in ("ptr", "community_of", "coefficient", "sizes"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    assert a.meta["iterations"] == b.meta["iterations"]
    assert a.meta["stopped_by"] == b.meta["stopped_by"]
    assert a.meta["update_rate"] == b.meta["update_rate"]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("stop", ["rate", "counts"])
def test_resume_gives_the_same_cover(threads, stop, tmp_path):
    kw = {"b": 0.1, "threads": threads, "stop": stop}
    if stop == "rate":
        kw["tolerance"] = 0.001  # more sweeps than the default
    through = bmlpa(GRAPH, **kw)
    assert through.meta["iterations"] >= 4
    folder = tmp_path / "ck"
    with pytest.raises(RuntimeErrorInJob, match="stopped at"):
        bmlpa(GRAPH, checkpoint=Checkpoints(folder, every=1, keep=1, faults=Stop(60)), **kw)
    ((ss, _, manifest),) = complete_checkpoints(folder)
    assert manifest["points"] >= 2 and 0 < ss <= 60
    resumed = bmlpa(GRAPH, checkpoint=Checkpoints(folder, every=1, resume=True), **kw)
    _same(resumed, through)
    assert resumed.stats.supersteps[0].superstep == ss


def test_checkpoints_of_other_parameters_are_refused(tmp_path):
    folder = tmp_path / "ck"
    bmlpa(GRAPH, b=0.1, threads=2, checkpoint=Checkpoints(folder, every=2))
    with pytest.raises(InvalidArgumentError, match="a checkpoint of another job \\(b: "):
        bmlpa(GRAPH, b=0.2, threads=2, checkpoint=Checkpoints(folder, every=2, resume=True))
    other = mention_graph(3000, 4001, seed=3)
    with pytest.raises(InvalidArgumentError, match="a checkpoint of another job \\(edges: "):
        bmlpa(other, b=0.1, threads=2, checkpoint=Checkpoints(folder, every=2, resume=True))


def test_the_synchronous_schedule_says_it_has_no_checkpoints(tmp_path):
    with pytest.raises(InvalidArgumentError, match="checkpoints need update='semi-sync'"):
        bmlpa(GRAPH, update="sync", checkpoint=Checkpoints(tmp_path / "ck"))


def test_cli_restarts_bmlpa_after_a_sigkill(tmp_path):
    write_edgelist(GRAPH, tmp_path / "g.el")
    args = ("run", "bmlpa", tmp_path / "g.el", "--b", "0.1", "--tolerance", "0.001",
            "--threads", "2")  # fmt: skip
    ref = _hpgraph(*args, "-o", tmp_path / "ref.csv")
    assert ref.returncode == 0, ref.stderr
    faults = _write(tmp_path / "f.toml", '[[fault]]\nkind = "kill"\nsuperstep = 40\n')
    state = tmp_path / "state"
    state.mkdir()
    got = _hpgraph(*args, "--checkpoint", tmp_path / "ck", "--checkpoint-every", "1",
                   "--inject", faults, "--max-restarts", "1", "-o", tmp_path / "out.csv",
                   env={"HPGRAPH_FAULT_STATE": str(state)})  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "injected fault: kill rank 0 superstep 40" in got.stderr
    assert "attempt 1 failed" in got.stderr
    assert (tmp_path / "ref.csv").read_bytes() == (tmp_path / "out.csv").read_bytes()


@mpi
def test_mpi_bmlpa_resumes_bit_for_bit(tmp_path):
    env = {"HPGRAPH_MPI_TIMEOUT": "120"}
    out = run_mpi(2, "check_bmlpa_checkpoint.py", tmp_path, "stop", timeout=300, env=env)
    assert out.returncode != 0 and out.stdout.count("stopped") == 2, out.stdout + out.stderr
    out = run_mpi(2, "check_bmlpa_checkpoint.py", tmp_path, "resume", timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("BMLPA CHECKPOINT OK") == 2


def test_the_checkpoint_holds_the_arena_once_per_process(tmp_path):
    folder = tmp_path / "ck"
    bmlpa(GRAPH, b=0.1, threads=2, checkpoint=Checkpoints(folder, every=1, keep=1))
    ((_, newest, manifest),) = complete_checkpoints(folder)
    assert sorted(manifest["files"]) == [
        "peer-0/objects.pkl", "peer-1/objects.pkl",  # sweep, stop-rule minimum, steps
        "rank-0/beg.npy", "rank-0/coef.npy", "rank-0/dirty.npy", "rank-0/fin.npy",
        "rank-0/lab.npy", "rank-0/objects.pkl", "rank-0/room.npy",
    ]  # fmt: skip
    assert np.load(newest / "rank-0" / "dirty.npy").shape == (GRAPH.n,)
