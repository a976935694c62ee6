"""BMLPA's initial labels: the paper's rough cores, or labels given per vertex (a label
file, a mapping, an array, :class:`VertexLabels` with optional weights)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from hpgraph.algorithms._common import check_graph
from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.generators._rng import check_seed, stream
from hpgraph.graph.views import simple_view

__all__ = ["VertexLabels", "read_vertex_labels", "rough_cores"]


@njit(**NUMBA_FLAGS)
def _contains(row, x):
    k = np.searchsorted(row, x)
    return k < row.shape[0] and row[k] == x


@njit(**NUMBA_FLAGS)
def _core_of(i, indptr, indices, deg, key, n, free, cand, core):
    """Vertex i's rough core, written to ``core[:size]`` (i, then j, i's free neighbour
    of largest degree, ties by ascending ``key``, then a greedy clique of their common
    neighbours by ascending degree, ties by key); returns size (< 3: no core, 0: no free
    neighbour). Rows sorted (by any one numbering); ``deg``/``key`` by the same ids;
    ``cand`` room for a row. Reads the rows of i and of its neighbours, the free flags of
    N(i); writes nothing but ``cand`` and ``core``."""
    ri = indices[indptr[i] : indptr[i + 1]]
    j = -1
    for u in ri:  # the free neighbour of largest degree
        if free[u]:
            if j < 0 or deg[u] > deg[j] or (deg[u] == deg[j] and key[u] < key[j]):
                j = u
    if j < 0:
        return 0
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
        sk[t] = deg[x] * (n + 1) + key[x]
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
    return size


@njit(**NUMBA_FLAGS)
def _rough_cores(indptr, indices, order, key):
    """Cores as CSR (core_ptr, core_members); ``order`` lists the vertices of degree >= 3
    by descending degree (ties: ascending ``key``). The paper's sequential greedy: a
    vertex still free gets its core (:func:`_core_of`), whose members stop being free."""
    n = indptr.shape[0] - 1
    free = np.ones(n, dtype=np.bool_)
    deg = indptr[1:] - indptr[:-1]
    maxdeg = 0
    for v in range(n):
        maxdeg = max(maxdeg, deg[v])
    cand = np.empty(maxdeg, dtype=np.int64)
    core = np.empty(maxdeg + 2, dtype=np.int64)
    members = np.empty(16, dtype=np.int64)
    core_ptr = [0]
    nm = 0
    for i in order:
        if not free[i]:
            continue
        size = _core_of(i, indptr, indices, deg, key, n, free, cand, core)
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
    head = np.empty(members.shape[0], dtype=np.int64)
    for c in range(core_ptr.shape[0] - 1):
        head[core_ptr[c] : core_ptr[c + 1]] = members[core_ptr[c]]  # named by its first
    return _labels_of_pairs(n, 0, members, head)


@njit(**NUMBA_FLAGS)
def _labels_of_pairs(own, lo, slot, head):
    """Initial label rows of vertices ``lo .. lo + own - 1`` from (vertex - lo, core
    label) pairs: each core's label 1/k, or the vertex's own id; rows sorted."""
    k = np.zeros(own, dtype=np.int64)
    for t in range(slot.shape[0]):
        k[slot[t]] += 1
    ptr = np.zeros(own + 1, dtype=np.int64)
    for v in range(own):
        ptr[v + 1] = ptr[v] + max(k[v], 1)
    lab = np.empty(ptr[own], dtype=np.int32)
    fill = ptr[:-1].copy()
    for t in range(slot.shape[0]):
        lab[fill[slot[t]]] = head[t]
        fill[slot[t]] += 1
    coef = np.empty(ptr[own], dtype=np.float64)
    for v in range(own):
        if k[v] == 0:
            lab[ptr[v]] = lo + v
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
def _merge_named_kernel(n, vptr, vlab, vw, lo=0):
    """Initial sets of the rows of ``vptr`` (vertices ``lo``, ``lo + 1``, ... of a graph of
    ``n``): named label t is id ``n + t``, a row without one holds its vertex's own id."""
    rows = vptr.shape[0] - 1
    ptr = np.zeros(rows + 1, dtype=np.int64)
    for v in range(rows):
        ptr[v + 1] = ptr[v] + max(vptr[v + 1] - vptr[v], 1)
    lab = np.empty(ptr[rows], dtype=np.int32)
    coef = np.empty(ptr[rows], dtype=np.float64)
    for v in range(rows):
        k = vptr[v + 1] - vptr[v]
        if k == 0:
            lab[ptr[v]] = lo + v
            coef[ptr[v]] = 1.0
        else:
            total = 0.0
            for t in range(k):
                total += vw[vptr[v] + t] if vw.shape[0] else 1.0
            for t in range(k):  # named label t gets id n + t; rows are sorted already
                lab[ptr[v] + t] = n + vlab[vptr[v] + t]
                coef[ptr[v] + t] = (vw[vptr[v] + t] if vw.shape[0] else 1.0) / total
    return ptr, lab, coef


def _merge_named(n, vl, lo=0):
    if vl.weights is None:
        w = np.empty(0, dtype=np.float64)
    else:
        w = np.ascontiguousarray(vl.weights, dtype=np.float64)
        if w.shape != vl.labels.shape or not (np.isfinite(w).all() and (w > 0).all()):
            raise InvalidArgumentError(
                f"initial label weights must be one finite positive value per label entry "
                f"({vl.labels.shape[0]}); got shape {w.shape}"
            )
    return _merge_named_kernel(n, vl.ptr, vl.labels, w, lo)


def check_part_start(initial):
    """Raise unless ``initial`` is a start BMLPA can take on a partitioned graph (the
    rough cores, or labels per vertex; not a file or a mapping): before anything runs."""
    if isinstance(initial, str) and initial == "rough-cores":
        return
    if isinstance(initial, str | Path | dict):
        raise InvalidArgumentError(
            "BMLPA on a partitioned graph starts from the rough cores or from labels per "
            "vertex: an integer array (one label per vertex, -1 for none) or VertexLabels, "
            f"of the whole graph or of the rank's own vertices; got {initial!r:.60}. For a "
            "label file or a mapping, load the whole graph without partitioning"
        )


def initial_part(part, initial, seed=0, runtime=None, sp=None, meta=None):
    """``(ptr, lab, coef, num_labels, names)``: the initial sets of a part's own vertices
    (ptr from 0), label ids as :func:`_initial` gives the whole graph's, so a partitioned
    run starts where a whole-graph run does. ``initial``: ``"rough-cores"`` (built by the
    ranks together, :mod:`.cores_parts`, on ``sp``, the part's simple view, made if not
    given, over the MPI ``runtime`` the part was split for, with ``seed``; ``meta``, a
    dict, gets ``cores_rounds`` and ``cores_ranks``), an integer array of one label
    per vertex (-1: none) of the whole graph or of the own vertices only (label names are
    agreed across the part's ranks: one ``allgather`` of each rank's distinct values), or
    a :class:`VertexLabels` of the whole graph or of the own vertices (then ``names`` must
    be the whole list, the same on every rank). Collective over the part's ranks."""
    n, lo, hi = part.n, part.lo, part.hi
    check_part_start(initial)
    if isinstance(initial, str):
        from hpgraph.algorithms.bmlpa.cores_parts import cores_part
        from hpgraph.graph.views import simple_part

        sp = simple_part(part, both_directions=False) if sp is None else sp
        (ptr, lab, coef), got = cores_part(sp, check_seed(seed), runtime)
        if meta is not None:
            meta.update(cores_rounds=got["rounds"], cores_ranks=got["ranks"])
        return ptr, lab, coef, n, None
    if isinstance(initial, VertexLabels):
        vl = initial
        if vl.ptr.shape[0] == n + 1 and n != hi - lo:
            a, e = vl.ptr[lo], vl.ptr[hi]
            w = None if vl.weights is None else vl.weights[a:e]
            vl = VertexLabels(vl.ptr[lo : hi + 1] - a, vl.labels[a:e], vl.names, w)
        elif vl.ptr.shape[0] != hi - lo + 1:
            raise InvalidArgumentError(
                f"initial labels cover {vl.ptr.shape[0] - 1} vertices; this part holds "
                f"{hi - lo} of a graph of {n}"
            )
        return _merge_named(n, vl, lo) + (n + len(vl.names), vl.names)
    arr = np.asarray(initial)
    if arr.dtype.kind not in "iu" or arr.shape not in ((n,), (hi - lo,)):
        raise InvalidArgumentError(
            f"initial as an array must hold one integer label per vertex ({n}, or the "
            f"part's own {hi - lo}), -1 for none; got shape {arr.shape}, dtype {arr.dtype}"
        )
    own = arr[lo:hi] if arr.shape[0] == n else arr
    has = own >= 0
    names = np.unique(np.concatenate(part.comm.allgather(np.unique(own[has]))))
    vl = _vertex_labels(
        hi - lo, np.flatnonzero(has), np.searchsorted(names, own[has]), names.tolist()
    )
    return _merge_named(n, vl, lo) + (n + len(vl.names), vl.names)
