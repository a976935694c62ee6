"""The hama runtime's barrier: Hama's ZooKeeper double barrier, entered and left once per
superstep (``enterBarrier``/``leaveBarrier``, the ZooKeeper "double barrier" recipe).

Enter: ensure ``/bsp/<job>/sync/<step>``, watch ``<step>/ready``, create the ephemeral
``<step>/task-<id>``, count the children; the task that completes the count creates
``ready``, which wakes the others. Leave: every task but the lowest deletes its znode
and waits for the lowest's to go; the lowest waits for the highest remaining one
and deletes itself last. Each wait has a timeout (``barrier_timeout``) whose error
names the tasks that did not arrive, and stops early when another task failed (the
abort znode sets an event).
"""

from __future__ import annotations

import threading
import time

from hpgraph.errors import RuntimeErrorInJob

__all__ = [
    "DEFAULT_BARRIER_TIMEOUT",
    "TaskStopped",
    "BarrierTimeoutError",
    "ZooKeeperBarrier",
    "task_name",
    "stop_if_aborted",
]

#: Seconds a task waits in one barrier phase (or for one acknowledgement) before it gives
#: up and names the tasks that did not arrive.
DEFAULT_BARRIER_TIMEOUT = 60.0


class TaskStopped(RuntimeErrorInJob):
    """Raised in a task that stopped because another task failed (the abort znode)."""


class BarrierTimeoutError(RuntimeErrorInJob):
    """A barrier phase or an acknowledgement did not complete within the timeout."""


def task_name(pid: int) -> str:
    """The znode name of task ``pid`` (zero-padded: names sort as ids do)."""
    return f"task-{pid:06d}"


def stop_if_aborted(aborted, pid):
    """Raise :class:`TaskStopped` in task ``pid`` once another task's failure has set
    the event ``aborted``."""
    if aborted.is_set():
        raise TaskStopped(f"task {pid}: stopped by another task's failure")


class ZooKeeperBarrier:
    """Hama's ``enterBarrier`` / ``leaveBarrier`` on ``/bsp/<job>/sync/<step>``."""

    def __init__(self, zk, root, pid, tasks, timeout, aborted):
        self.zk, self.root, self.pid, self.tasks = zk, root, pid, tasks
        self.me = task_name(pid)
        self.timeout = timeout
        self.aborted = aborted  # a threading.Event set by the abort znode's watch

    def sync(self, step):
        """Enter and leave the barrier of ``step``: all tasks have arrived, and left."""
        self.enter(step)
        self.leave(step)

    def _wait(self, event, deadline, what):
        while not event.wait(min(0.1, max(deadline - time.monotonic(), 0.0))):
            stop_if_aborted(self.aborted, self.pid)
            if time.monotonic() >= deadline:
                raise BarrierTimeoutError(what())

    def _missing(self, path, step, phase):
        def message():
            try:
                here = {c for c in self.zk.get_children(path) if c != "ready"}
            except Exception:  # the message must not fail
                here = set()
            names = [p for p in range(self.tasks) if task_name(p) not in here]
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
