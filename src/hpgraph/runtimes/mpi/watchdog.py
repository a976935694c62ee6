"""Hung-rank detection for the MPI runtime: no job waits for ever on a rank that stopped.

MPI has no timeouts: when one rank hangs (stuck in a loop, stopped, swapped out for good),
every other rank blocks in the next collective and the job never ends. So each wait of
the runtime's for the other ranks (the ``Allreduce`` that ends a phase, the peer API's
barrier and exchange, the ``Alltoallv``/``Allgatherv`` of delivery and ingest) runs
under :func:`guard`:

- On entry a rank writes a heartbeat, ``(waits entered, wall time)``, to its own file in
  a folder every rank shares (rank 0 makes it and broadcasts the path; across nodes set
  ``$HPGRAPH_HEARTBEAT_DIR`` to a shared file system).
- A daemon thread per rank watches its own current wait. After ``timeout`` seconds in
  one, it reads every rank's heartbeat, names the ranks that have not reached this wait
  (and when each was last heard of), prints one line, and ends the whole job with
  ``MPI_Abort``: every rank exits non-zero, the stopped one included.

A rank that is only slow delays the others without harm as long as no single wait lasts
``timeout`` (default 600 s, ``$HPGRAPH_MPI_TIMEOUT``; 0 turns the watchdog off). The
cost is one 16-byte ``pwrite`` per wait. mpi4py releases the GIL inside blocking calls,
so the thread runs while the main thread waits; the abort needs MPI's
``THREAD_MULTIPLE``, mpi4py's default.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import struct
import sys
import tempfile
import threading
import time

__all__ = ["Watchdog", "abort_job", "guard", "start_watchdog", "DEFAULT_TIMEOUT"]

#: seconds one wait for the other ranks may last before the job is ended
DEFAULT_TIMEOUT = 600.0
_BEAT = struct.Struct("<qd")  # waits entered, wall time
_FORWARD_S = 1.0  # seconds between the watchdog's line and the abort
_current = None  # this process's watchdog, if any


def abort_job(comm, line: str, code: int):
    """Print ``line`` on stderr and end the whole job with ``MPI_Abort(code)``. The
    launcher forwards a rank's stderr from a pipe, and an abort at once can tear the job
    down before it has (seen under load: the job ended with no reason printed), so the
    rank waits a moment between the two."""
    print(line, file=sys.stderr, flush=True)
    time.sleep(_FORWARD_S)
    comm.Abort(code)


@contextlib.contextmanager
def guard(what: str):
    """Run the block (a wait for the other ranks) under this process's watchdog."""
    dog = _current
    if dog is None:
        yield
        return
    dog.enter(what)
    try:
        yield
    finally:
        dog.leave()


def start_watchdog(comm, MPI):
    """This process's watchdog, started by the first MPI runtime (collective: every rank
    of ``comm`` calls it at the same point), or None when ``$HPGRAPH_MPI_TIMEOUT`` is 0.
    It lives as long as the process; later runtimes share it."""
    if _current is None:
        timeout = timeout_from_env()
        if timeout > 0:
            Watchdog(comm, MPI, timeout)
    return _current


class Watchdog:
    """The watchdog of this rank of ``comm`` (collective: every rank makes one)."""

    def __init__(self, comm, MPI, timeout: float):
        global _current
        self.comm, self.MPI, self.timeout = comm, MPI, float(timeout)
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        folder = None
        if self.rank == 0:
            folder = tempfile.mkdtemp(
                prefix="hpgraph-heartbeat-", dir=os.environ.get("HPGRAPH_HEARTBEAT_DIR")
            )
        self.folder = comm.bcast(folder, root=0)
        self._fd = os.open(self._path(self.rank), os.O_RDWR | os.O_CREAT, 0o644)
        self.entered = 0
        self._depth = 0  # waits nest (a phase's exchange inside delivery)
        self._since = None  # when the current wait began (None: not waiting)
        self._what = ""
        self._stop = threading.Event()
        self._beat()
        comm.Barrier()  # every heartbeat file exists before anyone reads them
        self._thread = threading.Thread(target=self._watch, name="hpgraph-watchdog", daemon=True)
        self._thread.start()
        atexit.register(self._remove)
        _current = self

    def _path(self, rank):
        return os.path.join(self.folder, f"rank-{rank:05d}")

    def _beat(self):
        os.pwrite(self._fd, _BEAT.pack(self.entered, time.time()), 0)

    def enter(self, what):
        self._depth += 1
        if self._depth == 1:
            self.entered += 1
            self._beat()
            self._what = what
            self._since = time.monotonic()

    def leave(self):
        self._depth -= 1
        if self._depth == 0:
            self._since = None

    def _watch(self):
        while not self._stop.wait(min(1.0, self.timeout / 4)):
            since = self._since
            if since is not None and time.monotonic() - since > self.timeout:
                line = f"hpgraph: {self.report()}; ending the job"
                shutil.rmtree(self.folder, ignore_errors=True)  # no rank's exit handler runs
                abort_job(self.comm, line, 3)

    def report(self) -> str:
        """Who this rank waits for, from the heartbeats: one line."""
        now = time.time()
        behind, unknown = [], []
        for r in range(self.size):
            try:
                with open(self._path(r), "rb") as f:
                    entered, at = _BEAT.unpack(f.read(_BEAT.size))
            except (OSError, struct.error):
                unknown.append(r)
                continue
            if entered < self.entered:
                behind.append(f"rank {r} (last seen {now - at:.0f} s ago)")
        waited = f"rank {self.rank} waited {self.timeout:.0f} s in {self._what}"
        if behind:
            return f"{waited} for {', '.join(behind)}: hung or stopped"
        if unknown:
            return f"{waited}; no heartbeat from rank(s) {unknown} (set HPGRAPH_HEARTBEAT_DIR)"
        return f"{waited}; every rank reached it: the exchange itself stalled"

    def _remove(self):
        """At exit: this rank's heartbeat file, and (rank 0, once the others removed
        theirs, for up to a second) the folder."""
        self._stop.set()
        os.close(self._fd)
        with contextlib.suppress(OSError):
            os.remove(self._path(self.rank))
        if self.rank == 0:
            for _ in range(20):
                with contextlib.suppress(OSError):
                    os.rmdir(self.folder)
                    return
                time.sleep(0.05)


def timeout_from_env() -> float:
    """``$HPGRAPH_MPI_TIMEOUT`` in seconds (0: off), else :data:`DEFAULT_TIMEOUT`."""
    from hpgraph.config import seconds_from_env

    return seconds_from_env("HPGRAPH_MPI_TIMEOUT", DEFAULT_TIMEOUT)
