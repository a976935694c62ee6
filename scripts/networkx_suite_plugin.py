"""A pytest plugin for NetworkX's own test suite run against the hpgraph backend
(``scripts/networkx-suite`` loads it with ``-p networkx_suite_plugin``): counts the tests
that reached hpgraph.

In NetworkX's backend test mode (``NETWORKX_TEST_BACKEND=hpgraph``) every dispatchable
call is offered to hpgraph; NetworkX runs its own code for a function hpgraph does not
dispatch or declines (``can_run``, or ``NotImplementedError`` from the function). A
passing suite says little about hpgraph unless some of its tests ran hpgraph's code, so
the plugin wraps each dispatched function of ``BackendInterface`` with a counter and
credits a test with the calls made while it ran (set-up and tear-down included). A call
that raises ``NotImplementedError`` is counted apart: NetworkX then answers instead.

Prints a summary after pytest's own; ``--hpgraph-report PATH`` also writes it as JSON
(``tests/test_networkx_suite.py`` reads it): the outcome counts, the tests that reached
hpgraph, the failures, calls per function, and per test module the tests that reached
hpgraph and the seconds the module took (how ``scripts/networkx-suite`` chose its
modules).
"""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

__all__ = ["pytest_addoption", "pytest_configure"]


def pytest_addoption(parser):
    parser.addoption(
        "--hpgraph-report",
        default=None,
        help="write the count of tests that reached the hpgraph backend here (JSON)",
    )


def pytest_configure(config):
    config.pluginmanager.register(_Counter(config.getoption("--hpgraph-report")))


class _Counter:
    """Wraps the backend's functions, credits each test with its calls, reports."""

    def __init__(self, report_path):
        from hpgraph.nxbackend._info import FUNCTIONS
        from hpgraph.nxbackend.interface import BackendInterface

        self.report_path = report_path
        self.calls = Counter()  # function -> calls that hpgraph answered
        self.declined = Counter()  # function -> calls that raised NotImplementedError
        self.conversions = 0
        self.reached = {}  # test id -> calls hpgraph answered while it ran
        self.outcomes = Counter()
        self.failed = []
        self.module_seconds = defaultdict(float)
        self.module_calls = defaultdict(Counter)  # test module -> function -> calls
        self._module = self._test = ""
        for name in FUNCTIONS:
            func = self._wrap(name, getattr(BackendInterface, name))
            setattr(BackendInterface, name, staticmethod(func))
        convert = BackendInterface.convert_from_nx

        @functools.wraps(convert)
        def convert_from_nx(*args, **kwargs):
            self.conversions += 1
            return convert(*args, **kwargs)

        BackendInterface.convert_from_nx = staticmethod(convert_from_nx)

    def _wrap(self, name, func):
        @functools.wraps(func)
        def counted(*args, **kwargs):
            try:
                result = func(*args, **kwargs)
            except NotImplementedError:
                self.declined[name] += 1
                raise
            except Exception:
                self._count(name)  # NetworkX's exception for bad input: hpgraph answered
                raise
            self._count(name)
            return result

        return counted

    def _count(self, name):
        self.calls[name] += 1
        self.module_calls[self._module][name] += 1

    def _total(self):
        return sum(self.calls.values())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._module, self._test = _names(item)
        start = self._total()
        try:
            return (yield)
        finally:
            calls = self._total() - start
            if calls:
                self.reached[self._test] = calls

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        self.module_seconds[self._module] += report.duration
        if report.failed:
            if self._test not in self.failed:
                self.failed.append(self._test)
            self.outcomes["failed" if report.when == "call" else "error"] += 1
        elif report.when == "call" or (report.when == "setup" and report.skipped):
            if hasattr(report, "wasxfail"):
                self.outcomes["xfailed" if report.skipped else "xpassed"] += 1
            else:
                self.outcomes[report.outcome] += 1

    def _summary(self):
        modules = Counter(test.split("::")[0] for test in self.reached)
        return {
            "outcomes": dict(self.outcomes),
            "reached": len(self.reached),
            "reached_failed": sorted(n for n in self.failed if n in self.reached),
            "failed": self.failed,
            "calls": dict(self.calls.most_common()),
            "declined": dict(self.declined.most_common()),
            "conversions": self.conversions,
            "modules": {
                m: {
                    "reached": modules[m],
                    "seconds": round(s, 2),
                    "calls": dict(self.module_calls[m].most_common()),
                }
                for m, s in sorted(self.module_seconds.items())
            },
        }

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter):
        s = self._summary()
        write = terminalreporter.write_line
        write(
            f"hpgraph backend: {s['reached']} tests reached hpgraph "
            f"({self._total()} calls answered, {sum(self.declined.values())} declined with "
            f"NotImplementedError, {self.conversions} graphs converted); "
            f"{len(s['reached_failed'])} of them failed"
        )
        write("  calls: " + ", ".join(f"{k} {v}" for k, v in s["calls"].items()))
        for nodeid in s["reached_failed"]:
            write(f"  FAILED, reached hpgraph: {nodeid}")
        if self.report_path:
            with open(self.report_path, "w") as f:
                json.dump(s, f, indent=1)


def _names(item):
    """The test's module as a path inside NetworkX's package, and the test's id under it
    (pytest's own node ids leave the module out when the tests are named by module)."""
    import networkx

    path = Path(item.path)
    try:
        module = path.relative_to(Path(networkx.__file__).parent).as_posix()
    except ValueError:
        module = str(path)
    return module, f"{module}::{item.nodeid.split('::', 1)[-1]}"
