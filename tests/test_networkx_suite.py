"""NetworkX's own test suite against the hpgraph backend, as nx-parallel's CI runs it
(``NETWORKX_TEST_BACKEND=hpgraph``, fallback to NetworkX allowed), through
``scripts/networkx-suite --dispatched``: the NetworkX test modules whose tests reach a
function hpgraph dispatches (``scripts/networkx-suite.modules`` lists them and says how
they were chosen).

Asserts that none of their tests fails and that at least :data:`MIN_REACHED` of them ran
hpgraph's code: a suite that passed because every call fell back to NetworkX would prove
nothing. The count comes from the script's pytest plugin, which wraps every dispatched
function. It takes 6-11 minutes on 2 cores; ``python -m pytest -m "not nxsuite"`` leaves
it out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("networkx")

pytestmark = pytest.mark.nxsuite

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "networkx-suite"
#: 1,544 tests reached hpgraph with NetworkX 3.6.1 (docs/networkx.md); the margin allows
#: for NetworkX releases that move or drop a few tests.
MIN_REACHED = 1400


def test_networkx_suite_passes_with_the_backend(tmp_path):
    report, log = tmp_path / "report.json", tmp_path / "pytest.log"
    env = dict(
        os.environ, PYTHON=sys.executable, NX_SUITE_REPORT=str(report), NX_SUITE_LOG=str(log)
    )
    proc = subprocess.run(
        [str(SCRIPT), "--dispatched"], capture_output=True, text=True, env=env, timeout=1800
    )
    out = f"{proc.stdout}{proc.stderr}\npytest's whole output: {log}"
    assert report.exists(), f"networkx-suite wrote no report (exit {proc.returncode}):\n{out}"
    s = json.loads(report.read_text())
    failed = "\n".join(f"  {test}" for test in s["failed"])
    assert not s["failed"], (
        f"{len(s['failed'])} of NetworkX's tests failed against the backend, "
        f"{len(s['reached_failed'])} of them after reaching hpgraph:\n{failed}\n\n{out}"
    )
    assert proc.returncode == 0, out
    assert s["reached"] >= MIN_REACHED, (
        f"only {s['reached']} of NetworkX's tests reached hpgraph, expected at least "
        f"{MIN_REACHED}: does the backend still dispatch? calls: {s['calls']}\n\n{out}"
    )
