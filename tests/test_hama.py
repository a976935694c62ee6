"""The hama runtime (one process per task, Hama's ZooKeeper double barrier, bundles over
ZeroMQ/TCP): peer-level programs give the local runtime's results and the hand-computed
ones; a failing, hanging or dying task ends the job with an error naming it; CBench and
the ping-pong run on it; the ZooKeeper helpers start and stop a real server.

Needs Java and ZooKeeper (Debian: apt-get install zookeeper; .ci/run installs it)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import MPIEXEC, NO_MPI, SEED
from hpgraph.engine import run_bsp
from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.runtimes.zookeeper import ruok, start_zookeeper, zookeeper_available

_WHY = zookeeper_available()
pytestmark = pytest.mark.skipif(_WHY is not None, reason=f"no ZooKeeper server here: {_WHY}")

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def zk():
    """A real standalone ZooKeeper on a free loopback port, for this module."""
    with start_zookeeper() as server:
        assert ruok("127.0.0.1", server.port)
        yield server.address


def _hama(zk, timeout=30.0):
    from hpgraph.runtimes.hama import HamaRuntime

    return HamaRuntime(zk, barrier_timeout=timeout)


# ------------------------------------------------------------------ programs (picklable)
def _payloads(pid, step, seed):
    """What task ``pid`` sends in ``step``: every path of the wire format."""
    rng = np.random.default_rng([seed, pid, step])
    grid = rng.random((4, 6)).astype(np.float32)
    return [
        np.arange(pid, pid + 5, dtype=np.int64),  # packed, aligned after a pickle
        {"from": pid, "step": step},  # a Python object: pickled
        grid[:, ::2],  # non-contiguous
        rng.integers(0, 9, 20_000).astype(">i4"),  # 80 kB, big-endian: own frame
        np.zeros((0, 3)),  # empty
        np.full((), pid + 0.5),  # 0-d
        rng.random(3) < 0.5,  # bool
    ]


def _describe(p):
    if isinstance(p, np.ndarray):
        return ("array", p.dtype.str, p.shape, p.tolist())
    return ("object", p)


def _exchange(peer, steps, seed):
    """All-to-all in even supersteps, nothing in odd ones (empty supersteps); returns
    what arrived, per superstep."""
    got = []
    for step in range(steps):
        if step % 2 == 0:
            for q in range(peer.num_peers):
                for p in _payloads(peer.pid, step, seed):
                    peer.send(q, p)
        peer.sync()
        got.append([(src, _describe(p)) for src, p in peer.messages()])
    return got


def _fails(peer):
    peer.sync()
    if peer.pid == 1:
        raise ValueError("boom in superstep 1")
    peer.sync()
    peer.sync()


def _one_skips(peer):
    if peer.pid != 2:
        peer.sync()


def _dies(peer):
    peer.sync()
    if peer.pid == 0:
        os._exit(7)
    peer.sync()


def _modify_received(peer):
    peer.send((peer.pid + 1) % peer.num_peers, np.zeros(100_000))
    peer.sync()
    (_, a), = peer.messages()  # fmt: skip
    a += 1  # received arrays are writable, as on the other runtimes
    return float(a.sum())


# ---------------------------------------------------------------------------- results
@pytest.mark.parametrize("tasks", [1, 2, 3])
def test_same_messages_as_local(zk, tasks):
    steps = 4
    hama = run_bsp(_exchange, peers=tasks, args=(steps, SEED), runtime=_hama(zk))
    local = run_bsp(_exchange, peers=tasks, args=(steps, SEED))
    assert hama.results == local.results
    # and the hand-computed content: from every sender, its payloads, in order
    for pid, per_step in enumerate(hama.results):
        for step, got in enumerate(per_step):
            if step % 2:
                assert got == []
                continue
            want = [(q, _describe(p)) for q in range(tasks) for p in _payloads(q, step, SEED)]
            assert got == want, (pid, step)
    st = hama.stats
    assert st.runtime == "hama" and st.parts == tasks and len(st.supersteps) == steps
    k = len(_payloads(0, 0, SEED))  # messages per (sender, receiver) pair
    assert st.supersteps[0].messages == tasks * tasks * k
    assert st.supersteps[0].messages_remote == tasks * (tasks - 1) * k
    assert st.supersteps[1].messages == 0
    assert all(s.barrier_s > 0 for s in st.supersteps)


def test_received_arrays_are_writable(zk):
    res = run_bsp(_modify_received, peers=2, runtime=_hama(zk))
    assert res.results == [100_000.0, 100_000.0]


def test_wire_format_round_trip():
    import zmq

    from hpgraph.runtimes.hama import _decode, _encode

    payloads = _payloads(3, 2, SEED) + [np.arange(6, dtype=np.complex128).reshape(1, 2, 3)]
    ctx = zmq.Context()
    a, b = ctx.socket(zmq.PAIR), ctx.socket(zmq.PAIR)
    a.bind("inproc://wire")
    b.connect("inproc://wire")
    try:
        a.send_multipart(_encode(7, 3, payloads), copy=False)
        step, src, got = _decode(b.recv_multipart(copy=False))
    finally:
        a.close(0)
        b.close(0)
        ctx.term()
    assert (step, src) == (7, 3)
    assert [_describe(p) for p in got] == [_describe(p) for p in payloads]
    for p in got:
        if isinstance(p, np.ndarray) and p.size:
            assert p.ctypes.data % p.dtype.alignment == 0


# --------------------------------------------------------------------------- failures
def test_failing_task_is_named(zk):
    with pytest.raises(RuntimeErrorInJob, match=r"peer 1 failed: ValueError: boom"):
        run_bsp(_fails, peers=3, runtime=_hama(zk))


def test_barrier_timeout_names_the_missing_task(zk):
    with pytest.raises(RuntimeErrorInJob, match=r"timed out after 1.5 s.*waiting for tasks \[2\]"):
        run_bsp(_one_skips, peers=3, runtime=_hama(zk, timeout=1.5))


def test_dead_task_is_reported(zk):
    with pytest.raises(RuntimeErrorInJob, match=r"peer 0 failed: TaskDied: exit code 7"):
        run_bsp(_dies, peers=2, runtime=_hama(zk))


def test_bad_arguments(zk):
    from hpgraph.runtimes.hama import launch

    with pytest.raises(InvalidArgumentError, match="picklable"):
        run_bsp(lambda peer: None, peers=2, runtime=_hama(zk))
    with pytest.raises(InvalidArgumentError, match="tasks must be an integer >= 1, got 0"):
        launch(_fails, 0, zookeeper=zk)
    with pytest.raises(InvalidArgumentError, match="barrier_timeout"):
        launch(_fails, 2, zookeeper=zk, barrier_timeout=0)


def test_private_zookeeper_per_job(monkeypatch):
    monkeypatch.delenv("HPGRAPH_ZOOKEEPER", raising=False)
    res = run_bsp(_exchange, peers=2, args=(1, SEED), runtime="hama")
    assert len(res.results) == 2 and res.stats.runtime == "hama"


# ------------------------------------------------------------------ CBench, ping-pong
def test_cbench_on_hama(zk):
    from hpgraph.bench.cbench import cbench

    r = cbench("hama", tasks=3, peers=2, msgs=2, size=100, supersteps=5, zookeeper=zk)
    assert (r.runtime, r.tasks, r.peers, r.msgs) == ("hama", 3, 2, 2)
    assert r.bytes_per_superstep == 3 * 2 * 2 * 100
    assert 0 < r.barrier_p10_s <= r.barrier_median_s <= r.barrier_p90_s
    assert 0 < r.comm_p10_s <= r.comm_median_s <= r.comm_p90_s


def test_cbench_cli_hama_and_speedups(zk, tmp_path, capsys):
    from hpgraph.bench.cbench import main

    prefix = str(tmp_path / "cb")
    args = ["--sweep", "tasks", "--task-counts", "2", "--runtimes", "local,hama", "-I", "4"]
    assert main(args + ["--zookeeper", zk, "--out", prefix]) == 0
    out = capsys.readouterr().out
    assert "speedup over hama" in out and "local" in out
    assert (tmp_path / "cb-tasks.csv").read_text().count("\nhama,2,1,") == 1
    assert main(["--runtime", "hama", "-T", "2", "-I", "3", "--zookeeper", zk]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("hama ")


@pytest.mark.parametrize("runtime", ["local", "hama"])
def test_pingpong(runtime):
    from hpgraph.bench.pingpong import pingpong

    rows = pingpong(runtime, sizes=[8, 100_000], iters=5)
    assert [(r.runtime, r.bytes, r.iters) for r in rows] == [(runtime, 8, 5), (runtime, 100_000, 5)]
    for r in rows:
        assert r.latency_us > 0
        assert r.bandwidth_mbps == pytest.approx(r.bytes / r.latency_us)


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_pingpong_mpi_and_cli(tmp_path, capsys):
    from hpgraph.bench.cbench import main

    prefix = str(tmp_path / "pp")
    argv = ["--mode", "pingpong", "--runtimes", "mpi", "--sizes", "8,4096", "--iters", "5"]
    assert main(argv + ["--out", prefix]) == 0
    lines = (tmp_path / "pp-pingpong.csv").read_text().splitlines()
    assert lines[0].startswith("runtime,bytes") and [ln.split(",")[:3] for ln in lines[1:]] == [
        ["mpi", "8", "5"],
        ["mpi", "4096", "5"],
    ]


# ---------------------------------------------------------------------- the script
def test_zookeeper_script_start_status_stop(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    script = [str(REPO / "scripts" / "zookeeper.sh")]
    opts = ["--port", port, "--dir", str(tmp_path / "zk")]

    def run(cmd):
        return subprocess.run(script + [cmd] + opts, capture_output=True, text=True, timeout=60)

    try:
        started = run("start")
        assert started.returncode == 0, started.stderr
        assert f"export HPGRAPH_ZOOKEEPER=127.0.0.1:{port}" in started.stdout
        assert ruok("127.0.0.1", int(port))
        assert run("status").returncode == 0
    finally:
        stopped = run("stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert not ruok("127.0.0.1", int(port))
    assert run("status").returncode == 3
