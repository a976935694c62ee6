"""Superstep checkpoints (engine/checkpoint.py): a job stopped after a checkpoint and
resumed gives the same bits as one run through, for combined, dense and listed programs;
corrupt and incomplete checkpoints are never used; another job's are refused; the drain
copies complete ones; ``hpgraph checkpoint list``."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from hpgraph.algorithms.bfs import bfs
from hpgraph.algorithms.cdlp import cdlp
from hpgraph.algorithms.pagerank import pagerank
from hpgraph.algorithms.sssp import sssp
from hpgraph.algorithms.wcc import wcc
from hpgraph.engine.checkpoint import (
    MANIFEST,
    Checkpoints,
    CheckpointWarning,
    Faults,
    complete_checkpoints,
    list_checkpoints,
)
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators import kronecker
from hpgraph.runtimes.faults import Fault, Injector
from test_cli import invoke, ok, one_line_error

GRAPH = kronecker(11, seed=3)
WEIGHTED = kronecker(11, seed=3, weighted=True)
SOURCE = int(GRAPH.user_ids()[int(np.argmax(GRAPH.out_degree()))])


class Stop(Faults):
    """Stops the job (an exception) when superstep ``at`` is about to start."""

    def __init__(self, at):
        self.at = at

    def superstep(self, ss, rank):
        if ss == self.at:
            raise RuntimeError(f"stopped at {ss}")


# name: (function, result column, graph, keyword arguments, superstep to stop at)
CASES = {
    "pagerank": (pagerank, "rank", GRAPH, {}, 7),  # dense supersteps
    "bfs": (bfs, "depth", GRAPH, {"source": SOURCE}, 3),  # push and pull
    "wcc": (wcc, "component", GRAPH, {"variant": "hashmin"}, 3),
    "sssp": (sssp, "distance", WEIGHTED, {"source": SOURCE, "variant": "bellman-ford"}, 5),
    "cdlp": (cdlp, "label", GRAPH, {}, 5),  # listed messages (no combiner)
}


def _stopped_then_resumed(case, folder, threads, every=2, **opts):
    fn, col, graph, kw, at = CASES[case]
    with pytest.raises(RuntimeError, match="stopped at"):
        fn(
            graph,
            threads=threads,
            checkpoint=Checkpoints(folder, every=every, faults=Stop(at)),
            **kw,
        )
    resumed = fn(
        graph,
        threads=threads,
        checkpoint=Checkpoints(folder, every=every, resume=True, **opts),
        **kw,
    )
    return fn(graph, threads=threads, **kw), resumed


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", list(CASES))
def test_resume_gives_the_same_bits(case, threads, tmp_path):
    through, resumed = _stopped_then_resumed(case, tmp_path / "ck", threads)
    col = CASES[case][1]
    assert through[col].tobytes() == resumed[col].tobytes()
    at = CASES[case][4]
    start = at - at % 2  # the newest checkpoint before the stop
    assert resumed.stats.supersteps[0].superstep == start
    assert len(through.stats.supersteps) == start + len(resumed.stats.supersteps)


def _flip(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_corrupt_newest_checkpoint_falls_back_to_the_one_before(tmp_path):
    fn, col, graph, kw, _ = CASES["pagerank"]
    folder = tmp_path / "ck"
    with pytest.raises(RuntimeError):
        fn(graph, threads=2, checkpoint=Checkpoints(folder, every=2, faults=Stop(7)), **kw)
    found = complete_checkpoints(folder)
    assert [ss for ss, _, _ in found] == [4, 6]
    _flip(found[-1][1] / "rank-0" / "value.npy")
    opts = Checkpoints(folder, every=2, resume=True)
    with pytest.warns(CheckpointWarning, match="superstep-00000006: corrupt"):
        res = fn(graph, threads=2, checkpoint=opts, **kw)
    assert res.stats.supersteps[0].superstep == 4
    assert opts.resumed_from == (4, str(found[0][1]))  # the one it fell back to
    assert res[col].tobytes() == fn(graph, threads=2, **kw)[col].tobytes()


def test_no_usable_checkpoint_starts_from_the_beginning(tmp_path):
    folder = tmp_path / "ck"
    with pytest.raises(RuntimeError):
        pagerank(GRAPH, threads=2, checkpoint=Checkpoints(folder, every=2, faults=Stop(5)))
    for _, f, _ in complete_checkpoints(folder):
        _flip(f / "rank-0" / "state.npy")
    opts = Checkpoints(folder, every=2, resume=True)
    opts.resumed_from = (99, "stale: from another run")
    with pytest.warns(CheckpointWarning) as seen:
        res = pagerank(GRAPH, threads=2, checkpoint=opts)
    assert opts.resumed_from is None
    text = [str(w.message) for w in seen]
    assert [t.split(": ")[1] for t in text[:2]] == [
        "corrupt (rank-0/state.npy does not match its checksum); trying an older one"
    ] * 2
    assert "no usable checkpoint; starting from superstep 0" in text[2]
    assert res.stats.supersteps[0].superstep == 0


def test_a_checkpoint_without_manifest_is_incomplete(tmp_path):
    folder = tmp_path / "ck"
    with pytest.raises(RuntimeError):
        pagerank(GRAPH, threads=1, checkpoint=Checkpoints(folder, every=2, faults=Stop(7)))
    (folder / "superstep-00000006" / MANIFEST).unlink()
    assert [ss for ss, _, _ in complete_checkpoints(folder)] == [4]
    assert [line.split()[:2] for line in list_checkpoints(folder)] == [["superstep", "4"]]
    res = pagerank(GRAPH, threads=1, checkpoint=Checkpoints(folder, every=2, resume=True))
    assert res.stats.supersteps[0].superstep == 4


def test_manifest_lists_every_file_with_its_checksum(tmp_path):
    folder = tmp_path / "ck"
    pagerank(GRAPH, threads=2, iterations=4, checkpoint=Checkpoints(folder, every=2, keep=5))
    m = json.loads((folder / "superstep-00000004" / MANIFEST).read_text())
    assert m["superstep"] == 4 and m["fingerprint"]["program"] == "pagerank"
    on_disk = {str(p.relative_to(folder / "superstep-00000004")) for p in
               (folder / "superstep-00000004").rglob("*.npy")}  # fmt: skip
    assert set(m["files"]) == on_disk
    assert all(len(f["sha256"]) == 64 and f["bytes"] > 0 for f in m["files"].values())


def test_another_jobs_checkpoints_are_refused_and_kept(tmp_path):
    folder = tmp_path / "ck"
    pagerank(GRAPH, threads=2, iterations=4, checkpoint=Checkpoints(folder, every=2))
    before = sorted(p.name for p in folder.iterdir())
    with pytest.raises(InvalidArgumentError, match="another job .*params"):
        pagerank(GRAPH, threads=2, damping=0.8, checkpoint=Checkpoints(folder, resume=True))
    with pytest.raises(InvalidArgumentError, match="another job .*(graph|edges)"):
        pagerank(kronecker(11, seed=4), threads=2, iterations=4, checkpoint=Checkpoints(folder))
    with pytest.raises(InvalidArgumentError, match="another job .*parts"):
        pagerank(GRAPH, threads=1, iterations=4, checkpoint=Checkpoints(folder, resume=True))
    assert sorted(p.name for p in folder.iterdir()) == before


def test_resume_from_a_missing_folder_is_an_error(tmp_path):
    with pytest.raises(InvalidArgumentError, match="no such checkpoint folder"):
        pagerank(GRAPH, checkpoint=Checkpoints(tmp_path / "none", resume=True))


@pytest.mark.parametrize("bad", [{"every": 0}, {"keep": 0}, {"every": 1.5}])
def test_bad_options(bad):
    with pytest.raises(InvalidArgumentError):
        Checkpoints("x", **bad)


def test_drain_copies_complete_checkpoints_and_resumes_alone(tmp_path):
    fast, slow = tmp_path / "shm", tmp_path / "disk"
    fn, col, graph, kw, _ = CASES["pagerank"]
    with pytest.raises(RuntimeError):
        fn(graph, threads=2, checkpoint=Checkpoints(fast, every=2, drain=slow, faults=Stop(9)))
    assert [ss for ss, _, _ in complete_checkpoints(slow)] == [6, 8]
    assert [ss for ss, _, _ in complete_checkpoints(fast)] == [6, 8]
    shutil.rmtree(fast)  # the node's RAM is gone: the durable copy is enough
    res = fn(graph, threads=2, checkpoint=Checkpoints(fast, drain=slow, every=2, resume=True))
    assert res.stats.supersteps[0].superstep == 8
    assert res[col].tobytes() == fn(graph, threads=2, **kw)[col].tobytes()


@pytest.mark.parametrize("kind", ["disk-full", "unavailable"])
def test_a_failed_write_is_reported_and_the_job_goes_on(kind, tmp_path):
    folder = tmp_path / "ck"
    faults = Injector([Fault(kind, superstep=4)])
    with pytest.warns(CheckpointWarning, match="superstep 4 not written .*injected"):
        res = pagerank(GRAPH, threads=2, checkpoint=Checkpoints(folder, every=2, keep=9,
                                                                faults=faults))  # fmt: skip
    assert 4 not in [ss for ss, _, _ in complete_checkpoints(folder)]
    assert not (folder / "superstep-00000004").exists()
    assert res["rank"].tobytes() == pagerank(GRAPH, threads=2)["rank"].tobytes()


def test_cli_checkpoint_list_and_resume(tmp_path):
    folder = tmp_path / "ck"
    ok("run", "pagerank", "kronecker:9", "--iterations", "6", "--checkpoint", folder,
       "--checkpoint-every", "2", "--checkpoint-keep", "3")  # fmt: skip
    lines = ok("checkpoint", "list", folder).stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [["superstep", s] for s in ("2", "4", "6")]
    r = ok(
        "run", "pagerank", "kronecker:9", "--iterations", "6", "--checkpoint", folder, "--resume"
    )
    assert re.search(rf"resumed +from superstep 6 \({folder / 'superstep-00000006'}\)", r.stdout)
    empty = tmp_path / "empty"
    empty.mkdir()
    r = ok("run", "pagerank", "kronecker:9", "--checkpoint", empty, "--resume")
    assert re.search(
        rf"resumed +no usable checkpoint in {empty}: started from superstep 0", r.stdout
    )
    assert "resumed" not in ok("run", "pagerank", "kronecker:9", "--checkpoint", empty).stdout
    line = one_line_error(invoke("run", "pagerank", "kronecker:9", "--checkpoint", folder,
                                 "--resume", "--damping", "0.5"), 2)  # fmt: skip
    assert "a checkpoint of another job" in line
    line = one_line_error(invoke("checkpoint", "list", tmp_path / "missing"), 2)
    assert "no such checkpoint folder" in line
    line = one_line_error(invoke("run", "pagerank", "kronecker:9", "--resume"), 2)
    assert "--resume needs --checkpoint" in line
    line = one_line_error(invoke("run", "lcc", "kronecker:9", "--checkpoint", folder), 2)
    assert "checkpoints apply to" in line
