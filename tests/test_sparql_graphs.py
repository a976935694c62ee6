"""Named graphs (N-Quads kept per graph, GRAPH, FROM / FROM NAMED, the default graph with
and without pyoxigraph's ``use_default_graph_as_union``), the query forms ASK, CONSTRUCT
and DESCRIBE, and inverses inside negated property sets, compared with pyoxigraph on
seeded random quads. Awkward cases: a graph name that is also a subject, blank-node graph
names, quads in the default graph, a triple in several graphs, graphs that do not exist,
a store without named graphs and one without a default graph. Rows and triples are
compared as multisets with blank nodes all alike (pyoxigraph renames them)."""

from __future__ import annotations

import collections
import json
import random

import numpy as np
import pytest

pyoxigraph = pytest.importorskip("pyoxigraph")
from click.testing import CliRunner  # noqa: E402

from hpgraph.errors import GraphFormatError, InvalidArgumentError  # noqa: E402
from hpgraph.rdf import Store  # noqa: E402

EX = "http://ex.org/"
PREFIX = f"PREFIX ex: <{EX}>\n"
GRAPHS = [f"<{EX}g1>", f"<{EX}g2>", f"<{EX}g3>", "_:bg"]


def _quads(seed, default=True, named=True):
    """N-Quads lines: nodes n0..n11 and blank nodes linked by ex:p / ex:q, values by
    ex:val, in the default graph and in four named graphs (one a blank node); g1 is also
    the subject of triples in g1 and in the default graph."""
    rng = random.Random(seed)
    nodes = [f"<{EX}n{i}>" for i in range(12)] + ["_:b0", "_:b1"]
    where = ([""] if default else []) + ([g + " " for g in GRAPHS] if named else [])
    out = []
    for _ in range(160):
        s, o = rng.choice(nodes), rng.choice(nodes)
        pred = rng.choice(["p", "p", "q"])
        obj = o if rng.random() < 0.8 else f'"{rng.randint(0, 5)}"'
        if rng.random() < 0.2:
            pred, obj = "val", f'"{rng.randint(0, 9)}"^^<http://www.w3.org/2001/XMLSchema#integer>'
        out.append(f"{s} <{EX}{pred}> {obj} {rng.choice(where)}.")
    out.append(f"<{EX}n0> <{EX}p> _:b0 {rng.choice(where)}.")
    out.append(f"_:b0 <{EX}q> _:b1 {rng.choice(where)}.")
    out.append(f"_:b1 <{EX}p> _:b0 {rng.choice(where)}.")
    for g in where:  # the same triple in every graph; g1 as a subject
        out.append(f"<{EX}n1> <{EX}p> <{EX}n2> {g}.")
        out.append(f"<{EX}g1> <{EX}p> <{EX}n3> {g}.")
    return out


class _Oxigraph:
    """pyoxigraph holding the same quads. ``union=True`` queries a second store whose
    default graph is the RDF merge of every graph (a set): pyoxigraph's own
    ``use_default_graph_as_union`` matches every quad, so a triple in two graphs comes
    twice, where the merge SPARQL defines (and hpgraph's union option gives) has it once."""

    def __init__(self, text, fmt=pyoxigraph.RdfFormat.N_QUADS):
        self.plain = pyoxigraph.Store()
        self.plain.load(text.encode("utf-8"), format=fmt)
        quads = list(self.plain)  # the same blank nodes in both stores
        self.merged = pyoxigraph.Store()
        self.merged.extend(
            quads + [pyoxigraph.Quad(q.subject, q.predicate, q.object) for q in quads]
        )

    def query(self, text, union=False):
        return (self.merged if union else self.plain).query(text)


def _load(tmp_path, lines, name="d.nq"):
    text = "\n".join(lines) + "\n"
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return Store.load(path), _Oxigraph(text)


@pytest.fixture(scope="module", params=[0, 1], ids=lambda s: f"seed{s}")
def stores(request, tmp_path_factory):
    return _load(tmp_path_factory.mktemp("quads"), _quads(request.param))


def _norm(term):
    return "_:" if term is not None and term.startswith("_:") else term


def _ox_rows(ox, text, union=False, distinct=False):
    """pyoxigraph's rows; ``distinct``: each once (before blank nodes are made alike)."""
    res = ox.query(text, union)
    names = sorted(v.value for v in res.variables)
    rows = [tuple(None if s[v] is None else str(s[v]) for v in names) for s in res]
    return collections.Counter(tuple(map(_norm, r)) for r in (set(rows) if distinct else rows))


def _our_rows(store, text, union=False):
    tab = store.query(text, use_default_graph_as_union=union)
    cols = [tab.column(v).to_pylist() for v in sorted(tab.column_names)]
    rows = zip(*cols, strict=True) if cols else [()] * tab.num_rows
    return collections.Counter(tuple(map(_norm, r)) for r in rows)


def _ox_triples(ox, text, union=False):
    """pyoxigraph's CONSTRUCT / DESCRIBE triples as a set (it repeats some triples; the
    result is an RDF graph, a set), blank nodes then made alike."""
    triples = {(str(t.subject), str(t.predicate), str(t.object)) for t in ox.query(text, union)}
    return collections.Counter((_norm(s), p, _norm(o)) for s, p, o in triples)


def _our_triples(store, text, union=False):
    tab = store.query(text, use_default_graph_as_union=union)
    assert tab.column_names == ["subject", "predicate", "object"]
    rows = list(zip(*(tab.column(i).to_pylist() for i in range(3)), strict=True))
    assert len(rows) == len(set(rows))
    return collections.Counter((_norm(s), p, _norm(o)) for s, p, o in rows)


GRAPH_QUERIES = {
    "default": "SELECT ?s ?p ?o WHERE { ?s ?p ?o }",
    "graph_var": "SELECT ?g ?s ?o WHERE { GRAPH ?g { ?s ex:p ?o } }",
    "graph_iri": "SELECT ?s ?o WHERE { GRAPH ex:g1 { ?s ex:p ?o } }",
    "graph_absent": "SELECT ?s WHERE { GRAPH ex:nothing { ?s ?p ?o } }",
    "graph_empty_pattern": "SELECT ?g WHERE { GRAPH ?g { } }",
    "graph_iri_empty_pattern": "SELECT * WHERE { GRAPH ex:g2 { } }",
    "graph_absent_empty_pattern": "SELECT * WHERE { GRAPH ex:nothing { } }",
    "graph_name_as_subject": "SELECT ?g ?o WHERE { GRAPH ?g { ?g ex:p ?o } }",
    "graph_name_in_default": "SELECT ?g ?o WHERE { ?g ex:p ?o GRAPH ?g { ?s ex:p ?o } }",
    "count_per_graph": "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g",
    "join_default_named": "SELECT ?s ?g ?x WHERE { ?s ex:p ?o . GRAPH ?g { ?o ex:q ?x } }",
    "optional_in_graph": "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o "
    "OPTIONAL { ?o ex:q ?x } FILTER(!bound(?x)) } }",
    "union_in_graph": "SELECT ?g ?s ?o WHERE { GRAPH ?g { { ?s ex:p ?o } UNION { ?s ex:q ?o } } }",
    "optional_filter_in_graph": "SELECT ?g ?s ?z WHERE { GRAPH ?g { ?s ex:p ?o "
    "OPTIONAL { ?o ex:p ?z FILTER(?z != ?s) } } }",
    "minus_shared_in_graph": "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o MINUS { ?s ex:q ?y } } }",
    "bind_in_graph": "SELECT ?g ?s ?w WHERE { GRAPH ?g { ?s ex:val ?v BIND(?v + 1 AS ?w) } }",
    "path_plus": "SELECT ?g ?a ?b WHERE { GRAPH ?g { ?a ex:p+ ?b } }",
    "path_star": "SELECT ?g ?a ?b WHERE { GRAPH ?g { ?a ex:p* ?b } }",
    "path_star_default": "SELECT ?a ?b WHERE { ?a (ex:p|ex:q)* ?b }",
    "exists_graph": "SELECT ?s ?o WHERE { ?s ex:p ?o FILTER EXISTS { GRAPH ?g { ?o ex:q ?s } } }",
    "not_exists_graph": "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o } "
    "FILTER NOT EXISTS { GRAPH ?g { ?o ex:p ?s } } }",
    "values_graph": "SELECT ?s ?g WHERE { VALUES ?g { ex:g1 ex:g2 ex:nothing } "
    "GRAPH ?g { ?s ex:p ?o } }",
    "two_graphs": "SELECT ?g ?h ?s WHERE { GRAPH ?g { ?s ex:p ?o } GRAPH ?h { ?s ex:q ?x } }",
    "nested_graph": "SELECT * WHERE { GRAPH ex:g1 { ?s ex:p ?o GRAPH ?h { ?o ex:p ?z } } }",
    "union_graphs": "SELECT ?g ?s WHERE { { GRAPH ?g { ?s ex:val ?v } } UNION { ?s ex:val ?v } }",
    "minus_graph": "SELECT ?s ?o WHERE { ?s ex:p ?o MINUS { GRAPH ex:g1 { ?s ex:p ?o } } }",
    "from": "SELECT ?s ?o FROM ex:g1 WHERE { ?s ex:p ?o }",
    "from_two": "SELECT ?s ?o FROM ex:g1 FROM ex:g2 WHERE { ?s ex:p ?o }",
    "from_absent": "SELECT ?s ?o FROM ex:nothing WHERE { ?s ex:p ?o }",
    "from_only_no_named": "SELECT ?g ?s FROM ex:g1 WHERE { GRAPH ?g { ?s ex:p ?o } }",
    "from_named_only": "SELECT ?s ?o FROM NAMED ex:g1 WHERE { ?s ex:p ?o }",
    "from_named_graph": "SELECT ?g ?s FROM NAMED ex:g1 FROM NAMED ex:g3 "
    "WHERE { GRAPH ?g { ?s ex:p ?o } }",
    "from_named_other_iri": "SELECT ?s FROM NAMED ex:g1 WHERE { GRAPH ex:g2 { ?s ex:p ?o } }",
    "from_and_named": "SELECT ?s ?g ?x FROM ex:g2 FROM NAMED ex:g1 "
    "WHERE { ?s ex:p ?o OPTIONAL { GRAPH ?g { ?o ex:p ?x } } }",
}


#: Queries over the merge of several graphs: SPARQL's merge is a set, pyoxigraph matches
#: each graph's quads, so a triple in two FROM graphs comes twice there.
MERGES = {"from_two"}


@pytest.mark.parametrize("union", [False, True], ids=["default", "union"])
@pytest.mark.parametrize("name", sorted(GRAPH_QUERIES))
def test_named_graph_queries_match_pyoxigraph(stores, name, union):
    store, ox = stores
    text = PREFIX + GRAPH_QUERIES[name]
    want = _ox_rows(ox, text, union, distinct=name in MERGES)
    assert _our_rows(store, text, union) == want


#: Where pyoxigraph binds ?g inside GRAPH ?g { P } before P is evaluated, SPARQL 1.1
#: (18.6: eval(D(G), Graph(?g, P)) = the union over g of Join(eval(D(g), P), ?g -> g))
#: evaluates P without it: (query, the query pyoxigraph answers the same).
GRAPH_VAR_UNBOUND_INSIDE = {
    "filter_reads_graph_name": (  # ?g unbound in the filter: an error, no rows
        "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o FILTER(?o != ?g) } }",
        "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o FILTER(false) } }",
    ),
    "minus_in_graph": (  # the two sides share no variable: MINUS removes nothing
        "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o MINUS { ?x ex:q ?y } } }",
        "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:p ?o } }",
    ),
}


@pytest.mark.parametrize("name", sorted(GRAPH_VAR_UNBOUND_INSIDE))
def test_graph_variable_is_unbound_inside_its_pattern(stores, name):
    store, ox = stores
    ours, same = GRAPH_VAR_UNBOUND_INSIDE[name]
    assert _our_rows(store, PREFIX + ours) == _ox_rows(ox, PREFIX + same)


@pytest.mark.parametrize("name", sorted(GRAPH_QUERIES) + sorted(GRAPH_VAR_UNBOUND_INSIDE))
def test_graph_over_quads_equals_one_graph_at_a_time(stores, name, monkeypatch):
    """The one evaluation over all named graphs' quads gives what evaluating the pattern
    in each graph apart gives."""
    from hpgraph.rdf.sparql import graphs

    store, _ = stores
    text = PREFIX + (GRAPH_QUERIES.get(name) or GRAPH_VAR_UNBOUND_INSIDE[name][0])
    fast = _our_rows(store, text)
    monkeypatch.setattr(graphs, "_over_quads", lambda node, name: False)
    assert _our_rows(store, text) == fast


@pytest.mark.parametrize(
    "default,named", [(True, False), (False, True)], ids=["no_named", "no_default"]
)
@pytest.mark.parametrize("name", ["default", "graph_var", "graph_empty_pattern", "path_star"])
def test_store_with_one_kind_of_graph(tmp_path, default, named, name):
    store, ox = _load(tmp_path, _quads(5, default, named))
    assert bool(store.named) == named and (len(store.default) > 0) == default
    text = PREFIX + GRAPH_QUERIES[name]
    for union in (False, True):
        assert _our_rows(store, text, union) == _ox_rows(ox, text, union)


def test_quads_kept_per_graph(stores, tmp_path):
    """Each (triple, graph) once; a triple in several graphs once per graph; the store
    round-trips through save / open."""
    store, ox = stores
    assert len(store) == len(ox.plain)
    assert len(store.named) == len(GRAPHS)
    assert store.lookup(f"<{EX}g1>") in store.named and store.lookup("_:bg") in store.named
    default = pyoxigraph.DefaultGraph()
    assert len(store.default) == len(list(ox.plain.quads_for_pattern(None, None, None, default)))
    assert len(store.graph("union")) == len(
        list(ox.merged.quads_for_pattern(None, None, None, default))
    )
    again = Store.open(_saved(store, tmp_path / "s"))
    assert np.array_equal(again.graph_ranges, store.graph_ranges)
    text = PREFIX + GRAPH_QUERIES["graph_var"]
    assert _our_rows(again, text) == _our_rows(store, text)


def _saved(store, path):
    store.save(path)
    return path


def test_version_1_store_opens_and_a_newer_one_is_refused(tmp_path):
    """A version 1 store (no graphs.npy: every triple in the default graph) still opens; a
    version this code does not know is a one-line error naming the version."""
    store, ox = _load(tmp_path, _quads(2, named=False), "d.nt")
    path = _saved(store, tmp_path / "v1")
    meta = json.loads((path / "meta.json").read_text())
    (path / "graphs.npy").unlink()
    (path / "meta.json").write_text(json.dumps({**meta, "version": 1}))
    old = Store.open(path)
    assert not old.named and len(old) == len(store)
    text = PREFIX + "SELECT ?s ?o WHERE { ?s ex:p ?o }"
    assert _our_rows(old, text) == _ox_rows(ox, text)
    (path / "meta.json").write_text(json.dumps({**meta, "version": 99}))
    with pytest.raises(GraphFormatError, match="found version 99") as info:
        Store.open(path)
    assert "\n" not in str(info.value)


def _trig(lines):
    """The N-Quads lines of :func:`_quads` as TriG: the default graph's triples at the top
    level, each named graph's in its block (``GRAPH`` spelled for one of them)."""
    graphs = collections.defaultdict(list)
    for line in lines:
        terms = line.split()[:-1]  # no term of _quads holds a space
        graphs[terms[3] if len(terms) == 4 else None].append(" ".join(terms[:3]) + " .")
    out = graphs.pop(None, [])
    for i, (g, triples) in enumerate(graphs.items()):
        out.append(("GRAPH " if i == 0 else "") + g + " {")
        out += ["  " + t for t in triples]
        out.append("}")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module", params=[0, 1], ids=lambda s: f"seed{s}")
def trig_stores(request, tmp_path_factory):
    """The quads of ``stores`` read from TriG, by hpgraph and by pyoxigraph; the N-Quads
    store beside them."""
    lines = _quads(request.param)
    folder = tmp_path_factory.mktemp("trig")
    path = folder / "d.trig"
    path.write_text(_trig(lines), encoding="utf-8")
    nquads = _load(folder, lines)[0]
    return Store.load(path), _Oxigraph(path.read_text(), pyoxigraph.RdfFormat.TRIG), nquads


def _quad_bag(store):
    """The quads of a store as a multiset, blank nodes all alike (rdflib's TriG parser
    renames them)."""
    return collections.Counter(tuple(map(_norm, q)) for q in _quad_set(store))


def test_trig_keeps_the_quads_of_nquads(trig_stores):
    store, ox, nquads = trig_stores
    assert _quad_bag(store) == _quad_bag(nquads)
    assert len(store) == len(ox.plain) and len(store.named) == len(GRAPHS)
    assert len(store.default) == len(nquads.default)


@pytest.mark.parametrize("union", [False, True], ids=["default", "union"])
@pytest.mark.parametrize("name", sorted(GRAPH_QUERIES))
def test_trig_queries_match_pyoxigraph(trig_stores, name, union):
    store, ox, _ = trig_stores
    text = PREFIX + GRAPH_QUERIES[name]
    assert _our_rows(store, text, union) == _ox_rows(ox, text, union, distinct=name in MERGES)


@pytest.mark.parametrize(
    "name,text,line",
    [
        (
            "bad.trig",
            f"<{EX}g> {{ <{EX}a> <{EX}p> <{EX}b> .\n <{EX}a> <{EX}p> <{EX}b> <{EX}c> }}\n",
            2,
        ),
        ("bad.trig", f"<{EX}a> <{EX}p> <{EX}b> .\n\n<{EX}g> {{ <{EX}a> <{EX}p> }}\n", 3),
        ("bad.ttl", f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}a> <{EX}p> .\n", 2),
    ],
    ids=["trig_extra_term", "trig_no_object", "turtle"],
)
def test_malformed_trig_and_turtle_name_file_and_line(tmp_path, name, text, line):
    from hpgraph.cli.main import cli

    bad = tmp_path / name
    bad.write_text(text, encoding="utf-8")
    kind = "TriG" if name.endswith(".trig") else "Turtle"
    with pytest.raises(GraphFormatError, match=rf"{name}:{line}: malformed {kind}: ") as info:
        Store.load(bad)
    assert "\n" not in str(info.value)
    r = CliRunner().invoke(cli, ["rdf", "load", str(bad), "-o", str(tmp_path / "s")])
    assert r.exit_code == 2 and f"{name}:{line}: malformed {kind}" in r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert not (tmp_path / "s").exists()


def test_cli_loads_trig_with_its_graphs(trig_stores, tmp_path):
    from hpgraph.cli.main import cli

    store, ox, _ = trig_stores
    path = tmp_path / "d.trig"
    path.write_text(_trig(_quads(0)), encoding="utf-8")
    r = CliRunner().invoke(cli, ["rdf", "load", str(path), "-o", str(tmp_path / "s")])
    assert r.exit_code == 0, r.output
    again = Store.open(tmp_path / "s")
    assert _quad_bag(again) == _quad_bag(Store.load(path))
    assert len(again.named) == len(GRAPHS)


def _quad_set(store):
    t = store.terms
    out = {(t[s], t[p], t[o], None) for s, p, o in store.default.pso.tolist()}
    for g, triples in store.named.items():
        out |= {(t[s], t[p], t[o], t[g]) for s, p, o in triples.pso.tolist()}
    return out


@pytest.mark.parametrize("collide", [False, True], ids=["scanner", "collisions"])
def test_compiled_scanner_reads_quads_as_the_line_parser(tmp_path, monkeypatch, collide):
    """N-Quads through the compiled scanner (forced on a small file) give the line
    parser's quads; with every hash equal the block falls back to the line parser."""
    import numpy as np

    from hpgraph.rdf import _ntscan, parse

    lines = _quads(3) + [
        f'<{EX}a> <{EX}p> "lit"@EN <{EX}g1> .',
        f'<{EX}a>\t<{EX}p>  "x"^^<http://www.w3.org/2001/XMLSchema#string>  _:bg . # c',
        f"_:b0 <{EX}p> <{EX}b> _:b1.",  # a label right before the dot: the line parser
    ]
    path = tmp_path / "d.nq"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    slow = _quad_set(Store.load(path))
    monkeypatch.setattr(parse, "FAST_MIN_BYTES", 0)
    if collide:
        scan = _ntscan.scan_lines

        def colliding(buf, quads=False):
            starts, ends, hashes, n, bad = scan(buf, quads)
            return starts, ends, np.zeros_like(hashes), n, bad

        monkeypatch.setattr(_ntscan, "scan_lines", colliding)
    good = tmp_path / "good.nq"
    good.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    assert _ntscan.scan_lines(np.frombuffer(good.read_bytes(), np.uint8), True)[4] == -1
    assert _quad_set(Store.load(path)) == slow
    assert _quad_set(Store.load(good)) == slow - {("_:b0", f"<{EX}p>", f"<{EX}b>", "_:b1")}


def test_nquads_bad_lines_name_the_line(tmp_path, monkeypatch):
    from hpgraph.rdf import parse

    bad = tmp_path / "bad.nq"
    bad.write_text(
        f"<{EX}a> <{EX}p> <{EX}b> <{EX}g> .\n"
        f'<{EX}a> <{EX}p> <{EX}b> "lit" .\n'  # a literal graph name
    )
    with pytest.raises(GraphFormatError, match=r"bad\.nq:2: malformed N-Quads line"):
        Store.load(bad)
    monkeypatch.setattr(parse, "FAST_MIN_BYTES", 0)  # the compiled scanner names it too
    with pytest.raises(GraphFormatError, match=r"bad\.nq:2: malformed N-Quads line"):
        Store.load(bad)


def test_inference_stays_in_each_graph(tmp_path):
    """--infer derives inside each graph: a type in g1 gives its superclass in g1 only."""
    onto = tmp_path / "o.ttl"
    onto.write_text(
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        f"<{EX}A> rdfs:subClassOf <{EX}B> .\n"
    )
    data = tmp_path / "d.nq"
    a = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    data.write_text(f"<{EX}x> {a} <{EX}A> <{EX}g1> .\n<{EX}y> {a} <{EX}A> .\n")
    store = Store.load(data, infer=onto)
    rows = _our_rows(store, PREFIX + "SELECT ?g ?s WHERE { GRAPH ?g { ?s a ex:B } }")
    assert rows == collections.Counter({(f"<{EX}g1>", f"<{EX}x>"): 1})
    assert _our_rows(store, PREFIX + "SELECT ?s WHERE { ?s a ex:B }") == collections.Counter(
        {(f"<{EX}y>",): 1}
    )


def test_subgraph_of_a_named_graph(stores):
    store, ox = stores
    g = store.subgraph([f"{EX}p"], graph=f"{EX}g1")
    want = {
        (str(q.subject), str(q.object))
        for q in ox.plain.quads_for_pattern(None, pyoxigraph.NamedNode(f"{EX}p"), None)
        if str(q.graph_name) == f"<{EX}g1>" and not isinstance(q.object, pyoxigraph.Literal)
    }
    assert g.num_edges == len(want)
    union = store.subgraph([f"{EX}p"], graph="union")
    assert union.num_edges >= g.num_edges
    with pytest.raises(InvalidArgumentError, match="not in graph"):
        store.subgraph([f"{EX}p"], graph=f"{EX}nothing")


ASK = {
    "some": "ASK { ?s ex:p ?o }",
    "none": "ASK { ?s ex:nothing ?o }",
    "empty_group": "ASK { }",
    "false_filter": "ASK { FILTER(false) }",
    "graph_absent": "ASK { GRAPH ex:nothing { ?s ?p ?o } }",
    "graph_var": "ASK { GRAPH ?g { ?g ex:p ?o } }",
    "from_named": "ASK FROM NAMED ex:g1 { GRAPH ?g { ex:n1 ex:p ex:n2 } }",
    "from_named_default": "ASK FROM NAMED ex:g1 { ?s ?p ?o }",
    "path": "ASK { ex:n0 ex:p+ ex:n0 }",
    "bnode_cycle": "ASK { ?a ex:q ?b . ?b ex:p ?a FILTER(isBlank(?a)) }",
}


@pytest.mark.parametrize("union", [False, True], ids=["default", "union"])
@pytest.mark.parametrize("name", sorted(ASK))
def test_ask_matches_pyoxigraph(stores, name, union):
    store, ox = stores
    text = PREFIX + ASK[name]
    got = store.query(text, use_default_graph_as_union=union)
    assert isinstance(got, bool)
    assert got == bool(ox.query(text, union))


CONSTRUCT = {
    "swap": "CONSTRUCT { ?o ex:inv ?s } WHERE { ?s ex:p ?o }",
    "bnodes": "CONSTRUCT { ?s ex:r _:x . _:x ex:to ?o . _:y ex:r _:x } WHERE { ?s ex:p ?o }",
    "where_form": "CONSTRUCT WHERE { ?s ex:p ?o . ?o ex:q ?x }",
    "var_predicate": "CONSTRUCT { ?s ?o ?x } WHERE { ?s ex:p ?o . ?o ex:q ?x }",
    "literal_subject": "CONSTRUCT { ?x ex:r ?s } WHERE { ?s ex:val ?x }",
    "unbound": "CONSTRUCT { ?s ex:r ?u } WHERE { ?s ex:p ?o OPTIONAL { ?o ex:nothing ?u } }",
    "duplicates": "CONSTRUCT { ?s ex:r ex:c } WHERE { ?s ?p ?o }",
    "empty_template": "CONSTRUCT { } WHERE { ?s ?p ?o }",
    "no_solutions": "CONSTRUCT { ?s ex:r ?o } WHERE { ?s ex:nothing ?o }",
    "constants": 'CONSTRUCT { ex:a ex:r 1, 2.5, "x"@en, ex:b } WHERE { }',
    "order_limit": "CONSTRUCT { ?s ex:r ?o } WHERE { ?s ex:p ?o FILTER(isIRI(?s) && isIRI(?o)) }"
    " ORDER BY DESC(?s) ?o LIMIT 3",
    "from": "CONSTRUCT { ?s ex:r ?o } FROM ex:g1 WHERE { ?s ex:p ?o }",
    "graph": "CONSTRUCT { ?s ex:in ?g } WHERE { GRAPH ?g { ?s ex:p ?o } }",
}


DESCRIBE = {
    "iri": "DESCRIBE ex:n0",
    "absent": "DESCRIBE ex:nothing",
    "subjects": "DESCRIBE ?s WHERE { ?s ex:q ?o }",
    "objects": "DESCRIBE ?o WHERE { ?s ex:p ?o }",
    "iri_and_var": "DESCRIBE ex:n1 ?o WHERE { ex:n2 ex:p ?o }",
    "graph_name": "DESCRIBE ex:g1",
    "from": "DESCRIBE ex:g1 FROM ex:g1",
    "in_graph": "DESCRIBE ?s WHERE { GRAPH ?g { ?s ex:val ?v } }",
    "bnode": "DESCRIBE ?b WHERE { ?b ex:q ?x FILTER(isBlank(?b)) }",
}


#: CONSTRUCT and DESCRIBE queries: their results are compared as sets of triples.
TRIPLE_FORMS = {
    **{f"construct_{k}": v for k, v in CONSTRUCT.items()},
    **{f"describe_{k}": v for k, v in DESCRIBE.items()},
}


@pytest.mark.parametrize("union", [False, True], ids=["default", "union"])
@pytest.mark.parametrize("name", sorted(TRIPLE_FORMS))
def test_construct_and_describe_match_pyoxigraph(stores, name, union):
    store, ox = stores
    text = PREFIX + TRIPLE_FORMS[name]
    assert _our_triples(store, text, union) == _ox_triples(ox, text, union)


def test_construct_blank_nodes_fresh_per_solution(stores):
    store, _ = stores
    tab = store.query(PREFIX + "CONSTRUCT { ?s ex:r _:x . _:x ex:to ?o } WHERE { ?s ex:p ?o }")
    n = store.query(PREFIX + "SELECT * WHERE { ?s ex:p ?o }").num_rows
    cols = (tab.column(i).to_pylist() for i in (0, 1))
    subjects = [s for s, p in zip(*cols, strict=True) if p == f"<{EX}to>"]
    assert len(subjects) == len(set(subjects)) == n
    assert not set(subjects) & set(store.terms)


NEGATED = {
    "inverse": "SELECT ?a ?b WHERE { ?a !^ex:p ?b }",
    "inverses": "SELECT ?a ?b WHERE { ?a !(^ex:p|^ex:val) ?b }",
    "inverse_from_constant": "SELECT ?b WHERE { ex:n1 !^ex:q ?b }",
    "inverse_to_constant": "SELECT ?a WHERE { ?a !^ex:q ex:n2 }",
    "read_backwards": "SELECT ?a ?b WHERE { ?a ^!^ex:p ?b }",
    "in_sequence": "SELECT ?a ?b WHERE { ?a ex:p/!^ex:q ?b }",
    "closure": "SELECT ?a ?b WHERE { ?a (!^ex:p)+ ?b }",
    "rdf_type": "SELECT ?a ?b WHERE { ?a !^a ?b }",
    "mixed_distinct": "SELECT DISTINCT ?a ?b WHERE { ?a !(ex:p|^ex:q) ?b }",
    "mixed_backwards_distinct": "SELECT DISTINCT ?a ?b WHERE { ?a ^!(ex:p|^ex:q|ex:val) ?b }",
    "in_graph": "SELECT ?g ?a ?b WHERE { GRAPH ?g { ?a !^ex:p ?b } }",
}


@pytest.mark.parametrize("name", sorted(NEGATED))
def test_negated_inverse_property_sets_match_pyoxigraph(stores, name):
    store, ox = stores
    text = PREFIX + NEGATED[name]
    assert _our_rows(store, text) == _ox_rows(ox, text)


@pytest.mark.parametrize(
    "mixed,spelled",
    [
        ("?a !(ex:p|^ex:q) ?b", "{ ?a !ex:p ?b } UNION { ?a ^!ex:q ?b }"),
        ("ex:n1 !(ex:p|^ex:q) ?b", "{ ex:n1 !ex:p ?b } UNION { ex:n1 ^!ex:q ?b }"),
        ("?a ^!(ex:p|^ex:q) ?b", "{ ?a ^!ex:p ?b } UNION { ?a !ex:q ?b }"),
    ],
)
def test_mixed_negated_set_is_the_union_of_its_two_halves(stores, mixed, spelled):
    """SPARQL 1.1 (18.2.2.4) translates !(p|^q) to alt(!p, ^!q): a multiset union, so a
    pair reached both ways comes twice (pyoxigraph gives it once; DISTINCT agrees above)."""
    store, ox = stores
    ours = _our_rows(store, PREFIX + f"SELECT ?a ?b WHERE {{ {mixed} }}")
    assert ours == _ox_rows(ox, PREFIX + f"SELECT ?a ?b WHERE {{ {spelled} }}")


def test_cli_ask_construct_describe_and_union(stores, tmp_path):
    from hpgraph.cli.main import cli

    store, ox = stores
    path = tmp_path / "s"
    store.save(path)
    runner = CliRunner()

    def run(*args):
        r = runner.invoke(cli, ["sparql", str(path), *args])
        assert r.exit_code == 0, r.output
        return r.output

    ask = PREFIX + ASK["some"]
    assert json.loads(run("-e", ask, "--format", "json")) == {"head": {}, "boolean": True}
    for fmt in ("csv", "tsv"):
        want = ox.query(ask).serialize(format=getattr(pyoxigraph.QueryResultsFormat, fmt.upper()))
        assert run("-e", ask, "--format", fmt) == want.decode() + "\n" == "true\n"
    assert run("-e", PREFIX + ASK["none"], "--format", "csv") == "false\n"
    out = tmp_path / "c.nt"
    run("-e", PREFIX + CONSTRUCT["bnodes"], "-o", str(out))
    parsed = pyoxigraph.Store()
    parsed.load(path=str(out), format=pyoxigraph.RdfFormat.N_TRIPLES)
    assert len(parsed) == sum(_ox_triples(ox, PREFIX + CONSTRUCT["bnodes"]).values())
    described = run("-e", PREFIX + DESCRIBE["subjects"], "--union-default-graph")
    assert len(described.splitlines()) == sum(
        _ox_triples(ox, PREFIX + DESCRIBE["subjects"], union=True).values()
    )
    rows = run("-e", PREFIX + "SELECT ?s WHERE { ?s ex:val ?v }", "--union-default-graph")
    assert len(rows.splitlines()) - 1 == sum(
        _ox_rows(ox, PREFIX + "SELECT ?s WHERE { ?s ex:val ?v }", union=True).values()
    )


def test_cli_graph_bridge_reads_a_named_graph(stores, tmp_path):
    from hpgraph.cli.main import cli
    from hpgraph.io import load_binary

    store, _ = stores
    path = _saved(store, tmp_path / "s")
    out = tmp_path / "g1.hpgc"
    runner = CliRunner()
    r = runner.invoke(
        cli, ["rdf", "graph", str(path), "-p", f"{EX}p", "-g", f"{EX}g1", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert load_binary(out).num_edges == store.subgraph([f"{EX}p"], graph=f"{EX}g1").num_edges
    r = runner.invoke(
        cli, ["rdf", "graph", str(path), "-p", f"{EX}p", "-g", f"{EX}no", "-o", str(out)]
    )
    assert r.exit_code == 2 and f"not in graph {EX}no" in r.output
