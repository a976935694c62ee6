"""Stall detection on the local runtime: a job that makes no progress for ``timeout``
seconds ends its process, so that no job waits for ever and a restart supervisor
(``hpgraph run --max-restarts``) can rerun it from its newest checkpoint.

One process has no other rank to notice that it stopped, so the job itself reports its
progress: the engine calls the runtime's ``progress`` when a vertex job's superstep
starts and when the job ends, and the local peer API's barrier does at every superstep.
A daemon thread checks every second (or a quarter of ``timeout``) how long the current
superstep has lasted. Past ``timeout`` it prints one line naming the superstep (and, for
peer-level programs, the peers that have not reached its barrier) and ends the process
with exit status 3, as the MPI watchdog does (runtimes/mpi/watchdog.py).

It is off unless ``$HPGRAPH_TIMEOUT`` (seconds) is set; ``hpgraph run`` turns it on at
600 s when it checkpoints or restarts (``--checkpoint``, ``--max-restarts``). A
superstep that legitimately runs longer than ``timeout`` is ended too: choose it above
the longest superstep you expect. Between jobs it is idle. The cost is two clock reads
per superstep.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from hpgraph.config import seconds_from_env

__all__ = ["StallWatch", "stall_watch", "ENV", "EXIT_STATUS"]

ENV = "HPGRAPH_TIMEOUT"
EXIT_STATUS = 3
_current: StallWatch | None = None


def stall_watch() -> StallWatch | None:
    """This process's watch, started on first call when ``$HPGRAPH_TIMEOUT`` is set
    above 0 (and None otherwise). It lives as long as the process."""
    global _current
    if _current is None:
        timeout = seconds_from_env(ENV, 0.0)
        if timeout == 0:
            return None
        _current = StallWatch(timeout)
    return _current


class StallWatch:
    """Ends the process when one step of a job lasts longer than ``timeout`` seconds."""

    def __init__(self, timeout: float):
        self.timeout = float(timeout)
        self._since = None  # when the current step began (None: no job running)
        self._what = None  # the step: a string, or a function giving one
        self._thread = threading.Thread(target=self._watch, name="hpgraph-stall", daemon=True)
        self._thread.start()

    def progress(self, what) -> None:
        """A step begins (``what`` describes it: a string, or a function returning one,
        called only when it stalls); None: the job ended."""
        self._what = what
        self._since = None if what is None else time.monotonic()

    def _watch(self):
        while True:
            time.sleep(min(1.0, self.timeout / 4))
            since, what = self._since, self._what
            if since is not None and time.monotonic() - since > self.timeout:
                text = what() if callable(what) else what
                print(
                    f"hpgraph: no progress for {self.timeout:g} s on the local runtime: "
                    f"{text} has not ended (hung or stopped; ${ENV}); ending the job",
                    file=sys.stderr,
                    flush=True,
                )
                os._exit(EXIT_STATUS)
