"""BMLPA: overlapping communities by balanced multi-label propagation.

Given a graph, returns a cover: every vertex belongs to one or more communities, each with
a belonging coefficient, the coefficients of a vertex summing to 1. The algorithm is Wu,
Lin, Gregory, Wan and Tian, "Balanced multi-label propagation for overlapping community
detection in social networks", JCST 27(3), 2012, on the **undirected simple view** of the
graph: directions ignored, parallel edges merged, self-loops and weights dropped.

1. **Initial labels.** ``initial="rough-cores"`` (the paper): visit the vertices by
   descending degree; a free vertex ``i`` of degree >= 3 pairs with its free neighbour
   ``j`` of highest degree; the common neighbours of ``i`` and ``j``, in ascending degree,
   grow the clique greedily (take the first, keep only the candidates adjacent to it,
   repeat); a core of >= 3 vertices gets one label and its vertices stop being free.
   Cores may share vertices that were not free (a common neighbour need not be free), so a
   vertex in k cores starts with k labels of coefficient 1/k; a vertex in no core starts
   with its own label. Degree ties are broken by a random key drawn from ``seed``, the
   only randomness in the algorithm. Or ``initial`` names labels per vertex (the seed
   paper's hashtags, :func:`read_vertex_labels`); vertices without any keep their own
   label.
2. **Update**, synchronous: ``score_v(c) = sum over neighbours u of b_u(c)``; keep the
   labels with ``score_v(c) >= b * max_c score_v(c)`` (so the best label, and all ties
   with it, always survive); renormalise the kept scores to sum 1. An isolated vertex
   keeps its labels. Label sets are stored sorted by label id and every sum runs in
   adjacency order, so the result does not depend on the number of peers.
3. **Stop** (the paper's rule, COPRA style): with ``Count(L)`` the number of vertices
   holding each label and ``Id(L)`` the labels in use, after computing ``dest`` from
   ``source``: ``Min = elementwise-min(Count(source), Count(dest))`` if ``Id(source) ==
   Id(dest)`` else ``Count(dest)``; if ``Min == oldMin`` stop and keep ``source``, else
   ``source = dest; oldMin = Min``. ``max_iterations`` bounds the loop.
4. **Post-process**: a community that is a subset of another is merged into the smallest
   community containing it (its members' coefficients add to that one's; equal
   communities keep the smaller label id), then every community is split into its
   connected components (in the simple view), and a piece equal to or inside another
   community merges into it the same way (ties: the earlier community). Communities are
   numbered 0..K-1 in order of (smallest member, label).

Why a peer-level program (``run_bsp``) and not a vertex program. A label set has no fixed
size: ``floor(1/b)`` is **not** a bound, since only the ratio to the best score is tested
(a vertex whose k neighbours carry k distinct labels keeps all k, at any ``b``), and on
stars the sets grow with the hub's degree. A vertex program would need fixed-size vector
values and, without a combiner (label-wise sums cannot be truncated before all arrive),
would list one whole label vector per edge: at ``b = 0.05`` with 20 (label, coefficient)
slots that is 20M stored edges x 240 B = 4.8 GB per superstep on the 8M-vertex / 10M-edge
mention graph. Here propagation runs on a breadth-first renumbering of the simple view
(:func:`locality_view`: neighbours read are near in memory; sums and label ids are
unchanged, so sets are bit-identical); each peer owns every P-th of 64 P vertex chunks
(balanced on edges, interleaved so the hub region is shared); the state is an arena of
label entries with per-vertex slots (20 B per vertex + 12 B per entry), patched in
place; each superstep a peer recomputes only the vertices with a neighbour whose set
differs from two supersteps back (the period-2 swing of synchronous propagation:
otherwise v's new set is its own of two supersteps back), with no allocation per vertex
(degree-1 vertices copy their neighbour's set, reused across the leaves of one vertex;
small vertices merge their neighbours' sets in a buffer; a vertex next to *big* sets
scores only its small neighbours' labels when a bound proves the others below the
threshold; others use a dense score array) and sends the sets that differ from two
supersteps back to every peer (by reference on the local runtime, one ``alltoall`` on
MPI), or whole ranges while most vertices differ; every peer patches its state and
applies the stop rule from the same data, so no extra collective is needed. See
``docs/algorithms/bmlpa.md`` for the bytes and the measurements.

``max_labels`` (not in the paper, off by default) keeps at most that many labels per vertex
(highest scores, ties to the smaller label id). Exact BMLPA on graphs with huge stars is
quadratic: a hub with k leaves gathers the leaves' k labels, which every leaf copies in the
next superstep (k^2 entries). The benchmark on the mention-like graph therefore runs with
``max_labels = ceil(1 / b)``; see ``docs/algorithms/bmlpa.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from hpgraph.algorithms._common import check_graph
from hpgraph.config import BMLPA_TOLERANCE, DEFAULT_THREADS, NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.generators._rng import check_seed, stream
from hpgraph.graph.views import locality_view, rows_in_order, simple_view
from hpgraph.result import VertexResult

__all__ = [
    "bmlpa",
    "BMLPAResult",
    "VertexLabels",
    "read_vertex_labels",
]


# --------------------------------------------------------------------------- the result
@dataclass
class BMLPAResult(VertexResult):
    """A cover. Per-vertex ``columns``: ``community`` (the one with the largest coefficient,
    ties to the smaller id), ``belonging`` (its coefficient), ``memberships`` (how many).

    The whole cover is in flat arrays, CSR by internal vertex id: the memberships of
    vertex v are ``community_of[ptr[v]:ptr[v+1]]`` (ascending) with coefficients
    ``coefficient[ptr[v]:ptr[v+1]]``. ``sizes[c]`` is community c's member count and
    ``label[c]`` the label it grew from (the input's id of the vertex whose own or
    rough-core label it was, or the initial label's name); ``named[c]`` says which (True:
    an initial label's name, such as a hashtag).
    """

    ptr: np.ndarray = None
    community_of: np.ndarray = None
    coefficient: np.ndarray = None
    sizes: np.ndarray = None
    label: np.ndarray = None
    named: np.ndarray = None

    @property
    def num_communities(self) -> int:
        return int(self.sizes.shape[0])

    def to_rows(self) -> dict[str, np.ndarray]:
        """One row per (vertex, community): ``vertex`` (the input's ids), ``community``,
        ``belonging``."""
        counts = np.diff(self.ptr)
        vertex = np.repeat(self.graph.user_ids(), counts)
        return {"vertex": vertex, "community": self.community_of, "belonging": self.coefficient}

    def summary(self) -> dict[str, np.ndarray]:
        """One row per community: ``community``, ``size``, ``label``."""
        k = self.num_communities
        return {"community": np.arange(k, dtype=np.int64), "size": self.sizes, "label": self.label}

    def members(self, community: int) -> np.ndarray:
        """Internal ids of a community's members, ascending."""
        if not 0 <= community < self.num_communities:
            raise InvalidArgumentError(
                f"community {community} out of range 0..{self.num_communities - 1}"
            )
        counts = np.diff(self.ptr)
        owner = np.repeat(np.arange(self.graph.n, dtype=np.int64), counts)
        return owner[self.community_of == community]

    def communities(self) -> list[np.ndarray]:
        """Every community's members (internal ids, ascending), by community id."""
        counts = np.diff(self.ptr)
        owner = np.repeat(np.arange(self.graph.n, dtype=np.int64), counts)
        order = np.argsort(self.community_of, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(self.sizes)])
        ordered = owner[order]
        return [ordered[bounds[c] : bounds[c + 1]] for c in range(self.num_communities)]


@njit(**NUMBA_FLAGS)
def _contains(row, x):
    k = np.searchsorted(row, x)
    return k < row.shape[0] and row[k] == x


@njit(**NUMBA_FLAGS)
def _rough_cores(indptr, indices, order, key):
    """Cores as CSR (core_ptr, core_members); ``order`` lists the vertices of degree >= 3
    by descending degree (ties: ascending ``key``)."""
    n = indptr.shape[0] - 1
    free = np.ones(n, dtype=np.bool_)
    maxdeg = 0
    for v in range(n):
        maxdeg = max(maxdeg, indptr[v + 1] - indptr[v])
    cand = np.empty(maxdeg, dtype=np.int64)
    core = np.empty(maxdeg + 2, dtype=np.int64)
    members = np.empty(16, dtype=np.int64)
    core_ptr = [0]
    nm = 0
    for i in order:
        if not free[i]:
            continue
        ri = indices[indptr[i] : indptr[i + 1]]
        j = -1
        for u in ri:  # the free neighbour of largest degree
            if free[u]:
                if j < 0:
                    j = u
                else:
                    du = indptr[u + 1] - indptr[u]
                    dj = indptr[j + 1] - indptr[j]
                    if du > dj or (du == dj and key[u] < key[j]):
                        j = u
        if j < 0:
            continue
        rj = indices[indptr[j] : indptr[j + 1]]
        small, large = (ri, rj) if ri.shape[0] <= rj.shape[0] else (rj, ri)
        nc = 0
        for x in small:  # common neighbours: each of the shorter row, searched in the other
            if _contains(large, x):
                cand[nc] = x
                nc += 1
        # ascending degree, ties by key
        sk = np.empty(nc, dtype=np.int64)
        for t in range(nc):
            x = cand[t]
            sk[t] = (indptr[x + 1] - indptr[x]) * (n + 1) + key[x]
        cand[:nc] = cand[:nc][np.argsort(sk)]
        core[0] = i
        core[1] = j
        size = 2
        start = 0
        while start < nc:
            h = cand[start]
            core[size] = h
            size += 1
            rh = indices[indptr[h] : indptr[h + 1]]
            keep = start
            for t in range(start + 1, nc):
                if _contains(rh, cand[t]):
                    cand[keep] = cand[t]
                    keep += 1
            nc = keep
        if size >= 3:
            while nm + size > members.shape[0]:
                grown = np.empty(2 * members.shape[0], dtype=np.int64)
                grown[:nm] = members[:nm]
                members = grown
            for t in range(size):
                members[nm + t] = core[t]
                free[core[t]] = False
            nm += size
            core_ptr.append(nm)
    return np.array(core_ptr, dtype=np.int64), members[:nm].copy()


@njit(**NUMBA_FLAGS)
def _labels_from_cores(n, core_ptr, members):
    """Initial CSR: each vertex gets the label of every core it is in (the core's first
    vertex), 1/k each, or its own label."""
    k = np.zeros(n, dtype=np.int64)
    for t in range(members.shape[0]):
        k[members[t]] += 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        ptr[v + 1] = ptr[v] + max(k[v], 1)
    lab = np.empty(ptr[n], dtype=np.int32)
    fill = ptr[:-1].copy()
    for c in range(core_ptr.shape[0] - 1):
        label = members[core_ptr[c]]  # a core is named by its first vertex
        for t in range(core_ptr[c], core_ptr[c + 1]):
            v = members[t]
            lab[fill[v]] = label
            fill[v] += 1
    coef = np.empty(ptr[n], dtype=np.float64)
    for v in range(n):
        if k[v] == 0:
            lab[ptr[v]] = v
        lab[ptr[v] : ptr[v + 1]].sort()
        coef[ptr[v] : ptr[v + 1]] = 1.0 / (ptr[v + 1] - ptr[v])
    return ptr, lab, coef


def rough_cores(graph, seed=0):
    """The paper's rough cores of ``graph``'s simple view: a list of internal-id arrays."""
    check_graph(graph)
    indptr, indices = simple_view(graph)
    core_ptr, members = _cores(indptr, indices, check_seed(seed))
    return [members[core_ptr[c] : core_ptr[c + 1]] for c in range(core_ptr.size - 1)]


def _cores(indptr, indices, seed):
    n = indptr.shape[0] - 1
    deg = np.diff(indptr)
    key = np.random.Generator(stream(seed, 0)).permutation(n).astype(np.int64)
    big = np.flatnonzero(deg >= 3)
    order = big[np.lexsort((key[big], -deg[big]))]
    return _rough_cores(indptr, indices, order, key)


# --------------------------------------------------------------------------- initial labels
@dataclass
class VertexLabels:
    """Initial labels per vertex (CSR by internal id): ``labels[ptr[v]:ptr[v+1]]`` index
    ``names``, ascending and distinct within a row. ``weights`` (optional, one positive
    float per entry) sets the initial belongings: each row is normalised to sum 1, e.g.
    how often a user used each hashtag; ``None`` gives a vertex with k labels 1/k each.
    Vertices with none start with their own label."""

    ptr: np.ndarray
    labels: np.ndarray
    names: list = field(default_factory=list)
    weights: np.ndarray | None = None


def read_vertex_labels(path, graph) -> VertexLabels:
    """Read initial labels: one line per vertex, ``vertex label [label ...]``, fields
    separated by blanks or tabs; a vertex may appear on several lines (so a two-column
    ``vertex label`` list works too) and its labels accumulate; repeated labels count
    once. Blank lines and lines starting with ``#`` are skipped. Vertices are the graph's
    ids; labels are any tokens (hashtags, say). Raises ``GraphFormatError`` naming the
    line for an unknown vertex or a line without a label."""
    path = Path(path)
    pairs_v: list[int] = []
    pairs_l: list[int] = []
    names: dict[str, int] = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) < 2:
                raise GraphFormatError(
                    f"expected 'vertex label [label ...]', got {line!r}", path, lineno
                )
            try:
                v = graph.vertex_index(parts[0])
            except InvalidArgumentError as exc:
                raise GraphFormatError(str(exc), path, lineno) from None
            for tok in parts[1:]:
                pairs_v.append(v)
                pairs_l.append(names.setdefault(tok, len(names)))
    return _vertex_labels(graph.n, pairs_v, pairs_l, list(names))


def _vertex_labels(n, pairs_v, pairs_l, names) -> VertexLabels:
    v = np.asarray(pairs_v, dtype=np.int64)
    lab = np.asarray(pairs_l, dtype=np.int64)
    if v.size:
        pairs = np.unique(v * max(len(names), 1) + lab)  # sorted by (vertex, label), distinct
        v, lab = pairs // max(len(names), 1), pairs % max(len(names), 1)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(v, minlength=n), out=ptr[1:])
    return VertexLabels(ptr, lab.astype(np.int32), names)


def _initial(graph, initial, seed):
    """(ptr, lab, coef, num_labels, label names or None) for the simple view."""
    n = graph.n
    indptr, indices = simple_view(graph)
    if isinstance(initial, str) and initial == "rough-cores":
        core_ptr, members = _cores(indptr, indices, seed)
        ptr, lab, coef = _labels_from_cores(n, core_ptr, members)
        return ptr, lab, coef, n, None
    if isinstance(initial, str | Path):
        if not Path(initial).is_file():
            raise InvalidArgumentError(
                f"initial must be 'rough-cores', a label file, a mapping or an array; "
                f"no file {str(initial)!r}"
            )
        vl = read_vertex_labels(initial, graph)
    elif isinstance(initial, VertexLabels):
        vl = initial
        if vl.ptr.shape[0] != n + 1:
            raise InvalidArgumentError(
                f"initial labels cover {vl.ptr.shape[0] - 1} vertices, graph has {n}"
            )
    elif isinstance(initial, dict):
        names: dict = {}
        pv, pl = [], []
        for vert, labels in initial.items():
            v = graph.vertex_index(vert)
            if isinstance(labels, str | bytes) or not hasattr(labels, "__iter__"):
                labels = [labels]
            for x in labels:
                pv.append(v)
                pl.append(names.setdefault(x, len(names)))
        vl = _vertex_labels(n, pv, pl, list(names))
    else:
        arr = np.asarray(initial)
        if arr.shape != (n,) or arr.dtype.kind not in "iu":
            raise InvalidArgumentError(
                f"initial as an array must hold one integer label per vertex ({n}), "
                f"-1 for none; got shape {arr.shape}, dtype {arr.dtype}"
            )
        has = arr >= 0
        uniq, inv = np.unique(arr[has], return_inverse=True)
        vl = _vertex_labels(n, np.flatnonzero(has), inv, uniq.tolist())
    return _merge_named(n, vl) + (n + len(vl.names), vl.names)


@njit(**NUMBA_FLAGS)
def _merge_named_kernel(n, vptr, vlab, vw):
    ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        ptr[v + 1] = ptr[v] + max(vptr[v + 1] - vptr[v], 1)
    lab = np.empty(ptr[n], dtype=np.int32)
    coef = np.empty(ptr[n], dtype=np.float64)
    for v in range(n):
        k = vptr[v + 1] - vptr[v]
        if k == 0:
            lab[ptr[v]] = v
            coef[ptr[v]] = 1.0
        else:
            total = 0.0
            for t in range(k):
                total += vw[vptr[v] + t] if vw.shape[0] else 1.0
            for t in range(k):  # named label t gets id n + t; rows are sorted already
                lab[ptr[v] + t] = n + vlab[vptr[v] + t]
                coef[ptr[v] + t] = (vw[vptr[v] + t] if vw.shape[0] else 1.0) / total
    return ptr, lab, coef


def _merge_named(n, vl):
    if vl.weights is None:
        w = np.empty(0, dtype=np.float64)
    else:
        w = np.ascontiguousarray(vl.weights, dtype=np.float64)
        if w.shape != vl.labels.shape or not (np.isfinite(w).all() and (w > 0).all()):
            raise InvalidArgumentError(
                f"initial label weights must be one finite positive value per label entry "
                f"({vl.labels.shape[0]}); got shape {w.shape}"
            )
    return _merge_named_kernel(n, vl.ptr, vl.labels, w)


# --------------------------------------------------------------------------- propagation
# a vertex whose neighbours hold at most this many label entries merges them in a
# buffer instead of the dense score array
_GATHER = 32
# leaves of a vertex with more label entries than this share one computed set
_MEMO = 8


# a neighbour with more label entries than this is "big": a vertex reads only the labels of
# its big neighbours that its small neighbours also hold, when a bound allows it
_BIG = 64


@njit(**NUMBA_FLAGS)
def _bounded_scores(indptr, indices, beg, fin, lab, coef, v, b, rowmax, score, touched):
    """Scores of vertex v's candidate labels without reading its big neighbours' whole sets,
    or -1 when the bound below does not hold (nothing is left in ``score`` then).

    Candidates are the labels of v's small neighbours; their exact scores add every
    neighbour's coefficient in CSR order (a big neighbour's by binary search in its
    label-sorted set), exactly as the full sum does. Any other label is held by big
    neighbours only, so its score is at most ``bound``, the sum of their largest
    coefficients (rounded addition is monotone, so this holds for the float sums too).
    When ``bound < b * (best candidate score)``, every such label falls below the
    threshold and cannot be the best: the kept set is decided by the candidates alone.
    This is what makes the first superstep cheap on a mention graph: its hubs sit in
    thousands of rough cores (thousands of labels of 1/k each), and each of a hub's
    neighbours of degree >= 2 would otherwise read them all."""
    a = indptr[v]
    e = indptr[v + 1]
    nbig = 0
    bound = 0.0
    for k in range(a, e):
        u = indices[k]
        if fin[u] - beg[u] > _BIG:
            nbig += 1
            bound += rowmax[u]
    if nbig == 0 or nbig == e - a:
        return -1
    nt = 0
    for k in range(a, e):  # candidates: the small neighbours' labels (1.0 marks them)
        u = indices[k]
        if fin[u] - beg[u] <= _BIG:
            for q in range(beg[u], fin[u]):
                c = lab[q]
                if score[c] == 0.0:
                    touched[nt] = c
                    nt += 1
                    score[c] = 1.0
    for t in range(nt):
        score[touched[t]] = 0.0
    for k in range(a, e):  # exact candidate scores, neighbours in CSR order
        u = indices[k]
        r0 = beg[u]
        r1 = fin[u]
        if r1 - r0 <= _BIG:
            for q in range(r0, r1):
                score[lab[q]] += coef[q]
        else:
            row = lab[r0:r1]  # sorted by label
            for t in range(nt):
                c = touched[t]
                x = np.searchsorted(row, c)
                if x < row.shape[0] and row[x] == c:
                    score[c] += coef[r0 + x]
    mx = 0.0
    for t in range(nt):
        mx = max(mx, score[touched[t]])
    if bound < b * mx:
        return nt
    for t in range(nt):
        score[touched[t]] = 0.0
    return -1


@njit(**NUMBA_FLAGS)
def _big_row_max(beg, fin, coef, rowmax):
    """rowmax[u] = the largest coefficient of u's set, for the big sets only."""
    n = beg.shape[0]
    for u in range(n):
        if fin[u] - beg[u] > _BIG:
            mx = 0.0
            for q in range(beg[u], fin[u]):
                mx = max(mx, coef[q])
            rowmax[u] = mx


@njit(**NUMBA_FLAGS)
def _propagate(
    indptr,
    indices,
    beg,
    fin,
    lab,
    coef,
    pbeg,
    pfin,
    plab,
    pcoef,
    active,
    starts,
    ends,
    b,
    cap,
    score,
    touched,
    rowmax,
    memo,
    memo_m,
    big,
    full,
):
    """New label sets of the vertices in chunks ``starts[i]..ends[i]-1`` from the state
    ``source`` (beg, fin, lab, coef); ``p*`` is the state one superstep before it, whose
    sets the inactive vertices (``active[v]`` false) take unchanged. Returns (ids int32:
    the vertices whose new set differs from the ``p*`` one, counts int64, labels int32,
    coefficients float64): with ``full`` false, those vertices' new sets (``counts`` per
    vertex in ``ids``); with ``full`` true, every vertex's new set in order (``counts``
    per vertex of the chunks), so that receivers build a fresh state instead of
    patching when most vertices change.
    ``big``: some set of ``source`` has more than ``_BIG`` entries.

    Three ways to sum the scores, all adding in the same order (neighbours in CSR order,
    each neighbour's labels ascending), so they give bit-identical sets: a degree-1 vertex
    copies its neighbour's coefficients (0.0 + x == x); a vertex whose neighbours hold at
    most ``_GATHER`` entries gathers them into a small buffer and merges them with a
    stable sort (no random access into the label-sized ``score`` array, which is what a
    mention graph's millions of small vertices would otherwise pay in cache misses);
    others use the dense ``score`` array (8 B per label) and the ``touched`` list. Nothing
    is allocated per vertex."""
    size = 0
    for ci in range(starts.shape[0]):
        size += ends[ci] - starts[ci]
    olab = np.empty(max(64, 2 * size), dtype=np.int32)  # grown by doubling
    ocoef = np.empty(olab.shape[0], dtype=np.float64)
    ids = np.empty(size, dtype=np.int32)
    cnt = np.empty(size, dtype=np.int64)
    klab = np.empty(touched.shape[0], dtype=np.int32)  # the kept set, by label
    ksc = np.empty(touched.shape[0], dtype=np.float64)
    glab = np.empty(_GATHER, dtype=np.int32)
    gsc = np.empty(_GATHER, dtype=np.float64)
    ncap = max(cap, 1)
    blab = np.empty(ncap, dtype=np.int32)  # top-cap buffer, by (-score, label)
    bsc = np.empty(ncap, dtype=np.float64)
    # memo[u]: where the set of a leaf of u was written (u's set > _MEMO entries), -1:
    # none yet (the caller's array, all -1 on entry and on return). A hub's leaves then
    # cost O(their set) each, not O(the hub's set): a hub in thousands of rough cores
    # starts with thousands of labels.
    memo_used = np.empty(size, dtype=np.int64)  # the memo entries to reset at the end
    nmemo = 0
    if big:
        _big_row_max(beg, fin, coef, rowmax)
    nch = 0
    relabelled = 0  # vertices whose label ids (not only coefficients) differ
    out = 0
    nv = -1  # index of v among this call's vertices
    for ci in range(starts.shape[0]):
        for v in range(starts[ci], ends[ci]):
            nv += 1
            a = indptr[v]
            e = indptr[v + 1]
            # no neighbour differs from two supersteps ago, so neither does v; an isolated
            # vertex keeps its labels: either way, its set of the state before source
            if not active[v] or a == e:
                if full:
                    m = pfin[v] - pbeg[v]
                    if out + m > olab.shape[0]:  # grow by doubling
                        olab, ocoef = _grow(olab, ocoef, out, max(2 * olab.shape[0], out + m))
                    olab[out : out + m] = plab[pbeg[v] : pfin[v]]
                    ocoef[out : out + m] = pcoef[pbeg[v] : pfin[v]]
                    out += m
                    cnt[nv] = m
                continue
            gathered = 0
            for k in range(a, e):
                u = indices[k]
                gathered += fin[u] - beg[u]
                if gathered > _GATHER:
                    break
            m = 0
            if e - a == 1 and memo[indices[a]] >= 0:
                # a leaf of a vertex whose (large) set was already computed for another leaf
                # in this superstep: the same set, bit for bit, so copy it
                o = memo[indices[a]]
                m = memo_m[indices[a]]
                same = _same_set(pbeg, pfin, plab, pcoef, v, olab, ocoef, o, m)
                if not same and not _same_labels(pbeg, pfin, plab, v, olab, o, m):
                    relabelled += 1
                if full or not same:
                    if out + m > olab.shape[0]:  # grow by doubling
                        olab, ocoef = _grow(olab, ocoef, out, max(2 * olab.shape[0], out + m))
                    olab[out : out + m] = olab[o : o + m]  # o + m <= out: no overlap
                    ocoef[out : out + m] = ocoef[o : o + m]
                    out += m
                    cnt[nv if full else nch] = m
                if not same:
                    ids[nch] = v
                    nch += 1
                continue
            if e - a == 1:
                u = indices[a]
                mx = 0.0
                for q in range(beg[u], fin[u]):
                    mx = max(mx, coef[q])
                thr = b * mx
                for q in range(beg[u], fin[u]):
                    if coef[q] >= thr:
                        klab[m] = lab[q]
                        ksc[m] = coef[q]
                        m += 1
            elif gathered <= _GATHER:
                ng = 0
                for k in range(a, e):
                    u = indices[k]
                    for q in range(beg[u], fin[u]):
                        c = lab[q]
                        x = coef[q]
                        j = ng  # stable insertion by label: equal labels keep neighbour order
                        while j > 0 and glab[j - 1] > c:
                            glab[j] = glab[j - 1]
                            gsc[j] = gsc[j - 1]
                            j -= 1
                        glab[j] = c
                        gsc[j] = x
                        ng += 1
                nt = 0
                for t in range(ng):  # runs of a label: sum in order, starting from 0.0
                    if nt > 0 and klab[nt - 1] == glab[t]:
                        ksc[nt - 1] += gsc[t]
                    else:
                        klab[nt] = glab[t]
                        ksc[nt] = 0.0 + gsc[t]
                        nt += 1
                mx = 0.0
                for t in range(nt):
                    mx = max(mx, ksc[t])
                thr = b * mx
                for t in range(nt):
                    if ksc[t] >= thr:
                        klab[m] = klab[t]
                        ksc[m] = ksc[t]
                        m += 1
            else:
                nt = _bounded_scores(
                    indptr, indices, beg, fin, lab, coef, v, b, rowmax, score, touched
                )
                if nt < 0:  # no bound: every label of every neighbour
                    nt = 0
                    for k in range(a, e):
                        u = indices[k]
                        for q in range(beg[u], fin[u]):
                            c = lab[q]
                            if score[c] == 0.0:  # coefficients are > 0, so 0 means untouched
                                touched[nt] = c
                                nt += 1
                            score[c] += coef[q]
                mx = 0.0
                for t in range(nt):
                    mx = max(mx, score[touched[t]])
                thr = b * mx
                for t in range(nt):
                    c = touched[t]
                    if score[c] >= thr:
                        touched[m] = c
                        m += 1
                    else:
                        score[c] = 0.0
                if cap > 0 and m > cap:
                    # top cap by (score desc, label asc) straight from the unsorted list, so
                    # a set of thousands is not sorted for the few labels kept
                    nb = 0
                    for t in range(m):
                        c = touched[t]
                        x = score[c]
                        score[c] = 0.0
                        if nb == cap and (
                            x < bsc[nb - 1] or (x == bsc[nb - 1] and c > blab[nb - 1])
                        ):
                            continue
                        j = nb if nb < cap else cap - 1
                        while j > 0 and (bsc[j - 1] < x or (bsc[j - 1] == x and blab[j - 1] > c)):
                            bsc[j] = bsc[j - 1]
                            blab[j] = blab[j - 1]
                            j -= 1
                        bsc[j] = x
                        blab[j] = c
                        if nb < cap:
                            nb += 1
                    order = np.argsort(blab[:cap]) if cap > 24 else _small_order(blab, cap)
                    for t in range(cap):
                        klab[t] = blab[order[t]]
                        ksc[t] = bsc[order[t]]
                    m = cap
                else:
                    touched[:m].sort()
                    for t in range(m):
                        c = touched[t]
                        klab[t] = c
                        ksc[t] = score[c]
                        score[c] = 0.0
            if cap > 0 and m > cap:
                # highest scores, ties to the smaller label: klab ascends, so a later label
                # displaces only on a strictly higher score
                nb = 0
                for t in range(m):
                    s = ksc[t]
                    if nb == cap and s <= bsc[nb - 1]:
                        continue
                    j = nb if nb < cap else cap - 1
                    while j > 0 and bsc[j - 1] < s:
                        bsc[j] = bsc[j - 1]
                        blab[j] = blab[j - 1]
                        j -= 1
                    bsc[j] = s
                    blab[j] = klab[t]
                    if nb < cap:
                        nb += 1
                order = np.argsort(blab[:cap]) if cap > 24 else _small_order(blab, cap)
                for t in range(cap):
                    klab[t] = blab[order[t]]
                    ksc[t] = bsc[order[t]]
                m = cap
            total = 0.0
            for t in range(m):
                total += ksc[t]
            for t in range(m):
                ksc[t] = ksc[t] / total
            same = _same_set(pbeg, pfin, plab, pcoef, v, klab, ksc, 0, m)
            if not same and not _same_labels(pbeg, pfin, plab, v, klab, 0, m):
                relabelled += 1
            if full or not same:
                if out + m > olab.shape[0]:  # grow by doubling
                    olab, ocoef = _grow(olab, ocoef, out, max(2 * olab.shape[0], out + m))
                olab[out : out + m] = klab[:m]
                ocoef[out : out + m] = ksc[:m]
                if e - a == 1 and fin[indices[a]] - beg[indices[a]] > _MEMO:
                    memo[indices[a]] = out
                    memo_m[indices[a]] = m
                    memo_used[nmemo] = indices[a]
                    nmemo += 1
                out += m
                cnt[nv if full else nch] = m
            if not same:
                ids[nch] = v
                nch += 1
    for t in range(nmemo):  # leave the memo all -1 for the next superstep
        memo[memo_used[t]] = -1
    ncnt = size if full else nch
    return (
        ids[:nch].copy(),
        cnt[:ncnt].copy(),
        olab[:out].copy(),
        ocoef[:out].copy(),
        np.full(1, relabelled, dtype=np.int64),
    )


@njit(**NUMBA_FLAGS)
def _same_set(pbeg, pfin, plab, pcoef, v, lab, coef, o, m):
    """Whether v's set in the state (pbeg, pfin, plab, pcoef) is lab/coef[o:o+m]."""
    if pfin[v] - pbeg[v] != m:
        return False
    for t in range(m):
        q = pbeg[v] + t
        if plab[q] != lab[o + t] or pcoef[q] != coef[o + t]:
            return False
    return True


@njit(**NUMBA_FLAGS)
def _same_labels(pbeg, pfin, plab, v, lab, o, m):
    """Whether v's label ids in the state (pbeg, pfin, plab) are lab[o:o+m]."""
    if pfin[v] - pbeg[v] != m:
        return False
    for t in range(m):
        if plab[pbeg[v] + t] != lab[o + t]:
            return False
    return True


@njit(**NUMBA_FLAGS)
def _grow(olab, ocoef, used, size):
    g1 = np.empty(size, dtype=np.int32)
    g2 = np.empty(size, dtype=np.float64)
    g1[:used] = olab[:used]
    g2[:used] = ocoef[:used]
    return g1, g2


@njit(**NUMBA_FLAGS)
def _small_order(x, m):
    """argsort of x[:m] (distinct values) by insertion, for the few slots of a cap."""
    order = np.arange(m)
    for i in range(1, m):
        y = order[i]
        j = i
        while j > 0 and x[order[j - 1]] > x[y]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = y
    return order


@njit(**NUMBA_FLAGS)
def _counts_after(cnt, beg, fin, lab, ids, ccnt, clab):
    """Count of a state patched with new sets for ``ids``, from its Count and old sets."""
    new = cnt.copy()
    pos = 0
    for k in range(ids.shape[0]):
        v = ids[k]
        for q in range(beg[v], fin[v]):
            new[lab[q]] -= 1
        for q in range(pos, pos + ccnt[k]):
            new[clab[q]] += 1
        pos += ccnt[k]
    return new


@njit(**NUMBA_FLAGS)
def _count_labels(lab, num_labels):
    """Count(L): how many vertices hold each label (a set holds a label once)."""
    cnt = np.zeros(num_labels, dtype=np.int32)
    for q in range(lab.shape[0]):
        cnt[lab[q]] += 1
    return cnt


@njit(**NUMBA_FLAGS)
def _stop_rule(cnt_src, cnt_dst, old_min, have_old):
    """The paper's test: Min = mc(Count(source), Count(dest)) when Id(source) == Id(dest),
    else Count(dest); True (stop) when Min == oldMin, else oldMin := Min. Counts are dense
    (0: label not in use), so the dictionaries compare equal exactly when the arrays do."""
    same_ids = True
    for c in range(cnt_src.shape[0]):
        if (cnt_src[c] > 0) != (cnt_dst[c] > 0):
            same_ids = False
            break
    same = have_old
    for c in range(cnt_src.shape[0]):
        m = min(cnt_src[c], cnt_dst[c]) if same_ids else cnt_dst[c]
        if m != old_min[c]:
            same = False
            old_min[c] = m
    return same


# A state is [beg, fin, room, lab, coef, used, live]: the set of v is lab/coef[beg[v]:
# fin[v]] inside a slot of room[v] entries of the arena (lab int32, coef float64, the
# first ``used`` entries taken, ``live`` of them in sets). 20 B per vertex + 12 B per
# arena entry. Patching writes a new set into its vertex's slot, or at the arena's end
# when it outgrows the slot, so a superstep that changes k sets costs O(their entries),
# not a copy of the whole state; the arena is compacted when half of it is dead.
_SLACK = 4096  # dead arena entries always tolerated


def _compact_state(ccnt, clab, ccoef):
    """A state whose sets are concatenated (``ccnt`` entries each, in vertex order)."""
    fin = np.cumsum(ccnt)
    beg = fin - ccnt
    live = int(fin[-1]) if fin.shape[0] else 0
    return [beg, fin, ccnt.astype(np.int32), clab, ccoef, live, live]


@njit(**NUMBA_FLAGS)
def _patch_kernel(beg, fin, room, lab, coef, used, ids, ccnt, clab, ccoef):
    need = 0
    for k in range(ids.shape[0]):
        if ccnt[k] > room[ids[k]]:
            need += ccnt[k]
    if used + need > lab.shape[0]:
        lab, coef = _grow(lab, coef, used, max(used + need, lab.shape[0] + lab.shape[0] // 2))
    delta = 0
    pos = 0
    for k in range(ids.shape[0]):
        v = ids[k]
        m = ccnt[k]
        delta += m - (fin[v] - beg[v])
        if m > room[v]:
            beg[v] = used
            room[v] = m
            used += m
        fin[v] = beg[v] + m
        lab[beg[v] : fin[v]] = clab[pos : pos + m]
        coef[beg[v] : fin[v]] = ccoef[pos : pos + m]
        pos += m
    return lab, coef, used, delta


def _gather_rows(state, order):
    """The sets of vertices ``order`` (in that order) of a state, as CSR (ptr from 0,
    labels, coefficients)."""
    beg, fin, _, lab, coef = state[:5]
    ptr, glab = rows_in_order(beg, fin, lab, order)
    return ptr, glab, rows_in_order(beg, fin, coef, order)[1]


def _patch(state, ids, ccnt, clab, ccoef):
    """``state`` with new sets for ``ids``, in place (compacted when half is dead)."""
    beg, fin, room, lab, coef, used, live = state
    lab, coef, used, delta = _patch_kernel(beg, fin, room, lab, coef, used, ids, ccnt, clab, ccoef)
    state = [beg, fin, room, lab, coef, used, live + delta]
    if used > 2 * state[6] + _SLACK:
        ptr, lab, coef = _gather_rows(state, np.arange(beg.shape[0]))
        return _compact_state(np.diff(ptr), lab, coef)
    return state


@njit(**NUMBA_FLAGS)
def _range_cut(indptr, parts, part, alpha):
    """First vertex of ``part`` when ``alpha * vertices + edges`` is split evenly."""
    n = indptr.shape[0] - 1
    target = (alpha * n + indptr[n]) * part / parts
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if alpha * mid + indptr[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


# chunks per peer: peers take every parts-th chunk, so the heavy region that breadth-first
# numbering puts first (a hub's neighbourhood) is shared out instead of landing on peer 0
_CHUNKS_PER_PEER = 64


def _chunks(indptr, parts):
    """(starts, ends) of ``_CHUNKS_PER_PEER * parts`` chunks balanced on ``2 * vertices +
    edges``; chunk k belongs to peer ``k % parts``."""
    k = _CHUNKS_PER_PEER * parts
    cuts = np.array([_range_cut(indptr, k, i, 2.0) for i in range(1, k)], dtype=np.int64)
    n = indptr.shape[0] - 1
    return np.concatenate([[0], cuts]), np.concatenate([cuts, [n]])


def _assemble(pieces, starts, ends, parts):
    """(counts, labels, coefficients) in vertex order from every peer's sets of all its
    vertices, ``pieces[p] = (counts, labels, coefficients)`` over peer p's chunks."""
    if parts == 1:
        return pieces[0]
    vcut = [
        np.concatenate([[0], np.cumsum(ends[p::parts] - starts[p::parts])]) for p in range(parts)
    ]
    ecut = [np.concatenate([[0], np.cumsum(pc[0])]) for pc in pieces]
    out = ([], [], [])
    for k in range(starts.shape[0]):
        p, j = k % parts, k // parts
        v0, v1 = vcut[p][j], vcut[p][j + 1]
        e0, e1 = ecut[p][v0], ecut[p][v1]
        out[0].append(pieces[p][0][v0:v1])
        out[1].append(pieces[p][1][e0:e1])
        out[2].append(pieces[p][2][e0:e1])
    return tuple(np.concatenate(x) for x in out)


@njit(**NUMBA_FLAGS)
def _active_chunks(indptr, indices, starts, ends, ids, mark):
    """(active, count): active[v] for the vertices of the chunks: v has a neighbour in
    ``ids`` (the vertices whose set differs from two supersteps before); count: how many
    of them. Pushes from ``ids`` when their edges are fewer than the chunks', else scans
    the chunks against ``mark`` (a false bool array of n, left false)."""
    n = indptr.shape[0] - 1
    active = np.zeros(n, dtype=np.bool_)
    work = 0
    for k in range(ids.shape[0]):
        u = ids[k]
        work += indptr[u + 1] - indptr[u]
    mine = 0
    for ci in range(starts.shape[0]):
        mine += indptr[ends[ci]] - indptr[starts[ci]]
    if work <= mine:
        for k in range(ids.shape[0]):
            u = ids[k]
            for q in range(indptr[u], indptr[u + 1]):
                active[indices[q]] = True  # others' vertices too: never read
    else:
        for k in range(ids.shape[0]):
            mark[ids[k]] = True
        for ci in range(starts.shape[0]):
            for v in range(starts[ci], ends[ci]):
                for q in range(indptr[v], indptr[v + 1]):
                    if mark[indices[q]]:
                        active[v] = True
                        break
        for k in range(ids.shape[0]):
            mark[ids[k]] = False
    count = 0
    for ci in range(starts.shape[0]):
        for v in range(starts[ci], ends[ci]):
            count += active[v]
    return active, count


def _bmlpa_peer(peer, indptr, indices, state, num_labels, b, cap, max_iterations, tolerance, show):
    """The BSP program: one vertex range per peer; returns its range's final sets.

    Synchronous propagation swings with period 2 on bipartite pieces (stars, chains), so
    work is skipped against the state two supersteps back, not the last one: a vertex
    none of whose neighbours' sets differ from two supersteps ago gets, bit for bit, its
    own set of two supersteps ago (the update is a function of the neighbours' sets).
    Each superstep therefore computes ``dest`` from ``source`` for the *active* vertices
    only, and builds it by patching ``prev`` (the state before ``source``) with the sets
    that differ from it; those vertices make the next superstep's active set.

    Stop rules: ``tolerance`` None is the paper's counts rule (keeps ``source``); a number
    is the seed's update-rate rule (keeps ``dest``): stop once fewer than ``tolerance * n``
    vertices hold labels (ids, not coefficients) that differ from two supersteps back, or
    none does."""
    ptr, lab, coef = state
    n = indptr.shape[0] - 1
    pid, parts = peer.pid, peer.num_peers
    starts, ends = _chunks(indptr, parts)
    mine = starts[pid::parts].copy(), ends[pid::parts].copy()
    own = np.concatenate([np.arange(a, e) for a, e in zip(*mine, strict=True)])  # my vertices
    size = own.shape[0]
    score = np.zeros(num_labels, dtype=np.float64)  # 8 B per label, per peer
    touched = np.empty(num_labels, dtype=np.int32)
    rowmax = np.empty(n, dtype=np.float64)  # read only for the big sets (> _BIG entries)
    memo = np.full(n, -1, dtype=np.int64)  # the leaf memo of _propagate: 12 B per vertex
    memo_m = np.empty(n, dtype=np.int32)
    mark = np.zeros(n, dtype=np.bool_)
    everyone = np.ones(n, dtype=np.bool_)
    # own copies: states are patched in place, and the local runtime shares the input
    cur = prev = _compact_state(np.diff(ptr), lab.copy(), coef.copy())
    largest = int(cur[2].max()) if n else 0  # a bound on the largest set
    if tolerance is None:  # the counts rule's label counts: 12 B per label
        cnt = cnt_prev = _count_labels(lab, num_labels)
        old_min = np.zeros(num_labels, dtype=np.int32)
    changed_per_step = []
    relabelled_per_step = []
    active_per_step = []  # this peer's recomputed vertices
    stopped = "max_iterations"
    counts_rule = tolerance is None
    last_changed = n
    diff = None
    for it in range(max_iterations):
        # the first two supersteps have no state two supersteps back: all are active
        if it < 2:
            active, count = everyone, size
        else:
            active, count = _active_chunks(indptr, indices, *mine, diff, mark)
        active_per_step.append(int(count))
        # while most vertices differ (early supersteps), ship every vertex's set and
        # build a fresh state: no patching pass; the choice uses the global count of
        # the last superstep, so every peer makes the same one
        full = 2 * last_changed > n
        msg = _propagate(
            indptr, indices, cur[0], cur[1], cur[3], cur[4], prev[0], prev[1], prev[3],
            prev[4], active, *mine, b, cap, score, touched, rowmax, memo, memo_m,
            largest > _BIG, full,
        )  # fmt: skip
        if full:  # the state before source is not needed to build a fresh one: free it
            prev = None
        for q in range(parts):
            for a in msg:
                peer.send(q, a)
        peer.sync()
        got = [a for _, a in peer.messages()]  # 5 arrays per peer, peers in order
        ids = np.concatenate(got[0::5]) if parts > 1 else got[0]
        if full:  # every vertex's set, by chunk: into vertex order
            pieces = [got[5 * q + 1 : 5 * q + 4] for q in range(parts)]
            ccnt, clab, ccoef = _assemble(pieces, starts, ends, parts)
        else:  # the changed vertices' sets, in the order of ids
            ccnt, clab, ccoef = (
                np.concatenate(got[i::5]) if parts > 1 else got[i] for i in (1, 2, 3)
            )
        last_changed = int(ids.shape[0])
        relabelled = int(sum(int(a[0]) for a in got[4::5]))
        changed_per_step.append(last_changed)
        relabelled_per_step.append(relabelled)
        if show is not None and pid == 0:
            show(it + 1, last_changed, cur[6], relabelled)
        if counts_rule:
            if full:
                new_cnt = _count_labels(clab, num_labels)
            else:
                new_cnt = _counts_after(cnt_prev, prev[0], prev[1], prev[3], ids, ccnt, clab)
            if _stop_rule(cnt, new_cnt, old_min, it > 0):
                stopped = "counts"
                break
        if ccnt.shape[0]:
            largest = max(int(ccnt.max()), 0 if full else largest)
        new = _compact_state(ccnt, clab, ccoef) if full else _patch(prev, ids, ccnt, clab, ccoef)
        prev, cur = cur, new
        if counts_rule:
            cnt_prev, cnt = cnt, new_cnt
        diff = ids
        del msg, got, ccnt, clab, ccoef, new
        if not counts_rule and (relabelled == 0 or relabelled < tolerance * n):
            stopped = "rate"
            break
    ptr, lab, coef = _gather_rows(cur, own)
    steps = (changed_per_step, relabelled_per_step, active_per_step)
    return (np.diff(ptr), lab, coef), stopped, steps


# --------------------------------------------------------------------------- post-processing
@njit(**NUMBA_FLAGS)
def _members(ptr, lab, num_labels):
    """Community -> members (CSR by label; members ascending)."""
    n = ptr.shape[0] - 1
    cptr = np.zeros(num_labels + 1, dtype=np.int64)
    for q in range(ptr[n]):
        cptr[lab[q] + 1] += 1
    for c in range(num_labels):
        cptr[c + 1] += cptr[c]
    fill = cptr[:-1].copy()
    cmem = np.empty(ptr[n], dtype=np.int32)
    for v in range(n):
        for q in range(ptr[v], ptr[v + 1]):
            c = lab[q]
            cmem[fill[c]] = v
            fill[c] += 1
    return cptr, cmem


@njit(**NUMBA_FLAGS)
def _nested_targets(ptr, lab, cptr, cmem):
    """target[A] = the community A merges into (the smallest one containing it, ties to
    the smaller label; an equal community with a smaller label counts), or -1."""
    num_labels = cptr.shape[0] - 1
    target = np.full(num_labels, -1, dtype=np.int64)
    for A in range(num_labels):
        sa = cptr[A + 1] - cptr[A]
        if sa == 0:
            continue
        x = cmem[cptr[A]]  # the member with the fewest labels: fewest candidates
        for t in range(cptr[A], cptr[A + 1]):
            y = cmem[t]
            if ptr[y + 1] - ptr[y] < ptr[x + 1] - ptr[x]:
                x = y
        best = -1
        for q in range(ptr[x], ptr[x + 1]):
            B = lab[q]
            sb = cptr[B + 1] - cptr[B]
            if B == A or sb < sa or (sb == sa and B > A):
                continue
            if best >= 0:
                sbest = cptr[best + 1] - cptr[best]
                if sb > sbest or (sb == sbest and B > best):
                    continue
            inside = True
            for t in range(cptr[A], cptr[A + 1]):
                if not _contains(lab[ptr[cmem[t]] : ptr[cmem[t] + 1]], B):
                    inside = False
                    break
            if inside:
                best = B
        target[A] = best
    for A in range(num_labels):  # follow chains A -> B -> C (sizes grow, or ids fall)
        r = A
        while target[r] >= 0:
            r = target[r]
        if r != A:
            target[A] = r
    return target


@njit(**NUMBA_FLAGS)
def _relabel(ptr, lab, coef, target):
    """Each nested label replaced by its target; coefficients of a repeated label add
    (in the row's label order: a stable insertion sort on a reused buffer)."""
    n = ptr.shape[0] - 1
    width = 1
    for v in range(n):
        width = max(width, ptr[v + 1] - ptr[v])
    rl = np.empty(width, dtype=np.int32)
    rc = np.empty(width, dtype=np.float64)
    nptr = np.zeros(n + 1, dtype=np.int64)
    nlab = np.empty(ptr[n], dtype=np.int32)
    ncoef = np.empty(ptr[n], dtype=np.float64)
    out = 0
    for v in range(n):
        a = ptr[v]
        e = ptr[v + 1]
        for t in range(e - a):
            c = lab[a + t]
            if target[c] >= 0:
                c = target[c]
            w = coef[a + t]
            j = t
            while j > 0 and rl[j - 1] > c:
                rl[j] = rl[j - 1]
                rc[j] = rc[j - 1]
                j -= 1
            rl[j] = c
            rc[j] = w
        for t in range(e - a):
            if out > nptr[v] and nlab[out - 1] == rl[t]:
                ncoef[out - 1] += rc[t]
            else:
                nlab[out] = rl[t]
                ncoef[out] = rc[t]
                out += 1
        nptr[v + 1] = out
    return nptr, nlab[:out].copy(), ncoef[:out].copy()


@njit(**NUMBA_FLAGS)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(**NUMBA_FLAGS)
def _split(indptr, indices, ptr, lab, coef):
    """Connected pieces of every community: union-find over membership entries, joined
    along edges whose ends share the label. Communities are numbered by (smallest member,
    label); rows come back sorted by community. Returns (community per entry, reordered
    coefficients, sizes, the label of each community). Scratch: 4 B per entry (int32
    union-find; entries < 2**31) besides the outputs."""
    n = ptr.shape[0] - 1
    total = ptr[n]
    parent = np.arange(total, dtype=np.int32)
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            if u <= v:
                continue
            i, j = ptr[v], ptr[u]
            while i < ptr[v + 1] and j < ptr[u + 1]:  # both rows sorted by label
                if lab[i] < lab[j]:
                    i += 1
                elif lab[i] > lab[j]:
                    j += 1
                else:
                    ri = _find(parent, i)
                    rj = _find(parent, j)
                    if ri != rj:
                        parent[max(ri, rj)] = min(ri, rj)
                    i += 1
                    j += 1
    # parent[] becomes the community id of each entry: roots are numbered at first sight,
    # scanning vertices then labels, i.e. by (smallest member, label); a root precedes
    # every entry of its set (it is the set's smallest entry), so one pass suffices
    comm = np.empty(total, dtype=np.int64)
    origin = np.empty(total, dtype=np.int32)
    k = 0
    for q in range(total):
        r = parent[q]
        if r == q:
            comm[q] = k
            origin[k] = lab[q]
            k += 1
        else:
            comm[q] = comm[_find(parent, r)]
    sizes = np.zeros(k, dtype=np.int64)
    ncoef = coef.copy()
    for v in range(n):  # sort each row by community (ids in a row are distinct)
        a = ptr[v]
        e = ptr[v + 1]
        for t in range(a + 1, e):
            c = comm[t]
            w = ncoef[t]
            j = t
            while j > a and comm[j - 1] > c:
                comm[j] = comm[j - 1]
                ncoef[j] = ncoef[j - 1]
                j -= 1
            comm[j] = c
            ncoef[j] = w
        for t in range(a, e):
            sizes[comm[t]] += 1
    return comm, ncoef, sizes, origin[:k].astype(np.int64)


@njit(**NUMBA_FLAGS)
def _primary(ptr, comm, coef):
    n = ptr.shape[0] - 1
    best = np.full(n, -1, dtype=np.int64)
    bcoef = np.zeros(n, dtype=np.float64)
    for v in range(n):
        for q in range(ptr[v], ptr[v + 1]):  # ascending communities: ties keep the first
            if best[v] < 0 or coef[q] > bcoef[v]:
                best[v] = comm[q]
                bcoef[v] = coef[q]
    return best, bcoef


def _postprocess(indptr, indices, ptr, lab, coef, num_labels):
    cptr, cmem = _members(ptr, lab, num_labels)
    target = _nested_targets(ptr, lab, cptr, cmem)
    del cptr, cmem
    nested = int((target >= 0).sum())
    if nested:
        ptr, lab, coef = _relabel(ptr, lab, coef, target)
    comm, coef, sizes, origin = _split(indptr, indices, ptr, lab, coef)
    # a split piece can equal or lie inside another community (a path's swinging labels
    # leave two labels on one vertex): merge those the same way. Merging adds no member,
    # so every community stays connected; survivors keep their order.
    cptr, cmem = _members(ptr, comm, sizes.shape[0])
    target = _nested_targets(ptr, comm, cptr, cmem)
    del cptr, cmem
    inside = int((target >= 0).sum())
    if inside:
        ptr, comm, coef = _relabel(ptr, comm, coef, target)
        keep = target < 0
        comm = (np.cumsum(keep) - 1)[comm]
        sizes = np.bincount(comm, minlength=int(keep.sum())).astype(sizes.dtype)
        origin = origin[keep]
        nested += inside
    return ptr, comm, coef, sizes, origin, nested


# --------------------------------------------------------------------------- front end
class _Show:
    """Per-superstep progress through :class:`hpgraph.progress.Progress` (a live line on a
    terminal, plain lines when piped), or a user function ``f(iteration, changed,
    entries)``."""

    def __init__(self, progress, n):
        from hpgraph.progress import Progress

        self.n = max(n, 1)
        self.own = progress is True
        self.user = None if isinstance(progress, Progress) or progress is True else progress
        self.p = Progress("bmlpa") if progress is True else progress

    def __call__(self, iteration, changed, entries, relabelled):
        if self.user is not None:
            self.user(iteration, changed, entries)
            return
        self.p.update(
            f"superstep {iteration}: update rate {relabelled / self.n:.4f} "
            f"({relabelled:,} relabelled, {changed:,} changed), {entries:,} label entries"
        )

    def close(self, text=None):
        """End the line: ``text`` as the final line, or nothing (an error is coming)."""
        if self.own:
            self.p.done(text) if text else self.p.close()


def _check(b, p, max_labels, max_iterations, threads):
    if b is not None and p is not None and float(b) != float(p):
        raise InvalidArgumentError(f"b and its alias p disagree: b={b!r}, p={p!r}")
    b = 0.1 if b is None and p is None else (b if b is not None else p)
    if isinstance(b, bool) or not isinstance(b, int | float) or not 0.0 < float(b) <= 1.0:
        raise InvalidArgumentError(f"b (belonging threshold) must be in (0, 1], got {b!r}")
    if max_labels is not None and (
        isinstance(max_labels, bool) or not isinstance(max_labels, int) or max_labels < 1
    ):
        raise InvalidArgumentError(
            f"max_labels must be a positive integer or None, got {max_labels!r}"
        )
    if (
        isinstance(max_iterations, bool)
        or not isinstance(max_iterations, int)
        or max_iterations < 0
    ):
        raise InvalidArgumentError(
            f"max_iterations must be an integer >= 0, got {max_iterations!r}"
        )
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise InvalidArgumentError(f"threads must be a positive integer, got {threads!r}")
    return float(b)


_STOP_RULES = ("rate", "counts")


def _check_stop(stop, tolerance):
    """The update-rate tolerance of ``stop="rate"``, or None for the counts rule."""
    if stop not in _STOP_RULES:
        raise InvalidArgumentError(f"stop must be one of {', '.join(_STOP_RULES)}; got {stop!r}")
    if stop == "counts":
        if tolerance is not None:
            raise InvalidArgumentError("tolerance applies to stop='rate' only")
        return None
    if tolerance is None:
        return BMLPA_TOLERANCE
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, int | float)
        or not (0.0 <= float(tolerance) < 1.0)
    ):
        raise InvalidArgumentError(f"tolerance must be in [0, 1), got {tolerance!r}")
    return float(tolerance)


def _in_order(ptr, lab, coef, order):
    """The sets (CSR) with row i taken from row ``order[i]``."""
    return _gather_rows([ptr[:-1], ptr[1:], None, lab, coef], order)


def bmlpa(
    graph,
    *,
    b: float | None = None,
    p: float | None = None,
    initial="rough-cores",
    max_labels: int | None = None,
    max_iterations: int = 100,
    stop: str = "rate",
    tolerance: float | None = None,
    seed: int = 0,
    threads: int | None = None,
    runtime=None,
    progress=False,
) -> BMLPAResult:
    """Overlapping communities of ``graph`` by BMLPA (see the module docstring).

    ``b`` (alias ``p``, default 0.1) is the belonging threshold: a label stays at a vertex
    when its score is at least ``b`` times the best one. ``initial`` is ``"rough-cores"``,
    a label file (:func:`read_vertex_labels`), a :class:`VertexLabels`, a mapping
    ``{vertex: label or labels}`` in the input's ids, or an integer array of one label per
    vertex (-1: none); unlabelled vertices start with their own label. ``max_labels`` caps
    the labels per vertex (not in the paper; ``None``: no cap). ``stop="rate"`` (the
    seed's rule, default) stops once the share of vertices whose set changed (against two
    supersteps back, see the module docstring) falls below ``tolerance`` (default
    :data:`hpgraph.config.BMLPA_TOLERANCE`); ``stop="counts"`` is the paper's label-count
    rule. ``max_iterations`` bounds both. ``seed`` breaks degree
    ties in the rough cores. ``threads`` peers on the local runtime, or
    ``runtime="mpi"``. ``progress=True`` shows a live line per iteration, or pass a
    function ``progress(iteration, changed_vertices, label_entries)``.
    """
    check_graph(graph)
    b = _check(b, p, max_labels, max_iterations, threads)
    tolerance = _check_stop(stop, tolerance)
    seed = check_seed(seed)
    t0 = time.perf_counter()
    indptr, indices = simple_view(graph)
    ptr, lab, coef, num_labels, names = _initial(graph, initial, seed)
    order, lip, lix = locality_view(graph)
    init_s = time.perf_counter() - t0
    n = graph.n
    stats = None
    stopped, changed, relabelled, active = "no supersteps", [], [], []
    if n and max_iterations:
        show = _Show(progress, n) if progress else None
        try:
            res = run_bsp(
                _bmlpa_peer,
                peers=min(threads or DEFAULT_THREADS, n),
                args=(
                    lip,
                    lix,
                    _in_order(ptr, lab, coef, order),
                    num_labels,
                    b,
                    max_labels or 0,
                    max_iterations,
                    tolerance,
                    show,
                ),
                runtime=runtime,
            )
        except BaseException:
            if show is not None:
                show.close()
            raise
        rows = res.results
        stats = res.stats
        stopped, (changed, relabelled, _) = rows[0][1], rows[0][2]
        active = [int(x) for x in np.sum([r[2][2] for r in rows], axis=0)]
        parts = len(rows)
        counts, lab, coef = _assemble([r[0] for r in rows], *_chunks(lip, parts), parts)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        ptr, lab, coef = _in_order(ptr, lab, coef, rank)  # back to the input's numbering
    t1 = time.perf_counter()
    ptr, comm, coef, sizes, origin, nested = _postprocess(
        indptr, indices, ptr, lab, coef, num_labels
    )
    post_s = time.perf_counter() - t1
    if n and max_iterations and show is not None:
        show.close(
            f"{sizes.shape[0]:,} communities after {len(changed)} supersteps "
            f"(stopped by the {stopped} rule)" if stopped != "max_iterations"
            else f"{sizes.shape[0]:,} communities; max_iterations ({max_iterations}) reached"
        )  # fmt: skip
    best, bcoef = _primary(ptr, comm, coef)
    ids = graph.user_ids()
    if names is None:
        label = ids[origin]
    else:
        label = np.array([ids[o] if o < n else names[o - n] for o in origin.tolist()], dtype=object)
    counts = np.diff(ptr)
    meta = {
        "b": b,
        "max_labels": max_labels,
        "iterations": len(changed),
        "stop": stop,
        "tolerance": tolerance,
        "stopped_by": stopped,
        "converged": stopped != "max_iterations",
        "update_rate": [c / n for c in relabelled],
        "communities": int(sizes.shape[0]),
        "overlapping_vertices": int((counts > 1).sum()),
        "nested_removed": nested,
        "initial": initial if isinstance(initial, str) else type(initial).__name__,
        "init_s": init_s,
        "postprocess_s": post_s,
        "changed_per_iteration": changed,
        "active_per_iteration": active,
        "relabelled_per_iteration": relabelled,
    }
    return BMLPAResult(
        algorithm="bmlpa",
        graph=graph,
        columns={"community": best, "belonging": bcoef, "memberships": counts},
        stats=stats,
        meta=meta,
        ptr=ptr,
        community_of=comm,
        coefficient=coef,
        sizes=sizes,
        label=label,
        named=origin >= n if names is not None else np.zeros(sizes.shape[0], dtype=np.bool_),
    )
