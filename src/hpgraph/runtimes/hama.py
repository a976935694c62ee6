"""The ``hama`` runtime: the distributed-model design of Apache Hama 0.6, rebuilt inside
hpgraph so that its barrier and messaging can be measured against the local and MPI
runtimes with everything else equal (seed 000, sections 8-9: the ZooKeeper barrier and
the RPC messaging that the study replaced with MPI).

It runs the peer-level BSP API (:func:`hpgraph.engine.run_bsp` with ``runtime="hama"``):
the same ``program(peer, *args)`` as on the other runtimes. The vertex engine does not
run on it.

How it is built, as in Hama (``BSPPeerImpl``, ``ZooKeeperSyncClientImpl``,
``HadoopMessageManagerImpl``):

- **One OS process per task**, started by :func:`launch` (multiprocessing ``forkserver``:
  the server has numpy, pyzmq and kazoo loaded, so a task starts in milliseconds).
- **Registration and peer discovery through ZooKeeper**: each task binds its receiver on
  a free loopback TCP port and writes ``host:port`` to the ephemeral znode
  ``/bsp/<job>/peers/task-<id>``; after a first barrier every task reads all of them
  (Hama's ``register`` / ``getAllPeerNames`` / ``doFirstSync``).
- **Messaging, sender side** (Hama's ``sync()``): payloads are queued per destination;
  at ``sync()`` each destination's queue becomes one *bundle* (Hama's
  ``BSPMessageBundle``), sent as one multi-part ZeroMQ message over TCP to that task's
  receiver. Like Hama's RPC ``transfer`` the send completes when the receiver
  acknowledges it, so after the barrier every bundle has arrived. Unlike Hama, which
  transfers the bundles one blocking RPC after another, the bundles to all destinations
  are in flight at once and the acknowledgements are collected afterwards.
  Messages to oneself never leave the process (Hama's loop-back queue).
- **Messaging, receiver side**: a receiver thread per task (Hama's RPC server) stores
  incoming bundles by superstep and acknowledges them, while the task computes.
- **Wire format, no pickling on the hot path**: a bundle is ``[meta, packed, big...]``;
  ``meta`` holds (superstep, sender, count) and per message its kind, dtype and shape;
  numpy arrays under 64 KiB are copied into ``packed`` (16-byte aligned), larger ones
  travel as frames of their own straight from the array's memory (zero copy; the send
  is complete before ``sync()`` returns, so the array may change afterwards). The
  receiver builds arrays over the received frames without copying. Other objects are
  pickled into ``packed``.
- **Barrier: Hama's ZooKeeper double barrier**, entered and left once per superstep
  (``enterBarrier``/``leaveBarrier``, the ZooKeeper "double barrier" recipe). Enter:
  ensure ``/bsp/<job>/sync/<step>``, watch ``<step>/ready``, create the ephemeral
  ``<step>/task-<id>``, count the children; the task that completes the count creates
  ``ready``, which wakes the others. Leave: every task but the lowest deletes its znode
  and waits for the lowest's to go; the lowest waits for the highest remaining one
  and deletes itself last. Each wait has a timeout (``barrier_timeout``) whose error
  names the tasks that did not arrive.

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
import struct
import threading
import time
import traceback
import uuid
from contextlib import contextmanager

import numpy as np

from hpgraph.errors import InvalidArgumentError, RuntimeErrorInJob

__all__ = [
    "HamaRuntime",
    "launch",
    "run_bsp_hama",
    "BarrierTimeoutError",
    "TaskStopped",
    "DEFAULT_BARRIER_TIMEOUT",
]

#: Seconds a task waits in one barrier phase (or for one acknowledgement) before it gives
#: up and names the tasks that did not arrive.
DEFAULT_BARRIER_TIMEOUT = 60.0
#: After the first failure, seconds the launcher waits for the other tasks to notice the
#: abort znode before it terminates them.
_ABORT_GRACE_S = 5.0
#: Arrays at least this big travel as frames of their own, without a copy; smaller ones
#: are packed into one frame per bundle (one copy, like zmq itself does for small frames).
_OWN_FRAME_BYTES = 65536
_ALIGN = 16  # packed arrays start at 16-byte offsets: aligned for every numeric dtype

_HEAD = struct.Struct("<qii")  # superstep, sender task, message count
_DESC = struct.Struct("<BBB")  # kind, ndim, len(dtype.str)
_PACKED, _OWN, _PICKLED = 0, 1, 2


class TaskStopped(RuntimeErrorInJob):
    """Raised in a task that stopped because another task failed (the abort znode)."""


class BarrierTimeoutError(RuntimeErrorInJob):
    """A barrier phase or an acknowledgement did not complete within the timeout."""


# ------------------------------------------------------------------------ wire format
def _encode(step: int, src: int, payloads: list) -> list:
    """One bundle: ``[meta, packed, big...]`` (see the module docstring)."""
    meta = [_HEAD.pack(step, src, len(payloads))]
    packed, big = [], []
    off = 0
    for p in payloads:
        raw = isinstance(p, np.ndarray) and p.dtype.fields is None and not p.dtype.hasobject
        if raw:
            a = p if p.flags.c_contiguous else np.ascontiguousarray(p)
            dt = a.dtype.str.encode()
            kind = _OWN if a.nbytes >= _OWN_FRAME_BYTES else _PACKED
            meta.append(_DESC.pack(kind, a.ndim, len(dt)) + dt)
            meta.append(struct.pack(f"<{a.ndim}q", *a.shape))
            buf = a.reshape(-1).view(np.uint8)
        else:
            buf = pickle.dumps(p, protocol=5)
            kind = _PICKLED
            meta.append(_DESC.pack(kind, 1, 0) + struct.pack("<q", len(buf)))
        if kind == _OWN:
            big.append(buf)
            continue
        pad = -off % _ALIGN
        if pad:
            packed.append(bytes(pad))
        packed.append(buf)
        off += pad + len(buf)
    return [b"".join(meta), b"".join(packed), *big]


def _decode(frames) -> tuple[int, int, list]:
    """(superstep, sender, payloads) of a received bundle; arrays are views of the frames."""
    meta = frames[0].bytes
    step, src, count = _HEAD.unpack_from(meta, 0)
    pos = _HEAD.size
    packed = frames[1]
    nbig = 2
    off = 0
    out = []
    for _ in range(count):
        kind, ndim, dlen = _DESC.unpack_from(meta, pos)
        pos += _DESC.size
        if kind == _PICKLED:
            (n,) = struct.unpack_from("<q", meta, pos)
            pos += 8
            off += -off % _ALIGN
            out.append(pickle.loads(packed.buffer[off : off + n]))
            off += n
            continue
        dtype = np.dtype(meta[pos : pos + dlen].decode())
        pos += dlen
        shape = struct.unpack_from(f"<{ndim}q", meta, pos)
        pos += 8 * ndim
        count_items = int(np.prod(shape, dtype=np.int64))
        if kind == _OWN:
            a = np.frombuffer(frames[nbig], dtype=dtype, count=count_items)
            nbig += 1
        else:
            off += -off % _ALIGN
            a = np.frombuffer(packed, dtype=dtype, count=count_items, offset=off)
            off += count_items * dtype.itemsize
        out.append(a.reshape(shape))
    return step, src, out


# ------------------------------------------------------------------------ the barrier
def _task_name(pid: int) -> str:
    return f"task-{pid:06d}"


class _ZooKeeperBarrier:
    """Hama's ``enterBarrier`` / ``leaveBarrier`` on ``/bsp/<job>/sync/<step>``."""

    def __init__(self, zk, root, pid, tasks, timeout, aborted):
        self.zk, self.root, self.pid, self.tasks = zk, root, pid, tasks
        self.me = _task_name(pid)
        self.timeout = timeout
        self.aborted = aborted  # a threading.Event set by the abort znode's watch

    def _wait(self, event, deadline, what):
        while not event.wait(min(0.1, max(deadline - time.monotonic(), 0.0))):
            if self.aborted.is_set():
                raise TaskStopped(f"task {self.pid}: stopped by another task's failure")
            if time.monotonic() >= deadline:
                raise BarrierTimeoutError(what())

    def _missing(self, path, step, phase):
        def message():
            try:
                here = {c for c in self.zk.get_children(path) if c != "ready"}
            except Exception:  # the message must not fail
                here = set()
            names = [p for p in range(self.tasks) if _task_name(p) not in here]
            return (
                f"task {self.pid}: barrier {phase} of superstep {step} timed out after "
                f"{self.timeout:g} s: {len(here)} of {self.tasks} tasks there; "
                f"waiting for tasks {names} ({path})"
            )

        return message

    def enter(self, step):
        """Hama's ``enterBarrier``. The requests that do not depend on each other's
        answers go out back to back (ZooKeeper answers one session's requests in order),
        so entering costs one round trip, plus one for the task that completes it."""
        from kazoo.exceptions import NodeExistsError

        path = f"{self.root}/sync/{step}"
        deadline = time.monotonic() + self.timeout
        ready = threading.Event()
        made = self.zk.create_async(path)  # the superstep's znode (Hama: writeNode)
        # the watch is set before our znode exists, so the completing task's "ready"
        # cannot be missed
        seen = self.zk.exists_async(f"{path}/ready", watch=lambda _ev: ready.set())
        mine = self.zk.create_async(f"{path}/{self.me}", ephemeral=True)
        listed = self.zk.get_children_async(path)
        try:
            made.get()
        except NodeExistsError:
            pass
        if seen.get() is not None:
            ready.set()
        mine.get()
        if len([c for c in listed.get() if c != "ready"]) >= self.tasks:
            try:
                self.zk.create(f"{path}/ready")
            except NodeExistsError:
                pass
            return
        self._wait(ready, deadline, self._missing(path, step, "enter"))

    def leave(self, step):
        """Hama's ``leaveBarrier`` (the ZooKeeper double-barrier recipe): every task but
        the lowest deletes its znode and waits for the lowest's to go; the lowest waits
        for the highest remaining one and deletes itself when it is alone."""
        from kazoo.exceptions import NoNodeError

        path = f"{self.root}/sync/{step}"
        deadline = time.monotonic() + self.timeout
        while True:
            children = sorted(c for c in self.zk.get_children(path) if c != "ready")
            if not children or children == [self.me]:
                if children:
                    self.zk.delete(f"{path}/{self.me}")
                return
            gone = threading.Event()
            lowest = children[0] == self.me
            if not lowest and self.me in children:
                deleted = self.zk.delete_async(f"{path}/{self.me}")
            else:
                deleted = None
            watched = children[-1] if lowest else children[0]
            there = self.zk.exists_async(f"{path}/{watched}", watch=lambda _ev, e=gone: e.set())
            if deleted is not None:
                try:
                    deleted.get()
                except NoNodeError:
                    pass
            if there.get() is not None:
                self._wait(gone, deadline, self._missing(path, step, "leave"))
            if not lowest:  # the lowest goes last: once it is gone, everyone has left
                return


# ---------------------------------------------------------------------- the exchange
class _HamaExchange:
    """A task's messaging and barrier, behind the interface :class:`~hpgraph.engine.bsp.Peer`
    uses (``post``, ``sync``)."""

    def __init__(self, pid, tasks, zk_address, job, timeout):
        import zmq
        from kazoo.client import KazooClient

        self.pid, self.peers, self.timeout = pid, tasks, timeout
        self.root = f"/bsp/{job}"
        self.step = 0
        self.out = [[] for _ in range(tasks)]
        self.aborted = threading.Event()
        self._inbox: dict[int, list] = {}
        self._lock = threading.Lock()
        self._ctx = zmq.Context()
        self._dealers: dict[int, object] = {}

        # the receiver (Hama's RPC server): ROUTER on a free loopback port, own thread
        self._router = self._ctx.socket(zmq.ROUTER)
        self._router.setsockopt(zmq.LINGER, 0)
        port = self._router.bind_to_random_port("tcp://127.0.0.1")
        self.address = f"tcp://127.0.0.1:{port}"
        self._stop_addr = f"inproc://stop-{id(self)}"
        self._stop_rx = self._ctx.socket(zmq.PAIR)
        self._stop_rx.bind(self._stop_addr)
        self._receiver = threading.Thread(target=self._serve, name="hama-receiver", daemon=True)
        self._receiver.start()

        self.zk = KazooClient(hosts=zk_address, timeout=10.0)
        self.zk.start(timeout=15.0)
        self.barrier = _ZooKeeperBarrier(self.zk, self.root, pid, tasks, timeout, self.aborted)
        self.zk.DataWatch(f"{self.root}/abort", self._on_abort)
        # register, first barrier, then read every task's address (Hama's doFirstSync)
        self.zk.ensure_path(f"{self.root}/peers")
        self.zk.ensure_path(f"{self.root}/sync")
        me = _task_name(pid)
        self.zk.create(f"{self.root}/peers/{me}", self.address.encode(), ephemeral=True)
        self.barrier.enter("init")
        self.barrier.leave("init")
        self.addresses = [
            self.zk.get(f"{self.root}/peers/{_task_name(p)}")[0].decode() for p in range(tasks)
        ]

    def _on_abort(self, data, stat):
        if stat is not None:
            self.aborted.set()

    def _serve(self):
        import zmq

        poller = zmq.Poller()
        poller.register(self._router, zmq.POLLIN)
        poller.register(self._stop_rx, zmq.POLLIN)
        while True:
            events = dict(poller.poll())
            if self._stop_rx in events:
                return
            frames = self._router.recv_multipart(copy=False)
            step, _src, _n = _HEAD.unpack_from(frames[1].bytes, 0)
            with self._lock:
                self._inbox.setdefault(step, []).append(frames[1:])
            self._router.send_multipart([frames[0], b""])  # the acknowledgement

    def _dealer(self, dst):
        sock = self._dealers.get(dst)
        if sock is None:  # connected on first use, as Hama opens an RPC proxy per peer
            import zmq

            sock = self._ctx.socket(zmq.DEALER)
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(self.addresses[dst])
            self._dealers[dst] = sock
        return sock

    def post(self, parity, src, dst, payload):
        self.out[dst].append(payload)

    def _transfer(self, step):
        """Send one bundle per destination, then wait for every acknowledgement."""
        import zmq

        pending = {}
        for dst, box in enumerate(self.out):
            if box and dst != self.pid:
                sock = self._dealer(dst)
                sock.send_multipart(_encode(step, self.pid, box), copy=False)
                pending[sock] = dst
        if not pending:
            return
        poller = zmq.Poller()
        for sock in pending:
            poller.register(sock, zmq.POLLIN)
        deadline = time.monotonic() + self.timeout
        while pending:
            for sock, _ in poller.poll(100):
                sock.recv()
                poller.unregister(sock)
                del pending[sock]
            if pending and self.aborted.is_set():
                raise TaskStopped(f"task {self.pid}: stopped by another task's failure")
            if pending and time.monotonic() >= deadline:
                raise BarrierTimeoutError(
                    f"task {self.pid}: superstep {step}: no acknowledgement within "
                    f"{self.timeout:g} s from tasks {sorted(pending.values())}"
                )

    def sync(self, pid, parity):
        """(barrier seconds, communication seconds, [(sender, payload), ...])."""
        step = self.step
        t0 = time.perf_counter()
        self._transfer(step)
        own = self.out[self.pid]
        self.out = [[] for _ in range(self.peers)]
        t1 = time.perf_counter()
        self.barrier.enter(step)
        self.barrier.leave(step)
        t2 = time.perf_counter()
        with self._lock:
            bundles = self._inbox.pop(step, [])
        got = [_decode(frames)[1:] for frames in bundles]
        got.append((self.pid, own))
        got.sort(key=lambda sp: sp[0])  # by sender, in send order: as the local runtime
        inbox = [(src, p) for src, payloads in got for p in payloads]
        self.step += 1
        return t2 - t1, (t1 - t0) + (time.perf_counter() - t2), inbox

    def finish(self):
        """The exit barrier: keep receiving until every task is done sending."""
        self.barrier.enter("exit")
        self.barrier.leave("exit")

    def abort(self, message):
        from kazoo.exceptions import NodeExistsError

        try:
            self.zk.create(f"{self.root}/abort", message.encode()[:4096])
        except NodeExistsError:
            pass

    def close(self):
        import zmq

        try:
            stop = self._ctx.socket(zmq.PAIR)
            stop.connect(self._stop_addr)
            stop.send(b"")
            self._receiver.join(5.0)
            stop.close(0)
        finally:
            for sock in self._dealers.values():
                sock.close(0)
            self._router.close(0)
            self._stop_rx.close(0)
            self._ctx.term()
            self.zk.stop()
            self.zk.close()


# ---------------------------------------------------------------------------- a task
def _task_main(pid, tasks, zk_address, job, program, args, timeout, conn):
    """Body of one task process: set up, run ``program(peer, *args)``, report."""
    from hpgraph.engine.bsp import Peer

    logging.getLogger("kazoo").setLevel(logging.ERROR)  # connection chatter at shutdown
    exchange = None
    try:
        exchange = _HamaExchange(pid, tasks, zk_address, job, timeout)
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


# ------------------------------------------------------------------------ the launcher
_FORKSERVER_LOCK = threading.Lock()


def _context():
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
    ctx = _context()
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
                    target=_task_main,
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


# ------------------------------------------------------------------ run_bsp's backend
class HamaRuntime:
    """Where ``run_bsp(..., runtime=HamaRuntime(...))`` runs: ``zookeeper`` is
    ``"host:port"`` of a running server (None: ``$HPGRAPH_ZOOKEEPER`` or a private one
    per job), ``barrier_timeout`` the seconds one barrier phase may take."""

    name = "hama"

    def __init__(self, zookeeper: str | None = None,
                 barrier_timeout: float = DEFAULT_BARRIER_TIMEOUT):  # fmt: skip
        self.zookeeper = zookeeper
        self.barrier_timeout = barrier_timeout

    def run_bsp(self, program, args=(), peers=None):
        """``peers`` task processes (default :data:`hpgraph.config.DEFAULT_THREADS`)."""
        return run_bsp_hama(program, peers=peers, args=args, runtime=self)

    def close(self):
        """Nothing held between jobs (each job starts and ends its own tasks)."""

    def __repr__(self):
        return f"HamaRuntime(zookeeper={self.zookeeper!r})"


def run_bsp_hama(program, peers=None, args=(), runtime=None):
    """:func:`~hpgraph.engine.run_bsp` on the hama runtime: ``peers`` task processes
    (default: :data:`hpgraph.config.DEFAULT_THREADS`); every task's result comes back."""
    from hpgraph.config import DEFAULT_THREADS
    from hpgraph.engine.bsp import BSPResult, merge_peer_stats

    rt = runtime if isinstance(runtime, HamaRuntime) else HamaRuntime()
    t0 = time.perf_counter()
    out = launch(program, DEFAULT_THREADS if peers is None else peers, args,
                 zookeeper=rt.zookeeper, barrier_timeout=rt.barrier_timeout)  # fmt: skip
    stats = merge_peer_stats([s for _, s in out], "hama")
    stats.total_s = time.perf_counter() - t0
    return BSPResult(results=[r for r, _ in out], stats=stats)
