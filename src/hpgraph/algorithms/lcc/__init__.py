"""Triangles and the local clustering coefficient. Given a graph, returns for every vertex
the number of triangles through it and its local clustering coefficient (LCC, the LDBC
Graphalytics definition), plus the global transitivity and the average clustering.

Definitions (Graphalytics spec, section "LCC"): the neighbourhood ``N(v)`` of ``v`` is the
set of its in- and out-neighbours other than ``v`` (self-loops and multi-edges are
ignored). On a directed graph ``LCC(v) = |{(u, w) in E : u, w in N(v)}| / (|N(v)| (|N(v)|
- 1))``, counting a reciprocal pair among the neighbours twice; an undirected graph stores
each edge both ways, so there ``LCC(v) = 2 links / (|N(v)| (|N(v)| - 1))`` (NetworkX's
``clustering``). ``LCC(v) = 0`` when ``|N(v)| <= 1``. ``triangles`` counts the triangles
through ``v`` in the undirected simple view (direction ignored); ``transitivity`` is
``3 * triangles / connected triples`` on that view (``networkx.transitivity``).

Variant: degree-ordered triangle listing with a bitmap (Schank and Wagner's "forward"
algorithm; Latapy 2008). Vertices are ranked by simple degree (ties by id) and each
edge is kept only at its lower-ranked end, so a vertex's kept list ``N+(v)`` is short
(at most ~sqrt(2m)) even for hubs. Peer ``p`` lists the triangles ``v < u < w`` of its
range of ``v`` (ranges balanced by the exact number of bitmap probes): it sets the bits
of ``N+(v)`` in a bitmap of n bits (n/8 bytes: 32 KiB at scale 18, so it sits in L1),
and for each ``u`` in ``N+(v)`` probes the bits of ``N+(u)``; a hit is a triangle, which
credits ``v``, ``u`` and ``w``. The credits land on any vertex, so each peer counts
into its own array and one reduce-scatter superstep sums them at their owners. That is
why this kernel is a peer-level BSP program (``run_bsp``): the vertex model has no
per-part scratch (the bitmap) and no cheap way to add to three other vertices; counting
only one's own triangles from a vertex program costs ~1.6x the probes with a binary
search or merge in place of a bitmap probe (measured 4-6x slower).

Memory, n vertices and m simple undirected edges (derived once per graph and cached with
``graph.derived``): the kept lists in rank order, 8 B per vertex (``indptr``) + 4 B per
edge (int32 ranks); on directed graphs + 1 B per edge (1 or 2: how many directions the
pair has); rank -> vertex 4-8 B, simple degree 8 B and the work prefix 8 B per vertex;
directed graphs also build the graph's in-edges (cached on the graph) once. Per peer:
the bitmap (n/8 B; n B of direction counts on directed graphs), the counts, 8 B per
vertex (16 on directed graphs), and its rows' numbers, 8 B per row. Time: O(sum over
kept edges (v, u) of |N+(u)|), 0.66 billion probes at Kronecker scale 18.

On a partitioned graph (each MPI rank holding only its own rows) the same kernels count
the triangles whose lowest-ranked corner a rank owns, from its own forward rows and the
forward rows of its ghosts fetched once from their owners (:mod:`.parts`: the method and
its bytes per rank); the result equals the whole graph's bit for bit.

Modules: :mod:`.kernels` (the compiled counting kernels and the coefficient),
:mod:`.whole` (the ordered view of a whole graph and its program), :mod:`.parts` (on a
part).
"""

from __future__ import annotations

import numpy as np

from hpgraph.algorithms._common import check_graph, finish_result
from hpgraph.algorithms.lcc.kernels import coefficients, connected_triples
from hpgraph.algorithms.lcc.parts import count_part
from hpgraph.algorithms.lcc.whole import count_whole
from hpgraph.errors import VerificationError
from hpgraph.graph.part import is_part

__all__ = ["lcc", "triangle_count", "transitivity", "verify_lcc"]


def _counts(graph, want_coef, threads, runtime):
    """(triangles by vertex, LCC by vertex or None, connected triples, BSP stats), of a
    whole graph or, from a part, of the whole graph on every rank."""
    if is_part(graph):
        return count_part(graph, want_coef, threads, runtime)
    links = bool(want_coef and graph.directed)
    tri, lnk, degree, stats = count_whole(graph, links, threads, runtime)
    coef = coefficients(tri, lnk, degree) if want_coef else None
    return tri, coef, connected_triples(degree), stats


def _global(tri, triples):
    """(triangles, transitivity) of the undirected simple view."""
    total = int(tri.sum()) // 3
    return total, (3.0 * total / triples if triples else 0.0)


def lcc(graph, *, threads=None, runtime=None, progress=False):
    """Local clustering coefficient (Graphalytics) and triangles of every vertex.

    Columns ``lcc`` (float64) and ``triangles`` (int64: triangles through the vertex in
    the undirected simple view); meta ``triangles`` (total), ``transitivity`` and
    ``average_clustering`` (mean LCC over all vertices). Definitions in the module
    docstring. A partitioned graph (MPI ranks holding their own rows) runs on the MPI
    runtime it was split for. ``progress`` is accepted for a uniform signature; the job
    is a few supersteps, so it shows nothing.
    """
    check_graph(graph, parts=True)
    tri, coef, triples, stats = _counts(graph, True, threads, runtime)
    total, trans = _global(tri, triples)
    result = finish_result(
        "lcc",
        graph,
        {"lcc": coef, "triangles": tri},
        None,
        meta={
            "triangles": total,
            "transitivity": trans,
            "average_clustering": float(coef.mean()) if graph.n else 0.0,
            "supersteps": len(stats.supersteps),
        },
    )
    result.stats = stats
    return result


def triangle_count(graph, *, threads=None, runtime=None) -> int:
    """Triangles of the undirected simple view (direction, loops, multi-edges ignored)."""
    check_graph(graph, parts=True)
    tri, _, triples, _ = _counts(graph, False, threads, runtime)
    return _global(tri, triples)[0]


def transitivity(graph, *, threads=None, runtime=None) -> float:
    """``3 * triangles / connected triples`` of the undirected simple view
    (``networkx.transitivity``); 0 when there is no connected triple."""
    check_graph(graph, parts=True)
    tri, _, triples, _ = _counts(graph, False, threads, runtime)
    return _global(tri, triples)[1]


# ------------------------------------------------------------------ the verifier
def verify_lcc(graph, result, *, sample=2000, seed=0, rtol=1e-9):
    """Recompute ``lcc`` and ``triangles`` with sparse matrix products for every vertex
    (graphs up to ``sample`` vertices) or for ``sample`` random vertices plus the ten of
    highest degree, and check the totals: with S the simple symmetric 0/1 matrix and D
    the simple directed one, links(v) = ((S D) o S)[v, :].sum() and triangles(v) =
    ((S S) o S)[v, :].sum() / 2. Raises VerificationError at the first difference."""
    import scipy.sparse as sp

    n = graph.n
    coef = np.asarray(result["lcc"], dtype=np.float64)
    tri = np.asarray(result["triangles"], dtype=np.int64)
    if coef.shape != (n,) or tri.shape != (n,):
        raise VerificationError(f"lcc: expected {n} values per column")
    if n == 0:
        return
    src, dst, _ = graph.edges()
    keep = src != dst
    src, dst = src[keep].astype(np.int64), dst[keep].astype(np.int64)
    d = sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(n, n))
    d.sum_duplicates()
    d.data[:] = 1
    s = ((d + d.T) > 0).astype(np.int64).tocsr()
    d = d.astype(np.int64)
    deg = np.diff(s.indptr)
    if n <= sample:
        rows = np.arange(n)
    else:
        rng = np.random.default_rng(seed)
        rows = np.unique(
            np.concatenate([rng.choice(n, sample, replace=False), np.argsort(deg)[-10:]])
        )
    sr = s[rows]
    t_ref = np.asarray((sr @ s).multiply(sr).sum(axis=1)).ravel() // 2
    l_ref = np.asarray((sr @ (d if graph.directed else s)).multiply(sr).sum(axis=1)).ravel()
    dr = deg[rows].astype(np.float64)
    c_ref = np.where(dr > 1, l_ref / np.maximum(dr * (dr - 1), 1), 0.0)
    bad = np.flatnonzero(tri[rows] != t_ref)
    if bad.size:
        v = rows[bad[0]]
        raise VerificationError(
            f"lcc: vertex {graph.user_ids()[v]!r} has {tri[v]} triangles, expected {t_ref[bad[0]]}"
        )
    bad = np.flatnonzero(np.abs(coef[rows] - c_ref) > rtol * np.maximum(np.abs(c_ref), 1e-300))
    if bad.size:
        v = rows[bad[0]]
        raise VerificationError(
            f"lcc: vertex {graph.user_ids()[v]!r} has LCC {coef[v]!r}, expected {c_ref[bad[0]]!r}"
        )
    if int(tri.sum()) % 3:
        raise VerificationError("lcc: the per-vertex triangles do not sum to a multiple of 3")
