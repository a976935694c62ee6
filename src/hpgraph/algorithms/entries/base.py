"""The declaration types of the algorithm registry (:mod:`hpgraph.algorithms.registry`):
an :class:`Algorithm` entry with its :class:`Param` parameters, :class:`Verifier`,
:class:`BenchSpec` and :class:`ReportTable`, and :func:`resolve`, which turns a
``"module:attribute"`` name into the object on first use.

Nothing here imports a kernel, numpy or numba, so the registry stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Algorithm",
    "Param",
    "Verifier",
    "BenchSpec",
    "GapRun",
    "ReportTable",
    "RUNTIMES",
    "COMMON_ARGUMENTS",
    "resolve",
]

#: Runtimes an algorithm can name in :attr:`Algorithm.runtimes`.
RUNTIMES = ("local", "mpi")
#: Arguments every kernel takes besides its own parameters (``hpgraph run`` passes them).
COMMON_ARGUMENTS = ("threads", "runtime", "progress")


def resolve(target):
    """``target`` itself if callable, else the object a ``"module:attribute"`` names."""
    if callable(target):
        return target
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Param:
    """One keyword parameter of an algorithm's function, shown on the command line as
    ``--name`` (underscores become dashes; a bool gives ``--name/--no-name``).

    ``default`` is the function's own default (a test checks it against the signature);
    ``shown`` is what ``--help`` prints as the default when that differs (a function
    default of None that means "the documented value"). ``front_end``: an option of
    ``hpgraph run`` only, not passed to the function but to the entry's ``after_run``
    (for example a picture to draw from the result)."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    shown: Any = None
    front_end: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def help_default(self):
        return self.default if self.shown is None else self.shown


@dataclass(frozen=True)
class Verifier:
    """An independent check of a result. ``function`` (``"module:attribute"``) raises
    :class:`~hpgraph.errors.VerificationError` on a wrong result; ``args(graph, result,
    source, options)`` gives its positional arguments (``options``: the keyword arguments
    the kernel was called with); ``checks`` says what a pass means: a text or a function
    of the result."""

    function: str | Callable
    args: Callable
    checks: str | Callable

    def __call__(self, graph, result, source=None, options=None, *, function=None) -> str:
        """Verify ``result`` (with ``function`` instead of the declared one, if given);
        returns what was checked."""
        check = resolve(function or self.function)
        check(*self.args(graph, result, source, options or {}))
        return self.checks(result) if callable(self.checks) else self.checks


@dataclass(frozen=True)
class GapRun:
    """How ``hpgraph bench --gap DIR`` runs the GAP Benchmark Suite's kernel of an
    algorithm (:mod:`hpgraph.bench.gap`): the program ``binary`` in DIR, its ``args``
    (formatted with the benchmark's parameters: ``{iterations}``, ``{delta}``; the harness
    adds the graph file, ``-n`` trials, ``-a`` and, for a kernel with a source, ``-r``),
    and ``count``: a regular expression whose group is the number GAP's analysis (``-a``)
    prints that the harness compares with hpgraph's result (reached vertices,
    components; see :mod:`hpgraph.bench.checks`), or None."""

    binary: str
    args: tuple[str, ...] = ()
    count: str | None = None


@dataclass(frozen=True)
class BenchSpec:
    """How ``hpgraph bench`` runs an algorithm against the competitors (:mod:`hpgraph.bench`).

    ``column``: the result column timed and cross-checked. ``values``: how results
    compare: ``"depth"`` (integers, equal; reached = >= 0), ``"partition"`` (equal up to
    relabelling), ``"real"`` (relative 1e-4), ``"distance"`` (relative 1e-4; reached =
    finite). ``order``: place in the report. ``params``: the :func:`~hpgraph.bench.run_bench`
    keyword arguments passed on to the function. ``brief(result)``: the one-line result
    of ``hpgraph demo``. A competitor runs the algorithm when it has a method ``k_<name>``
    (:mod:`hpgraph.bench.competitors`). ``gap``: the GAP Benchmark Suite's kernel
    (:class:`GapRun`), or None. ``core``: one of the kernels ``hpgraph bench`` and
    ``hpgraph demo`` run when none are named; False for the whole-graph analytics that
    run on smaller graphs (named with ``--kernels``)."""

    column: str
    values: str
    order: int
    params: tuple[str, ...] = ()
    brief: Callable | None = None
    gap: GapRun | None = None
    core: bool = True


@dataclass(frozen=True)
class ReportTable:
    """A small table under the report of ``hpgraph run``: a title line, column headers
    (right-justified) and rows of text."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]


@dataclass(frozen=True, eq=False)
class Algorithm:
    """One algorithm, as every front end sees it.

    ``function``: the kernel (a callable, or ``"module:attribute"`` imported on first
    use); it is called ``function(graph, [source,] threads=, runtime=, progress=,
    **params)``. ``needs_source``: takes a source vertex after the graph. ``summary``: one
    line for reports. ``params``: its own keyword parameters (:class:`Param`). ``seeded``:
    takes ``seed=`` (the CLI's ``--seed``, shared with graph generation). ``writes_output``:
    takes ``output=`` and writes its result there itself (streamed). ``wants_weights``:
    generated inputs get edge weights. ``verifier``, ``report(result) -> (rows, table or
    None)``, ``columns`` (of the result file, with the default parameters), ``bench``
    (:class:`BenchSpec`, or None: not benchmarked). ``runtimes``: where it runs;
    ``whole_graph``: every rank needs the whole graph (a peer-level program), not just its
    part. ``partitioned``: runs on a :class:`~hpgraph.graph.part.PartGraph` (each MPI rank
    holding only its own rows and state; ``hpgraph run --ranks`` then loads it so).
    ``checkpoints``: takes ``checkpoint=`` (superstep checkpoints and resume of its
    vertex program, docs/checkpoints.md; ``hpgraph run --checkpoint``).
    ``after_run(result, graph, options, console)``: called by ``hpgraph run`` after the
    report with the ``front_end`` parameters' values. ``api_only``: keyword parameters
    of the function deliberately left off the command line (arrays, aliases); with
    ``params``, :data:`COMMON_ARGUMENTS`, ``seed`` and ``output`` they account for every
    parameter of the function (a test checks it against the signature)."""

    name: str
    target: Callable | str
    needs_source: bool = False
    summary: str = ""
    params: tuple[Param, ...] = ()
    seeded: bool = False
    writes_output: bool = False
    wants_weights: bool = False
    verifier: Verifier | None = None
    report: Callable | None = None
    columns: tuple[str, ...] = ()
    bench: BenchSpec | None = None
    runtimes: tuple[str, ...] = RUNTIMES
    whole_graph: bool = False
    partitioned: bool = False
    checkpoints: bool = False
    after_run: Callable | str | None = None
    api_only: tuple[str, ...] = ()

    @property
    def function(self):
        """The kernel (imported on first use)."""
        return resolve(self.target)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)
