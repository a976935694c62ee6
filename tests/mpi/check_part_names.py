"""Run under ``mpiexec -n P FOLDER``: a partitioned rank holds only its own vertices' ids
(string ids as one arrow array, wide integer ids as an int64 array), finds a vertex by
its name with the other ranks (an unknown name fails alike on every rank), and
``hpgraph run`` on the MPI runtime writes the one-process run's file byte for byte (rank
0 gathering the names; with ``--parts`` every rank writes its own rows), as does
``hpgraph.io.write_result`` called on every rank. Prints ``OK <case>`` per case on rank
0. FOLDER: a scratch folder for the files."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

from hpgraph.algorithms import bfs
from hpgraph.cli.main import cli
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.part import OwnIds
from hpgraph.io import read_edgelist, write_result
from hpgraph.runtimes.mpi.ingest import load_graph_mpi

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
folder = Path(sys.argv[1])


def say(msg):
    if rank == 0:
        print(msg, flush=True)


def write_inputs():
    """A string-id edge list (ids that look like integers, unicode beyond the BMP, a
    quote, long names, isolated pairs) and a wide integer-id one, written by rank 0."""
    rng = np.random.default_rng(11)
    names = [f"v{i}" for i in range(200)] + ["007", "7", "é𝄞x", 'q"t', "n" * 300]
    wide = [10**12 + 7 * i for i in range(len(names))]
    paths = {"strings": folder / "names.el", "wide": folder / "wide.el"}
    if rank == 0:
        ends = rng.integers(0, len(names), (900, 2))
        weights = rng.uniform(0.5, 2.0, 900)
        for kind, ids in (("strings", names), ("wide", wide)):
            with open(paths[kind], "w", encoding="utf-8") as f:
                for (a, b), w in zip(ends.tolist(), weights.tolist(), strict=True):
                    f.write(f"{ids[a]}\t{ids[b]}\t{w:.3f}\n")
                f.write(f"{ids[-1]}\t{ids[-2]}\t1.0\n")
    comm.Barrier()
    return paths, names, wide


def cli_run(*args) -> int:
    """``hpgraph run ARGS`` in this process; its exit code."""
    try:
        cli.main(["run", *map(str, args)], prog_name="hpgraph")
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def read_csv(path: Path) -> list:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def same_bytes(a: Path, b: Path, case: str):
    if rank == 0:
        assert a.read_bytes() == b.read_bytes(), f"{case}: {a} differs from {b}"


paths, names, wide = write_inputs()
for kind, path in paths.items():
    whole = read_edgelist(path)
    part = load_graph_mpi(str(path), comm, cache=False, partitioned=True)
    own = part.own_ids
    assert isinstance(own, OwnIds) and part.ids is None and own.lo == part.lo
    assert own.strings == (kind == "strings") and len(own.values) == part.hi - part.lo
    mine = own.values.to_pylist() if own.strings else own.values.tolist()
    assert mine == whole.ids[part.lo : part.hi].tolist(), kind
    for key in (names if kind == "strings" else wide)[::37] + ["007", str(wide[3])]:
        try:
            want = whole.vertex_index(key)
        except InvalidArgumentError:
            want = None
        try:
            got = part.vertex_index(key)
        except InvalidArgumentError:
            got = None
        assert got == want, (kind, key, got, want)
    try:
        part.vertex_index("no such vertex")
        raise AssertionError("an unknown name was found")
    except InvalidArgumentError as e:
        assert e.agreed and "unknown vertex 'no such vertex'" in str(e)
    asked = part.user_ids()[[0, part.n - 1]].tolist()
    assert asked == whole.ids[[0, part.n - 1]].tolist(), kind
    say(f"OK {kind}/own-ids")

for kind, path in paths.items():
    part = load_graph_mpi(str(path), comm, cache=False, partitioned=True)
    source = names[5] if kind == "strings" else wide[5]
    for algo, extra in (("bfs", ["--source", source]), ("wcc", []), ("pagerank", [])):
        for ext in ("csv", "parquet"):
            one, mpi = folder / f"{kind}-{algo}-one.{ext}", folder / f"{kind}-{algo}-mpi.{ext}"
            if rank == 0:
                assert cli_run(algo, path, "--no-cache", "-o", one, *extra) == 0
            comm.Barrier()
            code = cli_run(algo, path, "--no-cache", "--runtime", "mpi", "-o", mpi, *extra)
            assert code == 0, (kind, algo, code)
            same_bytes(one, mpi, f"{kind}/{algo}")
        say(f"OK {kind}/{algo}/output")
    # the Python API: write_result on a part is collective, rank 0 writes
    api = folder / f"{kind}-api.csv"
    write_result(bfs(part, source, runtime="mpi"), api)
    same_bytes(folder / f"{kind}-bfs-one.csv", api, f"{kind}/write_result")
    say(f"OK {kind}/write_result")
    out = folder / f"{kind}-parts.csv"
    code = cli_run("bfs", path, "--no-cache", "--runtime", "mpi", "--parts", "-o", out,
                   "--source", source)  # fmt: skip
    assert code == 0
    if rank == 0:  # the same rows (each part quotes its strings as its own need)
        rows = []
        for r in range(comm.Get_size()):
            rows += read_csv(folder / f"{kind}-parts.part{r:05d}.csv")[1:]
        assert rows == read_csv(folder / f"{kind}-bfs-one.csv")[1:], kind
    say(f"OK {kind}/parts")
    code = cli_run("bfs", path, "--no-cache", "--runtime", "mpi", "--source", "no such vertex")
    assert all(c == 2 for c in comm.allgather(code)), code
    say(f"OK {kind}/unknown-source")

# a negative weight on the last rank's rows: every rank stops, the edge named once
negative = folder / "negative.el"
if rank == 0:
    lines = paths["strings"].read_text(encoding="utf-8").splitlines()
    a, b, _ = lines[-1].split("\t")
    negative.write_text("\n".join([*lines[:-1], f"{a}\t{b}\t-1.0"]) + "\n", encoding="utf-8")
comm.Barrier()
code = cli_run("sssp", negative, "--no-cache", "--runtime", "mpi", "--source", names[5])
assert all(c == 2 for c in comm.allgather(code)), code
say("OK strings/negative-weight")
