"""The hama runtime's tasks: one OS process per task, started by :func:`launch`, each
running :func:`task_main` (set up the transport, run ``program(peer, *args)``, report).

Processes come from a multiprocessing ``forkserver`` whose server has numpy, pyzmq and
kazoo loaded, so a task starts in milliseconds.

Failures never hang the job: a task that raises reports the exception to the launcher
and creates ``/bsp/<job>/abort``; every other task watches that znode and stops at its
next wait; :func:`launch` raises :class:`~hpgraph.errors.RuntimeErrorInJob` naming the
failing task (the lowest id if several), with its traceback as a note. A task that dies
without a word (killed) is reported with its exit code.

ZooKeeper: pass ``zookeeper="host:port"``, or set ``$HPGRAPH_ZOOKEEPER``; otherwise each
job starts a private standalone server on a free loopback port
(:mod:`hpgraph.runtimes.zookeeper`, about 0.5-2 s) and stops it at the end.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import threading
import time
import traceback
import uuid
from contextlib import contextmanager

import numpy as np

from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob
from hpgraph.runtimes.hama.barrier import DEFAULT_BARRIER_TIMEOUT, TaskStopped
from hpgraph.runtimes.hama.exchange import HamaExchange

__all__ = ["launch", "task_main", "task_context"]

#: After the first failure, seconds the launcher waits for the other tasks to notice the
#: abort znode before it terminates them.
_ABORT_GRACE_S = 5.0


def task_main(pid, tasks, zk_address, job, program, args, timeout, conn):
    """Body of one task process: set up, run ``program(peer, *args)``, report."""
    from hpgraph.engine.bsp import Peer

    logging.getLogger("kazoo").setLevel(logging.ERROR)  # connection chatter at shutdown
    exchange = None
    try:
        exchange = HamaExchange(pid, tasks, zk_address, job, timeout)
        peer = Peer(pid, exchange)
        result = program(peer, *args)
        exchange.finish()
        conn.send(("ok", pid, result, peer.stats))
    except BaseException as exc:
        stopped = isinstance(exc, TaskStopped)
        what = f"{type(exc).__name__}: {exc}"
        if exchange is not None and not stopped:
            try:
                exchange.abort(f"task {pid} failed: {what}")
            except Exception:
                pass
        try:
            conn.send(("error", pid, type(exc).__name__, str(exc), traceback.format_exc(), stopped))
        except Exception:
            pass
    finally:
        if exchange is not None:
            try:
                exchange.close()
            except Exception:
                pass
        conn.close()


_FORKSERVER_LOCK = threading.Lock()


def task_context():
    """A forkserver with numpy, pyzmq, kazoo and the peer API preloaded (a task starts in
    milliseconds instead of importing them); spawn where there is no forkserver."""
    with _FORKSERVER_LOCK:
        if "forkserver" not in multiprocessing.get_all_start_methods():
            return multiprocessing.get_context("spawn")
        ctx = multiprocessing.get_context("forkserver")
        preload = ["__main__", "zmq", "kazoo.client", "hpgraph.runtimes.hama"]
        ctx.set_forkserver_preload(preload + ["hpgraph.engine.bsp"])
        return ctx


@contextmanager
def _zookeeper(address):
    """The given server, ``$HPGRAPH_ZOOKEEPER``, or a private one for the block."""
    address = address or os.environ.get("HPGRAPH_ZOOKEEPER")
    if address:
        yield address
        return
    from hpgraph.runtimes.zookeeper import start_zookeeper

    with start_zookeeper() as server:
        yield server.address


class _Discard:
    def write(self, b):
        return len(b)


def _check_picklable(program, args):
    try:  # into a sink: the args may be big arrays, which the tasks receive anyway
        pickle.Pickler(_Discard(), protocol=5).dump((program, args))
    except Exception as exc:
        name = getattr(program, "__qualname__", repr(program))
        raise InvalidArgumentError(
            f"the hama runtime runs {name} in other processes, so the program and its args "
            f"must be picklable (a module-level function, not a lambda or closure): {exc}"
        ) from None


def launch(program, tasks: int, args=(), zookeeper: str | None = None,
           barrier_timeout: float = DEFAULT_BARRIER_TIMEOUT) -> list[tuple]:  # fmt: skip
    """Run ``program(peer, *args)`` in ``tasks`` processes; returns ``[(result, stats), ...]``
    by task id (``stats``: the task's list of :class:`~hpgraph.engine.SuperstepStats`).

    ``zookeeper``: ``"host:port"`` of a running server (else ``$HPGRAPH_ZOOKEEPER``, else
    a private server for this job). Raises :class:`~hpgraph.errors.RuntimeErrorInJob`
    naming the failing task when a task fails, times out in a barrier, or dies.
    """
    if isinstance(tasks, bool) or not isinstance(tasks, int | np.integer) or tasks < 1:
        raise InvalidArgumentError(f"tasks must be an integer >= 1, got {tasks!r}")
    if not barrier_timeout > 0:
        raise InvalidArgumentError(f"barrier_timeout must be > 0 seconds, got {barrier_timeout}")
    tasks = int(tasks)
    _check_picklable(program, args)
    ctx = task_context()
    job = uuid.uuid4().hex[:16]
    with _zookeeper(zookeeper) as address:
        from kazoo.client import KazooClient

        logging.getLogger("kazoo").setLevel(logging.ERROR)
        zk = KazooClient(hosts=address, timeout=10.0)
        try:
            zk.start(timeout=10.0)
        except Exception as exc:
            zk.close()
            raise RuntimeErrorInJob(
                f"cannot reach ZooKeeper at {address} ({type(exc).__name__}: {exc}); start "
                "one with scripts/zookeeper.sh start, or give no address to have a private "
                "server started for the job"
            ) from None
        procs, conns = [], []
        try:
            for pid in range(tasks):
                rx, tx = ctx.Pipe(duplex=False)
                p = ctx.Process(
                    target=task_main,
                    args=(pid, tasks, address, job, program, args, barrier_timeout, tx),
                    name=f"hpgraph-hama-{pid}",
                    daemon=True,
                )
                p.start()
                tx.close()
                procs.append(p)
                conns.append(rx)
            reports = _collect(procs, conns, zk, f"/bsp/{job}")
        finally:
            for p in procs:
                if p.is_alive():
                    p.terminate()
                p.join(5.0)
                if p.is_alive():
                    p.kill()
                    p.join()
            for c in conns:
                c.close()
            try:
                zk.delete(f"/bsp/{job}", recursive=True)
            except Exception:
                pass
            zk.stop()
            zk.close()
    failures = {pid: r for pid, r in reports.items() if r[0] != "ok" and not r[-1]}
    if failures:
        first = min(failures)
        _, _, name, msg, tb, _ = failures[first]
        err = RuntimeErrorInJob(f"peer {first} failed: {name}: {msg}")
        if tb:
            err.add_note(f"traceback of task {first}:\n{tb}")
        raise err
    if len(reports) < tasks or any(r[0] != "ok" for r in reports.values()):
        raise RuntimeErrorInJob("hama job stopped without a failing task (aborted from outside)")
    return [(reports[p][2], reports[p][3]) for p in range(tasks)]


def _collect(procs, conns, zk, root):
    """Wait for every task's report; after the first failure, abort the others."""
    reports: dict[int, tuple] = {}
    waiting = {c: pid for pid, c in enumerate(conns)}
    sentinels = {procs[pid].sentinel: pid for pid in range(len(procs))}
    grace_until = None
    while waiting:
        timeout = None if grace_until is None else max(grace_until - time.monotonic(), 0.0)
        live = [s for s, pid in sentinels.items() if pid not in reports]
        ready = multiprocessing.connection.wait(list(waiting) + live, timeout)
        if not ready:  # the grace period is over: the stragglers are terminated
            for pid in waiting.values():
                reports[pid] = ("error", pid, "TaskStopped", "terminated", "", True)
            break
        for r in ready:
            pid = waiting.get(r, sentinels.get(r))
            if pid in reports:
                continue
            conn = conns[pid]
            try:
                reports[pid] = conn.recv() if conn.poll() else None
            except (EOFError, OSError):
                reports[pid] = None
            if reports[pid] is None:  # died without a word
                procs[pid].join(1.0)
                code = procs[pid].exitcode
                reports[pid] = ("error", pid, "TaskDied", f"exit code {code}", "", False)
            waiting.pop(conn, None)
            rep = reports[pid]
            if rep[0] != "ok" and grace_until is None:
                grace_until = time.monotonic() + _ABORT_GRACE_S
                try:
                    zk.create(f"{root}/abort", f"task {pid} failed".encode(), makepath=True)
                except Exception:
                    pass
    return reports
