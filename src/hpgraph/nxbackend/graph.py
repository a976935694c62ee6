"""The backend graph. Given a NetworkX graph, returns the same graph as CSR arrays
(:class:`BackendGraph`), and back.

A :class:`BackendGraph` keeps NetworkX's own orders, because NetworkX's answers depend on
them: vertices in ``list(G)`` order (internal id = position), and each row's neighbours in
``G._adj`` order (the order BFS and Dijkstra visit them, so the backend yields
``bfs_edges`` and fills result dicts in NetworkX's order). Parallel edges of a multigraph
are one CSR entry (NetworkX's traversals see ``G[u]`` keys once); their weights are kept
twice, summed (``to_scipy_sparse_array``, which PageRank reads) and the smallest
(``_weight_function``, which Dijkstra and betweenness read), and their number is kept
(PageRank without a weight counts parallel edges). An undirected edge is stored
in both rows and a self-loop once: exactly ``G._adj`` and exactly hpgraph's own storage.

hpgraph's kernels want rows sorted by target, so :meth:`BackendGraph.hp_graph` builds,
once per weight, an :class:`hpgraph.graph.Graph` with sorted rows and caches it on the
backend graph (NetworkX caches the backend graph on ``G.__networkx_cache__``).

Memory, n vertices and m stored entries: 8 B per vertex (indptr) + 4 B per entry
(int32 targets) in NetworkX order, the same again for each sorted hpgraph copy, and
16 B per entry for each converted weight (sum and smallest; one array when the graph is
not a multigraph).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, compress
from operator import methodcaller

import numpy as np

from hpgraph.graph import Graph, index_dtype
from hpgraph.graph.build import build_csr
from hpgraph.nxbackend import _kernels as K

__all__ = ["BackendGraph", "EdgeValues", "from_networkx", "to_networkx"]

BACKEND_NAME = "hpgraph"
#: Graphs with fewer stored edges run hpgraph's kernels on one thread.
SMALL_EDGES = 200_000


@dataclass(frozen=True)
class EdgeValues:
    """One edge attribute per CSR entry: ``total`` (parallel edges summed), ``least``
    (their smallest value; the same array as ``total`` on a simple graph), ``integral``
    (every value was a Python int or bool, so sums stay ints as in NetworkX)."""

    total: np.ndarray
    least: np.ndarray
    integral: bool


class BackendGraph:
    """A NetworkX graph as CSR arrays, in NetworkX's vertex and neighbour orders.

    ``nodes``: the vertices (``list(G)``); ``indptr``/``indices``: out-neighbours (for an
    undirected graph every neighbour) in ``G._adj`` order; ``edge_values``: converted edge
    attributes by ``(name, default)``; ``graph``: the graph attributes when preserved;
    ``multiplicity``: a multigraph's number of parallel edges per entry (else None).
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(
        self,
        nodes,
        indptr,
        indices,
        *,
        directed,
        multigraph,
        edge_values=None,
        graph=None,
        multiplicity=None,
    ):
        self.nodes = nodes
        self.indptr = indptr
        self.indices = indices
        self.directed = bool(directed)
        self.multigraph = bool(multigraph)
        self.edge_values = dict(edge_values or {})
        self.graph = dict(graph or {})
        self.multiplicity = multiplicity
        self.__networkx_cache__ = {}
        self._index = None
        self._hp = {}

    # ---------------------------------------------------------------- graph protocol
    @property
    def n(self) -> int:
        return len(self.nodes)

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node):
        try:
            return node in self.index
        except TypeError:
            return False

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def __repr__(self):
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"<hpgraph backend {kind}: {self.n} nodes, {self.indices.shape[0]} entries>"

    @property
    def index(self) -> dict:
        """Node -> internal id (built on first use)."""
        if self._index is None:
            self._index = dict(zip(self.nodes, range(len(self.nodes)), strict=True))
        return self._index

    def node_index(self, node) -> int:
        """Internal id of ``node``; ``KeyError`` when it is not a vertex (or unhashable)."""
        try:
            return self.index[node]
        except TypeError:
            raise KeyError(node) from None

    @property
    def threads(self):
        """Threads for hpgraph's kernels: one on a small graph, where starting threads
        costs more than they save; else hpgraph's default."""
        return 1 if self.indices.shape[0] < SMALL_EDGES else None

    def degree(self) -> np.ndarray:
        """``G.degree`` of every vertex (int64): parallel edges each, a self-loop twice, in
        plus out when directed."""
        m = self.indices.shape[0]
        mult = self.multiplicity if self.multiplicity is not None else np.ones(m, np.int64)
        rows = np.repeat(np.arange(self.n), np.diff(self.indptr))
        out = np.bincount(rows, weights=mult, minlength=self.n)
        if self.directed:
            out += np.bincount(self.indices, weights=mult, minlength=self.n)
        else:
            loops = self.indices == rows
            out += np.bincount(rows[loops], weights=mult[loops], minlength=self.n)
        return out.astype(np.int64)

    def values(self, weight, default=1):
        """The :class:`EdgeValues` of attribute ``weight`` (converted with ``default``)."""
        return self.edge_values.get((weight, default))

    # ---------------------------------------------------------------- hpgraph graphs
    def hp_graph(self, weight=None, *, how="least", default=1) -> Graph:
        """This graph as an :class:`hpgraph.graph.Graph` (rows sorted by target, internal
        ids = positions in ``nodes``), weighted by attribute ``weight`` (parallel edges
        combined by ``how``: ``"least"`` or ``"total"``); built once and cached."""
        key = (weight, default, how) if weight is not None else None
        if key not in self._hp:
            n = self.n
            w = None
            if weight is not None:
                ev = self.values(weight, default)
                if ev is None:
                    raise KeyError(f"edge attribute {weight!r} was not converted")
                w = ev.least if how == "least" else ev.total
                w = np.asarray(w, dtype=np.float64)
            src = np.repeat(np.arange(n, dtype=self.indices.dtype), np.diff(self.indptr))
            ip, ix, ww = build_csr(
                src, self.indices, w, n, self.indices.dtype, undirected=False, threads=self.threads
            )
            del src
            self._hp[key] = Graph(ip, ix, ww, directed=self.directed)
        return self._hp[key]


def _edge_attr_names(adj_rows, multigraph):
    names = set()
    for nbrs in adj_rows:
        for d in nbrs.values():
            if multigraph:
                for dd in d.values():
                    names.update(dd)
            else:
                names.update(d)
    return names


def _as_numbers(values, what):
    """float64 array and whether every value was an int (or bool)."""
    arr = np.array(values)
    if arr.dtype.kind == "b":
        return arr.astype(np.float64), True
    if arr.dtype.kind in "iu":
        return arr.astype(np.float64), bool(np.abs(arr).max(initial=0) < 2**53)
    if arr.dtype.kind == "f":
        return arr.astype(np.float64, copy=False), False
    raise NotImplementedError(f"edge attribute {what!r} holds values that are not numbers")


def _convert_values(adj_rows, name, default, multigraph, m, csr=None):
    """EdgeValues of attribute ``name``; ``csr`` = (indptr, indices) of an undirected
    simple graph with integer-range ids: read each edge's dict once, from its smaller end."""
    if not multigraph:
        get = methodcaller("get", name, default)
        dicts = chain.from_iterable(map(methodcaller("values"), adj_rows))
        if csr is None or not m:
            vals = list(map(get, dicts))
            total, integral = _as_numbers(vals, name) if m else (np.zeros(0), True)
            return EdgeValues(total, total, integral)
        upper = K.upper_entries(*csr)
        keep = np.zeros(m, dtype=bool)
        keep[upper] = True
        vals = list(map(get, compress(dicts, keep.tolist())))
        half, integral = _as_numbers(vals, name)
        total = np.empty(m)
        total[upper] = half
        K.mirror_values(csr[0], csr[1], total)
        return EdgeValues(total, total, integral)
    sums, mins = [], []
    for nbrs in adj_rows:
        for keydict in nbrs.values():
            vs = [d.get(name, default) for d in keydict.values()]
            sums.append(sum(vs))
            mins.append(min(vs))
    if not m:
        return EdgeValues(np.zeros(0), np.zeros(0), True)
    total, int_t = _as_numbers(sums, name)
    least, int_l = _as_numbers(mins, name)
    return EdgeValues(total, least, int_t and int_l)


def from_networkx(G, edge_attrs=None, *, preserve_edge_attrs=False, preserve_graph_attrs=False):
    """A :class:`BackendGraph` of the NetworkX graph ``G``.

    ``edge_attrs``: ``{name: default}`` of the edge attributes to convert (a name alone
    means default 1); ``preserve_edge_attrs``: convert every attribute found. Raises
    ``NotImplementedError`` (NetworkX's signal to fall back) when an attribute holds
    values that are not numbers.
    """
    nodes = list(G)
    n = len(nodes)
    adj = G._adj
    rows = [adj[u] for u in nodes]
    if type(adj) is not dict:  # a view: its filtered rows' len() can disagree with iteration
        if G.is_multigraph():
            rows = [{v: dict(keys) for v, keys in row.items()} for row in rows]
        else:
            rows = [dict(row) for row in rows]
    degree = np.fromiter(map(len, rows), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    m = int(indptr[-1])
    idt = index_dtype(n)
    targets = chain.from_iterable(rows)
    if _is_range(nodes):
        indices = np.fromiter(targets, dtype=idt, count=m)
    else:
        index = dict(zip(nodes, range(n), strict=True))
        indices = np.fromiter(map(index.__getitem__, targets), dtype=idt, count=m)
    multigraph = G.is_multigraph()
    if preserve_edge_attrs:
        edge_attrs = dict.fromkeys(_edge_attr_names(rows, multigraph))
    elif isinstance(edge_attrs, str):
        edge_attrs = {edge_attrs: 1}
    values = {}
    csr = None if G.is_directed() or multigraph else (indptr, indices)
    for name, default in (edge_attrs or {}).items():
        default = 1 if default is None else default
        try:
            values[(name, default)] = _convert_values(rows, name, default, multigraph, m, csr)
        except NotImplementedError:
            if not preserve_edge_attrs:
                raise  # asked for by name: NetworkX falls back
            # keeping every attribute: one that is not numeric is left out
    mult = None
    if multigraph:
        mult = np.fromiter(
            map(len, chain.from_iterable(map(methodcaller("values"), rows))), np.int64, m
        )
    bg = BackendGraph(
        nodes,
        indptr,
        indices,
        directed=G.is_directed(),
        multigraph=multigraph,
        edge_values=values,
        graph=G.graph if preserve_graph_attrs else None,
        multiplicity=mult,
    )
    if not _is_range(nodes):
        bg._index = index
    return bg


def _is_range(nodes) -> bool:
    """Whether the nodes are exactly the ints 0..n-1 in order (no mapping needed)."""
    if not nodes or type(nodes[0]) is not int or type(nodes[-1]) is not int:
        return not nodes
    if nodes[0] != 0 or nodes[-1] != len(nodes) - 1:
        return False
    return all(type(v) is int and v == i for i, v in enumerate(nodes))


def to_networkx(bg: BackendGraph):
    """The NetworkX graph of a :class:`BackendGraph`: its vertices and every row's
    neighbours in their order, with every converted edge attribute (a multigraph's
    parallel edges come back as one edge, key 0, holding the summed value)."""
    import networkx as nx

    cls = {
        (False, False): nx.Graph,
        (True, False): nx.DiGraph,
        (False, True): nx.MultiGraph,
        (True, True): nx.MultiDiGraph,
    }[(bg.directed, bg.multigraph)]
    G = cls()
    G.graph.update(bg.graph)
    G.add_nodes_from(bg.nodes)
    nodes = bg.nodes
    attrs = []
    for (name, _default), ev in bg.edge_values.items():
        vals = ev.total.tolist()
        if ev.integral:
            vals = [int(x) for x in vals]
        attrs.append((name, vals))
    adj = G._adj
    pred = G._pred if bg.directed else None
    shared = {}  # an undirected edge's data, made at its first row, shared by its second
    ip = bg.indptr.tolist()
    dst = bg.indices.tolist()
    for u in range(bg.n):
        nu = nodes[u]
        row = adj[nu]
        for k in range(ip[u], ip[u + 1]):
            v = dst[k]
            if bg.directed or v >= u:
                d = {name: vals[k] for name, vals in attrs}
                if bg.multigraph:
                    d = {0: d}
                if not bg.directed and v != u:
                    shared[(u, v)] = d
            else:
                d = shared.pop((v, u))
            row[nodes[v]] = d
            if pred is not None:
                pred[nodes[v]][nu] = d
    return G
