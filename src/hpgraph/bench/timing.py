"""Timing one system's kernel on one graph (GAP's ``BenchmarkKernel``): an untimed
warm-up, ``trials`` timed calls per root, the first result of each root checked and
compared with the reference system's, and the report row: median and minimum time, the
spread between trials, EVPS, TEPS and the process's peak RSS."""

from __future__ import annotations

import os
import resource
import sys
import time
from typing import Any

import numpy as np

from hpgraph.algorithms.registry import ALGORITHMS
from hpgraph.bench._convert import loops_per_vertex, traversed_edges
from hpgraph.bench.checks import compare, normal_form, summarise, values_of

__all__ = [
    "Runner",
    "result_row",
    "missing_row",
    "trial_spread",
    "peak_rss_bytes",
    "current_rss_bytes",
]


def peak_rss_bytes() -> int:
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r if sys.platform == "darwin" else r * 1024)


def current_rss_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def median(xs):
    return float(np.median(xs)) if xs else float("nan")


def trial_spread(times) -> float:
    """How much slower a typical trial is than the best: the sum over roots (``times``:
    {root, or None: seconds of its trials}) of each root's median trial over the sum of its
    fastest, minus 1 (0.12: 12% slower). Trials of one root repeat the same work, so this
    is the machine's and the scheduler's noise; roots differ in work (a BFS from a root
    of a small component is short), so the minimum over all roots would count the choice
    of roots as noise. NaN without a root of two trials."""
    rows = [ts for ts in times.values() if len(ts) >= 2]
    if not rows:
        return float("nan")
    return sum(median(ts) for ts in rows) / sum(min(ts) for ts in rows) - 1.0


def result_row(kernel, graph, size, system, samples=()) -> dict[str, Any]:
    """A report row of ``system``'s ``kernel`` on ``graph`` (|V|, |E| = ``size``) from its
    timed calls' seconds (none: a row that did not run); no TEPS, check, note, threads or
    ratio yet. EVPS = (|V| + |E|) / median time; the peak RSS is the process's now."""
    med = median(samples)
    return {
        "kernel": kernel,
        "graph": graph.name,
        "V": size[0],
        "E": size[1],
        "system": system,
        "median_s": med,
        "min_s": float(min(samples)) if samples else float("nan"),
        "spread": float("nan"),
        "runs": len(samples),
        "evps": sum(size) / med if med > 0 else None,
        "teps": None,
        "peak_rss_mb": peak_rss_bytes() / 2**20,
        "check": "-",
        "agree": True,
    }


def missing_row(kernel, graph, size, system, why) -> dict[str, Any]:
    """The row of a kernel that did not run, ``why`` in its note."""
    return {**result_row(kernel, graph, size, system), "note": why, "threads": ""}


class Runner:
    """Times one system's kernel on one graph."""

    def __init__(self, trials, threads):
        self.trials = trials
        self.threads = threads
        self._loops_cache: tuple[Any, Any] = (None, None)

    def time_system(self, system, kernel, g, size, run, result, roots, refs, check, exact):
        """Warm up, time ``trials`` runs per root; the row (no ratio yet). ``refs`` maps a
        kernel to (system, {root: normal-form result}) of the reference system."""
        # the first exact system to run a kernel is the reference of the others
        is_ref = exact and kernel not in refs
        if is_ref:
            refs[kernel] = (system, {})
        try:
            return self._time(system, kernel, g, size, run, result, roots, refs, check, exact)
        finally:
            if is_ref and kernel in refs and not refs[kernel][1]:
                del refs[kernel]  # no (verified) result: the next exact system is the reference

    def _time(self, system, kernel, g, size, run, result, roots, refs, check, exact):
        rooted = ALGORITHMS[kernel].needs_source
        keys = list(roots) if rooted else [None]
        times: dict[Any, list[float]] = {k: [] for k in keys}
        checks: list[str] = []
        agree = True
        is_ref = refs.get(kernel, (None,))[0] == system
        run(keys[0])  # warm-up: compiles, fills caches; not timed
        for key in keys:
            first = None
            for t in range(self.trials):
                t0 = time.perf_counter()
                raw = run(key)
                times[key].append(time.perf_counter() - t0)
                if t == 0:
                    first = raw
                else:
                    del raw
            # untimed: check the first trial's result
            out = check(key, first) if check else None
            if out is not None:
                agree &= out[0]
                checks.append(out[1])
            form = normal_form(kernel, result(first))
            del first
            ref = refs.get(kernel)
            if is_ref:
                if out is None or out[0]:  # a result that failed its verifier is no reference
                    ref[1][key] = form
            elif ref is not None and key in ref[1]:
                same, what = compare(kernel, form, ref[1][key])
                if exact:
                    agree &= same
                checks.append(f"{what} vs {ref[0]}" if same or exact else f"info: {what}")
        return self.row(system, kernel, g, size, times, refs, checks, agree)

    def row(self, system, kernel, g, size, times, refs, checks, agree):
        """The report row of ``times`` ({root, or None without one: seconds of the timed
        calls}), TEPS from the reference results in ``refs``; also for a system that
        timed itself (GAP)."""
        keys = list(times)
        rooted = ALGORITHMS[kernel].needs_source
        teps = self._teps(kernel, g, keys, times, refs) if rooted else None
        row = result_row(kernel, g, size, system, [x for k in keys for x in times[k]])
        row.update(teps=teps, spread=trial_spread(times), check=summarise(checks), agree=agree)
        return row

    def _teps(self, kernel, g, keys, times, refs):
        """Harmonic mean over roots of Graph500's TEPS (edges of the traversed component /
        median time); None when no root has a reference result with an edge."""
        ref_arrays = refs[kernel][1] if kernel in refs else {}
        inv = []
        for k in keys:
            if k not in ref_arrays:
                continue
            reached = values_of(kernel).reached(ref_arrays[k])
            edges = traversed_edges(g, reached, self._loops(g))
            if edges > 0:
                inv.append(median(times[k]) / edges)
        return len(inv) / sum(inv) if inv else None

    def _loops(self, g):
        if self._loops_cache[0] is not g.indices:
            self._loops_cache = (g.indices, loops_per_vertex(g.indptr, g.indices))
        return self._loops_cache[1]
