"""The benchmark loop: graphs, roots, warm-up, trials, verification, cross-checks.

Which kernels run, how each is called, verified and compared comes from its registry
entry (:data:`hpgraph.algorithms.ALGORITHMS`, its :class:`~hpgraph.algorithms.BenchSpec`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import platform
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hpgraph.algorithms.registry import ALGORITHMS, bench_kernels, resolve
from hpgraph.bench._convert import canonical_components, loops_per_vertex, traversed_edges
from hpgraph.bench.peers import GraphForms, available_peers
from hpgraph.config import DEFAULT_THREADS
from hpgraph.errors import InvalidArgumentError

__all__ = ["KERNELS", "BenchReport", "run_bench", "parse_graph_spec", "make_graph"]

#: Kernels the harness knows (the registry entries with a ``bench``), in report order, when
#: this module was imported; :func:`run_bench` reads the registry again.
KERNELS = bench_kernels()
#: Tolerance of PageRank / SSSP cross-checks (Graphalytics: relative 1e-4).
RTOL = 1e-4


@dataclass(frozen=True)
class _Values:
    """How results of one :attr:`BenchSpec.values` kind are compared: ``normal`` puts an
    array in normal form; ``noun`` names what differs when compared exactly (None:
    relative ``RTOL``); ``reached`` marks the vertices a traversal reached (for TEPS)."""

    normal: Any
    noun: str | None
    reached: Any = None


_VALUES = {
    "depth": _Values(lambda a: a.astype(np.int32), "depths", lambda a: a >= 0),
    "partition": _Values(canonical_components, "labels"),
    "real": _Values(lambda a: a.astype(np.float64), None),
    "distance": _Values(lambda a: a.astype(np.float64), None, np.isfinite),
}


def _values(kernel) -> _Values:
    return _VALUES[ALGORITHMS[kernel].bench.values]


# ---------------------------------------------------------------------------- graphs
def _count_arg(text: str) -> int:
    """``"16000000"``, ``"16M"``, ``"1_000"``, ``"2^20"`` -> int."""
    t = text.strip().replace("_", "")
    mult = {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9}
    try:
        if "^" in t:
            base, exp = t.split("^")
            return int(base) ** int(exp)
        if t and t[-1] in mult:
            return int(float(t[:-1]) * mult[t[-1]])
        return int(t)
    except ValueError:
        raise InvalidArgumentError(f"not a count: {text!r} (examples: 1000000, 1M, 2^20)") from None


def parse_graph_spec(spec: str) -> dict:
    """A graph named on the command line, as a dict for :func:`make_graph`.

    ``kronecker:S[:EF]`` (also ``kron:S``), ``uniform:N:M`` (also ``urand:N:M``; counts
    take k/M/G suffixes or ``2^k``), or ``file:PATH`` / an existing path (read with
    :func:`hpgraph.io.load_graph`).
    """
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    parts = rest.split(":") if rest else []
    if kind in ("kronecker", "kron") and len(parts) in (1, 2):
        out = {"kind": "kronecker", "scale": _count_arg(parts[0]), "edge_factor": 16}
        if len(parts) == 2:
            out["edge_factor"] = _count_arg(parts[1])
        return out
    if kind in ("uniform", "urand") and len(parts) == 2:
        return {"kind": "uniform", "n": _count_arg(parts[0]), "m": _count_arg(parts[1])}
    if kind == "file" and rest:
        return {"kind": "file", "path": rest}
    if os.path.exists(spec):
        return {"kind": "file", "path": spec}
    raise InvalidArgumentError(
        f"unknown graph {spec!r}: expected kronecker:SCALE[:EDGE_FACTOR], uniform:N:M, or file:PATH"
    )


def make_graph(spec, *, weighted: bool, seed: int = 0, threads=None):
    """(graph, seconds to make it) for a spec string/dict, a Graph, or (name, Graph)."""
    from hpgraph.generators import kronecker, uniform_random
    from hpgraph.graph import Graph

    t0 = time.perf_counter()
    if isinstance(spec, Graph):
        return spec, 0.0
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], Graph):
        g = spec[1]
        named = Graph(g.indptr, g.indices, g.weights, directed=g.directed, ids=g.ids, name=spec[0])
        return named, 0.0
    if isinstance(spec, str):
        spec = parse_graph_spec(spec)
    kind = spec["kind"]
    if kind == "kronecker":
        g = kronecker(
            spec["scale"], spec["edge_factor"], seed=seed, weighted=weighted, threads=threads
        )
    elif kind == "uniform":
        g = uniform_random(spec["n"], spec["m"], seed=seed, weighted=weighted, threads=threads)
    elif kind == "file":
        from hpgraph.io import load_graph

        g = load_graph(spec["path"])
        if not g.name:
            g.name = os.path.basename(spec["path"])
    else:
        raise InvalidArgumentError(f"unknown graph kind {kind!r}")
    return g, time.perf_counter() - t0


def choose_roots(graph, count: int, seed: int) -> np.ndarray:
    """``count`` distinct roots with at least one (out-)edge that is not a self-loop
    (Graph500), drawn with ``seed``; fewer if the graph has fewer such vertices."""
    deg = graph.out_degree() - loops_per_vertex(graph.indptr, graph.indices)
    cand = np.flatnonzero(deg > 0)
    if cand.size == 0:
        cand = np.arange(graph.n)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(cand, size=min(count, cand.size), replace=False))


# ------------------------------------------------------------------------- memory
def peak_rss_bytes() -> int:
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(r if sys.platform == "darwin" else r * 1024)


def current_rss_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


# --------------------------------------------------------------------- hpgraph side
def _hpgraph_kernels():
    """({kernel: function}, {kernel: verifier}, why missing): the registry's functions,
    imported here, so that the harness runs while hpgraph's algorithms are being written."""
    try:
        fns = {k: ALGORITHMS[k].function for k in bench_kernels()}
    except Exception as exc:
        return {}, {}, f"hpgraph.algorithms not importable ({type(exc).__name__}: {exc})"
    verifiers = {}
    for k in bench_kernels():
        verifier = ALGORITHMS[k].verifier
        if verifier is not None:
            with contextlib.suppress(Exception):
                verifiers[k] = resolve(verifier.function)
    return fns, verifiers, ""


def _hpgraph_call(fn, kernel, graph, params, threads):
    """``run(root)``: one call of hpgraph's ``kernel``, as its registry entry says."""
    algo = ALGORITHMS[kernel]
    kw = {p: params[p] for p in algo.bench.params}
    if algo.needs_source:
        return lambda root: fn(graph, int(root), threads=threads, **kw)
    return lambda _root: fn(graph, threads=threads, **kw)


def _verify(verifier, kernel, graph, root, result, params):
    source = int(root) if ALGORITHMS[kernel].needs_source else None
    ALGORITHMS[kernel].verifier(graph, result, source, params, function=verifier)


# ------------------------------------------------------------------- cross-checks
def _compare(kernel, got, ref) -> tuple[bool, str]:
    """(agrees, short description) of a result against the reference."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return False, f"shape {got.shape} != {ref.shape}"
    kind = _values(kernel)
    if kind.noun is not None:
        bad = int(np.count_nonzero(kind.normal(got) != ref))
        return bad == 0, "equal" if bad == 0 else f"{bad} {kind.noun} differ"
    fin = np.isfinite(ref)
    if not np.array_equal(fin, np.isfinite(got)):
        return False, "reachability differs"
    r, x = ref[fin], got[fin]
    scale = np.maximum(np.abs(r), 1e-300)
    rel = float(np.max(np.abs(x - r) / scale)) if r.size else 0.0
    return rel <= RTOL, f"max rel {rel:.1e}"


def _normal_form(kernel, arr):
    return _values(kernel).normal(np.asarray(arr))


# ---------------------------------------------------------------------------- report
@dataclass
class BenchReport:
    """What :func:`run_bench` measured: one row per (kernel, graph, system)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    graphs: list[dict[str, Any]] = field(default_factory=list)
    env: dict[str, Any] = field(default_factory=dict)
    #: peers not run, with the reason
    skipped: dict[str, str] = field(default_factory=dict)
    #: hpgraph kernels that failed (verification or an exception)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


def _median(xs):
    return float(np.median(xs)) if xs else float("nan")


def _rel_time_rows(rows):
    """Fill ``ratio`` = system median / hpgraph median per (kernel, graph)."""
    base = {
        (r["kernel"], r["graph"]): r["median_s"]
        for r in rows
        if r["system"] == "hpgraph" and r["median_s"] == r["median_s"]
    }
    for r in rows:
        b = base.get((r["kernel"], r["graph"]))
        ok = b and r["median_s"] == r["median_s"]
        r["ratio"] = r["median_s"] / b if ok else float("nan")


# ------------------------------------------------------------------------- the loop
class _Runner:
    """Times one system's kernel on one graph (GAP's ``BenchmarkKernel``)."""

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
            form = _normal_form(kernel, result(first))
            del first
            ref = refs.get(kernel)
            if is_ref:
                if out is None or out[0]:  # a result that failed its verifier is no reference
                    ref[1][key] = form
            elif ref is not None and key in ref[1]:
                same, what = _compare(kernel, form, ref[1][key])
                if exact:
                    agree &= same
                checks.append(f"{what} vs {ref[0]}" if same or exact else f"info: {what}")
        samples = [x for k in keys for x in times[k]]
        row = {
            "kernel": kernel,
            "graph": g.name,
            "V": size[0],
            "E": size[1],
            "system": system,
            "median_s": _median(samples),
            "min_s": float(min(samples)),
            "runs": len(samples),
        }
        row["evps"] = sum(size) / row["median_s"] if row["median_s"] > 0 else None
        row["teps"] = None
        if rooted and kernel in refs:
            ref_arrays = refs[kernel][1]
            inv = []
            for k in keys:
                if k not in ref_arrays:
                    continue
                arr = ref_arrays[k]
                reached = _values(kernel).reached(arr)
                edges = traversed_edges(g, reached, self._loops(g))
                if edges > 0:
                    inv.append(_median(times[k]) / edges)
            if inv:
                row["teps"] = len(inv) / sum(inv)  # harmonic mean of per-root TEPS
        row["peak_rss_mb"] = peak_rss_bytes() / 2**20
        row["check"] = _summarise(checks)
        row["agree"] = agree
        return row

    def _loops(self, g):
        if self._loops_cache[0] is not g.indices:
            self._loops_cache = (g.indices, loops_per_vertex(g.indptr, g.indices))
        return self._loops_cache[1]


def _summarise(checks: list[str]) -> str:
    if not checks:
        return "-"
    uniq = list(dict.fromkeys(checks))
    if len(uniq) == 1:
        return uniq[0]
    bad = [c for c in uniq if "differ" in c or "!=" in c or "FAIL" in c]
    return (bad or uniq)[0] + f" (+{len(uniq) - 1} more)"


def run_bench(
    kernels=KERNELS,
    graphs=("kronecker:16",),
    trials=3,
    threads=None,
    roots=8,
    verify=True,
    out=None,
    *,
    peers=None,
    seed=0,
    damping=0.85,
    iterations=20,
    networkx_max_edges=200_000,
    console=None,
    quiet=False,
) -> BenchReport:
    """Run the benchmark and report it (see :mod:`hpgraph.bench`).

    ``kernels``: names from :data:`KERNELS` (or one comma-separated string). ``graphs``:
    specs (``"kronecker:16"``, ``"uniform:1M:16M"``, ``"file:PATH"``), ``Graph`` objects or
    ``(name, Graph)`` pairs. ``trials`` timed runs per kernel (per root for BFS/SSSP) after
    one untimed warm-up; ``threads`` for hpgraph and the peers that have a setting (default:
    all cores); ``roots`` BFS/SSSP sources per graph; ``verify`` runs hpgraph's verifiers;
    ``out`` a ``.md``/``.csv`` path (or None). ``peers`` restricts the peers by name
    (default: all importable). Returns the :class:`BenchReport`; ``report.ok`` is False if
    an hpgraph kernel failed or did not verify.
    """
    from hpgraph.bench.report import print_report, write_report

    if isinstance(kernels, str):
        kernels = [k for k in kernels.split(",") if k]
    kernels = [k.strip().lower() for k in kernels]
    known = bench_kernels()
    bad = [k for k in kernels if k not in known]
    if bad or not kernels:
        raise InvalidArgumentError(f"unknown kernels {bad}: choose from {', '.join(known)}")
    if isinstance(graphs, str):
        graphs = [graphs]
    if not graphs:
        raise InvalidArgumentError("no graphs to run on")
    if int(trials) < 1 or int(roots) < 1:
        raise InvalidArgumentError(f"trials and roots must be >= 1, got {trials} and {roots}")
    if out is not None and os.path.splitext(str(out))[1].lower() not in (".md", ".csv"):
        raise InvalidArgumentError(f"--out must end in .md or .csv, got {out!r}")
    threads = int(threads or DEFAULT_THREADS)
    params = {"damping": float(damping), "iterations": int(iterations)}
    specs = [parse_graph_spec(s) if isinstance(s, str) else s for s in graphs]

    if console is None and not quiet:
        from rich.console import Console

        console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)

    def log(msg):
        if console is not None and not quiet:
            console.print(msg, highlight=False)

    peer_list, skipped = available_peers(peers)
    report = BenchReport(skipped=dict(skipped))
    hp, verifiers, hp_missing = _hpgraph_kernels()
    report.env = _environment(threads, trials, roots, seed, params, peer_list, hp_missing)
    for p in peer_list:
        report.env["peers"][p.name]["threads"] = p.set_threads(threads)
    runner = _Runner(int(trials), threads)
    rss_start = peak_rss_bytes()

    for i, spec in enumerate(specs):
        taken = {info["graph"] for info in report.graphs}
        gr = _prepare_graph(spec, kernels, int(roots), seed, threads, rss_start, i, taken)
        report.graphs.append(gr.info)
        log(
            f"[bold]{gr.g.name}[/bold]: |V|={gr.size[0]:,} |E|={gr.size[1]:,} made in "
            f"{gr.info['make_s']:.2f} s, {gr.info['bytes_per_edge']:.1f} B/stored edge, "
            f"roots {gr.info['roots']}"
        )
        # hpgraph first: its verified results are the reference for the peers
        for kernel in kernels:
            log(f"  hpgraph {kernel} ...")
            _bench_hpgraph(report, runner, gr, kernel, hp, verifiers, hp_missing, verify, params)
        for peer in peer_list:
            if peer.name == "networkx" and gr.size[1] >= networkx_max_edges:
                why = f"only on graphs with |E| < {networkx_max_edges:,}"
                report.skipped.setdefault("networkx", why)
                continue
            _bench_peer(report, runner, gr, peer, kernels, params, log)
        gr.forms.clear()
        del gr
        gc.collect()

    order = {k: i for i, k in enumerate(kernels)}
    graph_order = {info["graph"]: i for i, info in enumerate(report.graphs)}
    report.rows.sort(key=lambda r: (order[r["kernel"]], graph_order.get(r["graph"], 0)))
    _rel_time_rows(report.rows)
    report.env["peak_rss_end_mb"] = peak_rss_bytes() / 2**20
    if console is not None and not quiet:
        print_report(report, console)
    if out is not None:
        write_report(report, out)
        log(f"wrote {out}")
    return report


@dataclass
class _GraphRun:
    """One benchmark graph and what its runs share."""

    g: Any  # unweighted view (PageRank, BFS, WCC)
    wg: Any  # weighted graph (SSSP) or None
    size: tuple[int, int]  # (|V|, |E|)
    roots: np.ndarray
    info: dict[str, Any]
    forms: GraphForms
    refs: dict[str, Any] = field(default_factory=dict)


def _prepare_graph(spec, kernels, nroots, seed, threads, rss_start, index, taken) -> _GraphRun:
    from hpgraph.graph import Graph

    weighted = any(ALGORITHMS[k].wants_weights for k in kernels)
    g, make_s = make_graph(spec, weighted=weighted, seed=seed, threads=threads)
    name = g.name or f"graph{index + 1}"
    if name in taken:  # rows are keyed by graph name
        name = f"{name}#{index + 1}"
    wg = g if g.weighted else None
    if wg is not None or name != g.name:
        # a view (shared arrays) without weights for the unweighted kernels, named
        g = Graph(g.indptr, g.indices, None, directed=g.directed, ids=g.ids, name=name)
    roots = choose_roots(g, nroots, seed)
    size = (g.n, g.num_edges)
    info = {
        "graph": g.name,
        "V": size[0],
        "E": size[1],
        "stored_edges": g.num_stored_edges,
        "directed": g.directed,
        "weighted": wg is not None,
        "make_s": make_s,
        "bytes_per_edge": g.memory_bytes() / max(g.num_stored_edges, 1),
        "bytes_per_edge_weighted": (
            wg.memory_bytes() / max(wg.num_stored_edges, 1) if wg is not None else None
        ),
        "peak_rss_before_mb": rss_start / 2**20,
        "peak_rss_after_make_mb": peak_rss_bytes() / 2**20,
        "roots": roots.tolist(),
        "conversions": {},
    }
    return _GraphRun(g, wg, size, roots, info, GraphForms(g, wg))


def _bench_hpgraph(report, runner, gr, kernel, hp, verifiers, hp_missing, verify, params):
    g, size = gr.g, gr.size
    algo = ALGORITHMS[kernel]
    kg = gr.wg if algo.wants_weights else g
    if kg is None:
        report.rows.append(_missing_row(kernel, g, size, "hpgraph", "graph has no weights"))
        return
    if kernel not in hp:
        why = hp_missing or f"no {kernel} in hpgraph.algorithms.ALGORITHMS"
        report.rows.append(_missing_row(kernel, g, size, "hpgraph", why))
        return
    threads = runner.threads
    call = _hpgraph_call(hp[kernel], kernel, kg, params, threads)
    col = algo.bench.column
    verifier = verifiers.get(kernel)

    def check(root, result):
        if not verify:
            return None
        if verifier is None:
            return True, "no verifier"
        try:
            _verify(verifier, kernel, kg, root, result, params)
        except AssertionError as exc:  # VerificationError is one
            return False, f"FAILED: {exc}"
        return True, "verified"

    try:
        row = runner.time_system(
            "hpgraph", kernel, g, size, call, lambda r: r[col], gr.roots, gr.refs, check, True
        )
    except Exception as exc:
        row = _missing_row(kernel, g, size, "hpgraph", f"ERROR {type(exc).__name__}: {exc}")
        report.failures.append(f"{kernel} on {g.name}: {type(exc).__name__}: {exc}")
    else:
        row["note"] = ""
        if not row["agree"]:
            report.failures.append(f"{kernel} on {g.name}: {row['check']}")
    row["threads"] = f"{threads} threads"
    report.rows.append(row)


def _bench_peer(report, runner, gr, peer, kernels, params, log):
    g, size = gr.g, gr.size
    todo = [
        k for k in kernels if peer.has(k) and (gr.wg is not None or not ALGORITHMS[k].wants_weights)
    ]
    if not todo:
        return
    rss0 = current_rss_bytes()
    t0 = time.perf_counter()
    try:
        peer.load(gr.forms)
    except Exception as exc:
        gr.info["conversions"][peer.name] = f"ERROR {type(exc).__name__}: {exc}"
        return
    conv = {"seconds": time.perf_counter() - t0}
    rss1 = current_rss_bytes()
    if rss0 is not None and rss1 is not None:
        conv["rss_mb"] = (rss1 - rss0) / 2**20
    gr.info["conversions"][peer.name] = conv
    for kernel in todo:
        log(f"  {peer.name} {kernel} ...")
        try:
            prep = peer.prepare(kernel, gr.forms, params)
            row = runner.time_system(
                peer.name,
                kernel,
                g,
                size,
                prep.run,
                prep.result,
                gr.roots,
                gr.refs,
                None,
                prep.exact,
            )
            row["note"] = prep.note
        except Exception as exc:
            row = _missing_row(kernel, g, size, peer.name, f"ERROR {type(exc).__name__}: {exc}")
        row["threads"] = report.env["peers"][peer.name]["threads"]
        report.rows.append(row)
        prep = None
        gc.collect()
    peer.unload()
    gc.collect()


def _missing_row(kernel, g, size, system, why):
    return {
        "kernel": kernel,
        "graph": g.name,
        "V": size[0],
        "E": size[1],
        "system": system,
        "median_s": float("nan"),
        "min_s": float("nan"),
        "runs": 0,
        "evps": None,
        "teps": None,
        "peak_rss_mb": peak_rss_bytes() / 2**20,
        "check": "-",
        "agree": True,
        "note": why,
        "threads": "",
    }


def _environment(threads, trials, roots, seed, params, peer_list, hp_missing):
    import numba

    from hpgraph._version import __version__

    return {
        "hpgraph": __version__,
        "hpgraph_kernels": hp_missing or "available",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "threads": threads,
        "trials": trials,
        "roots": roots,
        "seed": seed,
        "pagerank": f"damping {params['damping']}, {params['iterations']} iterations",
        "openmp": ", ".join(
            f"{k}={os.environ[k]}"
            for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")
            if k in os.environ
        )
        or "defaults",
        "peers": {p.name: {"version": p.version()} for p in peer_list},
    }
