"""A fault injector for vertex jobs (after HPC-SFI, seed 004): faults described in a
TOML (or YAML) file are acted out by the job itself, at the end of a superstep or around
its checkpoint writes, so a test or a campaign can prove that each is detected and that
the job resumes to the same result.

File format (docs/checkpoints.md)::

    [[fault]]
    kind = "kill"        # kill | hang | delay | hog | disk-full | unavailable | corrupt
    rank = 1             # the MPI rank that acts it (0 on the local runtime) [0]
    superstep = 4        # when superstep 4 is about to start (after its checkpoint)
    seconds = 2.0        # delay and hog: how long [1.0]
    run = 1              # hpgraph faults run: faults with the same run act in one run

    [random]             # more faults drawn from a seed (all of them listed at load)
    seed = 7
    count = 3
    kinds = ["kill", "delay"]
    supersteps = [1, 10] # drawn from [1, 10]
    ranks = 2            # drawn from [0, 2) [1]

kill: SIGKILL to the own process; hang: stops for good (a sleep, detected by the MPI
watchdog); delay: sleeps ``seconds``; hog: a busy process beside the rank for
``seconds``; disk-full / unavailable: the checkpoint write of that superstep fails with
ENOSPC / EACCES; corrupt: a byte of the rank's value file (of a peer-level program: its
largest array file) is flipped once the checkpoint is complete. Peer-level programs
(``run_bsp``) get the superstep faults when a peer's superstep is about to start, and the
checkpoint faults at the supersteps where they checkpoint. With ``$HPGRAPH_FAULT_STATE``
(a folder) each fault acts once over restarts and records when it acted
(``fault-I.fired``), which ``hpgraph faults run`` reads.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from hpgraph.engine.checkpoint import Faults
from hpgraph.errors import InvalidArgumentError

__all__ = ["KINDS", "Fault", "Injector", "load_faults", "dump_faults"]

KINDS = ("kill", "hang", "delay", "hog", "disk-full", "unavailable", "corrupt")
_KEYS = {"kind", "rank", "superstep", "seconds", "run"}


@dataclass(frozen=True)
class Fault:
    kind: str
    superstep: int
    rank: int = 0
    seconds: float = 1.0
    run: int | None = None  #: a campaign's run it belongs to (None: a run of its own)

    def __str__(self):
        timed = f" {self.seconds:g} s" if self.kind in ("delay", "hog") else ""
        return f"{self.kind}{timed} rank {self.rank} superstep {self.superstep}"


def _fault(where: str, spec) -> Fault:
    if not isinstance(spec, dict):
        raise InvalidArgumentError(f"{where}: expected a table of kind, rank, superstep")
    extra = set(spec) - _KEYS
    if extra:
        raise InvalidArgumentError(f"{where}: unknown key {sorted(extra)[0]!r}")
    kind = spec.get("kind")
    if kind not in KINDS:
        raise InvalidArgumentError(
            f"{where}: unknown fault kind {kind!r}; choose from {', '.join(KINDS)}"
        )
    try:
        ss, rank, seconds = (
            int(spec["superstep"]),
            int(spec.get("rank", 0)),
            spec.get("seconds", 1.0),
        )
        run = None if spec.get("run") is None else int(spec["run"])
        f = Fault(kind, ss, rank, float(seconds), run)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{where}: needs an integer superstep ({exc})") from None
    if f.superstep < 1 or f.rank < 0 or f.seconds < 0:
        raise InvalidArgumentError(f"{where}: superstep must be >= 1, rank and seconds >= 0")
    return f


def _random(where: str, spec: dict) -> list[Fault]:
    rng = np.random.default_rng(int(spec.get("seed", 0)))
    kinds = list(spec.get("kinds", KINDS))
    lo, hi = (int(x) for x in spec.get("supersteps", (1, 10)))
    ranks = int(spec.get("ranks", 1))
    out = []
    for i in range(int(spec.get("count", 1))):
        out.append(
            _fault(
                f"{where}: fault {i}",
                {
                    "kind": kinds[int(rng.integers(len(kinds)))],
                    "superstep": int(rng.integers(lo, hi + 1)),
                    "rank": int(rng.integers(ranks)),
                    "seconds": float(spec.get("seconds", 1.0)),
                },
            )
        )
    return out


def load_faults(path) -> list[Fault]:
    """The faults of a TOML (``.toml``) or YAML (``.yaml``/``.yml``) file, listed ones
    first, then the random ones; InvalidArgumentError (one line, naming the file) on an
    unreadable file, an unknown kind or key."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise InvalidArgumentError(f"{path}: cannot read the fault file ({exc.strerror})") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            doc = yaml.safe_load(text) or {}
        else:
            import tomllib

            doc = tomllib.loads(text)
    except Exception as exc:  # the parsers' own errors: one line
        msg = str(exc).splitlines()[0]
        raise InvalidArgumentError(f"{path}: not a valid fault file ({msg})") from None
    if not isinstance(doc, dict) or set(doc) - {"fault", "random"}:
        raise InvalidArgumentError(f"{path}: expected [[fault]] tables and a [random] table")
    faults = [_fault(f"{path}: fault {i}", s) for i, s in enumerate(doc.get("fault", []))]
    if "random" in doc:
        faults += _random(f"{path}: random", doc["random"])
    return faults


def dump_faults(faults, path) -> None:
    """Write ``faults`` as a TOML fault file."""
    lines = []
    for f in faults:
        lines.append("[[fault]]")
        lines += [
            f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"'
            for k, v in asdict(f).items()
            if v is not None
        ]
    Path(path).write_text("\n".join(lines) + "\n")


def _victim(folder: Path, rank: int) -> Path:
    """The file a ``corrupt`` fault flips: a vertex job's ``rank-R/value.npy``, else
    (a peer-level program's checkpoint) the largest array file of rank R's own folder or
    its first peer's."""
    value = folder / f"rank-{rank}" / "value.npy"
    if value.exists():
        return value
    files = [*folder.glob(f"rank-{rank}/*.npy"), *folder.glob(f"peer-{rank}/*.npy")]
    files = files or [*folder.glob(f"peer-{rank}/*.pkl"), *folder.glob(f"rank-{rank}/*.pkl")]
    return max(files, key=lambda f: (f.stat().st_size, f.name))


class Injector(Faults):
    """Acts out ``faults`` from the checkpoint hook of a vertex job. ``state``: a folder
    where each fault, once acted, leaves ``fault-I.fired`` (its time), so that it acts
    once over restarts (default ``$HPGRAPH_FAULT_STATE``; none: every time)."""

    def __init__(self, faults, state=None):
        self.faults = list(faults)
        state = state if state is not None else os.environ.get("HPGRAPH_FAULT_STATE")
        self.state = Path(state) if state else None

    def _due(self, kinds, ss, rank):
        for i, f in enumerate(self.faults):
            if f.kind in kinds and f.superstep == ss and f.rank == rank and self._claim(i):
                yield f

    def _claim(self, i) -> bool:
        if self.state is None:
            return True
        try:
            fd = os.open(self.state / f"fault-{i}.fired", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return False
        os.write(fd, f"{time.time():.6f}\n".encode())
        os.fsync(fd)
        os.close(fd)
        return True

    def superstep(self, ss, rank):
        for f in self._due(("kill", "hang", "delay", "hog"), ss, rank):
            print(f"hpgraph: injected fault: {f}", file=sys.stderr, flush=True)
            if f.kind == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            elif f.kind == "hang":
                while True:
                    time.sleep(3600)
            elif f.kind == "delay":
                time.sleep(f.seconds)
            else:  # a busy process beside this one, left to run on its own
                spin = (
                    f"import time\nend = time.time() + {f.seconds}\nwhile time.time() < end: pass"
                )
                subprocess.Popen([sys.executable, "-c", spin])

    def writing(self, ss, rank, folder):
        for f in self._due(("disk-full", "unavailable"), ss, rank):
            print(f"hpgraph: injected fault: {f}", file=sys.stderr, flush=True)
            if f.kind == "disk-full":
                raise OSError(errno.ENOSPC, "No space left on device (injected)", str(folder))
            raise PermissionError(errno.EACCES, "Permission denied (injected)", str(folder))

    def written(self, ss, rank, folder):
        for f in self._due(("corrupt",), ss, rank):
            print(f"hpgraph: injected fault: {f}", file=sys.stderr, flush=True)
            target = _victim(Path(folder), rank)
            with open(target, "r+b") as fh:
                size = fh.seek(0, os.SEEK_END)
                fh.seek(size // 2)
                byte = fh.read(1)
                fh.seek(size // 2)
                fh.write(bytes([byte[0] ^ 0xFF]) if byte else b"\x00")
