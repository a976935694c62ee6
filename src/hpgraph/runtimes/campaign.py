"""A fault campaign (``hpgraph faults run FAULTS -- COMMAND``): COMMAND once without
faults, then once per fault (or per ``run`` group of faults) of the fault file, each
injected through ``$HPGRAPH_INJECT``; per run, whether the fault was detected and how
long after it acted, whether the job restarted, and whether its output file is identical
to the fault-free run's.

Detection is read from the run's stderr, timed as the lines arrive: a restart by the
supervisor (``attempt N failed``, a killed or hung rank), a checkpoint warning (a
failed write, a corrupt checkpoint skipped), or the command failing. A delay or a CPU hog
shorter than the MPI watchdog's timeout is not a failure: it is reported as tolerated.
"""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from hpgraph.runtimes.faults import dump_faults, load_faults

__all__ = ["Outcome", "run_campaign", "format_table"]

_FAILED = re.compile(r"attempt \d+ failed")
#: per fault kind, the stderr line that shows it was detected
_SIGNS = {
    "kill": _FAILED,
    "hang": _FAILED,
    "delay": _FAILED,  # only when longer than the watchdog's timeout
    "hog": _FAILED,
    "disk-full": re.compile(r"not written"),
    "unavailable": re.compile(r"not written"),
    "corrupt": re.compile(r"corrupt \(|no usable checkpoint"),
}


@dataclass
class Outcome:
    fault: str
    acted: bool
    detected: str  #: "yes", "no", "tolerated"
    detect_s: float | None
    restarts: int
    exit_status: int
    identical: bool | None  #: None: no output file compared
    seconds: float


def _groups(faults):
    groups: dict = {}
    for i, f in enumerate(faults):
        groups.setdefault(("run", f.run) if f.run is not None else ("one", i), []).append(f)
    return list(groups.values())


def _clean(paths):
    for p in paths:
        p = Path(p)
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


def _run(command, env, timeout):
    """Run ``command``; (exit status, [(time, stderr line)], seconds)."""
    t0 = time.time()
    lines = []
    with subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as proc:

        def read():
            for line in proc.stderr:
                lines.append((time.time(), line.rstrip("\n")))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait()
            lines.append((time.time(), f"campaign: killed after {timeout:g} s"))
        reader.join(5)
    return code, lines, time.time() - t0


def run_campaign(fault_file, command, *, compare=None, clean=(), timeout=600.0, echo=None):
    """Run the campaign; one :class:`Outcome` per fault run (``echo(text)`` reports
    progress). The fault-free run comes first; a failure of it raises RuntimeError."""
    faults = load_faults(fault_file)
    echo = echo or (lambda text: None)
    base_env = {k: v for k, v in os.environ.items() if k != "HPGRAPH_INJECT"}
    with tempfile.TemporaryDirectory(prefix="hpgraph-faults-") as tmp:
        tmp = Path(tmp)
        reference = tmp / "reference"
        _clean(clean)
        echo("fault-free run ...")
        code, lines, _ = _run(command, base_env, timeout)
        if code != 0:
            tail = " | ".join(t for _, t in lines[-3:])
            raise RuntimeError(f"the fault-free run failed (exit status {code}): {tail}")
        if compare is not None:
            shutil.copyfile(compare, reference)
        out = []
        for k, group in enumerate(_groups(faults)):
            name = " + ".join(str(f) for f in group)
            echo(f"run {k + 1}: {name} ...")
            _clean(clean)
            if compare is not None and Path(compare).exists():
                Path(compare).unlink()
            state = tmp / f"state-{k}"
            state.mkdir()
            dump_faults(group, tmp / f"faults-{k}.toml")
            env = dict(base_env, HPGRAPH_INJECT=str(tmp / f"faults-{k}.toml"))
            env["HPGRAPH_FAULT_STATE"] = str(state)
            code, lines, seconds = _run(command, env, timeout)
            fired = sorted(float(p.read_text()) for p in state.glob("fault-*.fired"))
            out.append(_outcome(name, group, fired, code, lines, seconds, compare, reference))
    return out


def _outcome(name, group, fired, code, lines, seconds, compare, reference):
    """Detected: each fault's sign is in stderr (a delay or hog without one: tolerated;
    a kill or hang: also a failed command), timed from the first fault acting to the
    last sign's first line."""
    restarts = sum(1 for _, t in lines if _FAILED.search(t))
    when, missing = [], []
    for f in group:
        hit = next((t for t, text in lines if _SIGNS[f.kind].search(text)), None)
        if hit is None and f.kind in ("kill", "hang") and code != 0 and lines:
            hit = lines[-1][0]
        if hit is not None:
            when.append(hit)
        elif f.kind not in ("delay", "hog"):
            missing.append(f)
    if missing or (not when and not fired):
        detected = "no"
    else:
        detected = "yes" if when else "tolerated"
    detect_s = max(when) - fired[0] if when and fired and not missing else None
    identical = None
    if compare is not None:
        identical = code == 0 and Path(compare).exists() and filecmp.cmp(compare, reference, False)
    return Outcome(name, bool(fired), detected, detect_s, restarts, code, identical, seconds)


def format_table(outcomes) -> str:
    """The campaign's table: one line per fault run."""
    head = ("fault", "acted", "detected", "after s", "restarts", "exit", "identical", "run s")
    rows = [head]
    for o in outcomes:
        ident = "-" if o.identical is None else ("yes" if o.identical else "NO")
        after = "-" if o.detect_s is None else f"{o.detect_s:.1f}"
        rows.append((o.fault, "yes" if o.acted else "no", o.detected, after, str(o.restarts),
                     str(o.exit_status), ident, f"{o.seconds:.1f}"))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                     for r in rows)  # fmt: skip
