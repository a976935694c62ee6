"""Mention data read in parallel on the MPI runtime (issue 14, for the communities
application): under ``mpiexec -n 1, 2, 3`` each rank keeps its own users' rows, ids and
hashtag labels, equal to the one-process reader's, and a malformed line deep in a share
gives every rank the one-process error (tests/mpi/check_mention_parts.py)."""

from __future__ import annotations

import pytest

from conftest import MPIEXEC, NO_MPI, run_mpi

CASES = ("ints.tsv", "strings.txt", "mixed.tsv", "groups.parquet", "string-tags.parquet",
         "no-tags.parquet")  # fmt: skip


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mentions_read_in_parallel_equal_the_one_process_read(ranks, tmp_path):
    out = run_mpi(ranks, "check_mention_parts.py", tmp_path, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    for case in CASES:
        assert f"OK {case} " in out.stdout
    assert "OK error/one-field: " in out.stdout and ":601: expected 'source target" in out.stdout
    assert "OK error/lone-hash: " in out.stdout
