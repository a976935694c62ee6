"""The PyPI peers timed beside hpgraph, one adapter per package.

An adapter converts an hpgraph graph to its package's format (:meth:`Peer.load`, untimed)
and, per kernel, returns a :class:`Prepared`: ``run(root)`` is the timed call,
``result(raw)`` turns its output into the common form (untimed). Common forms: BFS depth
(int64, -1 unreachable), WCC component labels (any labelling), PageRank ranks (float64),
SSSP distances (float64, inf unreachable).

Conversion caveats (also in :mod:`hpgraph.bench`'s docstring):

- GraphBLAS matrices and SciPy's csgraph cannot hold parallel edges as separate entries, so
  those peers get a matrix whose values are edge multiplicities (PageRank then weighs an
  edge by its multiplicity, exactly as a multigraph walk does) and, for SSSP, the smallest
  weight of each group of parallel edges (the only one a shortest path uses). NetworKit and
  igraph get the multigraph as stored; NetworkX gets a simple graph (``nx.Graph``).
- NetworKit's PageRank redistributes dangling (sink) vertices' rank only on directed
  graphs, so for PageRank it gets a directed graph holding both directions of every edge.
- igraph (PRPACK) and NetworkX compute PageRank to convergence, not for a fixed number of
  iterations; scikit-network gives every dangling vertex its own definition of rank; their
  results are compared for information only.
- SciPy and scikit-network are single-threaded, igraph too (but PRPACK uses OpenMP:
  ``OMP_NUM_THREADS``); GraphBLAS (SuiteSparse) and NetworKit get hpgraph's thread count.
- igraph caches graph properties (e.g. connectedness) in the graph object, which would let
  a repeated call return at once; its timed calls clear that cache first.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hpgraph.bench._convert import dedup_csr, depth_from_parents, undirected_edges

__all__ = ["Prepared", "Peer", "PEERS", "available_peers"]


@dataclass
class Prepared:
    """A peer's kernel ready to time."""

    run: Callable[[Any], Any]
    result: Callable[[Any], np.ndarray]
    #: short description shown in the report ("to convergence", "Bellman-Ford", ...)
    note: str = ""
    #: same definition as hpgraph's kernel: results must match (else informative only)
    exact: bool = True


class GraphForms:
    """Derived forms of one benchmark graph shared by the peers (built once, untimed)."""

    def __init__(self, graph, wgraph=None):
        self.graph = graph  # unweighted view
        self.wgraph = wgraph  # weighted graph (SSSP) or None
        self.n = graph.n
        self.directed = graph.directed
        self._cache: dict[str, Any] = {}

    def get(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def counts(self):
        """(indptr, indices, multiplicities) without parallel edges."""
        return self.get("counts", lambda: dedup_csr(self.graph, weighted=False))

    def min_weights(self):
        """(indptr, indices, smallest weight) without parallel edges."""
        return self.get("minw", lambda: dedup_csr(self.wgraph, weighted=True))

    def out_degree(self):
        return self.get("deg", lambda: self.graph.out_degree().astype(np.float64))

    def clear(self):
        self._cache.clear()


def _pr_scalars(forms, damping):
    deg = forms.out_degree()
    inv = np.divide(damping, deg, out=np.zeros_like(deg), where=deg > 0)
    dangling = deg == 0
    return inv, dangling


def _components_result(raw):
    return np.asarray(raw, dtype=np.int64)


class Peer:
    """Base adapter: subclasses set ``name``/``module`` and implement the kernels they
    have as ``k_<kernel>(forms, params) -> Prepared``."""

    name = ""
    module = ""
    threads_note = "1 thread"

    def __init__(self):
        self.mod = None
        self.error = None

    def available(self) -> bool:
        if self.mod is None and self.error is None:
            try:
                self.mod = importlib.import_module(self.module)
            except Exception as exc:  # ImportError, or a broken install
                self.error = f"{type(exc).__name__}: {exc}"
        return self.mod is not None

    def version(self) -> str:
        return str(getattr(self.mod, "__version__", "?"))

    def set_threads(self, threads: int) -> str:
        """Give the peer ``threads`` threads where it has a setting; say what it uses."""
        return self.threads_note

    def has(self, kernel: str) -> bool:
        return hasattr(self, f"k_{kernel}")

    def load(self, forms: GraphForms) -> None:
        """Convert the graph (untimed); kernels read what this leaves in ``self.g``."""
        self.g = None

    def prepare(self, kernel, forms, params) -> Prepared:
        return getattr(self, f"k_{kernel}")(forms, params)

    def unload(self) -> None:
        self.g = None


# ------------------------------------------------------------------------ SciPy
class ScipyPeer(Peer):
    name = "scipy"
    module = "scipy"

    def load(self, forms):
        import scipy.sparse as sp

        ip, ix, cnt = forms.counts()
        self.g = sp.csr_matrix((cnt, ix, ip), shape=(forms.n, forms.n))

    def k_pagerank(self, forms, params):
        a = self.g
        at = a if not forms.directed else a.T.tocsr()  # rows = in-edges
        n = forms.n
        dinv, dangling = _pr_scalars(forms, params["damping"])
        d, iters = params["damping"], params["iterations"]

        def run(_root):
            pr = np.full(n, 1.0 / n)
            for _ in range(iters):
                dsum = pr[dangling].sum()
                nxt = at @ (pr * dinv)
                nxt += (1.0 - d) / n + d * dsum / n
                pr = nxt
            return pr

        return Prepared(run, np.asarray, "SpMV loop")

    def k_bfs(self, forms, params):
        from scipy.sparse.csgraph import breadth_first_order

        a = self.g

        def run(root):
            return root, breadth_first_order(a, root, directed=True, return_predecessors=True)

        def result(raw):
            root, (order, pred) = raw
            reached = np.zeros(forms.n, dtype=bool)
            reached[order] = True
            return depth_from_parents(pred, reached, root)

        return Prepared(run, result, "breadth_first_order")

    def k_wcc(self, forms, params):
        from scipy.sparse.csgraph import connected_components

        a = self.g

        def run(_root):
            return connected_components(a, directed=forms.directed, connection="weak")[1]

        return Prepared(run, _components_result, "connected_components")

    def k_sssp(self, forms, params):
        import scipy.sparse as sp
        from scipy.sparse.csgraph import dijkstra

        ip, ix, w = forms.min_weights()
        a = sp.csr_matrix((w, ix, ip), shape=(forms.n, forms.n))

        def run(root):
            return dijkstra(a, directed=True, indices=root)

        return Prepared(run, np.asarray, "dijkstra")


# ------------------------------------------------------------------ GraphBLAS
class GraphBLASPeer(Peer):
    name = "graphblas"
    module = "graphblas"

    def version(self):
        v = super().version()
        try:
            lib = self.mod.ss.about["library_version"]
            v += f" (SuiteSparse {'.'.join(map(str, lib))})"
        except Exception:
            pass
        return v

    def set_threads(self, threads):
        self.mod.ss.config["nthreads"] = int(threads)
        return f"{self.mod.ss.config['nthreads']} threads (gb.ss.config['nthreads'])"

    def _matrix(self, ip, ix, vals, n):
        return self.mod.Matrix.ss.import_csr(
            nrows=n,
            ncols=n,
            indptr=ip.astype(np.uint64),
            col_indices=ix.astype(np.uint64),
            values=vals,
            sorted_cols=True,
            take_ownership=True,
        )

    def load(self, forms):
        ip, ix, cnt = forms.counts()
        self.g = self._matrix(ip, ix, cnt.copy(), forms.n)

    def k_pagerank(self, forms, params):
        gb = self.mod
        a, n = self.g, forms.n
        d, iters = params["damping"], params["iterations"]
        dinv_np, dangling = _pr_scalars(forms, d)
        dinv = gb.Vector.from_dense(dinv_np)
        dang = gb.Vector.from_coo(np.flatnonzero(dangling), 1.0, size=n, dtype=float)
        plus_times = gb.semiring.plus_times

        def run(_root):
            pr = gb.Vector(float, n)
            pr[:] << 1.0 / n
            contrib = gb.Vector(float, n)
            for _ in range(iters):
                dsum = (pr @ dang).new().value or 0.0
                contrib << pr * dinv
                pr[:] << (1.0 - d) / n + d * dsum / n
                pr(gb.binary.plus) << contrib.vxm(a, plus_times)
            pr.wait()
            return pr

        return Prepared(run, lambda pr: pr.to_dense(fill_value=0.0), "vxm loop")

    def k_bfs(self, forms, params):
        gb = self.mod
        a, n = self.g, forms.n
        any_pair = gb.semiring.any_pair[gb.dtypes.BOOL]

        def run(root):
            frontier = gb.Vector(bool, n)
            frontier[root] = True
            depth = gb.Vector(gb.dtypes.INT64, n)
            depth[root] = 0
            level = 0
            while frontier.nvals:
                level += 1
                frontier(~depth.S, replace=True) << frontier.vxm(a, any_pair)
                depth(frontier.S) << level
            depth.wait()
            return depth

        return Prepared(run, lambda v: v.to_dense(fill_value=-1), "vxm level loop")

    def k_wcc(self, forms, params):
        gb = self.mod
        a, n = self.g, forms.n
        if forms.directed:  # weak components: follow edges both ways
            a = a.ewise_add(a.T, gb.binary.any).new()
        min_first = gb.semiring.min_first

        def run(_root):
            labels = gb.Vector.from_dense(np.arange(n, dtype=np.int64))
            while True:
                nxt = labels.dup()
                nxt(gb.binary.min) << labels.vxm(a, min_first)
                if nxt.isequal(labels):
                    return labels
                labels = nxt

        return Prepared(run, lambda v: v.to_dense(), "min-label propagation")

    def k_sssp(self, forms, params):
        gb = self.mod
        ip, ix, w = forms.min_weights()
        a, n = self._matrix(ip, ix, w.copy(), forms.n), forms.n
        min_plus = gb.semiring.min_plus

        def run(root):
            dist = gb.Vector(float, n)
            dist[root] = 0.0
            frontier = dist.dup()
            while frontier.nvals:
                cand = frontier.vxm(a, min_plus).new()
                better = cand.ewise_mult(dist, gb.binary.lt).new()
                frontier = gb.Vector(float, n)
                frontier(~dist.S) << cand
                frontier(better.V) << cand
                dist(gb.binary.min) << frontier
            dist.wait()
            return dist

        return Prepared(run, lambda v: v.to_dense(fill_value=np.inf), "Bellman-Ford (vxm)")


# ------------------------------------------------------------------- NetworKit
class NetworKitPeer(Peer):
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

    def k_bfs(self, forms, params):
        nk = self.mod
        g = self.g

        def run(root):
            b = nk.distance.BFS(g, int(root), storePaths=False)
            b.run()
            return b

        def result(b):
            d = np.asarray(b.getDistances())
            return np.where(d > forms.n, -1, d).astype(np.int64)

        return Prepared(run, result, "BFS")

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
        nk = self.mod
        ip, ix, w = forms.min_weights()
        g = self._graph(forms, ip, ix, w, True, forms.directed)

        def run(root):
            dj = nk.distance.Dijkstra(g, int(root), storePaths=False)
            dj.run()
            return dj

        def result(dj):
            d = np.asarray(dj.getDistances())
            return np.where(d > 1e300, np.inf, d)

        return Prepared(run, result, "Dijkstra")


# ---------------------------------------------------------------------- igraph
class IGraphPeer(Peer):
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


# -------------------------------------------------------------- scikit-network
class SkNetworkPeer(Peer):
    name = "scikit-network"
    module = "sknetwork"

    def load(self, forms):
        import scipy.sparse as sp

        ip, ix, cnt = forms.counts()
        self.g = sp.csr_matrix((cnt, ix, ip), shape=(forms.n, forms.n))

    def k_pagerank(self, forms, params):
        from sknetwork.ranking import PageRank

        a, d, iters = self.g, params["damping"], params["iterations"]

        def run(_root):
            return PageRank(
                damping_factor=d, solver="piteration", n_iter=iters, tol=0.0
            ).fit_predict(a)

        return Prepared(run, np.asarray, "piteration; own dangling rule", exact=False)

    def k_bfs(self, forms, params):
        from sknetwork.path import get_distances

        a = self.g

        def run(root):
            return get_distances(a, source=int(root))

        return Prepared(run, lambda d: np.asarray(d, dtype=np.int64), "get_distances")

    def k_wcc(self, forms, params):
        from sknetwork.topology import get_connected_components

        a = self.g

        def run(_root):
            return get_connected_components(a, connection="weak")

        return Prepared(run, _components_result, "get_connected_components (scipy)")


# -------------------------------------------------------------------- NetworkX
class NetworkXPeer(Peer):
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

        def result(parts):
            labels = np.empty(forms.n, dtype=np.int64)
            for k, part in enumerate(parts):
                labels[list(part)] = k
            return labels

        return Prepared(run, result, comps.__name__)

    def k_sssp(self, forms, params):
        nx = self.mod
        ip, ix, w = forms.min_weights()
        g = self._graph(forms, ip, ix, w)

        def run(root):
            return nx.single_source_dijkstra_path_length(g, int(root))

        return Prepared(run, lambda r: self._dense(forms, r, np.inf, np.float64), "dijkstra")


#: Every peer adapter, in run and report order. SciPy runs first: its kernels have
#: exactly hpgraph's definitions, so it is the reference when hpgraph's are missing.
PEERS: dict[str, type[Peer]] = {
    p.name: p
    for p in (ScipyPeer, GraphBLASPeer, NetworKitPeer, IGraphPeer, SkNetworkPeer, NetworkXPeer)
}


def available_peers(names=None) -> tuple[list[Peer], dict[str, str]]:
    """(importable peer adapters, {name: why skipped}) for ``names`` (default: all)."""
    names = list(PEERS) if names is None else list(names)
    ok, skipped = [], {}
    for name in names:
        if name not in PEERS:
            skipped[name] = f"unknown peer (known: {', '.join(PEERS)})"
            continue
        peer = PEERS[name]()
        if peer.available():
            ok.append(peer)
        else:
            skipped[name] = f"not importable ({peer.error})"
    return ok, skipped
