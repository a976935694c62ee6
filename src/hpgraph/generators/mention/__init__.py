"""Mention-like graphs (the seed paper's Twitter input) and LFR benchmark graphs.

:func:`mention_graph` returns a seeded directed graph with ``n`` vertices and exactly ``m``
edges shaped like a Twitter mention graph (user i -> user j when i mentioned j): a
**core** of ``core_fraction * n`` users where every user mentions someone and the other
edges pick senders and targets by Zipf weights (``rank ** -sender_exponent`` and
``rank ** -hub_exponent`` over independent random rankings), so in-degrees are heavy
tailed and the top target is a hub with a few percent of all edges; and, on the other
vertices, many **small stars** (a centre and 1 + Geometric(0.25) leaves, each edge in a
random direction) and **chains** (2 + Geometric(0.35) users, each mentioning the next).
A share ``attach`` of the stars and chains also mentions a core user picked by the hub
weights, so they hang off the giant component instead of floating alone. Vertex ids are
permuted at random. Self-loops are avoided; repeated mentions (parallel edges) are kept.

Defaults for ``n = 8M, m = 10M``: 3.2M core users with about 5.9M edges (largest
in-degree about 400k), 480k stars and 490k chains with about 3.8M edges, 290k attaching
edges. Memory: the edge list (int32, 8 B per edge) and per-vertex weights (8 B per core
vertex) while the CSR is built; about 1.5 s for 10M edges on 2 cores.

:func:`mention_tweets` adds what the seed's pipeline reads from tweets: hashtags and
planted **topics**. On the same layout (core, stars, chains, attaching mentions), every
core user belongs to a topic drawn by Zipf weights (a share ``overlap`` to two or three),
every star and chain to one. A core user's mentions each pick one of its topics and go
to that topic's hubs (the hub weights restricted to its members), or with probability
``mixing`` (default 10%) to any hub; so topic users mention each other far more than
chance, while hubs stay heavy and the degree-1 share stays near 53%. (With 30% mixing
the global hubs join the topics so strongly that label propagation floods the whole
core with one label.) Hashtags have Zipf popularity by id
(``tag000...`` is the most used) and each belongs to one topic; a share ``tagged`` of
the mentions (default 30%: most tweets carry none) carries Geometric(0.65) hashtags
(mean 1.5, repeats counted once), each from the mention's topic or, with probability
``general`` (default 5%), from all hashtags. Sampling uses alias tables (O(1) a draw) in compiled
loops: 8M users and 10M mentions take about as long as :func:`mention_edges`
(docs/mentions.md has the numbers). :func:`mention_data` wraps the arrays as
:class:`~hpgraph.io.mentions.Mentions` with the planted truth (:class:`PlantedTopics`).

:func:`lfr_graph` wraps NetworKit's LFR generator (Lancichinetti, Fortunato, Radicchi
2008; non-overlapping communities) for the BMLPA evaluation.

Modules: :mod:`.edges` (the mention graph), :mod:`._shape` (the core, stars and chains
both generators lay out), :mod:`.tweets` (mentions with topics), :mod:`.planted` (the
topics' memberships and truth), :mod:`.hashtags`, :mod:`._alias` (alias-table sampling)
and :mod:`.lfr`.
"""

from hpgraph.generators.mention.edges import mention_edges, mention_graph
from hpgraph.generators.mention.lfr import lfr_graph
from hpgraph.generators.mention.planted import PlantedTopics
from hpgraph.generators.mention.tweets import MentionTweets, mention_data, mention_tweets

__all__ = [
    "mention_graph",
    "mention_edges",
    "mention_tweets",
    "mention_data",
    "MentionTweets",
    "PlantedTopics",
    "lfr_graph",
]
