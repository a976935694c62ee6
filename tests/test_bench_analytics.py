"""The whole-graph analytics rows of ``hpgraph bench`` (CDLP, LCC, betweenness): declared
in their registry entries, run only when named, and their competitors agree with
hpgraph's results (CDLP's label propagations differ by definition: information only)."""

from __future__ import annotations

from hpgraph.algorithms.registry import ALGORITHMS, bench_kernels
from hpgraph.bench import run_bench
from hpgraph.bench.harness import core_kernels
from hpgraph.generators import kronecker


def test_analytics_are_declared_and_not_in_the_default_run():
    assert core_kernels() == ("pagerank", "bfs", "wcc", "sssp")
    assert set(bench_kernels()) - set(core_kernels()) == {"cdlp", "lcc", "betweenness"}
    assert not any(ALGORITHMS[k].bench.core for k in ("cdlp", "lcc", "betweenness"))


def test_analytics_competitors_agree():
    g = kronecker(7, seed=2)
    report = run_bench(
        "cdlp,lcc,betweenness",
        [("kron7", g)],
        trials=1,
        threads=2,
        quiet=True,
        competitors=["scipy", "graphblas", "networkit", "igraph", "networkx"],
    )
    assert report.ok, report.failures
    rows = {(r["kernel"], r["system"]): r for r in report.rows}
    assert rows[("lcc", "hpgraph")]["check"] == "verified"
    expected = {
        "lcc": {"scipy", "graphblas", "networkit", "igraph", "networkx"},
        "betweenness": {"networkit", "igraph", "networkx"},
        "cdlp": {"networkit", "igraph", "networkx"},
    }
    for kernel, systems in expected.items():
        for system in systems:
            row = rows[(kernel, system)]
            assert row["runs"] == 1, (kernel, system, row["note"])
            if kernel == "cdlp":
                assert row["check"].startswith("info:") or "equal" in row["check"]
            else:
                assert row["agree"] and "vs hpgraph" in row["check"], (kernel, system, row)
    assert ("betweenness", "scipy") not in rows  # no SciPy betweenness
