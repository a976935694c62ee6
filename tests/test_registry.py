"""The algorithm registry (:mod:`hpgraph.algorithms.registry`) is true and is the one
source: every entry names a real function whose signature its parameters match, its
declared output columns and report fit a real run, ``hpgraph run``'s options are exactly
the declared parameters, the docs list the same algorithms, and a kernel added as one
entry works in ``hpgraph run``, ``--help`` and ``hpgraph bench`` with nothing else
touched."""

from __future__ import annotations

import dataclasses
import inspect
import re
import subprocess
import sys
from pathlib import Path

import click
import numpy as np
import pytest

import hpgraph as hp
from hpgraph.algorithms import ALGORITHMS, Algorithm, BenchSpec, Param, Verifier
from hpgraph.algorithms.registry import COMMON_ARGUMENTS, RUNTIMES, bench_kernels
from hpgraph.cli.run import run as run_command
from hpgraph.errors import InvalidArgumentError, VerificationError
from hpgraph.result import VertexResult
from test_cli import invoke, ok, one_line_error, read_csv

DOCS = Path(__file__).resolve().parents[1] / "docs" / "algorithms" / "README.md"
# two triangles sharing vertex c, a tail c-d-e, and an isolated pair f-g
EDGES = "a b\nb c\nc a\nc x\nx y\ny c\nc d\nd e\nf g\n"
#: Arguments the pattern matchers need (they have no defaults that can run).
NEEDS = {"dual_simulation": ("labels", "pattern"), "strict_simulation": ("labels", "pattern")}
_PY_TYPES = {int, float, str, bool}


@pytest.fixture
def graph_file(tmp_path):
    p = tmp_path / "g.el"
    p.write_text(EDGES)
    return p


@pytest.fixture
def match_files(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("".join(f"{v} {'T' if v in 'abcxy' else 'P'}\n" for v in "abcxydefg"))
    pattern = tmp_path / "triangle.pat"
    pattern.write_text("v 1 T\nv 2 T\nv 3 T\ne 1 2\ne 2 3\ne 3 1\n")
    return {"labels": str(labels), "pattern": str(pattern)}


# ------------------------------------------------------------------- the entries
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_entry_function_and_parameters_match_the_signature(name):
    algo = ALGORITHMS[name]
    assert algo.name == name and algo.summary
    fn = algo.function
    assert callable(fn) and isinstance(algo.target, str)
    assert getattr(hp, fn.__name__) is fn  # the public API exports it
    sig = inspect.signature(fn)
    positional = [
        p.name
        for p in sig.parameters.values()
        if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty
    ]
    assert positional == (["graph", "source"] if algo.needs_source else ["graph"]), positional
    by_name = sig.parameters
    for param in algo.params:
        assert param.type in _PY_TYPES, param
        assert param.name not in COMMON_ARGUMENTS + ("seed", "output"), param
        if param.front_end:
            assert param.name not in by_name, param  # the function must not get it
            continue
        assert param.name in by_name, f"{name}: {param.name} is not a parameter of {fn}"
        p = by_name[param.name]
        assert p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD), param
        assert p.default == param.default, (name, param.name, p.default, param.default)
        if param.default is not None:
            assert type(param.default) is param.type, param
        if param.choices:
            assert param.default in param.choices, param
        if param.shown is not None:
            assert param.default is None and type(param.shown) is param.type, param
    # every keyword parameter of the function is accounted for, once
    kernel = {p.name for p in algo.params if not p.front_end}
    extra = {"seed"} if algo.seeded else set()
    extra |= {"output"} if algo.writes_output else set()
    extra |= {"checkpoint"} if algo.checkpoints else set()
    groups = [kernel, set(COMMON_ARGUMENTS), extra, set(algo.api_only)]
    assert sum(len(g) for g in groups) == len(set().union(*groups))
    assert set().union(*groups) == set(by_name) - set(positional), name
    assert set(algo.runtimes) <= set(RUNTIMES) and algo.runtimes
    assert algo.columns and len(set(algo.columns)) == len(algo.columns)
    if algo.verifier is not None:
        assert callable(hp.algorithms.registry.resolve(algo.verifier.function))


def test_registry_is_the_same_table_everywhere():
    from hpgraph.algorithms import registry
    from hpgraph.bench import harness

    assert hp.algorithms.ALGORITHMS is registry.ALGORITHMS
    kernels = ("pagerank", "bfs", "wcc", "sssp", "cdlp", "lcc", "betweenness")
    assert harness.KERNELS == bench_kernels() == kernels
    assert [a.bench.order for a in map(ALGORITHMS.get, bench_kernels())] == list(range(7))
    assert harness.core_kernels() == kernels[:4]  # the default run and hpgraph demo
    with pytest.raises(InvalidArgumentError, match="unknown algorithm 'nope'; choose from bfs"):
        registry.get_algorithm("nope")
    assert registry.get_algorithm("PageRank") is ALGORITHMS["pagerank"]


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_a_run_has_the_declared_columns_report_and_verifier(
    name, graph_file, match_files, tmp_path
):
    from hpgraph.cli.run import result_summary, verify_result

    algo = ALGORITHMS[name]
    g = hp.load_graph(graph_file, cache=False)
    if algo.wants_weights:
        g = hp.Graph(g.indptr, g.indices, np.ones(g.num_stored_edges), directed=g.directed,
                     ids=g.ids)  # fmt: skip
    args = ("c",) if algo.needs_source else ()
    options = {k: match_files[k] for k in NEEDS.get(name, ())}
    result = algo.function(g, *args, threads=2, **options)
    if algo.writes_output:  # the kernel writes its rows itself
        import pyarrow.parquet as pq

        written = algo.function(g, *args, threads=2, output=tmp_path / "out.parquet")
        assert result_summary(name, written)[0][0][0] == "streamed"
        rows = pq.read_schema(written.path).names
    else:
        rows = result.to_rows() if hasattr(result, "to_rows") else result.output_columns()
    assert tuple(rows) == algo.columns
    report, table = result_summary(name, result)
    assert report and all(isinstance(v, str) for _, v in report)
    assert (table is not None) == (name == "pagerank")
    if algo.verifier is not None:
        assert verify_result(name, g, result, "c" if args else None, options)
    else:
        with pytest.raises(InvalidArgumentError, match=f"no verifier for '{name}'"):
            verify_result(name, g, result)


def test_verifier_rejects_a_wrong_result():
    g = hp.generators.kronecker(6, seed=1)
    good = hp.bfs(g, 0, threads=1)
    bad = VertexResult("bfs", g, {**good.columns, "depth": good["depth"] + 1})
    assert "Graph500" in ALGORITHMS["bfs"].verifier(g, good, 0)
    with pytest.raises(VerificationError):
        ALGORITHMS["bfs"].verifier(g, bad, 0)


# ------------------------------------------------------------------- the CLI
def _generated_options():
    ctx = click.Context(run_command)
    params = run_command.get_params(ctx)
    return {p.name[len("algo_") :]: p for p in params if p.name.startswith("algo_")}


def test_run_options_are_exactly_the_declared_parameters():
    generated = _generated_options()
    declared = {p.name for a in ALGORITHMS.values() for p in a.params}
    assert set(generated) == declared
    for algo in ALGORITHMS.values():
        for param in algo.params:
            opt = generated[param.name]
            assert opt.opts == [param.flag]
            if param.type is bool:
                assert opt.secondary_opts == ["--no-" + param.flag[2:]]
            if param.choices:
                assert isinstance(opt.type, click.Choice)
                assert tuple(opt.type.choices) == param.choices
            else:
                assert opt.type == click.types.convert_type(param.type)
            shown = "" if param.help_default is None else f" [{param.help_default}]"
            assert f"{algo.name}: {param.help}{shown}" in opt.help
            assert opt.default is None  # the function's own default applies


def test_run_help_lists_every_algorithm_and_option(graph_file):
    text = " ".join(ok("run", "--help").stdout.split())
    assert "ALGORITHM: " + ", ".join(ALGORITHMS) + "." in text
    for algo in ALGORITHMS.values():
        for param in algo.params:
            assert param.flag in text
    rooted = "/".join(a.name for a in ALGORITHMS.values() if a.needs_source)
    assert f"{rooted}: the source vertex" in text


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_options_of_other_algorithms_are_refused(name, graph_file):
    algo = ALGORITHMS[name]
    other = next(
        p
        for a in ALGORITHMS.values()
        for p in a.params
        if algo.param(p.name) is None and not p.choices  # a bad choice fails before
    )
    value = [] if other.type is bool else ["1"]
    own = ", ".join(["--source"] * algo.needs_source + [p.flag for p in algo.params]) or "none"
    msg = one_line_error(invoke("run", name, graph_file, other.flag, *value), 2)
    assert f"{other.flag} does not apply to {name} (its options: {own})" in msg


# ------------------------------------------------------------------- the docs
def _docs_names():
    names = []
    for line in DOCS.read_text().splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names += re.findall(r"`([a-z_]+)`", first)
    return names


def test_docs_list_equals_the_registry():
    assert _docs_names() == list(ALGORITHMS)
    text = DOCS.read_text()
    assert "## Adding a kernel" in text
    for field in ("Param(", "Verifier(", "BenchSpec(", "registry.py"):
        assert field in text, field


# ------------------------------------------------------------- adding a kernel
def degree(graph, *, scale=1.0, threads=None, runtime=None, progress=False):
    """A kernel defined here, as a new module would: out-degree times ``scale``."""
    return VertexResult("degree", graph, {"degree": graph.out_degree() * scale})


def verify_degree(graph, result, scale):
    want = graph.out_degree() * scale
    if not np.array_equal(result["degree"], want):
        raise VerificationError("degree: wrong")


def _degree_entry(**extra):
    return Algorithm(
        "degree",
        f"{__name__}:degree",
        False,
        "out-degree",
        (Param("scale", float, 1.0, "multiply by this"),),
        verifier=Verifier(
            f"{__name__}:verify_degree", lambda g, r, s, o: (g, r, o.get("scale", 1.0)), "exact"
        ),
        report=lambda r: ([("max degree", f"{r['degree'].max():g}")], None),
        columns=("vertex", "degree"),
        **extra,
    )


def test_one_entry_adds_a_kernel_to_run_and_help(graph_file, tmp_path, monkeypatch):
    seen = []
    entry = _degree_entry(after_run=lambda result, graph, options, out: seen.append(options))
    entry = dataclasses.replace(
        entry, params=(*entry.params, Param("picture", str, None, "draw it", front_end=True))
    )
    monkeypatch.setitem(ALGORITHMS, "degree", entry)
    assert "degree" in " ".join(ok("run", "--help").stdout.split())
    out = tmp_path / "d.csv"
    r = ok("run", "degree", graph_file, "--scale", "2", "--verify", "--picture", "p.png", "-o", out)
    assert "degree: out-degree" in r.stdout and "max degree  10" in r.stdout
    assert "verified: yes, exact" in r.stdout
    rows = read_csv(out)
    got = {v: float(d) for v, d in zip(rows["vertex"], rows["degree"], strict=True)}
    assert got == {
        v: 2.0 * k for v, k in zip("abcxydefg", [2, 2, 5, 2, 2, 2, 1, 1, 1], strict=True)
    }
    assert seen == [{"picture": "p.png"}]  # the front-end option, not given to the kernel
    msg = one_line_error(invoke("run", "wcc", graph_file, "--scale", "2"), 2)
    assert "--scale does not apply to wcc" in msg


def test_one_entry_adds_a_kernel_to_the_bench(monkeypatch):
    from hpgraph.bench import run_bench

    entry = _degree_entry(bench=BenchSpec("degree", "real", 9))
    monkeypatch.setitem(ALGORITHMS, "degree", entry)
    assert bench_kernels()[-1] == "degree"
    g = hp.generators.kronecker(6, seed=3)
    report = run_bench("degree", [("k6", g)], trials=1, roots=1, quiet=True, peers=["scipy"])
    assert report.ok
    (row,) = report.rows
    assert (row["kernel"], row["system"], row["check"]) == ("degree", "hpgraph", "verified")


# -------------------------------------------------------------- lazy imports
def test_registry_and_cli_import_no_kernel():
    code = (
        "import sys, importlib\n"
        "from hpgraph.algorithms import ALGORITHMS\n"
        "import hpgraph.cli.run, hpgraph.cli.bench\n"
        "print(sorted(m for m in ('numpy', 'numba') if m in sys.modules))\n"
        "importlib.import_module('hpgraph.algorithms.bfs')\n"
        "import hpgraph.algorithms as A\n"
        "print(A.bfs is ALGORITHMS['bfs'].function, callable(A.layout), A.verify.__name__)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["[]", "True True hpgraph.algorithms.verify"]
