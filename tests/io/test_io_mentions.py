"""Mention files (users mentioning users, with hashtags): text and Parquet variants, round
trips, every bad input, and the initial labels against plain-Python counts."""

import random
import re
from collections import Counter

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.io import Mentions, read_mentions, write_mentions

SEED = 20261124

# mention list the variants below all spell: (source, target, hashtags)
EXPECTED = [
    ("alice", "bob", ["ai", "ml"]),
    ("bob", "carol", ["ai"]),
    ("carol", "alice", []),
    ("dave", "alice", ["deep", "ml"]),
]


def as_rows(m: Mentions):
    """The mentions as (source id, target id, [hashtag names]) in input order."""
    ids = m.graph.user_ids()
    return [
        (
            ids[s].item() if hasattr(ids[s], "item") else ids[s],
            ids[d].item() if hasattr(ids[d], "item") else ids[d],
            [m.tag_names[t] for t in m.tag_ids[m.tag_ptr[i] : m.tag_ptr[i + 1]]],
        )
        for i, (s, d) in enumerate(zip(m.src, m.dst, strict=True))
    ]


def same(a: Mentions, b: Mentions) -> None:
    assert as_rows(a) == as_rows(b)
    for f in ("src", "dst", "tag_ptr", "tag_ids"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert a.tag_names == b.tag_names
    assert (a.graph.ids is None) == (b.graph.ids is None)
    if a.graph.ids is not None:
        assert list(a.graph.ids) == list(b.graph.ids)
    np.testing.assert_array_equal(a.graph.indptr, b.graph.indptr)
    np.testing.assert_array_equal(a.graph.indices, b.graph.indices)


@pytest.fixture
def text_file(write):
    """``text_file(text, name="m.tsv")``: conftest's ``write`` with the mention-file default."""

    def _make(text, name="m.tsv"):
        return write(name, text)

    return _make


@pytest.fixture
def table_file(tmp_path):
    def _make(name="m.parquet", **cols):
        p = tmp_path / name
        pq.write_table(pa.table(cols), p)
        return p

    return _make


# ------------------------------------------------------------------------ text variants
TEXT_VARIANTS = {
    "tabs, #, commas": (
        "alice\tbob\t#ai,#ml\nbob\tcarol\t#ai\ncarol\talice\ndave\talice\t#ml,#deep\n"
    ),
    "spaces, no #": "alice bob ai ml\nbob carol ai\ncarol alice\ndave alice ml deep\n",
    "comma and blank, case": "alice bob #AI, #Ml\nbob carol #Ai\ncarol alice\ndave alice Deep,ML\n",
    "comments, blanks, CRLF, no final newline": (
        "# a comment\r\n% another\r\n\r\n  alice  bob  #ai #ml ,\r\n\t\r\nbob\tcarol\tai,,ai\r\n"
        "carol\talice\t\r\n# trailing comment\ndave alice #ML,#deep,#ml"
    ),
    "repeated tags": "alice bob ai,ml,ai,#AI\nbob carol ai\ncarol alice\ndave alice deep ml deep\n",
}


@pytest.mark.parametrize("text", TEXT_VARIANTS.values(), ids=TEXT_VARIANTS.keys())
def test_text_variants_read_the_same(text_file, text):
    m = read_mentions(text_file(text))
    assert as_rows(m) == EXPECTED
    assert m.tag_names == ["ai", "deep", "ml"]
    assert m.num_mentions == 4 and m.num_users == 4 and m.num_hashtags == 3
    assert m.graph.directed and m.graph.num_edges == 4
    assert m.tagged_share() == 0.75
    assert m.path.endswith("m.tsv")
    assert repr(m) == "<Mentions 'm': 4 mentions, 4 users, 3 hashtags>"


def test_integer_ids_parallel_mentions_and_gzip(text_file):
    m = read_mentions(text_file("3 5 x\n5 3\n3 5 y\n7 3 #X\n", name="m.txt.gz"))
    assert m.graph.ids.tolist() == [3, 5, 7]
    assert as_rows(m) == [(3, 5, ["x"]), (5, 3, []), (3, 5, ["y"]), (7, 3, ["x"])]
    assert m.graph.num_edges == 4  # the repeated mention stays a parallel edge
    dense = read_mentions(text_file("0 1\n1 2 a\n", name="d.tsv"))
    assert dense.graph.ids is None and dense.src.tolist() == [0, 1]


def test_naive_parser_agrees_on_random_spellings(text_file):
    """Random separators, '#' prefixes, letter case, comments: compare with a plain-Python
    reading of the documented rules."""
    rng = random.Random(SEED)
    users = ["u1", "u22", "x", "carol", "bob_7", "Zed"]
    tags = ["ai", "ml", "deep", "news", "go2", "été"]
    lines, want = [], []
    for _ in range(400):
        kind = rng.random()
        if kind < 0.1:
            lines.append(rng.choice(["", "   ", "# note", "% note", "\t# x y"]))
            continue
        s, d = rng.choice(users), rng.choice(users)
        k = rng.choice([0, 0, 1, 2, 3])
        picked = [rng.choice(tags) for _ in range(k)]
        spelled = [
            rng.choice(["", "#", "##"]) + (t.upper() if rng.random() < 0.3 else t) for t in picked
        ]
        seps = [rng.choice([",", ", ", " ", "\t", " ,"]) for _ in spelled]
        tail = "".join(sep + t for sep, t in zip(seps, spelled, strict=True)).lstrip(", ")
        line = rng.choice(["", "  "]) + s + rng.choice([" ", "\t", "  ", " \t"]) + d
        line += (rng.choice([" ", "\t"]) + tail) if tail else rng.choice(["", "\t", " "])
        lines.append(line)
        want.append((s, d, sorted({t.lower() for t in picked})))
    m = read_mentions(text_file("\n".join(lines) + "\n"))
    assert as_rows(m) == want


# --------------------------------------------------------------------- Parquet variants
def _lists(rows):
    return pa.array([r[2] for r in rows], pa.list_(pa.string()))


@pytest.mark.parametrize(
    "hashtags",
    [
        pa.array(["#AI,#ml", "ai", None, "ml, deep"]),
        pa.array(["ai ml", "ai", "", "#deep,ml"]).dictionary_encode(),
        pa.array([["ai", "ml"], ["#AI"], None, ["deep", "ML", None]], pa.list_(pa.string())),
        pa.array([["ai", "ml"], ["ai"], [], ["deep", "ml"]], pa.large_list(pa.large_string())),
        pa.ListArray.from_arrays(
            pa.array([0, 2, 3, 3, 5], pa.int32()),
            pa.array(["ml", "ai", "ai", "deep", "ml"]).dictionary_encode(),
        ),
    ],
    ids=["string", "dictionary string", "list", "large list", "list of dictionary"],
)
def test_parquet_hashtag_columns(table_file, hashtags):
    src = pa.array(["alice", "bob", "carol", "dave"]).dictionary_encode()
    p = table_file(source=src, target=["bob", "carol", "alice", "alice"], hashtags=hashtags)
    assert as_rows(read_mentions(p)) == EXPECTED


def test_parquet_without_hashtags_and_mixed_ids(table_file):
    m = read_mentions(table_file(source=[1, 2], target=pa.array(["a", "1"])))
    assert m.graph.ids.tolist() == ["1", "2", "a"]
    assert as_rows(m) == [("1", "a", []), ("2", "1", [])]
    assert m.num_hashtags == 0 and m.tag_ptr.tolist() == [0, 0, 0]
    nulls = read_mentions(table_file(source=[0], target=[1], hashtags=pa.nulls(1)))
    assert as_rows(nulls) == [(0, 1, [])]


def test_parquet_found_by_magic_bytes(table_file, tmp_path):
    p = table_file(name="m.data", source=[0, 1], target=[1, 0], hashtags=[["a"], []])
    assert as_rows(read_mentions(p)) == [(0, 1, ["a"]), (1, 0, [])]


# ------------------------------------------------------------------------ round trips
@pytest.mark.parametrize("name", ["m.parquet", "m.tsv", "m.txt", "m.tsv.gz", "m.txt.gz"])
def test_round_trip_every_format(text_file, tmp_path, name):
    m = read_mentions(text_file(TEXT_VARIANTS["comments, blanks, CRLF, no final newline"]))
    out = tmp_path / name
    m.write(out)
    back = read_mentions(out)
    same(m, back)
    if name.endswith(".parquet"):  # and on through text again
        back.write(tmp_path / "again.tsv")
        same(m, read_mentions(tmp_path / "again.tsv"))


def test_round_trip_random_arrays(tmp_path):
    rng = np.random.default_rng(SEED)
    n, m, k = 300, 2000, 40
    src = rng.integers(0, n, m) * 7 + 1_000_000  # sparse integer ids
    dst = rng.integers(0, n, m) * 7 + 1_000_000
    counts = rng.integers(0, 4, m)
    ptr = np.concatenate([[0], np.cumsum(counts)])
    tags = rng.integers(0, k, ptr[-1])
    names = [f"t{i:03d}" for i in range(k)]
    for name in ("r.parquet", "r.tsv.gz"):
        write_mentions(tmp_path / name, src, dst, ptr, tags, names)
        got = read_mentions(tmp_path / name)
        want = [
            (int(s), int(d), sorted({names[t] for t in tags[ptr[i] : ptr[i + 1]]}))
            for i, (s, d) in enumerate(zip(src, dst, strict=True))
        ]
        assert as_rows(got) == want
        used = sorted({names[t] for t in tags})
        assert got.tag_names == used


def test_string_ids_parquet_only(tmp_path):
    args = (["a b", "c"], ["c", "#x"], [0, 0, 0], [], [])
    with pytest.raises(InvalidArgumentError, match="'a b' cannot be written"):
        write_mentions(tmp_path / "x.tsv", *args)
    write_mentions(tmp_path / "x.parquet", *args)
    assert as_rows(read_mentions(tmp_path / "x.parquet")) == [("a b", "c", []), ("c", "#x", [])]


@pytest.mark.parametrize(
    "args, message",
    [
        (([0], [1], [0, 1], [0], ["a b"]), "hashtag name 'a b' cannot be written"),
        (([0], [1], [0, 1], [0], ["#a"]), "hashtag name '#a'"),
        (([0], [1], [0, 1], [0], [""]), "hashtag name ''"),
        (([0, 1], [1], [0, 0], [], []), "differ in length"),
        (([0], [1], [0, 2], [0], ["a"]), "tag_ptr must rise"),
        (([0], [1], [0, 1], [3], ["a"]), "tag_ids must be integers in 0..0"),
        (([], [], [0], [], []), "no mentions"),
        (([0.5], [1], [0, 0], [], []), "integer or string user ids"),
    ],
)
def test_writer_rejects(tmp_path, args, message):
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        write_mentions(tmp_path / "x.parquet", *args)


@pytest.mark.parametrize("name", ["x.csv", "x.parquet.gz", "x"])
def test_writer_needs_a_known_extension(tmp_path, name):
    with pytest.raises(InvalidArgumentError, match="cannot tell the mention format"):
        write_mentions(tmp_path / name, [0], [1], [0, 0], [], [])
    assert not (tmp_path / name).exists()


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "text, line, message",
    [
        ("a b\nlonely\n", 2, "expected 'source target [hashtags]', got 1 field"),
        ("a b\n\tb x\n", 2, "empty source user"),
        ("# c\na\t\tx\n", 2, "empty target user"),
        ("a,b x\n", 1, "holds a comma"),
        ("a b\nc #ai\n", 2, "the target user starts with '#'"),
        ("a b\nc %d\n", 2, "starts with '#' or '%'"),
        ("\n\na b x,#,y\n", 3, "empty hashtag (a lone '#')"),
        ("a b\nc d ##\n", 2, "empty hashtag"),
    ],
)
def test_bad_text_names_file_and_line(text_file, text, line, message):
    p = text_file(text)
    with pytest.raises(GraphFormatError, match=re.escape(message)) as e:
        read_mentions(p)
    assert str(e.value).startswith(f"{p}:{line}: ") and e.value.line == line


def test_bad_utf8_hashtag(text_file):
    p = text_file(b"a b ok\nc d \xff\xfe\n")
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}:2: hashtag b'\\xff\\xfe'")):
        read_mentions(p)


@pytest.mark.parametrize("text", ["", "# only a comment\n\n   \n"])
def test_no_mentions(text_file, text):
    p = text_file(text)
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}: no mentions")):
        read_mentions(p)


def test_missing_file_directory_and_bad_gzip(tmp_path, text_file):
    with pytest.raises(GraphFormatError, match=re.escape(f"{tmp_path / 'no.tsv'}: no such file")):
        read_mentions(tmp_path / "no.tsv")
    with pytest.raises(GraphFormatError, match=re.escape(f"{tmp_path}: is a directory")):
        read_mentions(tmp_path)
    with pytest.raises(GraphFormatError, match="no such file"):
        read_mentions(tmp_path / "no.parquet")
    bad = tmp_path / "b.tsv.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(GraphFormatError, match="not a valid gzip file"):
        read_mentions(bad)
    fake = tmp_path / "f.parquet"
    fake.write_bytes(b"a b c\n")
    with pytest.raises(GraphFormatError, match="not a readable Parquet file"):
        read_mentions(fake)


@pytest.mark.parametrize(
    "cols, message",
    [
        (
            {"src": [0], "dst": [1]},
            "expected columns source, target[, hashtags]; got ['src', 'dst']",
        ),
        ({"source": [0.5], "target": [1]}, "user column 'source' has type double"),
        ({"source": [0], "target": [1], "hashtags": [3]}, "column 'hashtags' has type int64"),
        (
            {"source": [0], "target": [1], "hashtags": pa.array([[1]], pa.list_(pa.int8()))},
            "column 'hashtags' has type list<element: int8>",
        ),
        ({"source": [0, None], "target": [1, 2]}, "column 'source' is null in row 2"),
        ({"source": ["a", "b"], "target": ["c", ""]}, "column 'target' is an empty user in row 2"),
        ({"source": pa.array([], pa.int64()), "target": pa.array([], pa.int64())}, "no mentions"),
        (
            {"source": [0, 1], "target": [1, 2], "hashtags": ["a", "#"]},
            "empty hashtag (a lone '#'): '#' in row 2",
        ),
        (
            {"source": [0], "target": [1], "hashtags": pa.array([["a b"]])},
            "a hashtag holds a blank or a comma: 'a b' in row 1",
        ),
    ],
)
def test_bad_parquet(table_file, cols, message):
    p = table_file(**cols)
    with pytest.raises(GraphFormatError, match=re.escape(f"{p}: {message}")):
        read_mentions(p)


# ------------------------------------------------------------------- initial labels
def test_initial_labels_count_each_users_hashtags(tmp_path):
    rng = np.random.default_rng(SEED)
    n, m, k = 60, 800, 12
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    counts = np.where(rng.random(m) < 0.4, rng.integers(1, 4, m), 0)
    ptr = np.concatenate([[0], np.cumsum(counts)])
    tags = rng.integers(0, k, ptr[-1])  # repeats within a mention count once
    names = [f"h{i:02d}" for i in range(k)]
    write_mentions(tmp_path / "x.tsv", src, dst, ptr, tags, names)
    men = read_mentions(tmp_path / "x.tsv")
    vl = men.initial_labels()

    want: dict[int, Counter] = {}
    for i in range(m):
        for t in set(tags[ptr[i] : ptr[i + 1]].tolist()):
            want.setdefault(int(src[i]), Counter())[names[t]] += 1
    ids = men.graph.user_ids()
    got = {}
    for v in range(men.num_users):
        a, b = vl.ptr[v], vl.ptr[v + 1]
        labels = vl.labels[a:b]
        assert (np.diff(labels) > 0).all()  # ascending, distinct
        if b > a:
            weights = vl.weights[a:b]
            got[int(ids[v])] = Counter(
                {vl.names[x]: w for x, w in zip(labels, weights, strict=True)}
            )
    assert got == want
    assert vl.ptr.dtype == np.int64 and vl.labels.dtype == np.int32
    assert vl.weights.dtype == np.float64 and vl.names == men.tag_names


@pytest.mark.parametrize("update", ["semi-sync", "sync"])
def test_initial_labels_seed_bmlpa(text_file, update):
    """Two tagged 5-cycles joined by one untagged mention: the hashtags name the two
    communities BMLPA grows from them (weights are accepted as belongings). b = 0.3: at
    b = 0.1 a 5-cycle cannot hold its label against the bridge (semi-sync spreads y over
    both cycles and x, then a subset, merges into it; sync ends with two of 8 users)."""
    from hpgraph.algorithms.bmlpa import bmlpa

    text = "".join(f"a{i} a{(i + 1) % 5} #x\n" for i in range(5))
    text += "".join(f"b{i} b{(i + 1) % 5} #y\n" for i in range(5)) + "a0 b0\n"
    men = read_mentions(text_file(text))
    res = bmlpa(men.graph, b=0.3, initial=men.initial_labels(), update=update)
    ids = men.graph.user_ids()
    covers = {str(res.label[c]): {ids[v] for v in mem} for c, mem in enumerate(res.communities())}
    assert covers["x"] == {f"a{i}" for i in range(5)}
    assert {f"b{i}" for i in range(5)} <= covers["y"] <= {"a0"} | {f"b{i}" for i in range(5)}
    assert sum(res.named) == 2


def test_memory_bytes_counts_the_arrays(text_file):
    men = read_mentions(text_file(TEXT_VARIANTS["tabs, #, commas"]))
    arrays = sum(a.nbytes for a in (men.src, men.dst, men.tag_ptr, men.tag_ids))
    assert men.memory_bytes() == arrays + men.graph.memory_bytes() + len("aideepml")


def test_progress_stages(text_file):
    seen = []
    read_mentions(text_file("a b x\n"), progress=seen.append)
    assert seen == ["reading", "hashtags", "users", "graph"]


def test_from_arrays_sorts_rows_and_checks():
    m = Mentions.from_arrays([0, 1], [1, 0], [0, 3, 3], [2, 0, 2], ["a", "b", "c"])
    assert m.tag_ptr.tolist() == [0, 2, 2] and m.tag_ids.tolist() == [0, 2]
    with pytest.raises(InvalidArgumentError, match="tag_ptr"):
        Mentions.from_arrays([0], [1], [0], [], [])


@pytest.mark.parametrize("as_string", [False, True])
def test_parquet_row_groups_with_their_own_dictionaries(tmp_path, as_string):
    rng = np.random.default_rng(SEED)
    m, k = 3000, 30
    src, dst = rng.integers(0, 500, m), rng.integers(0, 500, m)
    ptr = np.concatenate([[0], np.cumsum(rng.integers(0, 3, m))])
    tags = rng.integers(0, k, ptr[-1])
    names = [f"t{i:02d}" for i in range(k)]
    write_mentions(tmp_path / "one.parquet", src, dst, ptr, tags, names)
    one = read_mentions(tmp_path / "one.parquet")
    table = pq.read_table(tmp_path / "one.parquet")
    if as_string:
        joined = [",".join(x) or None for x in table["hashtags"].to_pylist()]
        table = table.set_column(2, "hashtags", pa.array(joined))
    pq.write_table(table, tmp_path / "many.parquet", row_group_size=400)
    assert pq.ParquetFile(tmp_path / "many.parquet").num_row_groups == 8
    same(one, read_mentions(tmp_path / "many.parquet"))
