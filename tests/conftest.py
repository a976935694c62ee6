"""Shared fixtures: seeded graphs of awkward shapes, converted to NetworkX for reference.

Every random input is seeded; the seed is in the test id so a failure replays.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hpgraph.graph import Graph

SEED = int(os.environ.get("HPGRAPH_TEST_SEED", "20261122"))


def _mpiexec():
    from hpgraph.errors import InvalidArgumentError
    from hpgraph.runtimes.mpi import mpiexec_path

    try:
        return mpiexec_path()
    except InvalidArgumentError:
        return None


#: The launcher the MPI tests use (None: they are skipped, with the reason).
MPIEXEC = _mpiexec()
NO_MPI = "no mpiexec: pip install 'hpgraph[mpi]' (the test extra has it)"
MPI_SCRIPTS = Path(__file__).parent / "mpi"


def run_mpi(ranks: int, script: str, *args, timeout: float = 600, env=None):
    """``mpiexec -n ranks python tests/mpi/<script> args...`` with this checkout's
    sources first on the path; the finished process (stdout, stderr, returncode)."""
    env = dict(os.environ, PYTHONPATH=str(MPI_SCRIPTS.parent.parent / "src"), **(env or {}))
    return subprocess.run(
        [MPIEXEC, "-n", str(ranks), sys.executable, str(MPI_SCRIPTS / script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def pytest_report_header(config):
    return f"hpgraph test seed: {SEED} (set HPGRAPH_TEST_SEED to replay another)"


def _random_edges(rng, n, m, loops=True):
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    if not loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
    return src, dst


def make_shape(shape: str, directed: bool, weighted: bool, seed: int = SEED) -> Graph:
    """Small graphs that catch the usual mistakes."""
    rng = np.random.default_rng(seed)
    if shape == "empty":
        n, src, dst = 0, np.zeros(0, np.int64), np.zeros(0, np.int64)
    elif shape == "single":
        n, src, dst = 1, np.zeros(0, np.int64), np.zeros(0, np.int64)
    elif shape == "single_loop":
        n, src, dst = 1, np.array([0]), np.array([0])
    elif shape == "path":
        n = 12
        src, dst = np.arange(n - 1), np.arange(1, n)
    elif shape == "star_isolated":  # a star plus isolated vertices
        n = 15
        src, dst = np.zeros(8, np.int64), np.arange(1, 9)
    elif shape == "multi_loops":  # duplicates and self-loops
        n = 30
        src, dst = _random_edges(rng, n, 90)
        src = np.concatenate([src, src[:20], np.arange(5)])
        dst = np.concatenate([dst, dst[:20], np.arange(5)])
    elif shape == "components":  # many small components and isolated vertices
        n = 200
        blocks = rng.integers(0, 25, n)
        src, dst = _random_edges(rng, n, 600)
        keep = blocks[src] == blocks[dst]
        src, dst = src[keep], dst[keep]
    elif shape == "random":
        n = 400
        src, dst = _random_edges(rng, n, 1600)
    elif shape == "dense":
        n = 60
        src, dst = _random_edges(rng, n, 1500)
    else:
        raise ValueError(shape)
    w = rng.random(src.shape[0]) + 0.05 if weighted else None
    return Graph.from_edges(src, dst, w, n=n, directed=directed, name=shape)


SHAPES = [
    "empty",
    "single",
    "single_loop",
    "path",
    "star_isolated",
    "multi_loops",
    "components",
    "random",
    "dense",
]

#: (shape, directed, weighted) for every shape; weights only where there are edges
SHAPE_CASES = [
    pytest.param(
        shape,
        directed,
        weighted,
        id=f"{shape}-{'dir' if directed else 'und'}{'-w' if weighted else ''}-seed{SEED}",
    )
    for shape in SHAPES
    for directed in (True, False)
    for weighted in (False, True)
    if not (weighted and shape in ("empty", "single"))
]


def to_networkx(g: Graph):
    import networkx as nx

    G = nx.MultiDiGraph() if g.directed else nx.MultiGraph()
    G.add_nodes_from(range(g.n))
    src, dst, w = g.edges()
    keep = np.ones(src.shape[0], bool) if g.directed else src <= dst
    src, dst = src[keep].tolist(), dst[keep].tolist()
    ws = [1.0] * len(src) if w is None else w[keep].tolist()
    G.add_weighted_edges_from(zip(src, dst, ws, strict=True))
    return G


@pytest.fixture(params=[1, 2, 3], ids=lambda t: f"threads{t}")
def threads(request):
    return request.param


# ---------------------------------------------------------------- io test fixtures
# (kept here, not in tests/io/conftest.py: two conftest modules both named ``conftest``
# make ``from conftest import ...`` pick whichever pytest loaded last; tests/io has no
# __init__.py, so that the folder name ``io`` never shadows the standard library)
def _edges(graph):
    """Sorted (user src, user dst[, weight]) tuples, an undirected edge once as (min, max)."""
    src, dst, w = graph.edges()
    ids = graph.user_ids()
    if not graph.directed:
        keep = src <= dst
        src, dst = src[keep], dst[keep]
        w = None if w is None else w[keep]
    us, ud = ids[src].tolist(), ids[dst].tolist()
    if not graph.directed:
        pairs = [(a, b) if _key(a) <= _key(b) else (b, a) for a, b in zip(us, ud, strict=True)]
        us, ud = [p[0] for p in pairs], [p[1] for p in pairs]
    if w is None:
        return sorted(zip(us, ud, strict=True), key=_tkey)
    return sorted(zip(us, ud, np.asarray(w).tolist(), strict=True), key=_tkey)


def _key(x):
    return (isinstance(x, str), x)


def _tkey(t):
    return tuple(_key(x) for x in t)


@pytest.fixture
def edges_of():
    """``edges_of(graph)``: the graph's edges in user ids, sorted, for comparisons."""
    return _edges


@pytest.fixture
def write(tmp_path):
    """``write(name, text)``: a file under tmp_path holding ``text`` (gzipped if .gz)."""
    import gzip

    def _write(name, text):
        p = tmp_path / name
        data = text.encode() if isinstance(text, str) else text
        if name.endswith(".gz"):
            data = gzip.compress(data)
        p.write_bytes(data)
        return p

    return _write


@pytest.fixture
def rng(request):
    seed = 12345
    print(f"seed={seed} ({request.node.name})")
    return np.random.default_rng(seed)
