"""Run under ``mpiexec -n P`` with a scratch folder: mention data read in parallel, each
rank keeping its own users (:func:`hpgraph.runtimes.mpi.mentions.read_mentions_part`),
equals the one-process :func:`~hpgraph.io.mentions.read_mentions`: the part's own rows
and ids are the whole graph's, the own users' initial labels (hashtags weighted by use)
are the whole data's rows, the counts agree, and :func:`gather_graph` rebuilds the
whole user graph on rank 0. Files: text (integer ids, string ids, ids that are integers
in some shares only, comments and blank lines), Parquet in many row groups (list and
string hashtag columns, no hashtags column). Then the errors: a malformed line deep in
a share and a hashtag that is a lone ``#`` give every rank the one-process error (file
and line). Prints ``OK <case>`` on rank 0."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from mpi4py import MPI

from hpgraph.errors import GraphFormatError
from hpgraph.generators.mention import mention_data
from hpgraph.io.mentions import read_mentions, write_mentions
from hpgraph.runtimes.mpi.mentions import gather_graph, read_mentions_part

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
tmp = Path(sys.argv[1])


def files():
    """(case, path) of each mention file, written by rank 0."""
    m, _ = mention_data(2500, 4000, hashtags=60, seed=3)
    ids = np.asarray(m.graph.user_ids())
    src, dst = ids[m.src], ids[m.dst]
    out = []

    def add(name, write):
        path = tmp / name
        if rank == 0:
            write(path)
        comm.Barrier()
        out.append((name, path))

    add("ints.tsv", lambda p: write_mentions(p, src, dst, m.tag_ptr, m.tag_ids, m.tag_names))
    names = np.array([f"u{x:05d}" for x in ids], dtype=object)
    add("strings.txt", lambda p: write_mentions(
        p, names[m.src], names[m.dst], m.tag_ptr, m.tag_ids, m.tag_names
    ))  # fmt: skip

    def mixed(p):  # integer ids everywhere but in the last lines: every share converts strings
        write_mentions(p, src, dst, m.tag_ptr, m.tag_ids, m.tag_names)
        with open(p, "a") as f:
            f.write("\n# a comment, then a blank line\n\nalice\t7\t#AI,#ml\n")

    add("mixed.tsv", mixed)

    def parquet(p, hashtags="list"):
        whole = tmp / "whole.parquet"
        write_mentions(whole, src, dst, m.tag_ptr, m.tag_ids, m.tag_names)
        t = pq.read_table(whole)
        if hashtags == "string":
            col = [",".join(x) if x else None for x in t["hashtags"].to_pylist()]
            t = t.set_column(2, "hashtags", pa.array(col, pa.string()))
        elif hashtags == "none":
            t = t.drop(["hashtags"])
        pq.write_table(t, p, row_group_size=700)

    add("groups.parquet", parquet)
    add("string-tags.parquet", lambda p: parquet(p, "string"))
    add("no-tags.parquet", lambda p: parquet(p, "none"))
    return out


def check(name, path):
    whole = read_mentions(path)
    mp = read_mentions_part(path, comm)
    part, g = mp.graph, whole.graph
    lo, hi = part.lo, part.hi
    assert part.n == g.n and part.num_stored_edges == g.num_stored_edges, name
    assert np.array_equal(part.own_indptr, g.indptr[lo : hi + 1]), name
    assert np.array_equal(part.own_indices, g.indices[g.indptr[lo] : g.indptr[hi]]), name
    own = part.names_of(np.arange(lo, hi))
    own = own.to_pylist() if isinstance(own, pa.Array) else np.asarray(own).tolist()
    assert own == np.asarray(g.user_ids())[lo:hi].tolist(), name
    wl = whole.initial_labels()
    a, e = wl.ptr[lo], wl.ptr[hi]
    assert mp.labels.names == wl.names, name
    assert np.array_equal(mp.labels.ptr, wl.ptr[lo : hi + 1] - a), name
    assert np.array_equal(mp.labels.labels, wl.labels[a:e]), name
    assert np.array_equal(mp.labels.weights, wl.weights[a:e]), name
    assert mp.num_mentions == whole.num_mentions, name
    assert mp.tagged_share() == whole.tagged_share() and mp.num_hashtags == whole.num_hashtags
    got = gather_graph(mp)
    if rank == 0:
        assert np.array_equal(got.graph.indptr, g.indptr), name
        assert np.array_equal(got.graph.indices, g.indices), name
        assert list(got.graph.user_ids()) == list(g.user_ids()), name
    else:
        assert got is None
    if rank == 0:
        print(f"OK {name} users={g.n} own={hi - lo}", flush=True)


def errors():
    m, _ = mention_data(600, 900, hashtags=10, seed=4)
    ids = np.asarray(m.graph.user_ids())
    good = tmp / "good.tsv"
    if rank == 0:
        write_mentions(good, ids[m.src], ids[m.dst], m.tag_ptr, m.tag_ids, m.tag_names)
    comm.Barrier()
    lines = good.read_text().splitlines()
    for case, bad in (("one-field", "lonely"), ("lone-hash", "3\t4\t#,ai")):
        path = tmp / f"bad-{case}.tsv"
        at = 2 * len(lines) // 3  # deep in the last share
        if rank == 0:
            path.write_text("\n".join(lines[:at] + [bad] + lines[at:]) + "\n")
        comm.Barrier()
        try:
            read_mentions(path)
        except GraphFormatError as e:
            want = str(e)
        try:
            read_mentions_part(path, comm)
            raise AssertionError(f"{case}: no error")
        except GraphFormatError as e:
            assert str(e) == want, (case, str(e), want)
        assert f":{at + 1}:" in want, want
        if rank == 0:
            print(f"OK error/{case}: {want}", flush=True)


for name, path in files():
    check(name, path)
errors()
