"""The executor's fixed-cost shortcuts give what the general paths give, row for row in the
same order: prepared BGPs (per store), patterns kept per graph, the index join of a
pattern onto sorted values, joins of a few rows matched in Python, result tables of a few
rows built id by id, the translated algebra's entries read as attributes, and the short
path of a SELECT over one BGP."""

from __future__ import annotations

import numpy as np
import pytest

from hpgraph.rdf import Store
from hpgraph.rdf.sparql import bgp as B
from hpgraph.rdf.sparql import results, table
from hpgraph.rdf.sparql.table import Table, join
from hpgraph.rdf.triples import Triples, sort_quads

SEEDS = [0, 1]
EX = "http://ex.org/"


def _graph(rng, m=400, nodes=40, preds=3):
    spo = np.stack(
        [
            rng.integers(0, nodes, m),
            rng.integers(nodes, nodes + preds, m),
            rng.integers(0, nodes, m),
        ],
        axis=1,
    )
    pso, pos, _ = sort_quads(spo)
    return Triples(pso, pos)


def _same(t: Table, u: Table):
    assert t.n == u.n and list(t.cols) == list(u.cols) and t.maybe == u.maybe
    for k in t.cols:
        assert t.cols[k].tolist() == u.cols[k].tolist(), k


@pytest.mark.parametrize("seed", SEEDS)
def test_extend_gives_the_rows_of_lookup_and_join(seed):
    """Strictly increasing values, and values in any order (repeats too) where each is in
    at most one row of the pattern (the graph with ``once``: one object per subject)."""
    print("seed", seed)
    rng = np.random.default_rng(seed)
    for once in (False, True):
        g = _graph(rng, m=40 if once else 400)
        for p in (40, 41, 42):
            for terms, var in ((("x", p, "y"), "x"), (("x", p, "y"), "y")):
                pattern = B.Pattern(g, *terms)
                for size in (0, 1, 3, 12, 30):
                    xs = [np.unique(rng.integers(0, 40, size)), rng.integers(0, 40, size)]
                    for x in xs:
                        seed_t = Table({var: x, "z": rng.integers(0, 9, len(x))}, len(x))
                        got = pattern.extend(seed_t, var)
                        want = join(seed_t, pattern.lookup(var, np.unique(x)))
                        one = all(pattern.lookup(var, np.array([v])).n <= 1 for v in x.tolist())
                        increasing = bool((x[1:] > x[:-1]).all())
                        if one or increasing:
                            _same(got, want)
                        else:
                            assert got is None


@pytest.mark.parametrize("seed", SEEDS)
def test_small_probe_matches_numpy_probe(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    for na, nb in ((0, 3), (1, 1), (4, 9), (16, 16), (20, 7)):
        a, b = rng.integers(0, 6, na), rng.integers(0, 6, nb)
        small = table._probe_small(a, b)
        monkeypatch.setattr(table, "SMALL_JOIN", -1)
        big = table._probe(a, b)
        monkeypatch.undo()
        assert [s.tolist() for s in small] == [s.tolist() for s in big]
        assert all(s.dtype == np.int64 for s in small)


@pytest.mark.parametrize("seed", SEEDS)
def test_join_same_rows_small_or_large(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    for n in (2, 5, 15):
        a = Table({"x": rng.integers(0, 4, n), "y": rng.integers(-1, 3, n)}, n, {"y"})
        b = Table({"x": rng.integers(0, 4, n), "y": rng.integers(0, 3, n)}, n)
        c = Table({"x": rng.integers(0, 4, n), "w": rng.integers(0, 3, n)}, n)
        small = [join(a, b), join(a, c), join(c, a)]
        monkeypatch.setattr(table, "SMALL_JOIN", -1)
        for s, t in zip(small, [join(a, b), join(a, c), join(c, a)], strict=True):
            _same(s, t)
        monkeypatch.undo()


def _store(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(f"{line} .\n" for line in lines), encoding="utf-8")
    return Store.load(str(path))


def test_prepared_plan_is_per_store(tmp_path):
    """The same query text on two stores: each answers from its own ids (the plan keeps
    term ids per store); a constant one store lacks gives no rows there."""
    p, q = f"<{EX}p>", f"<{EX}q>"
    one = _store(tmp_path, "one.nt", [f"<{EX}a> {p} <{EX}c>", f"<{EX}b> {p} <{EX}c>"])
    two = _store(
        tmp_path, "two.nt", [f"<{EX}z> {q} <{EX}y>", f"<{EX}b> {p} <{EX}c>", f"<{EX}d> {p} <{EX}c>"]
    )
    text = f"SELECT ?s WHERE {{ ?s {p} <{EX}c> }}"
    for _ in range(2):
        assert sorted(one.query(text).column("s").to_pylist()) == [f"<{EX}a>", f"<{EX}b>"]
        assert sorted(two.query(text).column("s").to_pylist()) == [f"<{EX}b>", f"<{EX}d>"]
    absent = f"SELECT ?s WHERE {{ ?s {q} ?o }}"
    for _ in range(2):
        assert one.query(absent).num_rows == 0
        assert two.query(absent).column("s").to_pylist() == [f"<{EX}z>"]


def test_result_table_same_small_or_large(tmp_path, monkeypatch):
    """Unbound values (null), non-ASCII terms and terms the query made (BIND) in the
    three ways of building the result table."""
    p, n = f"<{EX}p>", f"<{EX}n>"
    lines = [f"<{EX}s{i}> {p} <{EX}o{i % 3}>" for i in range(20)]
    lines += [f'<{EX}s{i}> {n} "{i}"' for i in range(0, 20, 4)]
    lines.append(f'<{EX}s1> {n} "\u00e9t\u00e9"@fr')
    store = _store(tmp_path, "d.nt", lines)
    text = (
        f"SELECT ?s ?o ?m ?x WHERE {{ ?s {p} ?o OPTIONAL {{ ?s {n} ?m }} "
        'BIND(CONCAT("new-", STR(?o)) AS ?x) }'
    )
    small = store.query(text)  # the columns one after another in one array
    monkeypatch.setattr(results, "TAKE_RESULT", -1)  # store terms taken in C++
    taken = store.query(text)
    monkeypatch.setattr(results, "SMALL_RESULT", -1)  # the BIND column by distinct id
    large = store.query(text)
    assert small.equals(large) and taken.equals(large)
    assert small.column("m").null_count == 14
    assert '"\u00e9t\u00e9"@fr' in small.column("m").to_pylist()


def test_algebra_attributes_are_its_entries():
    from rdflib.plugins.sparql.parserutils import CompValue

    from hpgraph.rdf.sparql.algebra import translate

    algebra, _ = translate(
        f"SELECT ?s (COUNT(?o) AS ?n) WHERE {{ ?s <{EX}p> ?o OPTIONAL {{ ?o <{EX}q> ?v }} "
        "FILTER(?o != ?s) } GROUP BY ?s ORDER BY ?n LIMIT 3"
    )
    nodes, stack = 0, [algebra]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            nodes += 1
            for key, value in dict.items(node):
                if not key.startswith("_") and key != "name" and not hasattr(CompValue, key):
                    assert getattr(node, key) is value
            stack.extend(dict.values(node))
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    assert nodes > 5


@pytest.mark.parametrize("seed", SEEDS)
def test_one_bgp_select_same_as_general_path(tmp_path, monkeypatch, seed):
    """A SELECT over one BGP answered by the short path (``quick_select``) gives the
    general path's table: the same rows in the same order, the same column names and
    types, small results (id by id) and large ones (taken in C++); any other query is
    left to the general path (None)."""
    from hpgraph.rdf.sparql import run_query, to_table
    from hpgraph.rdf.sparql.prepared import quick_select

    rng = np.random.default_rng(seed)
    p, q, r = f"<{EX}p>", f"<{EX}q>", f"<{EX}r>"
    lines = [f"<{EX}n{a}> {p} <{EX}n{b}>" for a, b in rng.integers(0, 30, (300, 2))]
    lines += [f"<{EX}n{a}> {q} <{EX}n{b}>" for a, b in rng.integers(0, 30, (60, 2))]
    lines += [f'<{EX}n{a}> {r} "v{a}\u00e9"@fr' for a in range(0, 30, 3)]
    lines += [f"<{EX}n{a}> {q} <{EX}n{a}>" for a in range(0, 30, 7)]
    store = _store(tmp_path, "g.nt", lines)
    quick = [
        f"SELECT ?x WHERE {{ ?x {p} <{EX}n3> }}",
        f"SELECT ?x ?y WHERE {{ ?x {p} ?y }}",
        f"SELECT ?y ?x WHERE {{ ?x {p} ?y . ?y {q} ?z }}",
        f"SELECT * WHERE {{ ?x {q} ?y . ?y {r} ?l }}",
        f"SELECT ?x WHERE {{ ?x {q} ?x }}",
        f"SELECT ?x ?l WHERE {{ ?x {q} _:b . _:b {r} ?l }}",
        f"SELECT ?x ?v WHERE {{ ?x ?v <{EX}n5> }}",
        f"SELECT ?x WHERE {{ ?x <{EX}absent> ?y }}",
        f"SELECT ?x WHERE {{ ?x {p} ?y . ?y {p} ?z . ?z {p} ?x }}",
    ]
    general = [
        f"SELECT ?x ?w WHERE {{ ?x {p} ?y }}",  # ?w unbound
        f"SELECT DISTINCT ?x WHERE {{ ?x {p} ?y }}",
        f"SELECT ?x WHERE {{ ?x {p} ?y FILTER(?y != ?x) }}",
        f"SELECT ?x WHERE {{ ?x {p} ?y }} LIMIT 3",
        f"SELECT ?x WHERE {{ ?x {p}+ ?y }}",
        f"SELECT ?x FROM <{EX}g> WHERE {{ ?x {p} ?y }}",
        f"SELECT (COUNT(?x) AS ?n) WHERE {{ ?x {p} ?y }}",
        f"ASK {{ ?x {p} ?y }}",
    ]
    for take in (False, True):
        if take:  # every result taken from the term array
            monkeypatch.setattr(results, "TAKE_RESULT", -1)
        for text in quick + general:
            for _ in range(2):  # the first run plans, the second reuses the plan
                got = quick_select(store, text)
                if text in general:
                    assert got is None, text
                    continue
                res = run_query(store, text)
                want = to_table(store, res.variables, res.solutions)
                assert got.schema.equals(want.schema) and got.equals(want), text
                assert store.query(text).equals(want)
    union = store.query(quick[1], use_default_graph_as_union=True)
    assert union.equals(store.query(quick[1]))
