"""Ping-pong: latency and bandwidth between two tasks over message sizes, on each
runtime's transport (an OSU ``osu_latency``-style test; seed 003's HPNL micro-benchmark:
send/receive ping-pong of one message size after another).

Task A sends a numpy array of ``M`` bytes to task B, B sends it back; ``latency`` is half
the round trip (mean over ``iters`` round trips after a warm-up), ``bandwidth`` is
``M / latency``. Transports:

- ``local``: two threads of one process hand the array over through a queue, by
  reference, as the local runtime delivers messages (no copy: the "bandwidth" is what a
  hand-over of that size costs, not a copy rate);
- ``mpi``: two ranks under ``mpiexec -n 2``, ``comm.Send``/``comm.Recv`` of the numpy
  buffer (no pickling);
- ``hama``: two processes, ZeroMQ over TCP on the loopback, each message encoded and
  decoded with the hama runtime's bundle format (:mod:`hpgraph.runtimes.hama`: a
  metadata frame, small arrays packed, large ones sent zero-copy). No ZooKeeper is
  involved: this is the message path alone.
"""

from __future__ import annotations

import argparse
import queue
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass

import numpy as np

from hpgraph.bench._rows import write_rows

__all__ = ["PingPongResult", "pingpong", "DEFAULT_SIZES", "write_results", "main"]

#: 8 B .. 2 MiB, x4 apart.
DEFAULT_SIZES = tuple(8 * 4**k for k in range(10))
RUNTIMES = ("local", "mpi", "hama")


@dataclass
class PingPongResult:
    runtime: str
    bytes: int
    iters: int
    latency_us: float  #: half the round-trip time, mean over iters
    bandwidth_mbps: float  #: bytes / latency, in MB/s (10^6 bytes per second)


def _iters(size, iters):
    """Round trips per size: fewer for big messages (about 64 MiB each way in all)."""
    if iters:
        return iters
    return int(max(20, min(1000, (64 << 20) // max(size, 1))))


def _result(runtime, size, n, seconds):
    lat = seconds / n / 2
    return PingPongResult(runtime, size, n, lat * 1e6, size / lat / 1e6)


# ------------------------------------------------------------------------------ local
def _local(sizes, iters):
    to_b, to_a = queue.SimpleQueue(), queue.SimpleQueue()

    def echo():
        while (msg := to_b.get()) is not None:
            to_a.put(msg)

    t = threading.Thread(target=echo, daemon=True)
    t.start()
    out = []
    try:
        for size in sizes:
            buf, n = np.zeros(size, np.uint8), _iters(size, iters)
            for _ in range(max(5, n // 10)):
                to_b.put(buf)
                to_a.get()
            t0 = time.perf_counter()
            for _ in range(n):
                to_b.put(buf)
                to_a.get()
            out.append(_result("local", size, n, time.perf_counter() - t0))
    finally:
        to_b.put(None)
        t.join()
    return out


# -------------------------------------------------------------------------------- mpi
def _mpi_ranks(sizes, iters):
    """Inside ``mpiexec -n 2``: rank 0 pings, rank 1 echoes; rank 0 gets the results."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if comm.Get_size() != 2:
        raise RuntimeError(f"the MPI ping-pong needs exactly 2 ranks, got {comm.Get_size()}")
    rank, other = comm.Get_rank(), 1 - comm.Get_rank()
    out = []
    for size in sizes:
        buf, n = np.zeros(size, np.uint8), _iters(size, iters)
        comm.Barrier()
        for phase, count in (("warm", max(5, n // 10)), ("timed", n)):
            t0 = time.perf_counter()
            for _ in range(count):
                if rank == 0:
                    comm.Send([buf, MPI.BYTE], dest=other, tag=1)
                    comm.Recv([buf, MPI.BYTE], source=other, tag=2)
                else:
                    comm.Recv([buf, MPI.BYTE], source=other, tag=1)
                    comm.Send([buf, MPI.BYTE], dest=other, tag=2)
            if phase == "timed" and rank == 0:
                out.append(_result("mpi", size, n, time.perf_counter() - t0))
    return out


def _mpi(sizes, iters):
    from hpgraph.runtimes.mpi import mpiexec_path

    cmd = [mpiexec_path(), "-n", "2", sys.executable, "-m", "hpgraph.bench.pingpong"]
    cmd += ["--in-mpi", "--sizes", ",".join(map(str, sizes)), "--iters", str(iters or 0)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ping-pong under mpiexec failed:\n{done.stderr[-2000:]}")
    out = []
    for line in done.stdout.splitlines():
        if line.startswith("PINGPONG "):
            f = line.split()[1:]
            out.append(PingPongResult(f[0], int(f[1]), int(f[2]), float(f[3]), float(f[4])))
    return out


# ------------------------------------------------------------------------------- hama
def _zmq_echo(address, sizes, iters):
    """Task B: decode each bundle and send the array back, encoded again."""
    import zmq

    from hpgraph.runtimes.hama import _decode, _encode

    ctx = zmq.Context()
    sock = ctx.socket(zmq.PAIR)
    sock.setsockopt(zmq.LINGER, 10_000)  # the last echo must leave before the socket closes
    sock.connect(address)
    try:
        sock.send(b"ready")
        total = sum(max(5, _iters(s, iters) // 10) + _iters(s, iters) for s in sizes)
        for i in range(total):
            _, _, (arr,) = _decode(sock.recv_multipart(copy=False))
            sock.send_multipart(_encode(i, 1, [arr]), copy=False)
    finally:
        sock.close()  # with its LINGER: close(0) would drop the last echo still queued
        ctx.term()


def _await(sock, echo, timeout=300.0):
    """Wait for the echo task's next message; fail if it died or stays silent."""
    deadline = time.monotonic() + timeout
    while not sock.poll(1000):
        # a task that has just finished may still have its last message in flight
        if not echo.is_alive() and not sock.poll(1000):
            raise RuntimeError(f"hama ping-pong: the echo task died (exit code {echo.exitcode})")
        if time.monotonic() > deadline:
            raise RuntimeError(f"hama ping-pong: no answer from the echo task in {timeout:g} s")


def _hama(sizes, iters):
    import zmq

    from hpgraph.runtimes.hama import _context, _decode, _encode

    ctx = zmq.Context()
    sock = ctx.socket(zmq.PAIR)
    sock.setsockopt(zmq.LINGER, 0)
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    echo = _context().Process(
        target=_zmq_echo, args=(f"tcp://127.0.0.1:{port}", list(sizes), iters), daemon=True
    )
    echo.start()
    out = []
    try:
        _await(sock, echo)  # the echo task's start (a fresh fork server imports first)
        sock.recv()
        for size in sizes:
            buf, n = np.zeros(size, np.uint8), _iters(size, iters)
            for phase, count in (("warm", max(5, n // 10)), ("timed", n)):
                t0 = time.perf_counter()
                for i in range(count):
                    sock.send_multipart(_encode(i, 0, [buf]), copy=False)
                    _await(sock, echo)
                    _decode(sock.recv_multipart(copy=False))
                if phase == "timed":
                    out.append(_result("hama", size, n, time.perf_counter() - t0))
    finally:
        sock.close(0)
        ctx.term()
        echo.join(10)
        if echo.is_alive():
            echo.terminate()
            echo.join()
    return out


# ------------------------------------------------------------------------------- api
def pingpong(runtime="local", sizes=DEFAULT_SIZES, iters=None) -> list[PingPongResult]:
    """Ping-pong on one runtime's transport; one result per message size (bytes).
    ``iters``: round trips per size (default: 20 .. 1000, fewer for bigger messages)."""
    from hpgraph.errors import InvalidArgumentError

    sizes = [int(s) for s in sizes]
    if not sizes or min(sizes) < 1:
        raise InvalidArgumentError(f"ping-pong sizes must be >= 1 byte, got {sizes}")
    if iters is not None and iters < 1:
        raise InvalidArgumentError(f"ping-pong iters must be >= 1, got {iters}")
    if runtime == "local":
        return _local(sizes, iters)
    if runtime == "mpi":
        return _mpi(sizes, iters)
    if runtime == "hama":
        return _hama(sizes, iters)
    raise InvalidArgumentError(f"unknown ping-pong runtime {runtime!r}; one of {RUNTIMES}")


def write_results(results, prefix) -> list[str]:
    """``<prefix>-pingpong.csv`` and, with matplotlib, ``<prefix>-pingpong.png``."""
    written = [write_rows(f"{prefix}-pingpong.csv", PingPongResult, results)]
    png = _plot(results, f"{prefix}-pingpong.png")
    if png:
        written.append(png)
    return written


def _plot(results, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for rt in [r for r in RUNTIMES if any(x.runtime == r for x in results)]:
        rows = [r for r in results if r.runtime == rt]
        xs = [r.bytes for r in rows]
        axes[0].plot(xs, [r.latency_us for r in rows], marker="o", label=rt)
        axes[1].plot(xs, [r.bandwidth_mbps for r in rows], marker="o", label=rt)
    for ax, what in zip(axes, ("latency (us, half round trip)", "bandwidth (MB/s)"), strict=True):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message bytes")
        ax.set_ylabel(what)
        ax.legend()
        ax.grid(True, alpha=0.3)
    fig.suptitle("ping-pong between two tasks")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def print_results(results, file=None):
    print(f"{'runtime':8} {'bytes':>9} {'iters':>6} {'latency us':>11} {'MB/s':>10}", file=file)
    for r in results:
        print(
            f"{r.runtime:8} {r.bytes:>9} {r.iters:>6} {r.latency_us:>11.2f} "
            f"{r.bandwidth_mbps:>10.1f}",
            file=file,
        )


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hpgraph.bench.pingpong", description=__doc__)
    ap.add_argument("--runtimes", default=",".join(RUNTIMES))
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    ap.add_argument("--iters", type=int, default=0, help="round trips per size (0: auto)")
    ap.add_argument("--out", default=None, help="file prefix for the CSV/PNG")
    ap.add_argument("--in-mpi", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",") if s]
    if a.in_mpi:  # rank 0 holds the results and reports machine lines
        for r in _mpi_ranks(sizes, a.iters or None):
            print("PINGPONG " + " ".join(str(v) for v in asdict(r).values()), flush=True)
        return 0
    results = []
    for rt in [r.strip() for r in a.runtimes.split(",") if r.strip()]:
        results += pingpong(rt, sizes, a.iters or None)
    print_results(results)
    if a.out:
        print("wrote " + ", ".join(write_results(results, a.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
