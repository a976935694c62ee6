"""Progress of long work, the same way everywhere: a live line on a terminal, plain lines
with the elapsed time when the output is piped or logged.

    with Progress("bmlpa") as p:            # stderr by default
        for it in ...:
            p.update(f"superstep {it}, update rate {rate:.4f}")
        p.done("3,589,651 communities")

On a terminal, ``update`` rewrites one line (throttled to ``interval_live`` seconds);
piped, it prints a line ``[  12.3 s] bmlpa: superstep 5, ...`` at most every
``interval`` seconds (the last update is never lost: :meth:`done` prints it first when it
was held back). :meth:`line` always prints. :class:`Counter` is the same for counted
work (``done/total``). Every long-running part of hpgraph reports through these two: the
engine's superstep loop, the peer-level kernels' share of peer 0, the layouts'
iterations, BMLPA's supersteps and the communities application's stages.
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress", "Counter", "fmt_elapsed"]


def fmt_elapsed(seconds: float) -> str:
    """``'   12.3 s'``, ``'  3 min 04 s'``: a fixed-width elapsed time."""
    if seconds < 600:
        return f"{seconds:7.1f} s"
    m, s = divmod(int(seconds), 60)
    return f"{m:3d} min {s:02d} s"


class Progress:
    """One reporter for one piece of work named ``name`` (see the module docstring).
    ``stream``: where lines go (default ``sys.stderr``); ``live``: force the terminal mode
    on or off (default: whether ``stream`` is a terminal); ``clock``: a shared start time
    (``time.perf_counter()`` value) so several stages report one elapsed time."""

    def __init__(self, name, *, stream=None, live=None, interval=2.0, clock=None):
        self.name = name
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.live = bool(isatty()) if live is None else bool(live)
        self.interval = float(interval)
        self.start = time.perf_counter() if clock is None else float(clock)
        self._last = -float("inf")
        self._held = None  # the newest update not printed yet (piped mode)
        self._width = 0

    # ------------------------------------------------------------------ writing
    def _stamp(self) -> str:
        return f"[{fmt_elapsed(time.perf_counter() - self.start)}] {self.name}: "

    def _write(self, text: str, *, newline: bool) -> None:
        if self.live:
            pad = max(self._width - len(text), 0)
            self.stream.write("\r" + text + " " * pad + ("\n" if newline else ""))
            self._width = 0 if newline else len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, text: str) -> None:
        """A new state of the work; shown now or soon (throttled)."""
        now = time.perf_counter()
        every = 0.1 if self.live else self.interval
        if now - self._last < every:
            self._held = text
            return
        self._last = now
        self._held = None
        self._write(self._stamp() + text, newline=False)

    def line(self, text: str) -> None:
        """A line that stays (any held update is printed first when piped)."""
        self._flush_held()
        self._write(self._stamp() + text, newline=True)

    def done(self, text: str = "done") -> None:
        """The end of the work: the final line."""
        self.line(text)

    def _flush_held(self) -> None:
        if self._held is not None and not self.live:
            self._write(self._stamp() + self._held, newline=False)
        self._held = None

    def close(self) -> None:
        """End a live line (if one is showing) without a final message."""
        self._flush_held()
        if self.live and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Counter:
    """Counted work, ``name: done/total what``, through a :class:`Progress` (same modes and
    throttling). ``advance(k)`` adds to the count, ``set(done)`` replaces it; ``info``
    (optional) is appended to the line."""

    def __init__(self, name, total, what="", **kw):
        self.total = int(total)
        self.what = what
        self.done = 0
        self.p = Progress(name, **kw)

    def _show(self, info=""):
        count = f"{self.done:,}/{self.total:,}" if self.total > 0 else f"{self.done:,}"
        text = count + (f" {self.what}" if self.what else "")
        self.p.update(text + (f"  {info}" if info else ""))

    def advance(self, k=1, info=""):
        self.done += int(k)
        self._show(info)

    def set(self, done, info=""):
        self.done = int(done)
        self._show(info)

    def close(self):
        self.p.close()
