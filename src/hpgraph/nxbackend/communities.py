"""NetworkX's label propagation communities on the backend graph: the same labels as
NetworkX's code (kernels: :mod:`hpgraph.nxbackend._lpa`), returned as NetworkX returns
them (sets of vertices, grouped in vertex order; a ``dict_values`` from
``label_propagation_communities``, a generator from ``asyn_lpa_communities``).

``asyn_lpa_communities`` draws from the ``random.Random`` NetworkX's ``py_random_state``
made of ``seed`` and leaves it in the state NetworkX's own run would: the same seed gives
NetworkX's communities, and a generator shared with later calls stays in step.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from hpgraph.nxbackend import _lpa
from hpgraph.nxbackend import _mt19937 as mt
from hpgraph.nxbackend.graph import BackendGraph

__all__ = ["asyn_lpa_communities", "label_propagation_communities"]


def _groups(G: BackendGraph, label) -> dict:
    """``networkx.utils.groups``: label -> set of its vertices, labels in order of their
    first vertex, each set filled in vertex order."""
    out = {}
    for v, lab in zip(G.nodes, label.tolist(), strict=True):
        group = out.get(lab)
        if group is None:
            out[lab] = {v}
        else:
            group.add(v)
    return out


def label_propagation_communities(G):
    """Semi-synchronous label propagation over NetworkX's greedy colouring."""
    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    order = _lpa.colour_order(G.indptr, G.indices, G.degree())
    label = _lpa.semi_synchronous(G.indptr, G.indices, order)
    return _groups(G, label).values()


def _weights(G: BackendGraph, weight):
    if weight is None:
        return np.ones(G.indices.shape[0])
    ev = G.values(weight)
    if ev is None:
        raise NotImplementedError(f"edge attribute {weight!r} was not converted to hpgraph")
    if not np.all(np.isfinite(ev.total)):
        raise NotImplementedError("weights that are not finite: NetworkX's ties depend on order")
    return ev.total


def asyn_lpa_communities(G, weight=None, seed=None):
    """Asynchronous label propagation, in NetworkX's random order with its ties. The
    weights are checked now (a ``NotImplementedError`` must come from the call for
    NetworkX to fall back); the labels are drawn when the generator is first iterated,
    as NetworkX draws them."""
    return _asyn_lpa(G, _weights(G, weight), seed)


def _asyn_lpa(G, weight, seed):
    state, extra = mt.load(seed)
    label = _lpa.asynchronous(G.indptr, G.indices, weight, state)
    mt.store(seed, state, extra)
    yield from _groups(G, label).values()
