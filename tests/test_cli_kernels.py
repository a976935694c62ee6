"""``hpgraph run`` for the analyst kernels (lcc, cdlp, bmlpa, betweenness, apsp, pattern
matching, layout): each runs from the command line on a small string-id graph, writes its
result in the input's ids, and gives the same numbers as the Python API."""

from __future__ import annotations

import math

import networkx as nx
import pyarrow.parquet as pq
import pytest

import hpgraph as hp
from test_cli import invoke, ok, one_line_error, read_csv

# two triangles sharing vertex c, a tail c-d-e, and an isolated pair f-g
EDGES = "a b\nb c\nc a\nc x\nx y\ny c\nc d\nd e\nf g\n"


@pytest.fixture
def graph_file(tmp_path):
    p = tmp_path / "g.el"
    p.write_text(EDGES)
    return p


def _nx():
    return nx.Graph([line.split() for line in EDGES.strip().splitlines()])


def test_lcc_from_the_cli_matches_networkx(graph_file, tmp_path):
    out = tmp_path / "lcc.csv"
    r = ok("run", "lcc", graph_file, "--verify", "-o", out)
    assert "triangles     2" in r.stdout and "verified: yes" in r.stdout
    rows = read_csv(out)
    got = dict(zip(rows["vertex"], map(float, rows["lcc"]), strict=True))
    assert got == pytest.approx(nx.clustering(_nx()), rel=1e-12)


def test_cdlp_and_bmlpa_write_their_rows(graph_file, tmp_path):
    ok("run", "cdlp", graph_file, "--iterations", "5", "--verify", "-o", tmp_path / "c.csv")
    labels = read_csv(tmp_path / "c.csv")
    assert labels["label"][labels["vertex"].index("f")] in ("f", "g")

    r = ok("run", "bmlpa", graph_file, "--b", "0.3", "-o", tmp_path / "b.csv")
    assert "communities" in r.stdout
    cover = read_csv(tmp_path / "b.csv")
    assert list(cover) == ["vertex", "community", "belonging"]
    # every vertex appears, and its belonging coefficients sum to 1
    sums = {}
    for v, b in zip(cover["vertex"], cover["belonging"], strict=True):
        sums[v] = sums.get(v, 0.0) + float(b)
    assert set(sums) == set("abcxydefg".replace("", " ").split())
    assert all(math.isclose(s, 1.0) for s in sums.values())


def test_betweenness_sampled_with_the_seed_matches_the_api(graph_file, tmp_path):
    out = tmp_path / "bc.parquet"
    ok("run", "betweenness", graph_file, "--k", "4", "--seed", "7", "-o", out)
    cli = pq.read_table(out).to_pydict()
    api = hp.betweenness(hp.load_graph(graph_file, cache=False), k=4, seed=7).to_dict()
    assert dict(zip(cli["vertex"], cli["betweenness"], strict=True)) == pytest.approx(api)

    ok("run", "edge_betweenness", graph_file, "--no-normalized", "-o", tmp_path / "e.csv")
    rows = read_csv(tmp_path / "e.csv")
    want = nx.edge_betweenness_centrality(_nx(), normalized=False)
    got = {
        frozenset((s, t)): float(b)
        for s, t, b in zip(rows["source"], rows["target"], rows["betweenness"], strict=True)
    }
    assert got == pytest.approx({frozenset(e): b for e, b in want.items()})


def test_apsp_summary_in_memory_and_streamed_to_parquet(graph_file, tmp_path):
    r = ok("run", "apsp", graph_file)
    assert "finite pairs  53 of 81" in r.stdout  # 7 x 7 component + 2 x 2 pair + loops
    out = tmp_path / "d.parquet"
    ok("run", "apsp", graph_file, "-o", out)
    t = pq.read_table(out).to_pydict()
    got = {(s, d): w for s, d, w in zip(t["source"], t["target"], t["distance"], strict=True)}
    want = {
        (s, d): w for s, row in nx.all_pairs_shortest_path_length(_nx()) for d, w in row.items()
    }
    assert got == want


def test_pattern_matching_reads_labels_and_pattern_files(graph_file, tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("".join(f"{v} {'T' if v in 'abcxy' else 'P'}\n" for v in "abcxydefg"))
    pattern = tmp_path / "triangle.pat"
    pattern.write_text("v 1 T\nv 2 T\nv 3 T\ne 1 2\ne 2 3\ne 3 1\n")
    out = tmp_path / "m.csv"
    r = ok(
        "run", "strict_simulation", graph_file, "--labels", labels, "--pattern", pattern, "-o", out
    )
    assert "matches" in r.stdout
    rows = read_csv(out)
    assert set(rows["vertex"]) == set("abcxy")
    r = ok(
        "run", "dual_simulation", graph_file, "--labels", labels, "--pattern", pattern, "--verify"
    )
    assert "verified: yes" in r.stdout
    msg = one_line_error(invoke("run", "strict_simulation", graph_file, "--labels", labels), 2)
    assert "pattern" in msg


def test_layout_writes_coordinates(graph_file, tmp_path):
    out = tmp_path / "xyz.csv"
    r = ok("run", "layout", graph_file, "--dim", "3", "--iterations", "30", "-o", out)
    assert "3-D, 30 iterations" in r.stdout
    rows = read_csv(out)
    assert list(rows) == ["vertex", "x", "y", "z"] and len(rows["vertex"]) == 9
    assert all(math.isfinite(float(v)) for v in rows["z"])


def test_kernel_options_are_checked(graph_file):
    msg = one_line_error(invoke("run", "lcc", graph_file, "--k", "3"), 2)
    assert "--k does not apply to lcc" in msg
    msg = one_line_error(invoke("run", "betweenness", graph_file, "--k", "0"), 2)
    assert "k" in msg
