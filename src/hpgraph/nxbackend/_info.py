"""What NetworkX reads about the backend when it imports (the ``networkx.backend_info``
entry point): its name, project and the functions it runs, with the differences each
one has. Kept free of imports, since NetworkX calls :func:`get_info` while importing."""

from __future__ import annotations

__all__ = ["FUNCTIONS", "get_info"]

_FALLS_BACK = "Falls back to NetworkX"

#: dispatched function -> its note in NetworkX's documentation ("" when none)
FUNCTIONS = {
    "pagerank": "Weights of parallel edges are summed, as in NetworkX.",
    "bfs_edges": f"{_FALLS_BACK} for ``sort_neighbors`` and for ``reverse`` on a directed graph.",
    "bfs_tree": f"{_FALLS_BACK} for ``sort_neighbors`` and for ``reverse`` on a directed graph.",
    "single_source_shortest_path_length": "",
    "all_pairs_shortest_path_length": "",
    "shortest_path_length": (
        f"{_FALLS_BACK} for ``method='bellman-ford'`` with a weight, a callable weight, and "
        "a target without a source on a directed graph."
    ),
    "single_source_dijkstra_path_length": f"{_FALLS_BACK} for a callable weight.",
    "connected_components": "",
    "number_connected_components": "",
    "weakly_connected_components": "",
    "number_weakly_connected_components": "",
    "betweenness_centrality": (
        f"{_FALLS_BACK} for a callable weight; raises NotImplementedError (NetworkX then runs "
        "its own code) for weights that are not finite and positive."
    ),
    "edge_betweenness_centrality": (
        f"{_FALLS_BACK} on multigraphs and for a callable weight; weights as for "
        "``betweenness_centrality``."
    ),
    "clustering": f"{_FALLS_BACK} on directed graphs, with a weight, and for a list of nodes.",
    "triangles": f"{_FALLS_BACK} for a list of nodes.",
    "transitivity": f"{_FALLS_BACK} on directed graphs.",
    "average_clustering": f"{_FALLS_BACK} on directed graphs, with a weight, and for nodes.",
    "label_propagation_communities": "",
    "asyn_lpa_communities": (
        f"{_FALLS_BACK} for a NumPy ``seed`` (the same seed gives NetworkX's communities for "
        "an int, None or a ``random.Random``), a callable weight, and a weight on a multigraph."
    ),
    "forceatlas2_layout": (
        f"{_FALLS_BACK} for ``store_pos_as``, a callable weight, ``dim`` above 3, and "
        "float64 positions with ``linlog``. NetworkX's iteration with compiled forces summed "
        "in another order: float32 positions (the random start) agree bit for bit in the "
        "tests, float64 ones to about 1e-6 of the layout's extent."
    ),
}


def get_info():
    """The backend's ``backend_info`` dictionary for NetworkX."""
    return {
        "backend_name": "hpgraph",
        "project": "hpgraph",
        "package": "hpgraph",
        "short_summary": "Compiled (numba) parallel kernels of hpgraph behind NetworkX's API.",
        "functions": {
            name: ({"additional_docs": note} if note else {}) for name, note in FUNCTIONS.items()
        },
        "default_config": {},
    }
