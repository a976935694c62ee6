"""NetworkX's ``forceatlas2_layout`` through the hpgraph backend against NetworkX itself,
same seed, on seeded graphs (undirected, directed, weighted, string labels, a
multigraph, self-loops, isolated vertices) and every option: NetworkX's return type (a
dict of numpy arrays of NetworkX's dtype, keys in vertex order) and positions within
1e-4 of the layout's extent (float32 starts agree bit for bit here; the kernel sums
each vertex's forces in another order than NetworkX's ``einsum``, so that is not
promised); the arguments it cannot follow fall back; NetworkX's own layout tests that
call it pass with the backend."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from conftest import SEED
from hpgraph.nxbackend.interface import can_run
from test_nxbackend import _quiet_cache_note, run_networkx_tests  # noqa: F401 (autouse fixture)

HP = "hpgraph"
#: largest position difference allowed, relative to the layout's extent
TOL = 1e-4


def _strings(G, seed):
    rng = random.Random(seed)
    nodes = list(G)
    rng.shuffle(nodes)
    H = nx.Graph()
    H.add_nodes_from(f"v{u}" for u in nodes)
    H.add_edges_from((f"v{u}", f"v{v}", d) for u, v, d in G.edges(data=True))
    return H


def _graphs():
    s = SEED
    loops = nx.gnm_random_graph(60, 150, seed=s)
    loops.add_edges_from([(1, 1), (2, 2)])
    loops.add_nodes_from([60, 61])
    multi = nx.MultiGraph(nx.gnm_random_graph(50, 120, seed=s + 1))
    multi.add_edges_from([(1, 2), (1, 2), (3, 3)])
    weighted = nx.karate_club_graph()  # integer weights
    return {
        "karate": weighted,
        "directed": nx.gnm_random_graph(80, 240, seed=s + 2, directed=True),
        "self_loops_isolated": loops,
        "multigraph": multi,
        "strings": _strings(nx.les_miserables_graph(), s),
        "single": nx.empty_graph(1),
    }


GRAPHS = _graphs()


def _close(got, ref):
    assert type(got) is dict
    assert list(got) == list(ref)
    for v, p in ref.items():
        assert type(got[v]) is np.ndarray
        assert got[v].dtype == p.dtype and got[v].shape == p.shape
    a = np.array(list(ref.values()), dtype=np.float64)
    b = np.array(list(got.values()), dtype=np.float64)
    extent = max(float(np.ptp(a, axis=0).max()), 1.0)
    assert np.abs(a - b).max() <= TOL * extent


def _both(G, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NetworkX's own 0/0 in linlog
        ref = nx.forceatlas2_layout(G, **kwargs)
    return nx.forceatlas2_layout(G, backend=HP, **kwargs), ref


@pytest.mark.parametrize("name", list(GRAPHS))
def test_forceatlas2_same_seed_same_layout(name):
    _close(*_both(GRAPHS[name], seed=SEED % 1000))


@pytest.mark.parametrize(
    "options",
    [
        {"weight": "weight"},
        {"linlog": True},
        {"strong_gravity": True, "gravity": 0.5},
        {"distributed_action": True},
        {"dim": 3},
        {"dim": 1},
        {"max_iter": 7, "jitter_tolerance": 0.5, "scaling_ratio": 3.0},
    ],
    ids=str,
)
def test_forceatlas2_options(options):
    _close(*_both(GRAPHS["karate"], seed=SEED % 1000 + 1, **options))


def test_forceatlas2_node_mass_and_size():
    G = GRAPHS["karate"]
    mass = {v: 1 + v % 4 for v in G}
    size = {v: 0.01 * (1 + v % 3) for v in G}
    _close(*_both(G, seed=2, node_mass=mass))
    _close(*_both(G, seed=2, node_size=size))
    _close(*_both(G, seed=2, node_size=size, node_mass=mass, linlog=True))


def test_forceatlas2_given_positions():
    G = GRAPHS["karate"]
    full = nx.circular_layout(G)  # float64: NetworkX keeps it float64
    _close(*_both(G, pos=full))
    partial = {0: np.array([0.0, 0.0]), 5: np.array([1.0, 2.0])}
    _close(*_both(G, pos=partial, seed=3))  # the others drawn inside their box
    rng = random.Random(SEED)
    lists = {v: [rng.random(), rng.random()] for v in G}  # Python floats: float64
    _close(*_both(G, pos=lists))


def test_forceatlas2_float32_positions_with_linlog_run_here():
    G = GRAPHS["karate"]
    start = nx.random_layout(G, seed=4)  # float32
    got, ref = _both(G, pos=start, linlog=True)
    _close(got, ref)
    with pytest.raises(NotImplementedError):  # float64 with linlog: refused by name
        nx.forceatlas2_layout(G, pos=nx.circular_layout(G), linlog=True, backend=HP)


def test_forceatlas2_seed_objects_advance_as_networkx():
    G = GRAPHS["karate"]
    ref_rng, rng = np.random.RandomState(SEED % 2**32), np.random.RandomState(SEED % 2**32)
    _close(nx.forceatlas2_layout(G, seed=rng, backend=HP), nx.forceatlas2_layout(G, seed=ref_rng))
    assert rng.rand() == ref_rng.rand()


def test_forceatlas2_empty():
    assert nx.forceatlas2_layout(nx.Graph(), backend=HP) == {}


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"store_pos_as": "pos"}, "store_pos_as"),
        ({"dim": 4}, "dim"),
        ({"weight": len}, "callable"),
        ({"linlog": True, "pos": {0: np.array([0.0, 1.0])}}, "linlog"),
    ],
)
def test_forceatlas2_falls_back(kwargs, reason, monkeypatch):
    G = GRAPHS["karate"].copy()
    assert reason in can_run("forceatlas2_layout", (G,), kwargs)
    warnings.simplefilter("ignore", RuntimeWarning)  # NetworkX's own 0/0 in linlog
    ref = nx.forceatlas2_layout(G.copy(), seed=1, **kwargs)
    monkeypatch.setattr(nx.config.backend_priority, "algos", [HP])
    got = nx.forceatlas2_layout(G, seed=1, **kwargs)
    for v in ref:
        assert np.array_equal(got[v], ref[v], equal_nan=True)
    assert not G.__networkx_cache__.get("backends", {}).get(HP)


#: NetworkX's layout tests that call forceatlas2_layout (the others run its own layouts)
NX_LAYOUT_TESTS = "smoke or empty_graph or forceatlas2 or node_at_center or only_some_pos or dim"


def test_networkx_own_layout_tests_pass_with_the_backend(tmp_path):
    module = Path(nx.__file__).parent / "drawing" / "tests" / "test_layout.py"
    run_networkx_tests(tmp_path, str(module), "-k", NX_LAYOUT_TESTS)
