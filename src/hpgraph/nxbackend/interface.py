"""The object NetworkX loads through the ``networkx.backends`` entry point. Given a
dispatched call, it says whether hpgraph can run it (``can_run``: the arguments are ones
hpgraph answers exactly as NetworkX does) and whether it should (``should_run``: the
graph is big enough that converting it pays), converts graphs to and from NetworkX, and
runs the function (:mod:`hpgraph.nxbackend.algorithms`).

NetworkX runs its own implementation when ``can_run`` or ``should_run`` says no (the
reason is in its debug log), so an argument hpgraph does not support never gives a
different answer. ``should_run`` is consulted only for automatic dispatch
(``nx.config.backend_priority``); ``backend="hpgraph"`` runs hpgraph whatever the size.
"""

from __future__ import annotations

import inspect
import numbers
import random

from hpgraph.nxbackend import _mt19937
from hpgraph.nxbackend import algorithms as _algorithms
from hpgraph.nxbackend._info import FUNCTIONS
from hpgraph.nxbackend.graph import BACKEND_NAME, BackendGraph, from_networkx, to_networkx

__all__ = ["BackendInterface", "can_run", "should_run", "SMALL_GRAPH", "TRAVERSAL", "COMPONENTS"]

#: Below this many vertices NetworkX is faster than converting the graph and running
#: hpgraph (measured: ``benchmarks/nxbackend_bench.py --crossover``, docs/networkx.md).
SMALL_GRAPH = {
    "default": 100,
    "pagerank": 20,
    "betweenness_centrality": 10,
    "edge_betweenness_centrality": 10,
    "all_pairs_shortest_path_length": 30,
    "clustering": 50,
    "average_clustering": 50,
    "transitivity": 50,
    "triangles": 200,
    "label_propagation_communities": 20,
    "asyn_lpa_communities": 25,
    "forceatlas2_layout": 5,
}
#: One traversal from one source costs NetworkX about what reading the graph costs
#: hpgraph: hpgraph's first call wins only on larger graphs (1.3x at 10k vertices of
#: degree 8, 2-3x at 65k vertices of degree 28).
TRAVERSAL = 10_000
#: Components also build a Python set per component, as NetworkX does: hpgraph's first
#: call wins later still (0.7x at 30k vertices of degree 8, 1.6x at 65k of degree 28).
COMPONENTS = 50_000
for _name in (
    "bfs_edges",
    "bfs_tree",
    "single_source_shortest_path_length",
    "single_source_dijkstra_path_length",
):
    SMALL_GRAPH[_name] = TRAVERSAL
for _name in (
    "connected_components",
    "number_connected_components",
    "weakly_connected_components",
    "number_weakly_connected_components",
):
    SMALL_GRAPH[_name] = COMPONENTS
del _name

_SIGNATURES = {name: inspect.signature(getattr(_algorithms, name)) for name in FUNCTIONS}


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _is_weight_name(w) -> bool:
    return w is None or (not callable(w) and _hashable(w))


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _sized(x) -> bool:
    try:
        len(x)
    except TypeError:
        return False
    return True


def _is_node(G, x) -> bool:
    try:
        return x in G
    except TypeError:
        return False


def _bfs_rule(a, G):
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported"
    if a["reverse"] and G.is_directed():
        return "reverse on a directed graph is not supported"
    return True


def _cutoff_rule(a, G):
    return a["cutoff"] is None or _is_number(a["cutoff"]) or "cutoff must be a number"


def _shortest_path_length_rule(a, G):
    weight, method = a["weight"], a["method"]
    if method not in ("dijkstra", "bellman-ford"):
        return "unknown method (NetworkX raises)"
    if not _is_weight_name(weight):
        return "a callable weight is not supported"
    if weight is not None and method != "dijkstra":
        return "only method='dijkstra' is supported with a weight"
    if a["source"] is None and a["target"] is not None and G.is_directed():
        return "a target without a source on a directed graph is not supported"
    return True


def _dijkstra_rule(a, G):
    if not _is_weight_name(a["weight"]):
        return "a callable weight is not supported"
    return _cutoff_rule(a, G)


def _betweenness_rule(a, G):
    if not _is_weight_name(a["weight"]):
        return "a callable weight is not supported"
    k = a["k"]
    if k is not None and not (isinstance(k, numbers.Integral) and not isinstance(k, bool)):
        return "k must be an int"
    if k is not None and k < 1:
        return "k must be at least 1"
    return True


def _edge_betweenness_rule(a, G):
    if G.is_multigraph():
        return "multigraphs are not supported"
    return _betweenness_rule(a, G)


def _undirected_unweighted(a, G):
    if G.is_directed():
        return "directed graphs are not supported"
    if a.get("weight") is not None:
        return "weighted clustering is not supported"
    return True


def _clustering_rule(a, G):
    ok = _undirected_unweighted(a, G)
    if ok is not True:
        return ok
    nodes = a["nodes"]
    return nodes is None or _is_node(G, nodes) or "a list of nodes is not supported"


def _triangles_rule(a, G):
    nodes = a["nodes"]
    return nodes is None or _is_node(G, nodes) or "a list of nodes is not supported"


def _average_clustering_rule(a, G):
    ok = _undirected_unweighted(a, G)
    if ok is not True:
        return ok
    return a["nodes"] is None or "nodes is not supported"


def _transitivity_rule(a, G):
    return not G.is_directed() or "directed graphs are not supported"


def _pagerank_rule(a, G):
    return _is_weight_name(a["weight"]) or "a callable weight is not supported"


def _asyn_lpa_rule(a, G):
    if type(a["seed"]) is not random.Random:
        return "only a seed NetworkX turns into a random.Random (an int, None, a Random)"
    if not _is_weight_name(a["weight"]):
        return "a callable weight is not supported"
    if a["weight"] is not None and G.is_multigraph():
        return "a weight on a multigraph is not supported (NetworkX sums parallel edges in turn)"
    if len(G) > _mt19937.MAX_BOUND:
        return "more vertices than one 32-bit random word can draw from"
    return _mt19937.matches_python() or "this Python's random differs from the kernel's"


def _forceatlas2_rule(a, G):
    if a["store_pos_as"] is not None:
        return "store_pos_as is not supported (it writes to the NetworkX graph)"
    pos = a["pos"]
    if pos is None and a["dim"] not in (1, 2, 3):
        return "only dim 1, 2 or 3 is supported"
    if a["linlog"] and pos is not None and _sized(pos) and len(pos) != len(G):
        return "linlog with positions for some nodes (float64 positions: see the docs)"
    return _is_weight_name(a["weight"]) or "a callable weight is not supported"


_RULES = {
    "pagerank": _pagerank_rule,
    "bfs_edges": _bfs_rule,
    "bfs_tree": _bfs_rule,
    "single_source_shortest_path_length": _cutoff_rule,
    "all_pairs_shortest_path_length": _cutoff_rule,
    "shortest_path_length": _shortest_path_length_rule,
    "single_source_dijkstra_path_length": _dijkstra_rule,
    "betweenness_centrality": _betweenness_rule,
    "edge_betweenness_centrality": _edge_betweenness_rule,
    "clustering": _clustering_rule,
    "triangles": _triangles_rule,
    "transitivity": _transitivity_rule,
    "average_clustering": _average_clustering_rule,
    "asyn_lpa_communities": _asyn_lpa_rule,
    "forceatlas2_layout": _forceatlas2_rule,
}


def _bind(name, args, kwargs):
    try:
        bound = _SIGNATURES[name].bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return bound.arguments


def can_run(name, args, kwargs):
    """True, or the reason (a str) why hpgraph cannot answer this call as NetworkX does."""
    if name not in _SIGNATURES:
        return f"{name} is not implemented by hpgraph"
    a = _bind(name, args, kwargs)
    if a is None:
        return "the arguments do not match the function (NetworkX raises TypeError)"
    G = a["G"]
    if not hasattr(G, "is_directed"):
        return "not a graph"
    rule = _RULES.get(name)
    return True if rule is None else rule(a, G)


def should_run(name, args, kwargs):
    """True, or the reason why NetworkX itself is faster for this call: a graph not yet
    converted with fewer vertices than :data:`SMALL_GRAPH` gives for the function (a
    single traversal needs :data:`TRAVERSAL`: there the conversion costs about what
    NetworkX's whole answer costs)."""
    G = args[0] if args else kwargs.get("G")
    if isinstance(G, BackendGraph):
        return True
    cache = getattr(G, "__networkx_cache__", None)
    if cache and cache.get("backends", {}).get(BACKEND_NAME):
        return True
    small = SMALL_GRAPH.get(name, SMALL_GRAPH["default"])
    if name == "shortest_path_length":
        a = _bind(name, args, kwargs) or {}
        if a.get("source") is not None or a.get("target") is not None:
            small = TRAVERSAL
    try:
        n = len(G)
    except TypeError:
        return True
    if n < small:
        return f"the graph is small ({n} < {small} nodes): NetworkX is faster"
    return True


def convert_from_nx(
    G,
    edge_attrs=None,
    node_attrs=None,
    preserve_edge_attrs=False,
    preserve_node_attrs=False,
    preserve_graph_attrs=False,
    name=None,
    graph_name=None,
):
    """NetworkX's graph as a :class:`BackendGraph` (edge attributes in ``edge_attrs``
    converted; node attributes are not read by any dispatched function)."""
    if isinstance(G, BackendGraph):
        return G
    return from_networkx(
        G,
        edge_attrs,
        preserve_edge_attrs=preserve_edge_attrs is True,
        preserve_graph_attrs=preserve_graph_attrs,
    )


def convert_to_nx(obj, *, name=None):
    """A :class:`BackendGraph` back as a NetworkX graph; anything else as it is."""
    if isinstance(obj, BackendGraph):
        return to_networkx(obj)
    return obj


class BackendInterface:
    """hpgraph's NetworkX backend: conversions, ``can_run``/``should_run`` and every
    dispatched function (listed in :data:`hpgraph.nxbackend._info.FUNCTIONS`)."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)


for _name in FUNCTIONS:
    setattr(BackendInterface, _name, staticmethod(getattr(_algorithms, _name)))
del _name
