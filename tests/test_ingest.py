"""Parallel ingest (hpgraph.io.shares, hpgraph.runtimes.mpi.ingest): line-aligned shares
of a file, and under ``mpiexec -n 1, 2, 3`` (tests/mpi/check_ingest.py) every rank's
graph equal to the one-process reader's, or the same error on every rank; the sample
sort that numbers wide integer ids (tests/mpi/check_samplesort.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import MPIEXEC, NO_MPI, SEED, run_mpi
from hpgraph.io.shares import read_share, share_range


@pytest.mark.parametrize("parts", [1, 2, 3, 7, 40])
def test_shares_cover_the_file_at_line_starts(tmp_path, parts):
    rng = np.random.default_rng(SEED)
    lines = [" ".join(map(str, rng.integers(0, 10 ** rng.integers(1, 6), 2))) for _ in range(25)]
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "g.el"
    path.write_bytes(data)
    got = b""
    for k in range(parts):
        start, end = share_range(path, k, parts)
        buf, at = read_share(path, k, parts)
        assert at == start and buf.tobytes() == data[start:end]
        assert start == 0 or data[start - 1 : start] == b"\n"  # starts at a line start
        got += buf.tobytes()
    assert got == data  # in order, every byte once


def test_shares_of_odd_files(tmp_path):
    path = tmp_path / "g.el"
    path.write_bytes(b"\xef\xbb\xbf1 2\n3 4")  # a byte order mark, no final newline
    assert read_share(path, 0, 1)[0].tobytes() == b"1 2\n3 4"
    assert b"".join(read_share(path, k, 5)[0].tobytes() for k in range(5)) == b"1 2\n3 4"
    path.write_bytes(b"")
    assert read_share(path, 1, 2)[0].shape == (0,)
    path.write_bytes(b"1 2 3 4 5 6 7 8 9")  # one long line: the first share takes it
    assert [share_range(path, k, 4) for k in range(4)] == [(0, 17)] + [(17, 17)] * 3


def _files(folder):
    """Edge lists of several shapes and errors, and how to read them."""
    rng = np.random.default_rng(SEED)
    cases = []

    def add(name, text, encoding=None, **kw):
        (folder / name).write_text(text, encoding=encoding)
        cases.append({"file": name, "kw": kw})

    m = 3000
    s, d = rng.integers(0, 500, m), rng.integers(0, 500, m)
    w = rng.random(m)

    def rows(line):  # one line per edge from line(i, a, b)
        return "".join(line(i, a, b) for i, (a, b) in enumerate(zip(s, d, strict=True)))

    add("dense.el", "".join(f"{a} {b}\n" for a, b in zip(s, d, strict=True)))
    add(
        "comments.el",
        "# head\n\n" + rows(lambda i, a, b: f"{a}\t{b}\n" + "% note\n\n" * (i % 7 == 0)),
    )
    add("weighted.csv", rows(lambda i, a, b: f"{a}, {b}, {float(w[i])!r}\n"))
    add("weighted_dropped.csv", (folder / "weighted.csv").read_text(), weighted=False)
    add("directed.el", (folder / "dense.el").read_text(), directed=True)
    add("sparse.el", "".join(f"{a * 3 + 7} {b * 5 - 100}\n" for a, b in zip(s, d, strict=True)))
    add("wide.el", "".join(f"{a * 10**12} {-b}\n" for a, b in zip(s, d, strict=True)))
    add("strings.el", "".join(f"u{a} v{b % 50}\n" for a, b in zip(s, d, strict=True)))
    # integers in the first part of the file, strings only near its end: every rank
    # converts as strings (so "007" stays "007")
    add("mixed.el", "".join(f"{a:03d} {b}\n" for a, b in zip(s, d, strict=True)) + "x y\n")
    # string ids (the distributed dictionary): ids that look like integers, unicode
    # (code-point order, not UTF-16's: U+1D518 after U+FF5A), long and short names,
    # names in every share, names in one share only, shares without names
    looks_int = [f"{k:03d}" for k in range(40)] + [str(k) for k in range(40)] + ["-7", "+7"]
    add("int_like.el", "".join(f"{looks_int[a % 82]} {looks_int[b % 82]}\n" for a, b in zip(
        s, d, strict=True)) + "x 007\n")  # fmt: skip
    words = ["a", "ä", "z", "é", "中", "中文", "🙂", "Ω", "ω", "a\u0301", "\U0001d518", "ｚ",
             "L" * 300, "L" * 299 + "M", "ﬁ", "_", "~"]  # fmt: skip
    uni = "".join(f"{words[a % 17]}{b % 3} {words[b % 17]}\n" for a, b in zip(s, d, strict=True))
    add("unicode.el", uni, encoding="utf-8")
    half = m // 2  # names of one share's range only, and a name on every line
    add("skewed.el", "".join(f"{'a' if i < half else 'z'}{a} hub\n" for i, a in enumerate(s)))
    add("few_names.el", "".join(f"s{i} t{i % 3}\n" for i in range(20)) + "# c\n" * 3000)
    add("one_name.el", "x x\n")  # fewer names than ranks
    # wide integer ids (the sample sort): the int64 limits and negative ids, the same ids
    # in every share, ids in one share only, fewer ids than ranks, shares whose ranges
    # do not overlap
    top, low = 2**63 - 1, -(2**63)
    edge = [low, low + 1, -1, 0, 1, top - 1, top]
    wide = [int(x) for x in rng.integers(low, top, 200, dtype=np.int64)] + edge
    add("wide_limits.el", "".join(f"{wide[a % 207]} {wide[b % 207]}\n" for a, b in zip(
        s, d, strict=True)))  # fmt: skip
    add("wide_dups.el", rows(lambda i, a, b: f"{edge[a % 7]} {edge[b % 3]}\n"))
    add("wide_one_share.el", "".join(f"{wide[i]} {top}\n" for i in range(20)) + "# c\n" * 3000)
    add("wide_two.el", f"{top} {low}\n")
    add("wide_sorted.el", "".join(f"{(i - half) * 10**15 + a} {(i - half) * 10**15 - b}\n"
                                  for i, (a, b) in enumerate(zip(s, d, strict=True))))  # fmt: skip
    add("tiny.el", "1 2\n")  # shares without data lines
    add("empty.el", "# nothing\n\n", allow_empty=True)
    # errors: each rank must raise the one-process reader's message and line
    add("no_edges.el", "# nothing\n")
    add("ragged.el", (folder / "dense.el").read_text() + "1 2 3\n")
    add("ragged_mid.el", rows(lambda i, a, b: f"{a} {b}\n" if i != m // 2 else f"{a}\n"))
    add("bad_weight.el", rows(lambda i, a, b: f"{a} {b} {'x' if i == 2 * m // 3 else 1.5}\n"))
    add("nan_weight.el", rows(lambda i, a, b: f"{a} {b} {'nan' if i == m - 5 else 2}\n"))
    # a bad weight early, a ragged line late: the first bad line is named, as one process does
    add("bad_then_ragged.el", rows(lambda i, a, b: f"{a} {b} {'x' if i == 9 else 1}\n") + "1 2\n")
    add("two_commas.csv", "1,2\n" * 1000 + "3,,4\n" + "5,6\n" * 1000)
    add("unweighted.el", (folder / "dense.el").read_text(), weighted=True)

    def table(name, groups=700, **cols):  # a Parquet file of several row groups
        pq.write_table(pa.table(cols), folder / name, row_group_size=groups)
        cases.append({"file": name, "kw": {}})

    table("ints.parquet", src=s, dst=d, weight=w)
    table("few_groups.parquet", groups=2000, src=s * 7, dst=d)  # fewer groups than ranks
    table("wide_few_groups.parquet", groups=2000, src=s * 10**15 - 2**62, dst=-d)
    table("names.parquet", source=[f"u{a}" for a in s], target=pa.array(
        [f"v{b}" for b in d]).dictionary_encode())  # fmt: skip
    table("int_and_str.parquet", src=s, dst=[f"{b:04d}" for b in d])
    table("unicode.parquet", src=[words[a % 17] for a in s], dst=[f"{b}" for b in d])
    nulls = pa.array([None if i == 2500 else int(a) for i, a in enumerate(s)])
    table("null_id.parquet", src=nulls, dst=d)  # error: row 2501, in the fourth group
    table("nan_weight.parquet", src=s, dst=d, weight=np.where(np.arange(m) == 1999, np.nan, w))
    table("float_ids.parquet", src=s * 1.0, dst=d)  # error: ids must be integers or strings
    folder = folder / "dataset.parquet"  # a dataset folder: files of several row groups
    (folder / "x").mkdir(parents=True)
    for k, (a, b) in enumerate([(0, 900), (900, 1000), (1000, 3000)]):
        part = pa.table({"source": [f"u{x}" for x in s[a:b]], "target": d[a:b], "weight": w[a:b]})
        pq.write_table(part, folder / ("x/" * (k == 2)) / f"part-{k}.parquet", row_group_size=400)
    cases.append({"file": "dataset.parquet", "kw": {}})
    folder = folder.parent
    pq.write_table(pa.table({"src": pa.array([], pa.int64()), "dst": pa.array([], pa.int64())}),
                   folder / "no_rows.parquet")  # fmt: skip
    cases.append({"file": "no_rows.parquet", "kw": {}})
    (folder / "cases.json").write_text(json.dumps(cases))
    return cases


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_parallel_read_equals_the_one_process_read(tmp_path, ranks):
    cases = _files(tmp_path)
    out = run_mpi(ranks, "check_ingest.py", tmp_path, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"INGEST OK on {ranks} ranks: {len(cases)} files" in out.stdout
    errors = [line for line in out.stdout.splitlines() if line.startswith("ERROR")]
    # every error names its file and, where there is one, the line
    assert len(errors) == 12, errors
    assert any("bad_then_ragged.el:10:" in e for e in errors), errors
    assert any("ragged_mid.el:1501:" in e for e in errors), errors
    assert any(f"bad_weight.el:{2 * 3000 // 3 + 1}:" in e for e in errors), errors
    assert any("two_commas.csv:1001:" in e for e in errors), errors
    assert any("null_id.parquet: column 'src' is null in row 2501" in e for e in errors)
    assert any("nan_weight.parquet: weight column 'weight' is NaN in row 2000" in e for e in errors)


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_sample_sort_numbers_wide_ids_as_the_sorted_union(ranks):
    out = run_mpi(ranks, "check_samplesort.py", env={"HPGRAPH_TEST_SEED": str(SEED)})
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"SAMPLESORT OK on {ranks} ranks" in out.stdout


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_cli_ranks_read_in_parallel_and_agree_on_errors(tmp_path):
    exe = Path(sys.executable).parent / "hpgraph"
    if not exe.exists():
        pytest.skip("the hpgraph script is not installed beside the interpreter")
    edges = tmp_path / "g.el"
    edges.write_text("".join(f"{i} {i + 1}\n" for i in range(400)) + "7\n" + "1 2\n" * 400)
    r = subprocess.run(
        [str(exe), "run", "wcc", str(edges), "--ranks", "2", "--no-cache"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    want = "g.el:401: 1 fields, but the first data line (line 1) has 2: '7'"
    assert lines == [f"hpgraph: error: {tmp_path}/{want}"], r.stderr  # once, from rank 0
    edges.write_text("".join(f"{i} {i + 1}\n" for i in range(400)) + "# end\n")
    r = subprocess.run(
        [str(exe), "run", "wcc", str(edges), "--ranks", "2"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert "401 vertices, 400 edges" in r.stdout and "largest     401 vertices" in r.stdout
    assert "own rows per rank" in r.stdout
    assert not (tmp_path / "g.el.hpgc").exists()  # the whole graph never existed: no cache
    small = {**os.environ, "HPGRAPH_RANK_MEMORY": "4K"}  # less than the whole graph's 6.4 KB
    r = subprocess.run(
        [str(exe), "run", "betweenness", str(edges), "--ranks", "2", "--no-cache"],
        capture_output=True, text=True, timeout=600, env=small,
    )  # fmt: skip
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    want = "g: the whole graph (6.3 KiB) does not fit on every rank: rank 0 can take about 4.0"
    assert want in r.stderr and "HPGRAPH_RANK_MEMORY" in r.stderr, r.stderr
    r = subprocess.run(  # a kernel on parts needs no whole graph
        [str(exe), "run", "bfs", str(edges), "--ranks", "2", "--no-cache"],
        capture_output=True, text=True, timeout=600, env=small,
    )  # fmt: skip
    assert r.returncode == 0 and "own rows per rank" in r.stdout, r.stdout + r.stderr
    r = subprocess.run(
        [str(exe), "run", "betweenness", str(edges), "--ranks", "2"],  # a whole-graph kernel
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0 and "whole graph per rank" in r.stdout, r.stdout + r.stderr
    assert (tmp_path / "g.el.hpgc").exists()  # rank 0 wrote the cache


def test_rank_memory_sizes_and_the_cgroup_headroom():
    from hpgraph.errors import InvalidArgumentError
    from hpgraph.runtimes.mpi.budget import parse_bytes

    assert parse_bytes("512M") == 512 << 20 and parse_bytes("1.5GiB") == 3 << 29
    assert parse_bytes("4k") == 4096 and parse_bytes("100") == 100
    for bad in ("", "x", "-1M", "5Q"):
        with pytest.raises(InvalidArgumentError, match="HPGRAPH_RANK_MEMORY"):
            parse_bytes(bad)
    # under scripts/memcap.sh (a memory cgroup of its own), the headroom is below the cap
    memcap = Path(__file__).resolve().parent.parent / "scripts" / "memcap.sh"
    code = "from hpgraph._procfs import available_memory as a; print(a())"
    r = subprocess.run(
        [str(memcap), "300", sys.executable, "-c", code],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if r.returncode == 2 and "cannot create a memory cgroup" in r.stderr:
        pytest.skip("no writable cgroup v1 memory hierarchy here")
    assert r.returncode == 0, r.stderr
    assert 100 << 20 < int(r.stdout) <= 300 << 20  # Python itself takes part of the cap
