"""hpgraph.rdf: loading, the store, SPARQL answers compared with pyoxigraph on generated
data (multisets of rows; sequences where ORDER BY decides), bad input, the graph bridge."""

from __future__ import annotations

import collections
import gzip
import os
import random

import numpy as np
import pytest

pyoxigraph = pytest.importorskip("pyoxigraph")
from click.testing import CliRunner  # noqa: E402

from hpgraph.errors import GraphFormatError, InvalidArgumentError  # noqa: E402
from hpgraph.rdf import Store  # noqa: E402

EX = "http://ex.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
PREFIX = f"PREFIX ex: <{EX}> PREFIX xsd: <{XSD}>\n"


def _university(seed=7, n_people=60):
    """A small university-like graph as N-Triples lines."""
    rng = random.Random(seed)
    lines = []

    def t(s, p, o):
        lines.append(f"{s} {p} {o} .")

    depts = [f"<{EX}dept{i}>" for i in range(4)]
    courses = [f"<{EX}course{i}>" for i in range(12)]
    for i, c in enumerate(courses):
        t(c, f"<{EX}offeredBy>", depts[i % 4])
        t(c, f"<{EX}label>", f'"Course {i}"')
    for i in range(n_people):
        p = f"<{EX}person{i}>"
        kind = "Professor" if i % 5 == 0 else "Student"
        t(p, "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", f"<{EX}{kind}>")
        t(p, f"<{EX}memberOf>", rng.choice(depts))
        if rng.random() < 0.8:
            t(p, f"<{EX}age>", f'"{rng.randint(18, 70)}"^^<{XSD}integer>')
        if rng.random() < 0.5:
            t(p, f"<{EX}name>", f'"name {i}"@en')
        for c in rng.sample(courses, rng.randint(0, 3)):
            t(p, f"<{EX}takes>", c)
        if kind == "Student":
            t(p, f"<{EX}advisor>", f"<{EX}person{rng.randrange(0, n_people, 5)}>")
        for _ in range(rng.randint(0, 3)):
            t(p, f"<{EX}knows>", f"<{EX}person{rng.randrange(n_people)}>")
    t(f"<{EX}x>", f"<{EX}note>", '"line\\nbreak \\"q\\" \\u00e9"')
    t("_:b1", f"<{EX}knows>", f"<{EX}person1>")
    return lines


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("rdf") / "uni.nt"
    path.write_text("\n".join(_university()) + "\n", encoding="utf-8")
    ox = pyoxigraph.Store()
    ox.load(path=str(path), format=pyoxigraph.RdfFormat.N_TRIPLES)
    return path, Store.load(path), ox


def _ox_rows(ox, text):
    res = ox.query(text)
    names = [v.value for v in res.variables]
    return [tuple(None if s[v] is None else str(s[v]) for v in names) for s in res]


def _our_rows(store, text):
    tab = store.query(text)
    cols = [tab.column(i).to_pylist() for i in range(tab.num_columns)]
    return list(zip(*cols, strict=True))


QUERIES = {
    "bgp": "SELECT ?p ?d WHERE { ?p ex:memberOf ?d . ?p a ex:Professor }",
    "bgp_const_s": "SELECT ?c WHERE { ex:person3 ex:takes ?c }",
    "bgp_const_o": "SELECT ?p WHERE { ?p ex:memberOf ex:dept2 }",
    "var_predicate": "SELECT ?p ?o WHERE { ex:person7 ?p ?o }",
    "chain": "SELECT ?s ?d WHERE { ?s ex:takes ?c . ?c ex:offeredBy ?d . ?s ex:memberOf ?d }",
    "triangle": "SELECT ?a ?b ?c WHERE { ?a ex:knows ?b . ?b ex:knows ?c . ?c ex:knows ?a }",
    "same_var": "SELECT ?a WHERE { ?a ex:knows ?a }",
    "missing_const": "SELECT ?a WHERE { ?a ex:knows ex:nobody }",
    "filter_num": "SELECT ?p ?a WHERE { ?p ex:age ?a FILTER(?a >= 40 && ?a < 60) }",
    "filter_iri": "SELECT ?p WHERE { ?p ex:memberOf ?d FILTER(?d != ex:dept1) }",
    "filter_or_not": "SELECT ?p ?a WHERE { ?p ex:age ?a FILTER(!(?a > 30) || ?a = 65) }",
    "filter_vars": "SELECT ?a ?b WHERE { ?a ex:knows ?b . ?a ex:age ?x . ?b ex:age ?y "
    "FILTER(?x < ?y) }",
    "filter_str": 'SELECT ?c WHERE { ?c ex:label ?l FILTER(?l > "Course 5") }',
    "filter_isiri": "SELECT ?s ?o WHERE { ?s ex:knows ?o FILTER(isIRI(?s)) }",
    "optional": "SELECT ?p ?a WHERE { ?p a ex:Student OPTIONAL { ?p ex:age ?a } }",
    "optional_bound": "SELECT ?p WHERE { ?p a ex:Student OPTIONAL { ?p ex:name ?n } "
    "FILTER(!bound(?n)) }",
    "union": "SELECT ?x WHERE { { ?x a ex:Professor } UNION { ?x ex:offeredBy ex:dept0 } }",
    "union_vars": "SELECT ?x ?y WHERE { { ?x ex:advisor ?y } UNION { ?x ex:name ?z } }",
    "distinct": "SELECT DISTINCT ?d WHERE { ?p ex:memberOf ?d }",
    "count": "SELECT (COUNT(*) AS ?n) WHERE { ?p ex:takes ?c }",
    "group_count": "SELECT ?d (COUNT(?p) AS ?n) WHERE { ?p ex:memberOf ?d } GROUP BY ?d",
    "group_distinct": "SELECT ?c (COUNT(DISTINCT ?d) AS ?n) WHERE { ?p ex:takes ?c . "
    "?p ex:memberOf ?d } GROUP BY ?c",
    "count_optional": "SELECT ?p (COUNT(?a) AS ?n) WHERE { ?p a ex:Student "
    "OPTIONAL { ?p ex:age ?a } } GROUP BY ?p",
}

ORDERED = {
    "order_num": "SELECT ?p ?a WHERE { ?p ex:age ?a } ORDER BY ?a ?p",
    "order_desc": "SELECT ?p ?a WHERE { ?p ex:age ?a } ORDER BY DESC(?a) ?p",
    "order_limit": "SELECT ?p ?a WHERE { ?p ex:age ?a } ORDER BY DESC(?a) ?p LIMIT 5 OFFSET 3",
    "order_distinct": "SELECT DISTINCT ?a WHERE { ?p ex:age ?a } ORDER BY ?a",
    "order_iri": "SELECT ?c WHERE { ?c ex:offeredBy ?d } ORDER BY DESC(?c)",
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query_multiset_matches_pyoxigraph(data, name):
    _, store, ox = data
    text = PREFIX + QUERIES[name]
    ours = collections.Counter(_our_rows(store, text))
    theirs = collections.Counter(_ox_rows(ox, text))
    assert ours == theirs
    assert sum(theirs.values()) > 0 or name == "missing_const"


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query_by_lookup_joins_matches_pyoxigraph(data, name, monkeypatch):
    """Every connected pattern found by binary search of the joined part's values."""
    from hpgraph.rdf.sparql import bgp

    monkeypatch.setattr(bgp, "LOOKUP_RATIO", 0)
    _, store, ox = data
    text = PREFIX + QUERIES[name]
    assert collections.Counter(_our_rows(store, text)) == collections.Counter(_ox_rows(ox, text))


@pytest.mark.parametrize("name", sorted(ORDERED))
def test_ordered_query_matches_pyoxigraph(data, name):
    _, store, ox = data
    text = PREFIX + ORDERED[name]
    assert _our_rows(store, text) == _ox_rows(ox, text)


def test_literal_escapes_and_language_round_trip(data):
    _, store, ox = data
    text = PREFIX + "SELECT ?o WHERE { ex:x ex:note ?o }"
    assert _our_rows(store, text) == _ox_rows(ox, text)
    text = PREFIX + 'SELECT ?p WHERE { ?p ex:name "name 5"@en }'
    assert _our_rows(store, text) == _ox_rows(ox, text)


def test_save_open_round_trip_and_atomic(data, tmp_path):
    path, store, _ = data
    out = tmp_path / "store"
    store.save(out)
    again = Store.open(out)
    assert again.terms == store.terms
    assert np.array_equal(again.pso, store.pso) and np.array_equal(again.pos, store.pos)
    assert len(again) == len(set(path.read_text().splitlines()))
    with pytest.raises(InvalidArgumentError, match="exists"):
        store.save(out)
    q = PREFIX + QUERIES["chain"]
    assert collections.Counter(_our_rows(again, q)) == collections.Counter(_our_rows(store, q))


def test_permutations_sorted(data):
    _, store, _ = data
    pso, pos = store.pso, store.pos
    assert np.all(np.diff(np.lexsort((pso[:, 2], pso[:, 0], pso[:, 1]))) == 1)
    assert np.all(np.diff(np.lexsort((pos[:, 0], pos[:, 2], pos[:, 1]))) == 1)


def test_gz_and_turtle_load_same_graph(data, tmp_path):
    path, store, ox = data
    gz = tmp_path / "uni.nt.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as fh:
        fh.write(path.read_text(encoding="utf-8"))
    assert sorted(Store.load(gz).terms) == sorted(store.terms)
    ttl = tmp_path / "uni.ttl"
    ttl.write_text(
        ox.dump(format=pyoxigraph.RdfFormat.TURTLE, from_graph=pyoxigraph.DefaultGraph()).decode(
            "utf-8"
        ),
        encoding="utf-8",
    )
    from_ttl = Store.load(ttl)
    assert len(from_ttl) == len(store)
    q = PREFIX + QUERIES["group_count"]
    assert collections.Counter(_our_rows(from_ttl, q)) == collections.Counter(_ox_rows(ox, q))


@pytest.mark.parametrize("gz", [False, True])
def test_nquads_keep_graphs_like_pyoxigraph(data, tmp_path, gz):
    """N-Quads: each quad kept in its graph. The default graph is the quads without a graph
    name (pyoxigraph's default); with ``use_default_graph_as_union`` it is the merge of
    every graph, a set (checked against pyoxigraph holding the triples as one graph)."""
    lines = _university(seed=11)
    rng = random.Random(3)
    quads = []
    for line in lines:
        graph = rng.choice(["", f"<{EX}g1> ", f"<{EX}g2> ", "_:g3 "])
        quads.append(line[:-1] + graph + ".")
    quads += [lines[0][:-1] + f"<{EX}g9>\t.", "# comment", ""]  # a triple in two graphs
    text = "\n".join(quads) + "\n"
    path = tmp_path / ("q.nq.gz" if gz else "q.nq")
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    ox = pyoxigraph.Store()
    ox.load(text.encode("utf-8"), format=pyoxigraph.RdfFormat.N_QUADS)
    merged = pyoxigraph.Store()
    merged.load("\n".join(lines).encode("utf-8"), format=pyoxigraph.RdfFormat.N_TRIPLES)
    store = Store.load(path)
    assert len(store) == len(ox) == len(set(quads) - {"# comment", ""})
    assert len(store.named) == 4 and len(store.graph("union")) == len(set(lines))
    for name in ("chain", "group_count", "optional", "union_vars"):
        q = PREFIX + QUERIES[name]
        assert collections.Counter(_our_rows(store, q)) == collections.Counter(_ox_rows(ox, q))
        tab = store.query(q, use_default_graph_as_union=True)
        union = list(zip(*(c.to_pylist() for c in tab.columns), strict=True))
        assert collections.Counter(union) == collections.Counter(_ox_rows(merged, q))
    bad = tmp_path / "bad.nq"
    bad.write_text(
        f"<{EX}a> <{EX}p> <{EX}b> <{EX}g> .\n<{EX}a> <{EX}p> <{EX}b> <{EX}g> <{EX}h> .\n"
    )
    with pytest.raises(GraphFormatError, match=r"bad\.nq:2: malformed N-Quads line"):
        Store.load(bad)


def test_malformed_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.nt"
    bad.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n\n<{EX}a> <{EX}p> oops .\n")
    with pytest.raises(GraphFormatError, match=r"bad\.nt:3: malformed"):
        Store.load(bad)
    with pytest.raises(GraphFormatError, match="no such file"):
        Store.load(tmp_path / "missing.nt")
    with pytest.raises(GraphFormatError, match=r"missing\.store: no such file"):
        Store.load(tmp_path / "missing.store")  # not "unknown RDF format"


TRICKY_FAST = (  # lines the compiled scanner takes
    "# a comment\n"
    f'<{EX}a> <{EX}p> "x"^^<{XSD}string> .\n'
    "\n"
    f'<{EX}a>\t<{EX}p>  "Tab and  spaces"@EN-gb . # trailing comment\r\n'
    f'_:b2 <{EX}p> "q\\"uote \\u00e9 \\n" .\n'
    f'<{EX}a> <{EX}p> "\u00e9t\u00e9"@fr .\n'
    f'<{EX}a> <{EX}p> "5"^^<{XSD}integer> .\n'
    f'<{EX}a> <{EX}p> "" .\n'
)
#: and two it leaves to the line parser (a label before the final dot, a non-ASCII IRI)
TRICKY = TRICKY_FAST + f"_:b1 <{EX}p> _:b2.\n<{EX}\u00e9> <{EX}p> <{EX}b>."


def _triples(store):
    return {tuple(store.terms[i] for i in row) for row in store.pso.tolist()}


def _line_parser_triples(path):
    from hpgraph.rdf.parse import iter_triples

    out = set()
    for s, p, o in iter_triples(path):
        out.update(zip(s, p, o, strict=True))
    return out


@pytest.mark.parametrize("collide", [False, True])
def test_compiled_scanner_matches_line_parser(data, tmp_path, monkeypatch, collide):
    """The compiled N-Triples path (forced on small files) gives the line parser's triples;
    with every hash made equal it must fall back rather than merge terms."""
    from hpgraph.rdf import _ntscan, parse

    monkeypatch.setattr(parse, "FAST_MIN_BYTES", 0)
    if collide:
        scan = _ntscan.scan_lines

        def colliding(buf, quads=False):
            starts, ends, hashes, lines, bad = scan(buf, quads)
            return starts, ends, np.zeros_like(hashes), lines, bad

        monkeypatch.setattr(_ntscan, "scan_lines", colliding)
    path, _, _ = data
    assert _ntscan.scan_lines(np.frombuffer(TRICKY_FAST.encode("utf-8"), np.uint8))[4] == -1
    sources = [path]
    for i, text in enumerate((TRICKY_FAST, TRICKY)):
        sources.append(tmp_path / f"tricky{i}.nt")
        sources[-1].write_bytes(text.encode("utf-8"))
    for source in sources:
        assert _triples(Store.load(source)) == _line_parser_triples(source)
    bad = tmp_path / "bad.nt"
    bad.write_text(TRICKY + "\n" + f"<{EX}a> <{EX}p> <{EX}b> <{EX}c> .\n", encoding="utf-8")
    with pytest.raises(GraphFormatError, match=r"bad\.nt:11: malformed"):
        Store.load(bad)


@pytest.mark.parametrize(
    "text,match",
    [
        ("SELECT ?x WHERE { ?x ?p }", "syntax error"),
        ("SELECT ?x WHERE { ?x nope:p ?y }", "syntax error"),
        ('SELECT ?x WHERE { ?x ex:p ?y BIND(BNODE("b") AS ?z) }', "BNODE"),
        ("SELECT ?x WHERE { SERVICE <http://x.org/> { ?x ex:p ?y } }", "SERVICE"),
        ("DESCRIBE * WHERE { ?x ex:p ?y }", "DESCRIBE \\*"),
        ("SELECT ?x WHERE { GRAPH _:g { ?x ex:p ?y } }", "syntax error"),
        ("INSERT DATA { ex:a ex:p ex:b }", r"SPARQL Update \(INSERT\)"),
        ("delete where { ?x ex:p ?y }", r"SPARQL Update \(DELETE\)"),
    ],
)
def test_unsupported_and_bad_queries_raise_one_line(data, text, match):
    _, store, _ = data
    with pytest.raises(InvalidArgumentError, match=match) as info:
        store.query(PREFIX + text)
    assert "\n" not in str(info.value)


def test_subgraph_bridge_pagerank(data):
    import networkx as nx

    import hpgraph as hp

    _, store, _ = data
    g = store.subgraph([f"{EX}knows"])
    ref = nx.DiGraph()
    for line in set(_university()):
        sub, pred, obj, _ = line.split(" ", 3)
        if pred == f"<{EX}knows>":
            ref.add_edge(sub.strip("<>"), obj.strip("<>"))
    assert g.n == ref.number_of_nodes() and g.num_edges == ref.number_of_edges()
    ours = hp.pagerank(g, iterations=200, tolerance=1e-12).to_dict()
    theirs = nx.pagerank(ref)
    for k, v in theirs.items():
        assert ours[k] == pytest.approx(v, abs=1e-5)


def test_cli_load_and_sparql(data, tmp_path):
    import json

    from hpgraph.cli.main import cli

    path, _, ox = data
    runner = CliRunner()
    out = tmp_path / "s"
    r = runner.invoke(cli, ["rdf", "load", str(path), "-o", str(out)])
    assert r.exit_code == 0, r.output
    q = PREFIX + QUERIES["group_count"]
    r = runner.invoke(cli, ["sparql", str(out), "-e", q, "--format", "json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    rows = collections.Counter(
        (b["d"]["value"], b["n"]["value"]) for b in got["results"]["bindings"]
    )
    want = collections.Counter((s["d"].value, s["n"].value) for s in ox.query(q))
    assert rows == want
    r = runner.invoke(cli, ["sparql", str(path), "-e", q, "--format", "csv"])
    assert r.exit_code == 0 and r.output.splitlines()[0] == "d,n"
    assert len(r.output.splitlines()) == 1 + len(want)
    # without --format, -o's extension names the format; stdout and other names: TSV
    for name, header in (
        ("a.csv", "d,n"),
        ("a.json", "{"),
        ("a.tsv", "?d\t?n"),
        ("a.txt", "?d\t?n"),
    ):
        r = runner.invoke(cli, ["sparql", str(out), "-e", q, "-o", str(tmp_path / name)])
        assert r.exit_code == 0, r.output
        assert (tmp_path / name).read_text().splitlines()[0].startswith(header), name
    r = runner.invoke(
        cli, ["sparql", str(out), "-e", q, "-o", str(tmp_path / "b.csv"), "--format", "tsv"]
    )
    assert r.exit_code == 0 and (tmp_path / "b.csv").read_text().startswith("?d\t?n")
    assert runner.invoke(cli, ["sparql", str(out), "-e", q]).output.startswith("?d\t?n")
    r = runner.invoke(cli, ["sparql", str(out), "-e", "SELECT ?x WHERE { ?x ?p }"])
    assert r.exit_code == 2 and "syntax error" in r.output
    bad = tmp_path / "bad.nt"
    bad.write_text("<a> <b> .\n")
    r = runner.invoke(cli, ["rdf", "load", str(bad), "-o", str(tmp_path / "t")])
    assert r.exit_code == 2 and "bad.nt:1" in r.output
    assert not os.path.exists(tmp_path / "t")
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".rdfstore")]


def test_json_and_csv_values_decode_escapes(data):
    import json

    from hpgraph.rdf.sparql import format_results, run_query, to_table

    _, store, ox = data
    text = PREFIX + "SELECT ?o WHERE { ex:x ex:note ?o }"
    want = next(iter(ox.query(text)))["o"].value
    result = run_query(store, text)
    variables = result.variables
    table = to_table(store, variables, result.solutions)
    got = json.loads(format_results(variables, table, "json"))["results"]["bindings"][0]["o"]
    assert got == {"type": "literal", "value": want}
    assert want == 'line\nbreak "q" \u00e9'
    assert format_results(variables, table, "csv").startswith('o\r\n"line\nbreak ""q"" \u00e9"')


def test_cli_graph_bridge_then_run(data, tmp_path):
    from hpgraph.cli.main import cli
    from hpgraph.io import load_binary

    path, store, _ = data
    runner = CliRunner()
    out = tmp_path / "knows.hpgc"
    r = runner.invoke(cli, ["rdf", "graph", str(path), "-p", f"{EX}knows", "-o", str(out)])
    assert r.exit_code == 0, r.output
    g, want = load_binary(out), store.subgraph([f"{EX}knows"])
    assert (g.n, g.num_edges, list(g.ids)) == (want.n, want.num_edges, list(want.ids))
    r = runner.invoke(cli, ["run", "pagerank", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["rdf", "graph", str(path), "-p", f"{EX}nope", "-o", str(out)])
    assert r.exit_code == 2 and "not in the store" in r.output


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sort_quads_matches_sorted_sets(seed):
    """PSO / POS and the graph ranges of ``sort_quads`` (one graph, and several) equal the
    distinct rows sorted by Python, graph by graph (default graph first)."""
    from hpgraph.rdf.triples import DEFAULT_GRAPH, sort_quads

    print("seed", seed)
    rng = np.random.default_rng(seed)
    spo = rng.integers(0, 6, (300, 3))
    graph = rng.choice([DEFAULT_GRAPH, 7, 3], 300)
    for g in (None, graph):
        gs = [DEFAULT_GRAPH] * len(spo) if g is None else g.tolist()
        rows = set(zip(gs, map(tuple, spo.tolist()), strict=True))
        names = sorted({x for x, _ in rows}, key=lambda x: (x != DEFAULT_GRAPH, x))
        pso, pos, ranges = sort_quads(spo, g)
        assert ranges[:, 0].tolist() == names
        for name, a, b in ranges.tolist():
            mine = [r for x, r in rows if x == name]
            assert pso[a:b].tolist() == sorted(map(list, mine), key=lambda r: (r[1], r[0], r[2]))
            assert pos[a:b].tolist() == sorted(map(list, mine), key=lambda r: (r[1], r[2], r[0]))
