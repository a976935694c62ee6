"""The communities application (hpgraph.apps.communities, ``hpgraph communities``): the
report folder on small planted mention data, its tables against outside references
(NetworkX betweenness on the induced subgraphs, exact decimal sums), and every bad input
(one line, exit code 2, no traceback, no folder left behind)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import networkx as nx
import numpy as np
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from conftest import MPIEXEC, NO_MPI, SEED
from hpgraph.algorithms.leaders import EXACT_MAX
from hpgraph.apps.communities import belonging_text, community_names, run_communities
from hpgraph.cli.main import cli
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators.mention import mention_data

REPORT_FILES = {
    "cover.csv",
    "communities.csv",
    "leaders.csv",
    "layout.parquet",
    "communities.png",
    "index.html",
    "summary.json",
}


def test_belongings_are_exact_decimals_that_sum_to_one():
    rng = np.random.default_rng(SEED)
    counts = rng.integers(1, 6, 500)
    ptr = np.concatenate([[0], np.cumsum(counts)])
    raw = rng.random(ptr[-1]) + 1e-3
    sums = np.add.reduceat(raw, ptr[:-1])
    coef = raw / np.repeat(sums, counts)
    text, owner = belonging_text(ptr, coef)
    text = text.to_pylist()
    assert (owner == np.repeat(np.arange(500), counts)).all()
    for v in range(500):
        row = [Decimal(t) for t in text[ptr[v] : ptr[v + 1]]]
        assert sum(row) == 1, (v, row)
        for t, c in zip(row, coef[ptr[v] : ptr[v + 1]], strict=True):
            assert abs(float(t) - c) <= 1e-6 * counts[v]
    for t in text:  # no float noise, no trailing zeros
        assert len(t.split(".")[-1]) <= 6 and not (("." in t) and t.endswith("0"))
    one, _ = belonging_text(np.array([0, 1]), np.array([0.9999999999999998]))
    assert one.to_pylist() == ["1"]


def test_community_names_are_unique_and_say_what_they_are():
    class Cover:
        num_communities = 5
        label = np.array(["ai", "ai", "17", "ml", "ai"], dtype=object)
        named = np.array([True, True, False, True, True])

    assert community_names(Cover()).tolist() == ["#ai", "#ai/2", "17", "#ml", "#ai/3"]


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A small planted mention data set, written as Parquet, and its report folder."""
    root = tmp_path_factory.mktemp("communities")
    mentions, topics = mention_data(6000, 9000, hashtags=300, seed=SEED)
    path = root / "mentions.parquet"
    mentions.write(path)
    out = root / "report"
    report = run_communities(path, out, b=0.2, leaders=3, min_size=5, threads=2, progress=False)
    return mentions, topics, out, report


def test_report_folder_holds_every_table_and_picture(planted):
    mentions, _, out, report = planted
    assert {p.name for p in out.iterdir()} == REPORT_FILES
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".report")]
    summary = json.loads((out / "summary.json").read_text())
    assert summary == json.loads(json.dumps(report.summary))
    assert set(summary["stages"]) == {
        "read", "communities", "leaders", "layout", "pictures", "write"
    }  # fmt: skip
    for row in summary["stages"].values():
        assert row["seconds"] >= 0 and row["peak_rss_mib"] > 0
    assert summary["input"]["users"] == mentions.num_users
    assert summary["input"]["mentions"] == mentions.num_mentions
    # the picture's legend: the biggest communities by members, as communities.csv has them
    table = pacsv.read_csv(out / "communities.csv").to_pylist()
    table.sort(key=lambda r: -r["size"])
    legend = summary["stages"]["pictures"]["legend"]
    assert legend and legend == [f"{r['community']}  ({r['size']:,})" for r in table[: len(legend)]]
    c = summary["communities"]
    assert c["stopped_by"] in ("rate", "counts") and len(c["update_rate"]) == c["iterations"]
    assert c["update"] == "semi-sync" and c["colours"] >= 2


def test_cover_csv_is_the_cover_with_exact_belongings(planted):
    mentions, _, out, report = planted
    cover = report.results["cover"]
    tab = pacsv.read_csv(out / "cover.csv").to_pydict()
    assert len(tab["vertex"]) == int(cover.ptr[-1])
    names = community_names(cover)
    ids = mentions.graph.user_ids()
    rows = {}
    for v, c, w in zip(tab["vertex"], tab["community"], tab["belonging"], strict=True):
        rows.setdefault(v, []).append((c, Decimal(str(w))))
    for v in range(mentions.num_users):
        got = rows[ids[v]]
        assert sum(w for _, w in got) == 1
        want = names[cover.community_of[cover.ptr[v] : cover.ptr[v + 1]]].tolist()
        assert [c for c, _ in got] == want


def test_leaders_are_networkx_betweenness_on_the_induced_subgraphs(planted):
    mentions, _, out, report = planted
    cover = report.results["cover"]
    names = community_names(cover)
    g = mentions.graph
    G = nx.Graph()
    src, dst, _ = g.edges()
    G.add_edges_from((int(a), int(b)) for a, b in zip(src, dst, strict=True) if a != b)
    lead = pacsv.read_csv(out / "leaders.csv").to_pydict()
    by_comm: dict = {}
    for c, r, v, bc in zip(*lead.values(), strict=True):
        by_comm.setdefault(c, []).append((r, v, bc))
    eligible = np.flatnonzero(cover.sizes >= 5)
    assert set(by_comm) == set(names[eligible].tolist())
    checked = 0
    small = eligible[cover.sizes[eligible] <= EXACT_MAX]  # exact below, sampled above
    for c in small[np.argsort(-cover.sizes[small])][:6].tolist():
        members = cover.members(c).tolist()
        want = nx.betweenness_centrality(G.subgraph(members))
        top = sorted(want.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        got = sorted(by_comm[names[c]])
        assert [r for r, _, _ in got] == list(range(1, len(got) + 1))
        assert len(got) == min(3, len(members))
        for (_, v, bc), (wv, wb) in zip(got, top, strict=True):
            assert bc == pytest.approx(wb, abs=1e-9)
            assert bc == pytest.approx(want[g.vertex_index(v)], abs=1e-9)
            if sum(x == pytest.approx(wb, abs=1e-12) for x in want.values()) == 1:
                assert g.vertex_index(v) == wv  # no tie: the same leader
        checked += 1
    assert checked == 6


def test_layout_parquet_and_planted_topics_recovered(planted):
    mentions, topics, out, report = planted
    tab = pq.read_table(out / "layout.parquet")
    assert tab.column_names == ["vertex", "x", "y", "community"]
    x = np.column_stack([tab["x"].to_numpy(), tab["y"].to_numpy()])
    assert x.shape == (mentions.num_users, 2) and np.isfinite(x).all()
    cover = report.results["cover"]
    strongest = community_names(cover)[cover.columns["community"]]
    assert tab["community"].to_pylist() == strongest.tolist()
    # intra-community mentions are drawn much shorter than random pairs
    g = mentions.graph
    src, dst, _ = g.edges()
    same = cover.columns["community"][src] == cover.columns["community"][dst]
    intra = np.linalg.norm(x[src[same]] - x[dst[same]], axis=1).mean()
    rng = np.random.default_rng(SEED)
    a, b = rng.integers(0, g.n, 20_000), rng.integers(0, g.n, 20_000)
    assert intra < 0.25 * np.linalg.norm(x[a] - x[b], axis=1).mean()
    # the planted topics are found: most big topics are the majority of one community
    # that holds most of the topic's core users (strongest community, first topic)
    core = np.flatnonzero(topics.core)
    found = cover.columns["community"][core]
    planted_topic = topics.user_topics[topics.user_ptr[core]]
    big = [t for t in np.unique(planted_topic) if (planted_topic == t).sum() >= 50]
    hits = 0
    for t in big:
        mine = planted_topic == t
        c = np.bincount(found[mine]).argmax()
        purity = (planted_topic[found == c] == t).mean()
        recall = (found[mine] == c).mean()
        hits += purity >= 0.7 and recall >= 0.5
    assert len(big) >= 5 and hits >= 0.8 * len(big), (hits, len(big))


def test_three_dimensions(tmp_path):
    mentions, _ = mention_data(1500, 2000, hashtags=60, seed=SEED)
    r = run_communities(mentions, tmp_path / "r3", dim=3, min_size=5, threads=1, progress=False)
    tab = pq.read_table(tmp_path / "r3" / "layout.parquet")
    assert tab.column_names == ["vertex", "x", "y", "z", "community"]
    assert r.summary["parameters"]["dim"] == 3


# ------------------------------------------------------------------------- bad input
def _cli(args, tmp_path):
    res = CliRunner().invoke(cli, ["communities", *args], catch_exceptions=False)
    leftovers = [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name or ".old-" in p.name]
    return res, leftovers


@pytest.mark.parametrize(
    "content, match",
    [
        ("alice bob #ai\ncarol\n", ":2"),  # one column, line 2
        ("alice bob\n\tbob carol\n", ":2"),  # empty user
        ("", "no mentions"),
    ],
)
def test_bad_text_input_is_one_line_and_leaves_nothing(tmp_path, content, match):
    src = tmp_path / "m.tsv"
    src.write_text(content)
    res, leftovers = _cli([str(src), "-o", str(tmp_path / "out")], tmp_path)
    assert res.exit_code == 2, res.output
    err = res.output.strip().splitlines()
    assert err[-1].startswith("hpgraph: error:") and match in err[-1]
    assert "Traceback" not in res.output
    assert not (tmp_path / "out").exists() and not leftovers


def test_bad_parquet_schema(tmp_path):
    import pyarrow as pa

    pq.write_table(pa.table({"who": [1, 2], "whom": [2, 3]}), tmp_path / "m.parquet")
    res, leftovers = _cli([str(tmp_path / "m.parquet"), "-o", str(tmp_path / "out")], tmp_path)
    assert res.exit_code == 2 and "source" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "out").exists() and not leftovers


@pytest.mark.parametrize("b", ["0", "1.5", "-0.1"])
def test_b_outside_the_unit_interval(tmp_path, b):
    src = tmp_path / "m.tsv"
    src.write_text("alice bob\nbob carol\n")
    res, leftovers = _cli([str(src), "-o", str(tmp_path / "out"), "--b", b], tmp_path)
    assert res.exit_code == 2 and "b (belonging threshold) must be in (0, 1]" in res.output
    assert not (tmp_path / "out").exists() and not leftovers


def test_existing_and_unwritable_output(tmp_path):
    src = tmp_path / "m.tsv"
    src.write_text("alice bob #ai\nbob carol #ai\ncarol alice\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    res, leftovers = _cli([str(src), "-o", str(out)], tmp_path)
    assert res.exit_code == 2 and "exists" in res.output and "--force" in res.output
    assert (out / "keep.txt").read_text() == "mine" and not leftovers
    res, leftovers = _cli([str(src), "-o", str(out), "--force", "--min-size", "2"], tmp_path)
    assert res.exit_code == 0, res.output
    assert {p.name for p in out.iterdir()} == REPORT_FILES and not leftovers
    assert "index.html" in res.output
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        res, _ = _cli([str(src), "-o", str(locked / "out")], tmp_path)
        assert res.exit_code == 2 and "not writable" in res.output
    res, _ = _cli([str(src), "-o", str(tmp_path / "no" / "such" / "out")], tmp_path)
    assert res.exit_code == 2 and "no folder" in res.output


def test_api_checks_before_any_work(tmp_path):
    for kw, match in [
        ({"b": 0.0}, "b"),
        ({"leaders": 0}, "leaders"),
        ({"min_size": 0}, "min_size"),
        ({"dim": 4}, "dim"),
        ({"max_labels": 0}, "max_labels"),
    ]:
        with pytest.raises(InvalidArgumentError, match=match):
            run_communities("no-such-file.tsv", tmp_path / "x", **kw)
    assert list(tmp_path.iterdir()) == []


def test_generated_input_spec(tmp_path):
    res = CliRunner().invoke(
        cli,
        ["communities", "mention:2k:3k:80", "-o", str(tmp_path / "r"), "--min-size", "5",
         "--threads", "1"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads(Path(tmp_path / "r" / "summary.json").read_text())
    assert summary["input"]["users"] == 2000 and summary["input"]["hashtags"] <= 80


def test_run_layout_picture(tmp_path):
    from PIL import Image

    out = tmp_path / "lay.png"
    res = CliRunner().invoke(
        cli, ["run", "layout", "kronecker:8", "--iterations", "20", "--picture", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert f"wrote {out}" in res.output
    img = np.asarray(Image.open(out).convert("RGB"))
    assert img.shape == (2400, 2400, 3)
    assert (img.min(axis=2) < 200).sum() > 200  # points drawn on the white background


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("source,ranks", [("mention:3k:4k:100", 2), ("mentions.tsv", 3)])
def test_ranks_give_the_same_report_as_threads(tmp_path, source, ranks):
    # --ranks: every rank keeps its own users (a file read in parallel, each rank a
    # share; generated data cut), BMLPA on the partitioned ranks, the later stages on
    # rank 0 after the graph is gathered there
    if not source.startswith("mention:"):
        made = CliRunner().invoke(
            cli,
            [
                "generate",
                "mention",
                "-n",
                "3k",
                "-m",
                "4k",
                "--hashtags",
                "100",
                "-o",
                str(tmp_path / source),
            ],
        )
        assert made.exit_code == 0, made.output
        source = str(tmp_path / source)
    args = ["communities", source, "--min-size", "5", "--no-progress"]
    local = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "local"), "--threads", "2"])
    assert local.exit_code == 0, local.output
    out = subprocess.run(
        [sys.executable, "-m", "hpgraph.cli.main", *args, "-o", str(tmp_path / "mpi"),
         "--ranks", str(ranks)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    for name in ("cover.csv", "leaders.csv", "communities.csv"):
        assert (tmp_path / "mpi" / name).read_text() == (tmp_path / "local" / name).read_text()
    held = json.loads((tmp_path / "mpi" / "summary.json").read_text())["stages"]["communities"]
    assert sum(held["rank_users"]) == 3000 and len(held["rank_users"]) == ranks
    assert max(held["rank_users"]) < 3000 // ranks + 100  # each rank its own users only
    assert out.stdout.count("report in") == 1  # only rank 0 reports


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_started_by_mpiexec_runs_one_job_on_the_ranks(tmp_path):
    # without --runtime, a launcher's ranks make one MPI job (as --ranks does), not one
    # local job per rank writing the same folder
    args = ["communities", "mention:3k:4k:100", "--min-size", "5", "--no-progress"]
    local = CliRunner().invoke(cli, [*args, "-o", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    out = subprocess.run(
        [MPIEXEC, "-n", "2", sys.executable, "-m", "hpgraph.cli.main", *args,
         "-o", str(tmp_path / "mpi")],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("report in") == 1
    summary = json.loads((tmp_path / "mpi" / "summary.json").read_text())
    assert summary["parameters"]["runtime"] == "mpi"
    assert len(summary["stages"]["communities"]["rank_users"]) == 2
    cover = (tmp_path / "mpi" / "cover.csv").read_text()
    assert cover == (tmp_path / "local" / "cover.csv").read_text()
