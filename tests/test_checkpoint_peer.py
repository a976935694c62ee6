"""Checkpoints of peer-level BSP programs (engine/peer_checkpoint.py): a program stopped
after a checkpoint and resumed gives the bits of a run through, on 1-3 threads and on
MPI; its shared values are written once per process; corrupt and foreign checkpoints
are never used; the fault injector's superstep faults reach peer programs; a hung peer on
the local runtime ends the job (runtimes/stall.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi
from hpgraph.engine import run_bsp
from hpgraph.engine.checkpoint import (
    MANIFEST,
    Checkpoints,
    CheckpointWarning,
    Faults,
    complete_checkpoints,
    list_checkpoints,
)
from hpgraph.errors import HPGraphError, InvalidArgumentError, RuntimeErrorInJob
from hpgraph.runtimes import stall
from hpgraph.runtimes.faults import Fault, Injector
from hpgraph.runtimes.local import LocalRuntime
from hpgraph.runtimes.stall import EXIT_STATUS
from test_checkpoint import Stop, _flip

STEPS = 12
mpi = pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)


def walk(peer, n, steps):
    """Each peer mixes its vector with what the others sent; the first peer of each
    address space logs its sums in ``acc``, which its peers share."""
    saved, shared = peer.resumed, peer.resumed_shared
    x = saved["x"] if saved is not None else np.arange(n, dtype=np.float64) * (peer.pid + 1)
    rounds = saved["rounds"] if saved is not None else 0
    acc = shared["acc"] if shared is not None else np.zeros(steps)
    first = peer.pid == peer.local_peers[0]
    while peer.superstep < steps:
        peer.checkpoint({"x": x, "rounds": rounds}, {"acc": acc} if first else None)
        got = [v for _, v in peer.messages()]
        x = np.sin(x * 0.75 + sum(got) * 1e-3)
        rounds += 1
        if first:
            acc[peer.superstep] = x.sum()
        for q in range(peer.num_peers):
            peer.send(q, float(x.sum()) + peer.pid)
        peer.sync()
    return x, rounds, acc if first else None


def _job(threads, **kw):
    return run_bsp(walk, runtime=LocalRuntime(threads), args=(50, STEPS), **kw)


def _run(threads, **kw):
    return _job(threads, **kw).results


def _resume(threads, folder, **opts):
    """The job resumed from ``folder`` (checkpoints every 2 points)."""
    return _job(threads, checkpoint=Checkpoints(folder, every=2, resume=True, **opts))


def _same(a, b):
    for (xa, ra, aa), (xb, rb, ab) in zip(a, b, strict=True):
        assert xa.tobytes() == xb.tobytes() and ra == rb
        assert (aa is None and ab is None) or aa.tobytes() == ab.tobytes()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_resume_gives_the_same_bits(threads, tmp_path):
    folder = tmp_path / "ck"
    with pytest.raises(RuntimeErrorInJob, match="stopped at 7"):
        _run(threads, checkpoint=Checkpoints(folder, every=2, keep=2, faults=Stop(7)))
    assert [ss for ss, _, _ in complete_checkpoints(folder)] == [4, 6]
    opts = Checkpoints(folder, every=2, resume=True)
    resumed = _job(threads, checkpoint=opts)
    _same(resumed.results, _run(threads))
    assert resumed.stats.supersteps[0].superstep == 6
    assert opts.resumed_from == (6, str(folder / "superstep-00000006"))
    assert len(resumed.stats.supersteps) == STEPS - 6


def test_what_a_checkpoint_holds(tmp_path):
    folder = tmp_path / "ck"
    _run(2, checkpoint=Checkpoints(folder, every=3, keep=10))
    found = complete_checkpoints(folder)
    assert [ss for ss, _, _ in found] == [0, 3, 6, 9]
    manifest = found[-1][2]
    assert manifest["points"] == 9 and manifest["fingerprint"]["peers"] == 2
    assert sorted(manifest["files"]) == [
        "peer-0/objects.pkl", "peer-0/x.npy", "peer-1/objects.pkl", "peer-1/x.npy",
        "rank-0/acc.npy", "rank-0/objects.pkl",
    ]  # fmt: skip
    lines = list_checkpoints(folder)
    assert lines[-1].startswith("superstep 9  superstep-00000009  test_checkpoint_peer.walk")
    assert "2 peer(s) in 1 process(es)" in lines[-1]


def test_a_corrupt_newest_checkpoint_falls_back(tmp_path):
    folder = tmp_path / "ck"
    with pytest.raises(RuntimeErrorInJob):
        _run(2, checkpoint=Checkpoints(folder, every=2, faults=Stop(9)))
    found = complete_checkpoints(folder)
    _flip(found[-1][1] / "rank-0" / "acc.npy")
    with pytest.warns(CheckpointWarning, match="superstep-00000008: corrupt"):
        res = _resume(2, folder)
    assert res.stats.supersteps[0].superstep == 6
    _same(res.results, _run(2))


def test_the_injectors_corrupt_fault_is_caught_on_resume(tmp_path):
    class CorruptThenStop(Injector):
        def superstep(self, ss, rank):
            Stop(7).superstep(ss, rank)

    folder = tmp_path / "ck"
    with pytest.raises(RuntimeErrorInJob, match="stopped at 7"):
        _run(
            2,
            checkpoint=Checkpoints(folder, every=2, faults=CorruptThenStop([Fault("corrupt", 6)])),
        )
    with pytest.warns(CheckpointWarning, match="superstep-00000006: corrupt \\(peer-0/x.npy"):
        res = _resume(2, folder)
    assert res.stats.supersteps[0].superstep == 4
    _same(res.results, _run(2))


def test_a_drained_checkpoint_resumes(tmp_path):
    fast, durable = tmp_path / "fast", tmp_path / "durable"
    with pytest.raises(RuntimeErrorInJob):
        _run(2, checkpoint=Checkpoints(fast, every=2, drain=durable, faults=Stop(5)))
    assert [ss for ss, _, _ in complete_checkpoints(durable)] == [2, 4]
    res = _resume(2, tmp_path / "gone", drain=durable)
    assert res.stats.supersteps[0].superstep == 4
    _same(res.results, _run(2))


def test_another_jobs_checkpoints_are_refused(tmp_path):
    folder = tmp_path / "ck"
    _run(2, checkpoint=Checkpoints(folder, every=4), fingerprint={"graph": "a"})
    with pytest.raises(InvalidArgumentError, match="checkpoint of another job \\(peers: 2"):
        _run(3, checkpoint=Checkpoints(folder, every=4, resume=True), fingerprint={"graph": "a"})
    with pytest.raises(InvalidArgumentError, match="\\(graph: 'a' there, 'b' here\\)"):
        _run(2, checkpoint=Checkpoints(folder, every=4), fingerprint={"graph": "b"})
    before = {p.name: p.stat().st_mtime_ns for p in folder.rglob(MANIFEST)}
    assert before == {p.name: p.stat().st_mtime_ns for p in folder.rglob(MANIFEST)}


def test_state_keys_must_be_names(tmp_path):
    def bad(peer):
        peer.checkpoint({"a b": np.zeros(2)})

    with pytest.raises(RuntimeErrorInJob, match="keys must be identifiers, got 'a b'"):
        run_bsp(bad, runtime=LocalRuntime(1), checkpoint=Checkpoints(tmp_path / "ck", every=1))


def test_without_checkpoints_the_calls_do_nothing(tmp_path):
    res = _run(2)
    assert not list(tmp_path.iterdir())
    _same(res, _run(2, checkpoint=Checkpoints(None, faults=Faults())))


def test_a_failed_write_warns_and_the_job_goes_on(tmp_path):
    class Full(Faults):
        def writing(self, ss, rank, folder):
            if ss == 4:
                raise OSError(28, "No space left on device (test)")

    with pytest.warns(CheckpointWarning, match="checkpoint of superstep 4 not written"):
        res = _run(2, checkpoint=Checkpoints(tmp_path / "ck", every=2, keep=9, faults=Full()))
    _same(res, _run(2))
    assert [ss for ss, _, _ in complete_checkpoints(tmp_path / "ck")] == [0, 2, 6, 8, 10]


def test_the_hama_runtime_says_it_has_no_peer_checkpoints(tmp_path):
    from hpgraph.runtimes.hama import HamaRuntime

    with pytest.raises(InvalidArgumentError, match="need the local or MPI runtime, not hama"):
        run_bsp(walk, runtime=HamaRuntime(), args=(5, 2), checkpoint=Checkpoints(tmp_path))


def test_unpicklable_state_is_an_error(tmp_path):
    def bad(peer):
        peer.checkpoint({"f": lambda: 1})

    with pytest.raises((RuntimeErrorInJob, HPGraphError)):
        run_bsp(bad, runtime=LocalRuntime(1), checkpoint=Checkpoints(tmp_path / "ck", every=1))


@mpi
def test_mpi_peer_checkpoints_resume_bit_for_bit(tmp_path):
    ranks = 3
    env = {"HPGRAPH_MPI_TIMEOUT": "120"}
    out = run_mpi(ranks, "check_bsp_checkpoint.py", tmp_path, "stop", timeout=300, env=env)
    assert out.returncode != 0 and out.stdout.count("stopped at 7") == ranks, out.stdout
    out = run_mpi(ranks, "check_bsp_checkpoint.py", tmp_path, "resume", timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("PEER CHECKPOINT OK") == ranks


def test_a_hung_peer_on_the_local_runtime_ends_the_job(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text(
        "import time\n"
        "from hpgraph.engine import run_bsp\n"
        "from hpgraph.runtimes.local import LocalRuntime\n"
        "def prog(peer):\n"
        "    for _ in range(3):\n"
        "        if peer.pid == 1 and peer.superstep == 2:\n"
        "            time.sleep(600)\n"
        "        peer.sync()\n"
        "run_bsp(prog, runtime=LocalRuntime(3))\n"
    )
    env = dict(os.environ, HPGRAPH_TIMEOUT="1")
    out = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert out.returncode == EXIT_STATUS, out.stderr
    assert out.stderr == (
        "hpgraph: no progress for 1 s on the local runtime: superstep 2 of a peer-level "
        "program (peer(s) [1] not at its end) has not ended (hung or stopped; "
        "$HPGRAPH_TIMEOUT); ending the job\n"
    )


def test_a_bad_timeout_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(stall, "_current", None)
    monkeypatch.setenv("HPGRAPH_TIMEOUT", "soon")
    with pytest.raises(
        InvalidArgumentError, match="HPGRAPH_TIMEOUT must be seconds >= 0, got 'soon'"
    ):
        _run(1)
