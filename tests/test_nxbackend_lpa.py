"""NetworkX's label propagations through the hpgraph backend: the same communities,
sets in the same order holding their vertices in the same order, the same return types,
and for ``asyn_lpa_communities`` the caller's ``random.Random`` left in NetworkX's state,
on seeded graphs (undirected, directed, weighted with floats and with ints, string labels
in a shuffled order, self-loops, isolated vertices, a multigraph, empty); the NumPy seeds
it cannot follow fall back to NetworkX; the Mersenne Twister kernel against Python's."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from conftest import SEED
from hpgraph.nxbackend import _mt19937 as mt
from hpgraph.nxbackend.interface import can_run
from test_nxbackend import _quiet_cache_note, _strings_shuffled  # noqa: F401 (an autouse fixture)

HP = "hpgraph"
lpa = nx.community.label_propagation_communities
asyn = nx.community.asyn_lpa_communities


def _weighted(G, seed, values):
    rng = random.Random(seed)
    for u, v in G.edges():
        G[u][v]["weight"] = rng.choice(values)  # few values: many ties
    return G


def _graphs():
    s = SEED
    loops = nx.gnm_random_graph(200, 600, seed=s)
    loops.add_edges_from([(3, 3), (10, 10)])
    loops.add_nodes_from(["iso", "lated"])
    multi = nx.MultiGraph(nx.gnm_random_graph(100, 300, seed=s + 1))
    multi.add_edges_from([(1, 2), (1, 2), (5, 5), (5, 5)])
    planted = nx.planted_partition_graph(5, 30, 0.3, 0.02, seed=s + 2)
    return {
        "karate": nx.karate_club_graph(),  # weighted
        "les_miserables": nx.les_miserables_graph(),
        "self_loops": loops,
        "directed": nx.gnm_random_graph(150, 500, seed=s + 3, directed=True),
        "multigraph": multi,
        "weighted": _weighted(nx.gnm_random_graph(120, 400, seed=s + 4), s, [0.5, 1.5, 2.0]),
        "weighted_int": _weighted(nx.gnm_random_graph(120, 400, seed=s + 5), s, [1, 2, 3]),
        "strings": _strings_shuffled(planted, s, loops=0),
        "edgeless": nx.empty_graph(5),
        "empty": nx.Graph(),
    }


GRAPHS = _graphs()
UNDIRECTED = [k for k, G in GRAPHS.items() if not G.is_directed()]


def _exactly(got, ref):
    """The same sets in the same order, each iterating its vertices in the same order."""
    assert got == ref
    assert [list(c) for c in got] == [list(c) for c in ref]


@pytest.mark.parametrize("name", UNDIRECTED)
def test_label_propagation_communities(name):
    G = GRAPHS[name]
    ref = lpa(G)
    got = lpa(G, backend=HP)
    assert type(got) is type(ref)  # dict_values
    _exactly(list(got), list(ref))


def test_label_propagation_directed_raises_as_networkx():
    with pytest.raises(nx.NetworkXNotImplemented):
        lpa(GRAPHS["directed"], backend=HP)


#: weighted multigraphs fall back to NetworkX (test_asyn_lpa_falls_back)
_ASYN_CASES = [
    (name, weight)
    for name in GRAPHS
    for weight in (None, "weight")
    if not (weight and GRAPHS[name].is_multigraph())
]


@pytest.mark.parametrize("name, weight", _ASYN_CASES)
@pytest.mark.parametrize("seed", [0, 7, 12345])
def test_asyn_lpa_same_seed_same_communities(name, weight, seed):
    G = GRAPHS[name]
    ref_rng, rng = random.Random(seed), random.Random(seed)
    ref = asyn(G, weight=weight, seed=ref_rng)
    got = asyn(G, weight=weight, seed=rng, backend=HP)
    assert type(got) is type(ref)  # a generator
    _exactly(list(got), list(ref))
    assert rng.getstate() == ref_rng.getstate()  # a shared generator stays in step


def test_asyn_lpa_int_and_global_seeds():
    G = GRAPHS["weighted"]
    _exactly(list(asyn(G, seed=3, backend=HP)), list(asyn(G, seed=3)))
    random.seed(SEED)
    ref = list(asyn(G))
    after = random.random()
    random.seed(SEED)
    _exactly(list(asyn(G, backend=HP)), ref)
    assert random.random() == after


@pytest.mark.parametrize(
    ("seed", "weight", "graph"),
    [
        (np.random.default_rng(1), None, "weighted"),
        (np.random.RandomState(1), None, "weighted"),
        (1, "weight", "multigraph"),
        (1, lambda u, v, d: 1, "weighted"),
    ],
)
def test_asyn_lpa_falls_back(seed, weight, graph, monkeypatch):
    G = GRAPHS[graph].copy()
    args = (G,)
    kwargs = {"weight": weight, "seed": nx.utils.create_py_random_state(seed)}
    assert isinstance(can_run("asyn_lpa_communities", args, kwargs), str)
    monkeypatch.setattr(nx.config.backend_priority, "algos", [HP])
    assert len(list(asyn(G, weight=weight, seed=seed))) >= 1  # NetworkX answers
    assert not G.__networkx_cache__.get("backends", {}).get(HP)


def test_asyn_lpa_non_finite_weight_goes_back_to_networkx(monkeypatch):
    G = GRAPHS["weighted"].copy()
    G[0][next(iter(G[0]))]["weight"] = float("inf")
    ref = list(asyn(G, weight="weight", seed=5))
    monkeypatch.setattr(nx.config.backend_priority, "algos", [HP])
    assert list(asyn(G, weight="weight", seed=5)) == ref


def test_mersenne_twister_is_pythons():
    assert mt.matches_python()
    ref, rng = random.Random(SEED), random.Random(SEED)
    want = list(range(5000))
    ref.shuffle(want)
    state, extra = mt.load(rng)
    got = mt.shuffle_identity(state, 5000)
    mt.store(rng, state, extra)
    assert got.tolist() == want
    assert rng.getstate() == ref.getstate()
    assert rng.random() == ref.random()
