"""CBench on the peer-level BSP API: the right traffic per superstep, on the local
runtime and under mpiexec, and the sweep's CSV."""

from __future__ import annotations

import csv

import pytest

from conftest import MPIEXEC, NO_MPI
from hpgraph.bench.cbench import _run_one, cbench, main, sweep
from hpgraph.errors import InvalidArgumentError


def test_local_cbench_sends_what_was_asked():
    r = cbench("local", tasks=3, peers=2, msgs=2, size=100, supersteps=8)
    assert (r.tasks, r.peers, r.msgs, r.bytes) == (3, 2, 2, 100)
    assert r.bytes_per_superstep == 3 * 2 * 2 * 100
    assert 0 <= r.barrier_p10_s <= r.barrier_median_s <= r.barrier_p90_s
    assert 0 <= r.comm_p10_s <= r.comm_median_s <= r.comm_p90_s


def test_peers_are_capped_by_the_other_tasks():
    assert cbench("local", tasks=2, peers=5, supersteps=3).peers == 1


def test_partners_by_their_name_and_their_old_name(capsys, tmp_path):
    # cbench(partners=), -P/--partners, the CSV's partners column; peers= and --peers
    # (hidden) are the old names, still accepted
    r = cbench("local", tasks=3, partners=1, size=10, supersteps=3)
    assert r.partners == r.peers == 1 and r.bytes_per_superstep == 3 * 1 * 10
    with pytest.raises(InvalidArgumentError, match="not both"):
        cbench("local", tasks=3, partners=1, peers=1, supersteps=3)
    for flag in ("-P", "--partners", "--peers"):
        assert main(["-T", "3", flag, "1", "-I", "3"]) == 0
        header, row = capsys.readouterr().out.splitlines()
        assert row.split()[:3] == ["local", "3", "1"]
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "--partners" in (text := capsys.readouterr().out) and "--peers" not in text
    sweep("bytes", runtimes=("local",), sizes=[64], fixed_tasks=2, supersteps=3,
          out_prefix=str(tmp_path / "cb"))  # fmt: skip
    with open(tmp_path / "cb-bytes.csv") as f:
        assert [int(t["partners"]) for t in csv.DictReader(f)] == [1]


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
def test_mpi_cbench_under_mpiexec():
    r = _run_one("mpi", 2, 1, 1, 256, 10, 0)
    assert (r.runtime, r.tasks, r.peers) == ("mpi", 2, 1)
    assert r.bytes_per_superstep == 2 * 256


def test_bytes_sweep_writes_csv(tmp_path):
    rows = sweep("bytes", runtimes=("local",), sizes=[64, 4096], fixed_tasks=2,
                 supersteps=5, out_prefix=str(tmp_path / "cb"))  # fmt: skip
    assert [r.bytes for r in rows] == [64, 4096]
    with open(tmp_path / "cb-bytes.csv") as f:
        table = list(csv.DictReader(f))
    assert [int(t["bytes"]) for t in table] == [64, 4096]
    assert {t["runtime"] for t in table} == {"local"}


def test_hama_without_its_packages_says_which_extra(monkeypatch, tmp_path):
    # before any run (the local runs of a sweep would come first): one readable error
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "kazoo" else real(name, *a)
    )
    with pytest.raises(InvalidArgumentError, match=r"needs kazoo: install the hama extra"):
        main(["--sweep", "tasks", "--runtimes", "local,hama", "--out", str(tmp_path / "cb")])
    assert not list(tmp_path.iterdir())
    main(["--runtime", "local", "-T", "2", "-I", "3"])  # hama not asked for: runs


@pytest.mark.parametrize("argv", [["--runtime", "foo"], ["-T", "x"], ["--nope"]])
def test_bad_options_are_one_line(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("hpgraph cbench: error: ")
