"""Quality of overlapping covers: overlapping NMI and overlapping modularity.

A **cover** is a set of communities over vertices 0..n-1 that may overlap and need not
cover every vertex. Accepted forms (:func:`as_cover`): a :class:`BMLPAResult`; a 1-D
integer array of length n (one community per vertex, -1 for none: a partition); a
sequence of communities, each an iterable of vertex ids; or a tuple ``(vertex,
community)`` or ``(vertex, community, coefficient)`` of equal-length arrays.

**Overlapping NMI** (:func:`overlapping_nmi`). Every community is a binary variable over
the n vertices. For communities X_k and Y_l with intersection i, P11 = i/n, P10 = (|X_k| -
i)/n, P01 = (|Y_l| - i)/n, P00 = 1 - P11 - P10 - P01, h(p) = -p log2 p. Following
Lancichinetti, Fortunato and Kertesz (NJP 11, 033015, 2009, appendix B), ``H(X_k|Y_l) =
H(X_k, Y_l) - H(Y_l)`` counts only when ``h(P11) + h(P00) >= h(P01) + h(P10)``;
``H(X_k|Y) = min over l`` of the counted ones, or ``H(X_k)`` if none counts.

- ``variant="lfk"`` (default; the definition the BMLPA paper uses): ``NMI = 1 -
  [H(X|Y)_norm + H(Y|X)_norm] / 2`` with ``H(X|Y)_norm = mean over k of H(X_k|Y) /
  H(X_k)``.
- ``variant="max"`` (McDaid, Greene, Hurley, arXiv:1110.2515): ``I = [H(X) - H(X|Y) +
  H(Y) - H(Y|X)] / 2`` with ``H(X|Y) = sum_k H(X_k|Y)``, ``H(X) = sum_k H(X_k)``, and
  ``NMI = I / max(H(X), H(Y))``.

Communities with zero entropy (empty, or holding all n vertices) are left out of the
averages; a side with no community left has normalised conditional entropy 1 (it tells
nothing), unless both sides have none (NMI 1). So a one-community cover scores 0 against
any informative one. Every pair (k, l)
is considered, disjoint ones included (a disjoint pair can be counted, e.g. |X_k| = 0.89 n,
|Y_l| = 0.01 n); disjoint pairs are grouped by |Y_l|, on which alone their value depends, so
the cost is O(sum over vertices of |X(v)| |Y(v)| + K_X * distinct sizes of Y).

**Overlapping modularity** (:func:`overlapping_modularity`), on the undirected simple view
(BMLPA's), every undirected edge as two arcs, M = sum of degrees:

- ``definition="nicosia"`` (default; Nicosia, Mangioni, Carchiolo, Malgeri, J. Stat. Mech.
  2009, P03024, with COPRA's and BMLPA's choice F(a, b) = g(a) g(b), g(x) = 1 / (1 +
  exp(-(2 p x - p))), p = 30): ``Q = 1/M sum_c sum_ij [g_ic g_jc A_ij - beta_ic beta_jc
  k_i k_j / M]``, ``beta_ic = g_ic * (sum over all j of g_jc) / n``, with the belonging
  coefficients a_ic (0 for non-members). For a partition this is **not** Newman's Q: the
  null term carries a factor (|c|/n)^2.
- ``definition="shen"`` (Shen, Cheng, Cai, Hu, Physica A 388, 2009, "EQ"): ``Q = 1/M
  sum_c sum_{i,j in c} [A_ij - k_i k_j / M] / (O_i O_j)``, O_i = the number of communities
  of i. For a partition it equals Newman's modularity (NetworkX's ``modularity``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError

__all__ = ["as_cover", "overlapping_nmi", "overlapping_modularity"]


def as_cover(cover, n: int | None = None):
    """``(vertex, community, coefficient or None, n)``: distinct (vertex, community) pairs
    sorted by vertex then community, communities renumbered 0..K-1 in order of first id."""
    coef = None
    if hasattr(cover, "community_of") and hasattr(cover, "ptr"):
        vertex = np.repeat(np.arange(cover.graph.n, dtype=np.int64), np.diff(cover.ptr))
        comm = np.asarray(cover.community_of, dtype=np.int64)
        coef = np.asarray(cover.coefficient, dtype=np.float64)
        n = cover.graph.n if n is None else n
    elif isinstance(cover, tuple):
        if len(cover) not in (2, 3):
            raise InvalidArgumentError("a cover tuple is (vertex, community[, coefficient])")
        vertex = np.asarray(cover[0], dtype=np.int64)
        comm = np.asarray(cover[1], dtype=np.int64)
        if len(cover) == 3:
            coef = np.asarray(cover[2], dtype=np.float64)
        if vertex.shape != comm.shape or (coef is not None and coef.shape != vertex.shape):
            raise InvalidArgumentError("cover arrays must have the same length")
    elif isinstance(cover, np.ndarray) and cover.ndim == 1 and cover.dtype.kind in "iu":
        keep = cover >= 0
        vertex = np.flatnonzero(keep).astype(np.int64)
        comm = cover[keep].astype(np.int64)
        n = cover.shape[0] if n is None else n
    else:
        vs, cs = [], []
        for c, members in enumerate(cover):
            m = np.fromiter(members, dtype=np.int64)
            vs.append(m)
            cs.append(np.full(m.shape[0], c, dtype=np.int64))
        vertex = np.concatenate(vs) if vs else np.zeros(0, np.int64)
        comm = np.concatenate(cs) if cs else np.zeros(0, np.int64)
    if n is None:
        n = int(vertex.max()) + 1 if vertex.size else 0
    if vertex.size and (vertex.min() < 0 or vertex.max() >= n):
        raise InvalidArgumentError(
            f"cover vertices must lie in 0..{n - 1}, got {vertex.min()}..{vertex.max()}"
        )
    _, comm = np.unique(comm, return_inverse=True)
    k = int(comm.max()) + 1 if comm.size else 0
    key = vertex * max(k, 1) + comm
    key, first = np.unique(key, return_index=True)
    vertex, comm = key // max(k, 1), key % max(k, 1)
    if coef is not None:
        coef = coef[first]
    return vertex, comm, coef, int(n)


def _h(p):
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)


@njit(**NUMBA_FLAGS)
def _pair_keys(xv, xc, yv, yc, k2):
    """kx * k2 + ky for every vertex in both a community kx of X and ky of Y (inputs
    sorted by vertex)."""
    total = 0
    out = np.empty(0, dtype=np.int64)
    for fill in range(2):  # count the pairs, then write them
        if fill:
            out = np.empty(total, dtype=np.int64)
        t = 0
        i = j = 0
        while i < xv.shape[0] and j < yv.shape[0]:
            if xv[i] < yv[j]:
                i += 1
            elif xv[i] > yv[j]:
                j += 1
            else:
                v = xv[i]
                i2 = i
                while i2 < xv.shape[0] and xv[i2] == v:
                    i2 += 1
                j2 = j
                while j2 < yv.shape[0] and yv[j2] == v:
                    j2 += 1
                if fill:
                    for a in range(i, i2):
                        for b in range(j, j2):
                            out[t] = xc[a] * k2 + yc[b]
                            t += 1
                else:
                    total += (i2 - i) * (j2 - j)
                i, j = i2, j2
    return out


@njit(**NUMBA_FLAGS)
def _hh(p):
    return -p * np.log2(p) if p > 0 else 0.0


@njit(**NUMBA_FLAGS)
def _cond(a, bsz, i, n):
    """(counted?, H(X|Y)) for |X| = a, |Y| = bsz, |X & Y| = i over n vertices."""
    p11 = i / n
    p10 = (a - i) / n
    p01 = (bsz - i) / n
    p00 = max(1.0 - p11 - p10 - p01, 0.0)
    h11, h10, h01, h00 = _hh(p11), _hh(p10), _hh(p01), _hh(p00)
    ok = h11 + h00 >= h01 + h10
    hy = _hh(bsz / n) + _hh(1.0 - bsz / n)
    return ok, h11 + h10 + h01 + h00 - hy


@njit(**NUMBA_FLAGS)
def _conditional(sx, sy, pi, pj, cnt, n):
    """H(X_k|Y) for every k: pairs (pi[t], pj[t]) intersect in cnt[t] vertices, sorted by
    pi; disjoint pairs are grouped by the size of Y_l."""
    kx = sx.shape[0]
    sizes = np.unique(sy)
    per_size = np.zeros(sizes.shape[0], dtype=np.int64)
    for l in range(sy.shape[0]):
        per_size[np.searchsorted(sizes, sy[l])] += 1
    seen = np.zeros(sizes.shape[0], dtype=np.int64)
    out = np.empty(kx, dtype=np.float64)
    t = 0
    for k in range(kx):
        a = sx[k]
        hx = _hh(a / n) + _hh(1.0 - a / n)
        best = np.inf
        t0 = t
        while t < pi.shape[0] and pi[t] == k:
            ok, hc = _cond(a, sy[pj[t]], cnt[t], n)
            if ok and hc < best:
                best = hc
            seen[np.searchsorted(sizes, sy[pj[t]])] += 1
            t += 1
        for s in range(sizes.shape[0]):
            if per_size[s] - seen[s] > 0:  # some Y_l of this size misses X_k
                ok, hc = _cond(a, sizes[s], 0, n)
                if ok and hc < best:
                    best = hc
        for u in range(t0, t):
            seen[np.searchsorted(sizes, sy[pj[u]])] = 0
        out[k] = best if best < np.inf else hx
    return out


def _side(sx, sy, pi, pj, cnt, n):
    hx = _h(sx / n) + _h(1.0 - sx / n)
    order = np.lexsort((pj, pi))
    hc = _conditional(sx, sy, pi[order], pj[order], cnt[order], n)
    return hx, hc


def overlapping_nmi(x, y, n: int | None = None, *, variant: str = "lfk") -> float:
    """NMI between two covers over vertices 0..n-1 (see the module docstring; ``n``
    defaults to the covers' own, or 1 + the largest vertex id)."""
    if variant not in ("lfk", "max"):
        raise InvalidArgumentError(f"variant must be 'lfk' or 'max', got {variant!r}")
    xv, xc, _, nx_ = as_cover(x, n)
    yv, yc, _, ny_ = as_cover(y, n)
    n = max(nx_, ny_) if n is None else n
    if n == 0:
        return 1.0
    k1 = int(xc.max()) + 1 if xc.size else 0
    k2 = int(yc.max()) + 1 if yc.size else 0
    sx = np.bincount(xc, minlength=k1).astype(np.float64)
    sy = np.bincount(yc, minlength=k2).astype(np.float64)
    keys, cnt = np.unique(_pair_keys(xv, xc, yv, yc, max(k2, 1)), return_counts=True)
    pi, pj = keys // max(k2, 1), keys % max(k2, 1)
    cnt = cnt.astype(np.float64)
    hx, hxy = _side(sx, sy, pi, pj, cnt, n)
    hy, hyx = _side(sy, sx, pj, pi, cnt, n)
    if variant == "lfk":
        tx = hx > 0
        ty = hy > 0
        if not tx.any() and not ty.any():
            return 1.0
        nx_norm = float(np.mean(hxy[tx] / hx[tx])) if tx.any() else 1.0
        ny_norm = float(np.mean(hyx[ty] / hy[ty])) if ty.any() else 1.0
        return 1.0 - 0.5 * (nx_norm + ny_norm)
    HX, HY = float(hx.sum()), float(hy.sum())
    if max(HX, HY) == 0.0:
        return 1.0
    mutual = 0.5 * (HX - float(hxy.sum()) + HY - float(hyx.sum()))
    return mutual / max(HX, HY)


# --------------------------------------------------------------------------- modularity
@njit(**NUMBA_FLAGS)
def _edge_terms(indptr, indices, mptr, mcomm, mw):
    """sum over arcs (i, j) and communities c of both ends of w_ic * w_jc (rows of the
    membership CSR sorted by community)."""
    n = indptr.shape[0] - 1
    total = 0.0
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            a, b = mptr[i], mptr[j]
            while a < mptr[i + 1] and b < mptr[j + 1]:
                if mcomm[a] < mcomm[b]:
                    a += 1
                elif mcomm[a] > mcomm[b]:
                    b += 1
                else:
                    total += mw[a] * mw[b]
                    a += 1
                    b += 1
    return total


def overlapping_modularity(graph, cover, *, definition: str = "nicosia", p: float = 30.0):
    """Overlapping modularity of ``cover`` on ``graph`` (see the module docstring).
    Without belonging coefficients in ``cover`` a vertex in O communities gets 1/O in
    each."""
    from hpgraph.graph.views import simple_view

    if definition not in ("nicosia", "shen"):
        raise InvalidArgumentError(f"definition must be 'nicosia' or 'shen', got {definition!r}")
    n = graph.n
    vertex, comm, coef, _ = as_cover(cover, n)
    indptr, indices = simple_view(graph)
    deg = np.diff(indptr).astype(np.float64)
    M = float(deg.sum())
    if M == 0.0:
        return 0.0
    k = int(comm.max()) + 1 if comm.size else 0
    memberships = np.bincount(vertex, minlength=n)
    mptr = np.concatenate([[0], np.cumsum(memberships)]).astype(np.int64)
    if definition == "shen" or coef is None:
        w = 1.0 / memberships[vertex]
    else:
        w = coef
    if definition == "shen":
        e = _edge_terms(indptr, indices, mptr, comm, w)
        s = np.bincount(comm, weights=deg[vertex] * w, minlength=k)
        return (e - float((s * s).sum()) / M) / M
    g0 = 1.0 / (1.0 + np.exp(p))  # g(0): non-members
    d = 1.0 / (1.0 + np.exp(-(2.0 * p * w - p))) - g0  # g(a) - g(0), members only
    e = k * g0 * g0 * M + 2.0 * g0 * float((deg[vertex] * d).sum())
    e += _edge_terms(indptr, indices, mptr, comm, d)
    G = n * g0 + np.bincount(comm, weights=d, minlength=k)
    S = g0 * M + np.bincount(comm, weights=deg[vertex] * d, minlength=k)
    return (e - float(((G / n) ** 2 * S * S).sum()) / M) / M
