"""SPARQL on MPI ranks (issue 16, item 6): LUBM(1) with inference spread over ``mpiexec
-n 1, 2, 3`` ranks by subject hash answers the 14 LUBM queries and one query per SPARQL
feature as one process does (tests/mpi/check_sparql.py); the CLI under ``--ranks`` and
under ``mpiexec`` writes one process's output; a missing store or an unsupported feature
is one line, printed once, with every rank exiting non-zero. Without MPI: the row owners
and the grouped exchange's packing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import MPIEXEC, NO_MPI, run_mpi
from hpgraph.rdf import Store
from hpgraph.rdf.lubm import generate_lubm
from hpgraph.rdf.lubm.queries import QUERIES
from hpgraph.rdf.mpi.cluster import _predicates
from hpgraph.rdf.mpi.exchange import owner

SEED = 0
EXE = Path(sys.executable).parent / "hpgraph"


@pytest.fixture(scope="module")
def lubm1(tmp_path_factory):
    """A store of LUBM(1) for SEED with univ-bench inference (227k triples)."""
    folder = tmp_path_factory.mktemp("lubm_mpi")
    generate_lubm(folder / "lubm1.nt", 1, SEED)
    Store.load(folder / "lubm1.nt", infer="univ-bench").save(folder / "store")
    return folder / "store"


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_queries_on_1_2_3_ranks_equal_one_process(lubm1):
    data = lubm1.parent / "lubm1.nt"  # and the file, parsed by rank 0 and scattered
    out = run_mpi(3, "check_sparql.py", lubm1, data, timeout=600)  # sizes 1, 2, 3
    assert out.returncode == 0, out.stdout + out.stderr
    assert "FAIL" not in out.stdout, out.stdout
    checked = int(out.stdout.split("QUERIES ")[1].split()[0])
    assert checked >= 40 and out.stdout.count("\nOK ") == 3 * checked + 14, out.stdout
    assert "OK 3 file Q9 " in out.stdout
    whole = Store.open(lubm1).default
    for size in (1, 2, 3):
        for name in ("Q2", "Q9", "OPTIONAL", "UNION", "ORDER BY LIMIT", "GROUP BY COUNT", "p+"):
            assert f"OK {size} {name} " in out.stdout, out.stdout
        held = [int(b) for b in out.stdout.split(f"BYTES {size}: ")[1].split("\n")[0].split()]
        assert len(held) == size
        assert sum(held) == whole.pso.nbytes + whole.pos.nbytes  # each triple on one rank
        assert size == 1 or max(held) < 0.6 * sum(held) * 2 / size  # spread evenly
        assert f"AFTER {size} 4" in out.stdout
    for what in ("DESCRIBE under MPI", "GRAPH under MPI", "FROM / FROM NAMED under MPI"):
        assert f"SPARQL feature not supported: {what} (run one process)" in out.stdout
    assert out.stdout.count("REFUSED 3 ") == 5 and "REFUSED 3 syntax: SPARQL syntax" in out.stdout
    assert "REFUSED 2 alone: this store is spread over MPI ranks" in out.stdout


def _hpgraph(*args, env=None):
    return subprocess.run(
        [str(EXE), *map(str, args)], capture_output=True, text=True, timeout=300, env=env
    )


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.skipif(not EXE.exists(), reason="the hpgraph script is not installed")
def test_cli_ranks_and_mpiexec_print_one_process_answer(lubm1):
    from hpgraph.cli.main import cli

    one = CliRunner().invoke(cli, ["sparql", str(lubm1), "-e", QUERIES["Q9"], "--format", "csv"])
    assert one.exit_code == 0, one.output
    r = _hpgraph("sparql", lubm1, "-e", QUERIES["Q9"], "--format", "csv", "--ranks", "2")
    assert r.returncode == 0, r.stderr
    got, want = r.stdout.splitlines(), one.output.splitlines()  # no ORDER BY: rows in any order
    assert got[0] == want[0] and sorted(got) == sorted(want) and len(got) > 100
    ordered = QUERIES["Q4"] + " ORDER BY ?X"
    one = CliRunner().invoke(cli, ["sparql", str(lubm1), "-e", ordered, "--format", "json"])
    assert one.exit_code == 0, one.output
    r = subprocess.run(  # under mpiexec without --ranks: the MPI runtime, rank 0 prints
        [MPIEXEC, "-n", "2", str(EXE), "sparql", str(lubm1), "-e", ordered, "--format", "json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0 and r.stdout == one.output, r.stderr


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.skipif(not EXE.exists(), reason="the hpgraph script is not installed")
def test_cli_missing_store_on_ranks_is_one_line(tmp_path):
    missing = tmp_path / "missing.store"
    r = _hpgraph("sparql", missing, "-e", QUERIES["Q1"], "--ranks", "3")
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.splitlines() == [
        f"hpgraph: error: {missing}: no such file or store directory"
    ], r.stderr


def test_owner_spreads_ids_and_keys_agree_with_subjects():
    ids = np.arange(100_000, dtype=np.int64)
    for size in (1, 2, 3, 8):
        ranks = owner([ids], size)
        assert ranks.min() >= 0 and ranks.max() < size
        counts = np.bincount(ranks, minlength=size)
        assert counts.min() > 0.9 * len(ids) / size  # consecutive ids spread evenly
    pairs = owner([ids, ids[::-1].copy()], 3)
    assert np.array_equal(pairs, owner([ids, ids[::-1].copy()], 3))
    assert not np.array_equal(pairs, owner([ids], 3))


def test_paths_name_the_predicates_they_read():
    tree = ("seq", [("edge", 4, False), ("mul", ("alt", [("edge", 2, True)]), "+")])
    assert _predicates(tree) == ((2, 4), False)
    assert _predicates(("mul", ("edge", 1, False), "*")) == ((1,), True)
    assert _predicates(("alt", [("neg", [3], False), ("edge", 1, False)])) == (None, False)


def test_mpi_package_imports_without_starting_mpi():
    code = "import sys, hpgraph.rdf.mpi; assert 'mpi4py.MPI' not in sys.modules"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent / "src"))
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0
