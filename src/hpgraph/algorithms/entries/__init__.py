"""The entries of the algorithm registry (:mod:`hpgraph.algorithms.registry`), one module
per family: :mod:`.paths` (bfs, wcc, sssp, apsp), :mod:`.centrality` (pagerank,
betweenness, edge_betweenness), :mod:`.community` (lcc, cdlp, bmlpa), :mod:`.simulation`
(dual and strict simulation) and :mod:`.layout`; each entry beside its report and verifier
arguments. :mod:`.base` holds the declaration types (:class:`~.base.Algorithm`,
:class:`~.base.Param` ...). The registry lists the entries in the order the CLI shows.
"""

__all__ = ["base", "paths", "centrality", "community", "simulation", "layout"]
