"""Edge-list reading and writing: ids, weights, delimiters, comments, gz, errors."""

import re

import numpy as np
import pytest

from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.io import _text, read_edgelist, write_edgelist


def error_at(path, line):
    """pytest.raises for a GraphFormatError whose message starts with ``path:line:``."""
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    return pytest.raises(GraphFormatError, match="^" + re.escape(where))


# ---------------------------------------------------------------- ids


def test_contiguous_int_ids_keep_ids_none(write, edges_of):
    g = read_edgelist(write("g.txt", "0 1\n1 2\n2 0\n"))
    assert g.ids is None and g.n == 3 and not g.directed and not g.weighted
    assert edges_of(g) == [(0, 1), (0, 2), (1, 2)]
    assert g.name == "g"


def test_noncontiguous_int_ids_are_sorted(write, edges_of):
    g = read_edgelist(write("g.txt", "100 7\n-3 100\n7 7\n"), directed=True)
    assert g.ids.dtype == np.int64
    assert g.ids.tolist() == [-3, 7, 100]
    assert edges_of(g) == [(-3, 100), (7, 7), (100, 7)]


def test_ids_missing_zero_are_relabelled(write):
    g = read_edgelist(write("g.txt", "1 2\n2 3\n"))
    assert g.ids.tolist() == [1, 2, 3]


def test_sparse_huge_int_ids(write, edges_of):
    big = 2**62
    g = read_edgelist(write("g.txt", f"{big} 5\n5 {big - 1}\n"), directed=True)
    assert g.ids.tolist() == [5, big - 1, big]
    assert edges_of(g) == [(5, big - 1), (big, 5)]


def test_string_ids_sorted(write, edges_of):
    g = read_edgelist(write("g.txt", "bob alice\ncarol bob\n"))
    assert g.ids.dtype == object and g.ids.tolist() == ["alice", "bob", "carol"]
    assert edges_of(g) == [("alice", "bob"), ("bob", "carol")]


def test_one_string_id_makes_all_ids_strings(write):
    g = read_edgelist(write("g.txt", "1 2\n2 x\n"))
    assert g.ids.tolist() == ["1", "2", "x"]


def test_float_like_ids_are_strings(write):
    g = read_edgelist(write("g.txt", "1.5 1\n1 2\n"))
    assert g.ids.tolist() == ["1", "1.5", "2"]


def test_string_after_first_parse_block(write, monkeypatch):
    """Types inferred on pyarrow's first block must not reject later string ids."""
    monkeypatch.setattr(_text, "BLOCK_SIZE", 256)
    lines = [f"{i} {i + 1}" for i in range(200)] + ["x y"]
    g = read_edgelist(write("g.txt", "\n".join(lines) + "\n"))
    assert g.ids.dtype == object and g.n == 203
    assert g.num_edges == 201


# ---------------------------------------------------------------- weights, direction


def test_weight_auto_detected(write, edges_of):
    g = read_edgelist(write("g.txt", "0 1 0.5\n1 2 -2\n"))
    assert g.weighted
    assert edges_of(g) == [(0, 1, 0.5), (1, 2, -2.0)]


def test_weighted_false_ignores_third_field(write):
    g = read_edgelist(write("g.txt", "0 1 abc\n1 2 def\n"), weighted=False)
    assert not g.weighted and g.num_edges == 2


def test_extra_fields_ignored(write, edges_of):
    g = read_edgelist(write("g.txt", "0 1 2.5 1700000000\n1 2 3 1700000001\n"))
    assert edges_of(g) == [(0, 1, 2.5), (1, 2, 3.0)]


def test_weights_round_trip_exactly(tmp_path, rng, edges_of):
    m = 200
    w = rng.standard_normal(m) * 10.0 ** rng.integers(-300, 300, m)
    w[:3] = [np.inf, -np.inf, 0.1]
    g = Graph.from_edges(rng.integers(0, 50, m), rng.integers(0, 50, m), w, directed=True)
    p = tmp_path / "g.txt"
    write_edgelist(g, p)
    g2 = read_edgelist(p, directed=True)
    assert edges_of(g2) == edges_of(g)


def test_directed_self_loops_and_multi_edges(write, edges_of):
    text = "0 1\n0 1\n1 1\n1 0\n"
    d = read_edgelist(write("g.txt", text), directed=True)
    assert d.directed and d.num_edges == 4
    assert edges_of(d) == [(0, 1), (0, 1), (1, 0), (1, 1)]
    u = read_edgelist(write("g.txt", text))
    assert u.num_edges == 4 and u.num_stored_edges == 7  # the self-loop is stored once
    assert edges_of(u) == [(0, 1), (0, 1), (0, 1), (1, 1)]


# ---------------------------------------------------------------- syntax


@pytest.mark.parametrize(
    "text",
    [
        "0 1\n1 2\n",
        "0\t1\n1\t2\n",
        "0,1\n1,2\n",
        "0, 1\n1 ,2\n",
        "  0    1  \n\t1 \t 2\n",
        "0 1\r\n1 2\r\n",
        "0 1\n1 2",  # no final newline
        "# header\n% other\n\n   # indented\n0 1\n\n1 2\n# end\n",
        "\ufeff0 1\n1 2\n",  # byte order mark
    ],
)
def test_syntax_variants(write, edges_of, text):
    assert edges_of(read_edgelist(write("g.txt", text))) == [(0, 1), (1, 2)]


def test_gzip(write, edges_of):
    g = read_edgelist(write("g.el.gz", "# c\n0 1 2.5\n1 2 1\n"))
    assert g.name == "g"
    assert edges_of(g) == [(0, 1, 2.5), (1, 2, 1.0)]


def test_allow_empty(write):
    g = read_edgelist(write("g.txt", "# nothing\n\n"), allow_empty=True)
    assert g.n == 0 and g.num_edges == 0


# ---------------------------------------------------------------- errors


def test_missing_file(tmp_path):
    p = tmp_path / "nope.txt"
    with pytest.raises(GraphFormatError, match="nope.txt: no such file"):
        read_edgelist(p)


def test_bad_gzip(write):
    p = write("g.txt.gz", b"")
    p.write_bytes(b"not gzip at all")
    with error_at(p, None) as e:
        read_edgelist(p)
    assert "not a valid gzip file" in str(e.value)


@pytest.mark.parametrize("text", ["", "# only a comment\n\n"])
def test_no_edges(write, text):
    p = write("g.txt", text)
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}: no edges")):
        read_edgelist(p)


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("# c\n0 1\n2\n", 3, "1 fields, but the first data line (line 2) has 2"),
        ("0 1\n1 2 3\n", 2, "3 fields, but the first data line (line 1) has 2"),
        ("0 1 1\n\n1 2\n", 3, "2 fields, but the first data line (line 1) has 3"),
        ("7\n1 2\n", 1, "got 1 field"),
        ("0 1\n1,,2\n", 2, "empty field"),
        ("0 1\n1,2,\n", 2, "empty field"),
        ("0 1\n,1 2\n", 2, "empty field"),
        ("0 1 1.0\n1 2 heavy\n", 2, "weight 'heavy' is not a number"),
        ("0 1 1.0\n% c\n1 2 nan\n", 3, "weight 'nan' is NaN"),
    ],
)
def test_errors_name_file_and_line(write, text, line, what):
    p = write("bad.txt", text)
    with error_at(p, line) as e:
        read_edgelist(p)
    assert what in str(e.value)
    assert e.value.line == line and e.value.path == str(p)


def test_weighted_true_requires_weights(write):
    p = write("g.txt", "# c\n0 1\n1 2\n")
    with error_at(
        p,
        2,
    ) as e:
        read_edgelist(p, weighted=True)
    assert "weighted=True" in str(e.value)


def test_bad_weight_after_first_parse_block(write, monkeypatch):
    monkeypatch.setattr(_text, "BLOCK_SIZE", 256)
    lines = [f"{i} {i + 1} 1.5" for i in range(200)]
    lines[150] = "150 151 x7"
    p = write("g.txt.gz", "\n".join(lines) + "\n")
    with error_at(
        p,
        151,
    ) as e:
        read_edgelist(p)
    assert "'x7'" in str(e.value)


# ---------------------------------------------------------------- writing


@pytest.mark.parametrize("name", ["out.txt", "out.csv", "out.tsv", "out.el.gz"])
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("ids", ["none", "int", "str"])
@pytest.mark.parametrize("weighted", [False, True])
def test_write_read_round_trip(tmp_path, rng, edges_of, name, directed, ids, weighted):
    n, m = 30, 120
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    src[:2], dst[:2] = [3, 3], [3, 3]  # a repeated self-loop
    src[2:4], dst[2:4] = [4, 4], [5, 5]  # a multi-edge
    src[4], dst[4] = 0, n - 1  # all ids present
    used = np.union1d(src, dst)
    user = {
        "none": None,
        "int": np.arange(used.size, dtype=np.int64) * 7 - 50,
        "str": np.array([f"v{i:03d}" for i in range(used.size)], dtype=object),
    }[ids]
    s, d = np.searchsorted(used, src), np.searchsorted(used, dst)
    w = rng.random(m) if weighted else None
    g = Graph.from_edges(s, d, w, n=used.size, directed=directed, ids=user, name="x")
    p = tmp_path / name
    write_edgelist(g, p)
    g2 = read_edgelist(p, directed=directed)
    assert g2.n == g.n and g2.weighted == weighted
    assert (g2.ids is None) == (ids == "none")
    assert edges_of(g2) == edges_of(g)
    assert [f.name for f in tmp_path.iterdir()] == [name]


def test_write_rejects_ids_with_blanks(tmp_path):
    g = Graph.from_edges([0], [1], ids=np.array(["a b", "c"], dtype=object))
    with pytest.raises(InvalidArgumentError, match="'a b'"):
        write_edgelist(g, tmp_path / "g.txt")
    assert list(tmp_path.iterdir()) == []


def test_first_error_in_file_order(write):
    p = write("g.txt", "0 1 1\n1 2 zz\n2 3\n")
    with error_at(p, 2) as e:
        read_edgelist(p)
    assert "'zz'" in str(e.value)


def _texts():
    """Edge lists of several shapes and errors, for reading in tiny chunks."""
    rng = np.random.default_rng(7)
    s, d = rng.integers(0, 300, 800), rng.integers(0, 300, 800)
    w = rng.random(800)
    pairs = list(zip(s.tolist(), d.tolist(), w.tolist(), strict=True))
    return {
        "ints": "".join(f"{a} {b}\n" for a, b, _ in pairs),
        "bom_comments": "\ufeff# head\n" + "".join(f"{a}\t{b}\n% x\n\n" for a, b, _ in pairs),
        "weighted": "".join(f"{a},{b},{x!r}\n" for a, b, x in pairs),
        "wide": "".join(f"{a * 10**12} {-b}\n" for a, b, _ in pairs),
        "strings": "".join(f"u{a} v{b}\n" for a, b, _ in pairs),
        "mixed": "".join(f"{a:03d} {b}\n" for a, b, _ in pairs) + "x y\n",
        "ragged": "".join(f"{a} {b}\n" for a, b, _ in pairs) + "1 2 3\n",
        "one_field": "5\n6 7\n",
        "bad_weight": "".join(
            f"{a} {b} {'x' if i == 500 else 1}\n" for i, (a, b, _) in enumerate(pairs)
        ),  # fmt: skip
        "bad_then_ragged": "".join(
            f"{a} {b} {'x' if i == 9 else 1}\n" for i, (a, b, _) in enumerate(pairs)
        )
        + "1 2\n",  # fmt: skip
        "nan_weight": "".join(
            f"{a} {b} {'nan' if i == 700 else 2}\n" for i, (a, b, _) in enumerate(pairs)
        ),  # fmt: skip
        "empty_field": "1,2\n" * 300 + "3,,4\n",
    }


@pytest.mark.parametrize("kind", list(_texts()))
def test_tiny_chunks_read_the_same_graph_or_error(tmp_path, monkeypatch, kind):
    """A file parsed in many chunks gives the graph (or error) of one chunk, and the
    same as a gzipped copy of it (read whole)."""
    import gzip

    from hpgraph.io import scan

    path = tmp_path / f"{kind}.el"
    path.write_text(_texts()[kind])
    gz = tmp_path / f"{kind}.el.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))

    def read(p):
        try:
            g = read_edgelist(p, name="g")
        except GraphFormatError as e:
            return str(e).replace(".gz", "")
        ids = None if g.ids is None else np.asarray(g.ids).tolist()
        weights = None if g.weights is None else g.weights.tolist()
        return g.n, g.indptr.tolist(), g.indices.tolist(), weights, ids

    want = read(path)
    assert read(gz) == want
    monkeypatch.setattr(scan, "READ_CHUNK", 53)
    assert read(path) == want
