"""Matrix Market reading, checked against scipy.io.mmread and hand-written files."""

import re

import pytest
import scipy.io
import scipy.sparse

from hpgraph.errors import GraphFormatError
from hpgraph.io import read_matrix_market

BANNER = "%%MatrixMarket matrix coordinate"


def mtx(field="pattern", symmetry="general", size="4 4 3", body="1 2\n2 3\n4 1\n"):
    return f"{BANNER} {field} {symmetry}\n% a comment\n{size}\n{body}"


def test_pattern_general_is_directed_with_isolated_vertices(write, edges_of):
    g = read_matrix_market(write("g.mtx", mtx(size="6 5 3")))
    assert g.directed and not g.weighted and g.ids is None
    assert g.n == 6  # max(rows, cols); vertices 4 and 5 have no entries
    assert edges_of(g) == [(0, 1), (1, 2), (3, 0)]
    assert g.name == "g"


def test_real_symmetric_is_undirected(write, edges_of):
    g = read_matrix_market(
        write("g.mtx.gz", mtx("real", "symmetric", body="2 1 0.5\n3 3 -1e3\n4 2 7\n"))
    )
    assert not g.directed and g.weighted and g.n == 4
    assert edges_of(g) == [(0, 1, 0.5), (1, 3, 7.0), (2, 2, -1000.0)]


def test_integer_field(write, edges_of):
    g = read_matrix_market(write("g.mtx", mtx("integer", body="1 2 3\n2 3 4\n4 1 5\n")))
    assert edges_of(g) == [(0, 1, 3.0), (1, 2, 4.0), (3, 0, 5.0)]


def test_direction_overrides(write, edges_of):
    general = write("a.mtx", mtx(body="1 2\n2 1\n3 3\n"))
    u = read_matrix_market(general, directed=False)
    assert not u.directed and edges_of(u) == [(0, 1), (0, 1), (2, 2)]  # entries as edges
    sym = write("b.mtx", mtx("real", "symmetric", body="2 1 1.5\n3 3 2\n4 1 1\n"))
    d = read_matrix_market(sym, directed=True)
    assert d.directed
    assert edges_of(d) == [(0, 1, 1.5), (0, 3, 1.0), (1, 0, 1.5), (2, 2, 2.0), (3, 0, 1.0)]


def test_weighted_options(write):
    p = write("g.mtx", mtx("real", body="1 2 1\n2 3 2\n4 1 3\n"))
    assert not read_matrix_market(p, weighted=False).weighted
    q = write("h.mtx", mtx())
    with pytest.raises(GraphFormatError, match=re.escape(f"{q}:1: weighted=True")):
        read_matrix_market(q, weighted=True)


def test_no_entries(write):
    p = write("g.mtx", mtx(size="3 3 0", body=""))
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}:3: no edges")):
        read_matrix_market(p)
    g = read_matrix_market(p, allow_empty=True)
    assert g.n == 3 and g.num_edges == 0


@pytest.mark.parametrize("symmetric", [False, True])
def test_against_scipy(tmp_path, rng, edges_of, symmetric):
    a = scipy.sparse.random(40, 30, density=0.1, format="coo", random_state=rng)
    a.data = rng.standard_normal(a.nnz) * 10.0 ** rng.integers(-20, 20, a.nnz)
    if symmetric:
        b = a.tocsr()[:30, :30]
        a = scipy.sparse.coo_matrix(b + b.T)
    p = tmp_path / "r.mtx"
    scipy.io.mmwrite(p, a, symmetry="symmetric" if symmetric else "general", precision=17)
    g = read_matrix_market(p)
    ref = scipy.sparse.coo_matrix(scipy.io.mmread(p))
    assert g.directed != symmetric and g.n == max(ref.shape)
    expected = [
        (int(i), int(j), float(v)) for i, j, v in zip(ref.row, ref.col, ref.data, strict=True)
    ]
    if symmetric:  # mmread gives both triangles; the graph has each edge once
        expected = [(j, i, v) for i, j, v in expected if i >= j]
    assert edges_of(g) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "'coordinate'"),
        ("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "'complex'"),
        (mtx(symmetry="skew-symmetric"), 1, "'skew-symmetric'"),
        ("%MatrixMarket oops\n1 1 1\n1 1\n", 1, "not a Matrix Market banner"),
        ("1 2\n2 3\n", 1, "not a Matrix Market banner"),
        (mtx(size="4 4"), 3, "size line"),
        (mtx(size="4 x 3"), 3, "size line"),
        (mtx(size="4 4 5"), 3, "announces 5 entries but the file has 3"),
        (mtx(body="1 2\n2 5\n4 1\n"), 5, "column index 5 is outside 1..4"),
        (mtx(body="1 2\n0 3\n4 1\n"), 5, "row index 0 is outside 1..4"),
        (mtx(body="1 2\n2 b\n4 1\n"), 5, "column index 'b' is not an integer"),
        (mtx(body="1 2\n2 3 1\n4 1\n"), 5, "3 fields, but the first data line (line 4) has 2"),
        (mtx(body="1 2 1\n2 3 1\n4 1 1\n"), 4, "expected 2 fields, got 3"),
        (mtx("real", body="1 2 1\n% c\n2 3 x\n4 1 1\n"), 6, "weight 'x' is not a number"),
        (mtx("real", body="1 2 1\n2 3 NaN\n4 1 1\n"), 5, "weight 'NaN' is NaN"),
    ],
)
def test_errors_name_file_and_line(write, text, line, what):
    p = write("bad.mtx", text)
    with pytest.raises(GraphFormatError, match="^" + re.escape(f"{p}:{line}: ")) as e:
        read_matrix_market(p)
    assert what in str(e.value)


@pytest.mark.parametrize("text", ["", "%%MatrixMarket matrix coordinate real general\n% c\n"])
def test_truncated_header(write, text):
    p = write("t.mtx", text)
    with pytest.raises(GraphFormatError, match=re.escape(str(p))):
        read_matrix_market(p)


def test_missing_file(tmp_path):
    with pytest.raises(GraphFormatError, match="no such file"):
        read_matrix_market(tmp_path / "x.mtx")


def test_weighted_false_does_not_parse_values(write):
    g = read_matrix_market(
        write("g.mtx", mtx("real", body="1 2 x\n2 3 1\n4 1 2\n")), weighted=False
    )
    assert g.num_edges == 3 and not g.weighted
