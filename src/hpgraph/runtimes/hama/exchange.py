"""A hama task's transport: registration through ZooKeeper and messages over ZeroMQ, as
in Hama's ``BSPPeerImpl`` and ``HadoopMessageManagerImpl``.

- **Registration and peer discovery through ZooKeeper**: each task binds its receiver on
  a free loopback TCP port and writes ``host:port`` to the ephemeral znode
  ``/bsp/<job>/peers/task-<id>``; after a first barrier every task reads all of them
  (Hama's ``register`` / ``getAllPeerNames`` / ``doFirstSync``).
- **Messaging, sender side** (Hama's ``sync()``): payloads are queued per destination;
  at ``sync()`` each destination's queue becomes one *bundle*
  (:mod:`~hpgraph.runtimes.hama.wire`), sent as one multi-part ZeroMQ message over TCP
  to that task's receiver. Like Hama's RPC ``transfer`` the send completes when the
  receiver acknowledges it, so after the barrier every bundle has arrived. Unlike Hama,
  which transfers the bundles one blocking RPC after another, the bundles to all
  destinations are in flight at once and the acknowledgements are collected afterwards.
  Messages to oneself never leave the process (Hama's loop-back queue).
- **Messaging, receiver side**: a receiver thread per task (Hama's RPC server) stores
  incoming bundles by superstep and acknowledges them, while the task computes.
"""

from __future__ import annotations

import threading
import time

from hpgraph.runtimes.hama.barrier import (
    BarrierTimeoutError,
    ZooKeeperBarrier,
    stop_if_aborted,
    task_name,
)
from hpgraph.runtimes.hama.wire import HEAD, decode, encode

__all__ = ["HamaExchange"]


class HamaExchange:
    """A task's messaging and barrier, behind the interface :class:`~hpgraph.engine.bsp.Peer`
    uses (``post``, ``sync``; ``local``: a task is alone in its process)."""

    def __init__(self, pid, tasks, zk_address, job, timeout):
        import zmq
        from kazoo.client import KazooClient

        self.pid, self.peers, self.timeout = pid, tasks, timeout
        self.local = range(pid, pid + 1)
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
        self.barrier = ZooKeeperBarrier(self.zk, self.root, pid, tasks, timeout, self.aborted)
        self.zk.DataWatch(f"{self.root}/abort", self._on_abort)
        # register, first barrier, then read every task's address (Hama's doFirstSync)
        self.zk.ensure_path(f"{self.root}/peers")
        self.zk.ensure_path(f"{self.root}/sync")
        me = task_name(pid)
        self.zk.create(f"{self.root}/peers/{me}", self.address.encode(), ephemeral=True)
        self.barrier.sync("init")
        self.addresses = [
            self.zk.get(f"{self.root}/peers/{task_name(p)}")[0].decode() for p in range(tasks)
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
            step, _src, _n = HEAD.unpack_from(frames[1].bytes, 0)
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
                sock.send_multipart(encode(step, self.pid, box), copy=False)
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
            if pending:
                stop_if_aborted(self.aborted, self.pid)
            if pending and time.monotonic() >= deadline:
                raise BarrierTimeoutError(
                    f"task {self.pid}: superstep {step}: no acknowledgement within "
                    f"{self.timeout:g} s from tasks {sorted(pending.values())}"
                )

    def local_barrier(self):
        """A task is alone in its process: nothing to wait for."""

    def sync(self, pid, parity):
        """(barrier seconds, communication seconds, [(sender, payload), ...])."""
        step = self.step
        t0 = time.perf_counter()
        self._transfer(step)
        own = self.out[self.pid]
        self.out = [[] for _ in range(self.peers)]
        t1 = time.perf_counter()
        self.barrier.sync(step)
        t2 = time.perf_counter()
        with self._lock:
            bundles = self._inbox.pop(step, [])
        got = [decode(frames)[1:] for frames in bundles]
        got.append((self.pid, own))
        got.sort(key=lambda sp: sp[0])  # by sender, in send order: as the local runtime
        inbox = [(src, p) for src, payloads in got for p in payloads]
        self.step += 1
        return t2 - t1, (t1 - t0) + (time.perf_counter() - t2), inbox

    def finish(self):
        """The exit barrier: keep receiving until every task is done sending."""
        self.barrier.sync("exit")

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
