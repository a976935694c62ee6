"""The competitors with graph objects of their own: NetworKit, igraph and NetworkX.

NetworKit and igraph get the multigraph as stored; NetworkX gets a simple graph
(``nx.Graph``). NetworKit's PageRank redistributes dangling (sink) vertices' rank only on
directed graphs, so for PageRank it gets a directed graph holding both directions of
every edge. igraph (PRPACK) and NetworkX compute PageRank to convergence, not for a fixed
number of iterations, so theirs is compared for information only. NetworKit gets
hpgraph's thread count; igraph and NetworkX are single-threaded (but igraph's PRPACK uses
OpenMP: ``OMP_NUM_THREADS``). igraph caches graph properties (e.g. connectedness) in the
graph object, which would let a repeated call return at once; its timed calls clear that
cache first.

CDLP, LCC and betweenness run on the simple graph (hpgraph's view for them). Their label
propagation (NetworKit's PLP, igraph's, NetworkX's semi-synchronous) updates vertices
asynchronously or in random order, not Graphalytics' synchronous smallest-label rule, so
CDLP is compared for information only; NetworKit's PLP stops after hpgraph's 10
iterations at most. Betweenness is exact Brandes everywhere, in NetworkX's scaling
(igraph's unnormalised values scaled after the timed call).
"""

from __future__ import annotations

import numpy as np

from hpgraph.bench._convert import undirected_edges
from hpgraph.bench.competitors.base import (
    Competitor,
    Prepared,
    cdlp_iterations,
    undirected_only,
)

__all__ = ["NetworKitCompetitor", "IGraphCompetitor", "NetworkXCompetitor"]


# ------------------------------------------------------------------- NetworKit
class NetworKitCompetitor(Competitor):
    name = "networkit"
    module = "networkit"

    def set_threads(self, threads):
        self.mod.setNumberOfThreads(int(threads))
        return f"{self.mod.getMaxNumberOfThreads()} threads (setNumberOfThreads)"

    def _graph(self, forms, ip, ix, vals, weighted, directed):
        src, dst, w = undirected_edges(ip, ix, vals, directed=directed)
        g = self.mod.Graph(forms.n, weighted, directed)
        data = (src.astype(np.uint64), dst.astype(np.uint64))
        g.addEdges((w.astype(np.float64), data) if weighted else data)
        return g

    def load(self, forms):
        gr = forms.graph
        self.g = self._graph(forms, gr.indptr, gr.indices, None, False, forms.directed)

    def k_pagerank(self, forms, params):
        nk = self.mod
        gr = forms.graph
        # sinks are redistributed only on directed graphs: give it both directions
        g = (
            self.g
            if forms.directed
            else self._graph(forms, gr.indptr, gr.indices, None, False, True)
        )
        d, iters = params["damping"], params["iterations"]

        def run(_root):
            pr = nk.centrality.PageRank(
                g, damp=d, tol=1e-300, distributeSinks=nk.centrality.SinkHandling.DistributeSinks
            )
            pr.maxIterations = iters
            pr.run()
            return pr

        note = "fixed iterations" + ("" if forms.directed else ", directed copy")
        return Prepared(run, lambda pr: np.asarray(pr.scores()), note)

    @staticmethod
    def _single_source(algo, g, unreached, fill, dtype, note):
        """A single-source kernel (``algo``: BFS or Dijkstra) on ``g``: its distances, with
        ``fill`` where it reports more than ``unreached`` (its stand-in for infinity)."""

        def run(root):
            a = algo(g, int(root), storePaths=False)
            a.run()
            return a

        def result(a):
            d = np.asarray(a.getDistances())
            return np.where(d > unreached, fill, d).astype(dtype)

        return Prepared(run, result, note)

    def k_bfs(self, forms, params):
        bfs = self.mod.distance.BFS
        return self._single_source(bfs, self.g, forms.n, -1, np.int64, "BFS")

    def k_wcc(self, forms, params):
        nk = self.mod
        g = self.g
        algo = nk.components.WeaklyConnectedComponents if forms.directed else None
        algo = algo or nk.components.ConnectedComponents

        def run(_root):
            cc = algo(g)
            cc.run()
            return cc

        def result(cc):
            return np.asarray(cc.getPartition().getVector(), dtype=np.int64)

        return Prepared(run, result, algo.__name__)

    def k_sssp(self, forms, params):
        ip, ix, w = forms.min_weights()
        g = self._graph(forms, ip, ix, w, True, forms.directed)
        dijkstra = self.mod.distance.Dijkstra
        return self._single_source(dijkstra, g, 1e300, np.inf, np.float64, "Dijkstra")

    def _simple(self, forms, kernel):
        undirected_only(forms, kernel)
        ip, ix = forms.simple()
        return self._graph(forms, ip, ix, None, False, False)

    @staticmethod
    def _scores(algo, note, exact=True):
        def run(_root):
            a = algo()
            a.run()
            return a

        return Prepared(run, lambda a: np.asarray(a.scores(), dtype=np.float64), note, exact)

    def k_lcc(self, forms, params):
        g, lcc = self._simple(forms, "lcc"), self.mod.centrality.LocalClusteringCoefficient
        return self._scores(lambda: lcc(g, turbo=True), "LocalClusteringCoefficient (turbo)")

    def k_betweenness(self, forms, params):
        g, bc = self._simple(forms, "betweenness"), self.mod.centrality.Betweenness
        return self._scores(lambda: bc(g, normalized=True), "Betweenness (exact)")

    def k_cdlp(self, forms, params):
        g, plp, iters = self._simple(forms, "cdlp"), self.mod.community.PLP, cdlp_iterations()

        def run(_root):
            a = plp(g, maxIterations=iters)
            a.run()
            return a

        def result(a):
            return np.asarray(a.getPartition().getVector(), dtype=np.int64)

        return Prepared(run, result, f"PLP (asynchronous, <= {iters} iterations)", exact=False)


# ---------------------------------------------------------------------- igraph
class IGraphCompetitor(Competitor):
    name = "igraph"
    module = "igraph"

    def _graph(self, forms, ip, ix, vals=None):
        src, dst, w = undirected_edges(ip, ix, vals, directed=forms.directed)
        edges = zip(src.tolist(), dst.tolist(), strict=True)  # faster than an (m, 2) array
        g = self.mod.Graph(n=forms.n, edges=list(edges), directed=forms.directed)
        if w is not None:
            g.es["weight"] = w.tolist()
        return g

    def load(self, forms):
        self.g = self._graph(forms, forms.graph.indptr, forms.graph.indices)

    @staticmethod
    def _uncached(g):
        """igraph caches graph properties (connectedness...) in the C object, so a repeated
        call can skip the work; the timed calls clear that cache first (~10 us)."""
        clear = getattr(g, "__invalidate_cache", None)
        return clear if clear is not None else (lambda: None)

    def k_pagerank(self, forms, params):
        g, d = self.g, params["damping"]
        clear = self._uncached(g)

        def run(_root):
            clear()
            return g.pagerank(damping=d, implementation="prpack")

        return Prepared(run, np.asarray, "PRPACK, to convergence", exact=False)

    def k_bfs(self, forms, params):
        g = self.g
        clear = self._uncached(g)

        def run(root):
            clear()
            return g.bfs(int(root), mode="out")

        def result(raw):
            vids, layers, _ = raw
            depth = np.full(forms.n, -1, dtype=np.int64)
            vids = np.asarray(vids, dtype=np.int64)
            for k in range(len(layers) - 1):
                depth[vids[layers[k] : layers[k + 1]]] = k
            return depth

        return Prepared(run, result, "bfs")

    def k_wcc(self, forms, params):
        g = self.g
        clear = self._uncached(g)

        def run(_root):
            clear()
            return g.connected_components(mode="weak")

        return Prepared(run, lambda cl: np.asarray(cl.membership), "connected_components")

    def k_sssp(self, forms, params):
        ip, ix, w = forms.min_weights()
        g = self._graph(forms, ip, ix, w)
        clear = self._uncached(g)

        def run(root):
            clear()
            return g.distances(source=[int(root)], weights="weight")

        return Prepared(run, lambda r: np.asarray(r[0], dtype=np.float64), "distances (Dijkstra)")

    def _simple(self, forms, kernel):
        undirected_only(forms, kernel)
        g = self._graph(forms, *forms.simple())
        return g, self._uncached(g)

    def k_lcc(self, forms, params):
        g, clear = self._simple(forms, "lcc")

        def run(_root):
            clear()
            return g.transitivity_local_undirected(mode="zero")

        return Prepared(run, np.asarray, "transitivity_local_undirected")

    def k_betweenness(self, forms, params):
        g, clear = self._simple(forms, "betweenness")
        n = forms.n
        scale = 2.0 / ((n - 1) * (n - 2)) if n > 2 else 1.0  # NetworkX's normalisation

        def run(_root):
            clear()
            return g.betweenness(directed=False)

        return Prepared(run, lambda b: np.asarray(b) * scale, "betweenness (exact)")

    def k_cdlp(self, forms, params):
        g, clear = self._simple(forms, "cdlp")

        def run(_root):
            clear()
            return g.community_label_propagation()

        note = "community_label_propagation (random order)"
        return Prepared(run, lambda cl: np.asarray(cl.membership), note, exact=False)


# -------------------------------------------------------------------- NetworkX
class NetworkXCompetitor(Competitor):
    name = "networkx"
    module = "networkx"

    def _graph(self, forms, ip, ix, vals=None):
        nx = self.mod
        src, dst, w = undirected_edges(ip, ix, vals, directed=forms.directed)
        g = nx.DiGraph() if forms.directed else nx.Graph()
        g.add_nodes_from(range(forms.n))
        if w is None:
            g.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
        else:
            g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist(), strict=True))
        return g

    def load(self, forms):
        ip, ix, _ = forms.counts()
        self.g = self._graph(forms, ip, ix)

    @staticmethod
    def _labels(forms, parts):
        """Labels from a list of vertex sets (components, communities)."""
        labels = np.empty(forms.n, dtype=np.int64)
        for k, part in enumerate(parts):
            labels[list(part)] = k
        return labels

    def _dense(self, forms, mapping, fill, dtype):
        out = np.full(forms.n, fill, dtype=dtype)
        if mapping:
            keys = np.fromiter(mapping.keys(), dtype=np.int64, count=len(mapping))
            out[keys] = np.fromiter(mapping.values(), dtype=dtype, count=len(mapping))
        return out

    def k_pagerank(self, forms, params):
        nx, g, d = self.mod, self.g, params["damping"]

        def run(_root):
            return nx.pagerank(g, alpha=d)

        return Prepared(
            run,
            lambda r: self._dense(forms, r, 0.0, np.float64),
            "to convergence, simple graph",
            exact=False,
        )

    def k_bfs(self, forms, params):
        nx, g = self.mod, self.g

        def run(root):
            return nx.single_source_shortest_path_length(g, int(root))

        return Prepared(run, lambda r: self._dense(forms, r, -1, np.int64), "shortest_path_length")

    def k_wcc(self, forms, params):
        nx, g = self.mod, self.g
        comps = nx.weakly_connected_components if forms.directed else nx.connected_components

        def run(_root):
            return list(comps(g))

        return Prepared(run, lambda parts: self._labels(forms, parts), comps.__name__)

    def k_sssp(self, forms, params):
        nx = self.mod
        ip, ix, w = forms.min_weights()
        g = self._graph(forms, ip, ix, w)

        def run(root):
            return nx.single_source_dijkstra_path_length(g, int(root))

        return Prepared(run, lambda r: self._dense(forms, r, np.inf, np.float64), "dijkstra")

    def k_lcc(self, forms, params):
        undirected_only(forms, "lcc")
        nx, g = self.mod, self.g  # clustering ignores self-loops

        def run(_root):
            return nx.clustering(g)

        return Prepared(run, lambda r: self._dense(forms, r, 0.0, np.float64), "clustering")

    def k_betweenness(self, forms, params):
        undirected_only(forms, "betweenness")
        nx, g = self.mod, self.g  # self-loops lie on no shortest path

        def run(_root):
            return nx.betweenness_centrality(g)

        return Prepared(run, lambda r: self._dense(forms, r, 0.0, np.float64), "exact")

    def k_cdlp(self, forms, params):
        undirected_only(forms, "cdlp")
        nx, g = self.mod, self.g

        def run(_root):
            return list(nx.community.label_propagation_communities(g))

        def result(parts):
            return self._labels(forms, parts)

        return Prepared(run, result, "label_propagation (semi-synchronous)", exact=False)
