"""The competitors that work on sparse matrices: SciPy (csgraph, and PageRank as an SpMV
loop), scikit-network (on SciPy matrices) and python-graphblas (SuiteSparse:GraphBLAS).

None of them holds parallel edges as separate entries: they get a matrix whose values are
edge multiplicities (PageRank then weighs an edge by its multiplicity, exactly as a
multigraph walk does) and, for SSSP, the smallest weight of each group of parallel edges
(the only one a shortest path uses). SciPy and scikit-network are single-threaded;
GraphBLAS gets hpgraph's thread count. LCC: SciPy by the sparse product (A @ A) .* A
(its size grows with the squares of the degrees), GraphBLAS by the masked product
A<A> = A plus_pair A (SuiteSparse's triangle counting kernel).
"""

from __future__ import annotations

import numpy as np

from hpgraph.bench._convert import depth_from_parents
from hpgraph.bench.competitors.base import (
    Competitor,
    Prepared,
    components_result,
    pagerank_scalars,
    undirected_only,
)

__all__ = ["ScipyCompetitor", "SkNetworkCompetitor", "GraphBLASCompetitor"]


def _scipy_csr(forms, csr):
    """A SciPy CSR matrix of ``forms.n`` rows from ``(indptr, indices, values)``."""
    import scipy.sparse as sp

    ip, ix, vals = csr
    return sp.csr_matrix((vals, ix, ip), shape=(forms.n, forms.n))


def _lcc_from_links(links, forms):
    """LCC from each vertex's links among its neighbours counted twice (2 x triangles)
    and its simple degree; 0 at degree < 2."""
    deg = np.diff(forms.simple()[0]).astype(np.float64)
    out = np.zeros(forms.n, dtype=np.float64)
    np.divide(links, deg * (deg - 1.0), out=out, where=deg > 1)
    return out


# ------------------------------------------------------------------------ SciPy
class ScipyCompetitor(Competitor):
    name = "scipy"
    module = "scipy"

    def load(self, forms):
        self.g = _scipy_csr(forms, forms.counts())

    def k_pagerank(self, forms, params):
        a = self.g
        at = a if not forms.directed else a.T.tocsr()  # rows = in-edges
        n = forms.n
        dinv, dangling = pagerank_scalars(forms, params["damping"])
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

        return Prepared(run, components_result, "connected_components")

    def k_sssp(self, forms, params):
        from scipy.sparse.csgraph import dijkstra

        a = _scipy_csr(forms, forms.min_weights())

        def run(root):
            return dijkstra(a, directed=True, indices=root)

        return Prepared(run, np.asarray, "dijkstra")

    def k_lcc(self, forms, params):
        undirected_only(forms, "lcc")
        ip, ix = forms.simple()
        a = _scipy_csr(forms, (ip, ix, np.ones(ix.shape[0])))

        def run(_root):
            links = np.asarray((a @ a).multiply(a).sum(axis=1)).ravel()
            return _lcc_from_links(links, forms)

        return Prepared(run, np.asarray, "(A @ A) .* A")


# -------------------------------------------------------------- scikit-network
class SkNetworkCompetitor(Competitor):
    """scikit-network gives every dangling vertex its own definition of rank, so its
    PageRank is compared for information only."""

    name = "scikit-network"
    module = "sknetwork"

    def load(self, forms):
        self.g = _scipy_csr(forms, forms.counts())

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

        return Prepared(run, components_result, "get_connected_components (scipy)")


# ------------------------------------------------------------------ GraphBLAS
class GraphBLASCompetitor(Competitor):
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
        dinv_np, dangling = pagerank_scalars(forms, d)
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

    def k_lcc(self, forms, params):
        gb = self.mod
        undirected_only(forms, "lcc")
        ip, ix = forms.simple()
        n = forms.n
        a = self._matrix(ip, ix.copy(), np.ones(ix.shape[0], dtype=np.int64), n)
        plus_pair = gb.semiring.plus_pair[gb.dtypes.INT64]

        def run(_root):
            c = gb.Matrix(gb.dtypes.INT64, n, n)
            c(a.S) << a.mxm(a, plus_pair)
            links = c.reduce_rowwise(gb.monoid.plus).new().to_dense(fill_value=0)
            return _lcc_from_links(links, forms)

        return Prepared(run, np.asarray, "masked mxm plus_pair")
