"""Graph generators: the Graph500 Kronecker graph, uniform random graphs (the GAP
benchmarks' "kron" and "urand" inputs), Twitter-like mention graphs and mention data with
hashtags and planted topics, and small named graphs for tests.

All are deterministic for a seed and return a :class:`~hpgraph.graph.Graph` (undirected
unless ``directed=True``); the random ones keep the self-loops and parallel edges they
draw.
"""

from hpgraph.generators.kronecker import (
    kronecker,
    kronecker_edges,
    uniform_random,
    uniform_random_edges,
)
from hpgraph.generators.mention import (
    MentionTweets,
    PlantedTopics,
    mention_data,
    mention_edges,
    mention_graph,
    mention_tweets,
)
from hpgraph.generators.small import (
    complete_graph,
    cycle_graph,
    empty_graph,
    grid_2d,
    path_graph,
    star_graph,
)

__all__ = [
    "kronecker",
    "kronecker_edges",
    "uniform_random",
    "uniform_random_edges",
    "mention_edges",
    "mention_graph",
    "mention_tweets",
    "mention_data",
    "MentionTweets",
    "PlantedTopics",
    "path_graph",
    "cycle_graph",
    "star_graph",
    "grid_2d",
    "complete_graph",
    "empty_graph",
]
