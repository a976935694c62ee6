"""Graph pattern matching by dual simulation and strict simulation.

Given a labelled data graph G = (V, E, l) and a small directed labelled pattern
Q = (Vq, Eq, lq), :func:`dual_simulation` returns the largest relation S in Vq x V such
that (u, v) in S implies lq(u) = l(v), every pattern edge (u, u') has a data edge
(v, v') with (u', v') in S, and every pattern edge (u'', u) has a data edge (v'', v)
with (u'', v'') in S (Ma, Cao, Fan, Huai, Wo, "Strong simulation: capturing topology in
graph pattern matching", ACM TODS 39(1), 2014). :func:`strict_simulation` (Fard, Nisar,
Ramaswamy, Miller, Saltz, "A distributed vertex-centric approach for pattern matching in
massive graphs", IEEE BigData 2013) then localises it: with d_Q the pattern's undirected
diameter, for every data vertex w in S it takes the ball of radius d_Q around w in the
*match graph* of S (the edges (v, v') of G with (u, v), (u', v') in S for some pattern
edge (u, u'); strong simulation would take the ball in G itself), computes dual
simulation of Q inside the ball, and keeps the connected component of the ball's match
graph that contains w. It is a match when w is in it and every pattern vertex is matched.
Two centres that give the same set of (pattern vertex, data vertex) pairs give one match,
reported with the smaller centre (as the authors' ScalaTion code keeps distinct matches).

Dual simulation is a vertex program (HHK-style counting, in BSP form). A data vertex's
value is its candidate mask (bit u: it may match pattern vertex u, so |Vq| <= 32) and,
per pattern vertex u, two 32-bit counters packed in an int64: its out-edges to and its
in-edges from vertices whose mask has u. Superstep 0: every label-compatible vertex sends
its mask to its children and its parents; in superstep 1 the received masks become the
counters. From then on a vertex drops u when a pattern child of u has no counted child
or a pattern parent of u no counted parent, and sends the dropped bits, along the same
edges, so that receivers decrement; the job ends when no mask changes. A receiver must
tell a parent's message from a child's: on a directed graph the program runs on the
*message graph* (every edge forward with weight 1 and backward with weight 2) and the
edge function moves a child's bits to the upper half of the 64-bit message; on an
undirected graph a neighbour is both, so the sender fills both halves itself and no
extra graph is built. Messages are listed (a sum of masks is not a count per bit).

Strict simulation's balls are a peer-level BSP program (``run_bsp``). Every peer holds
the whole graph in this version, so after the dual-simulation job every process builds
the match graph of S (out- and in-CSR) and every peer expands the balls of its own share
of the centres (every P-th centre, so hubs spread over peers) without messages: a
distributed-graph version would spend d_Q supersteps sending frontier ids instead (Fard
et al.), which here would only copy data that each peer already has. One superstep
follows to drop duplicates: each match goes to the peer that owns its hash, which keeps
one match per distinct pair set (exact comparison, smallest centre). The compiled kernel
per ball: a BFS to depth d_Q that records the edges it crosses; the edges among border
vertices (depth d_Q) from "up-lists" (each match edge stored once, at its endpoint of
lower degree, as in triangle counting, so a hub on the border costs its few
higher-ranked neighbours, not its adjacency); then, since S is stable on the match
graph, only border vertices can lack a witness at first: one pass over the ball's edges
checks them, and a ball that keeps them all is its centre's match. Otherwise counters
over a local CSR of the ball, a work-list fix-point from the border (a vertex is
rechecked only when one of its counts reaches zero), and a BFS over the ball's match
edges from the centre.

Cost. Dual simulation: superstep 0 sends one message per edge and direction from every
candidate, later supersteps only removals (each (vertex, pattern vertex) pair is removed
once); supersteps: the fix-point's rounds + 2. Memory: value 8 (1 + |Vq|) B per vertex,
listed messages 8 B per delivered message; on directed graphs the message graph adds
24 B per edge (2 directions x (4 B id + 8 B weight)) plus as much again for its in-edges
when delivery pulls, cached on the graph. Strict simulation: the match graph's out- and
in-CSR and up-lists (24 B per vertex + 16 B per match edge) once per process, 12 B per
vertex per peer of scratch, plus per peer about 8 (6 + |Vq|) B per vertex and 32 B per
edge of the largest ball; time is the sum over balls of their edges (x |Vq| when the
fix-point runs), and the output is the sum of the matches' sizes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from hpgraph.algorithms._common import check_graph
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine import run, run_bsp, vertex_program
from hpgraph.errors import GraphFormatError, InvalidArgumentError, VerificationError
from hpgraph.graph.csr import Graph
from hpgraph.result import VertexResult
from hpgraph.runtimes import get_runtime

__all__ = [
    "MAX_PATTERN_VERTICES",
    "Pattern",
    "Match",
    "DualSimulationResult",
    "StrictSimulationResult",
    "dual_simulation",
    "strict_simulation",
    "read_pattern",
    "read_labels",
    "verify_dual_simulation",
]

#: One bit per pattern vertex in each 32-bit half of a 64-bit message.
MAX_PATTERN_VERTICES = 32

_LOW = 0xFFFFFFFF  # a message's lower half: the sender is a parent of the receiver
_PARENT_WEIGHT, _CHILD_WEIGHT = 1.0, 2.0  # message-graph edge weights (directed graphs)


# ------------------------------------------------------------------------ the pattern
@dataclass(frozen=True, eq=False)
class Pattern:
    """A small directed labelled pattern. Pattern vertex ``i`` (bit ``i`` of every mask)
    is ``ids[i]`` with label ``labels[i]``; ``src``/``dst`` hold the edges as indices."""

    ids: tuple
    labels: tuple
    src: np.ndarray
    dst: np.ndarray

    def __post_init__(self):
        k = len(self.ids)
        if k == 0:
            raise InvalidArgumentError("the pattern has no vertices")
        if k > MAX_PATTERN_VERTICES:
            raise InvalidArgumentError(
                f"the pattern has {k} vertices; simulation supports at most "
                f"{MAX_PATTERN_VERTICES} (one bit per pattern vertex in half a 64-bit message)"
            )
        if len(self.labels) != k:
            raise InvalidArgumentError(
                f"the pattern has {k} vertices but {len(self.labels)} labels"
            )
        if len(set(self.ids)) != k:
            raise InvalidArgumentError("the pattern's vertex ids are not distinct")
        for u, lab in zip(self.ids, self.labels, strict=True):
            if lab is None:
                raise InvalidArgumentError(f"pattern vertex {u!r} has no label")
        src = np.asarray(self.src, dtype=np.int64).reshape(-1)
        dst = np.asarray(self.dst, dtype=np.int64).reshape(-1)
        if src.shape != dst.shape:
            raise InvalidArgumentError("the pattern's src and dst differ in length")
        if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= k):
            raise InvalidArgumentError(f"pattern edge endpoints must be indices 0..{k - 1}")
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "dst", dst)
        object.__setattr__(self, "labels", tuple(_norm_label(x) for x in self.labels))

    @classmethod
    def from_edges(cls, edges, labels) -> Pattern:
        """From ``[(src, dst), ...]`` in any hashable ids and ``labels``: ``{id: label}``
        (vertices in the dict's order, isolated ones included) or a sequence indexed by
        integer ids ``0..k-1``."""
        pairs = [tuple(e) for e in edges]
        if any(len(p) != 2 for p in pairs):
            raise InvalidArgumentError("pattern edges must be (src, dst) pairs")
        if isinstance(labels, Mapping):
            ids = tuple(labels)
            labs = tuple(labels.values())
        elif labels is None:
            raise InvalidArgumentError("an edge-list pattern needs pattern_labels")
        else:
            labs = tuple(labels)
            ids = tuple(range(len(labs)))
        index = {u: i for i, u in enumerate(ids)}
        for p in pairs:
            for x in p:
                if x not in index:
                    raise InvalidArgumentError(f"pattern vertex {x!r} has no label")
        src = np.array([index[a] for a, _ in pairs], dtype=np.int64)
        dst = np.array([index[b] for _, b in pairs], dtype=np.int64)
        return cls(ids, labs, src, dst)

    @property
    def k(self) -> int:
        return len(self.ids)

    @functools.cached_property
    def masks(self) -> np.ndarray:
        """int64 ``[children(0), parents(0), children(1), ...]``: bit masks of each pattern
        vertex's pattern children and parents."""
        out = np.zeros(2 * self.k, dtype=np.int64)
        for a, b in zip(self.src.tolist(), self.dst.tolist(), strict=True):
            out[2 * a] |= 1 << b
            out[2 * b + 1] |= 1 << a
        return out

    @functools.cached_property
    def diameter(self) -> int | None:
        """The longest undirected shortest path (``None`` when disconnected)."""
        adj = [set() for _ in range(self.k)]
        for a, b in zip(self.src.tolist(), self.dst.tolist(), strict=True):
            adj[a].add(b)
            adj[b].add(a)
        best = 0
        for s in range(self.k):
            dist = {s: 0}
            frontier = [s]
            while frontier:
                nxt = []
                for x in frontier:
                    for y in adj[x]:
                        if y not in dist:
                            dist[y] = dist[x] + 1
                            nxt.append(y)
                frontier = nxt
            if len(dist) < self.k:
                return None
            best = max(best, max(dist.values()))
        return best


def _norm_label(x):
    """Labels compare by value: numpy scalars become Python ones (3 == np.int64(3), but
    3 != "3")."""
    return x.item() if isinstance(x, np.generic) else x


def _as_pattern(pattern, pattern_labels) -> Pattern:
    if pattern is None:
        raise InvalidArgumentError("no pattern given (a Pattern, a Graph, an edge list or a file)")
    if isinstance(pattern, (str, PathLike)):
        pattern = read_pattern(pattern)
    if isinstance(pattern, Pattern):
        if pattern_labels is not None:
            raise InvalidArgumentError("a Pattern carries its labels: leave pattern_labels out")
        return pattern
    if isinstance(pattern, Graph):
        ids = tuple(pattern.user_ids().tolist())
        if pattern_labels is None:
            raise InvalidArgumentError("a Graph pattern needs pattern_labels")
        if isinstance(pattern_labels, Mapping):
            unknown = [x for x in pattern_labels if x not in set(ids)]
            if unknown:
                raise InvalidArgumentError(f"pattern_labels names unknown vertex {unknown[0]!r}")
            labs = tuple(pattern_labels.get(u) for u in ids)
        else:
            labs = tuple(pattern_labels)
            if len(labs) != pattern.n:
                raise InvalidArgumentError(
                    f"pattern_labels has {len(labs)} entries for {pattern.n} pattern vertices"
                )
        src, dst, _ = pattern.edges()
        return Pattern(ids, labs, src, dst)
    return Pattern.from_edges(pattern, pattern_labels)


def _initial_masks(graph: Graph, labels, pat: Pattern) -> np.ndarray:
    """int64 per data vertex: the pattern vertices whose label it has."""
    n = graph.n
    if labels is None:
        raise InvalidArgumentError(
            "no data labels given (an array, a {vertex: label} dict or a file)"
        )
    if isinstance(labels, (str, PathLike)):
        labels = read_labels(labels, graph)
    bits: dict = {}
    for u, lab in enumerate(pat.labels):
        bits[lab] = bits.get(lab, 0) | (1 << u)
    if isinstance(labels, Mapping):
        arr = np.full(n, None, dtype=object)
        for key, lab in labels.items():
            try:
                arr[graph.vertex_index(key)] = lab
            except InvalidArgumentError as e:
                raise InvalidArgumentError(f"labels: {e}") from None
    else:
        arr = np.asarray(labels)
        if arr.ndim != 1 or arr.shape[0] != n:
            raise InvalidArgumentError(
                f"labels must have one entry per vertex ({n}), got shape {arr.shape}"
            )
    kind = arr.dtype.kind
    if kind == "f":
        bad = np.isnan(arr)
    elif kind in "biuU":
        bad = None
    else:
        arr = arr.astype(object)
        bad = np.fromiter((x is None for x in arr.tolist()), dtype=bool, count=n)
    if bad is not None and bad.any():
        where = np.flatnonzero(bad)
        some = ", ".join(repr(x) for x in graph.user_ids()[where[:5]].tolist())
        raise InvalidArgumentError(
            f"labels: no label for {where.size} of {n} vertices (e.g. {some}); "
            "every data vertex needs one"
        )
    if kind in "biufU":  # vectorised: one comparison per distinct pattern label
        masks = np.zeros(n, dtype=np.int64)
        for lab, b in bits.items():
            if isinstance(lab, str) if kind == "U" else isinstance(lab, (int, float)):
                masks[arr == lab] |= b  # (3 never equals "3")
        return masks
    return np.fromiter((bits.get(_norm_label(x), 0) for x in arr.tolist()), dtype=np.int64, count=n)


# ------------------------------------------------------------------------ file formats
_INT = re.compile(r"[+-]?\d+")
_SPLIT = re.compile(r"[ \t]*,[ \t]*|[ \t]+")


def _token(text: str):
    """Ids and labels that are integers are read as integers, any other as strings."""
    return int(text) if _INT.fullmatch(text) else text


def _lines(path):
    from hpgraph.io._text import read_bytes

    try:
        text = read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise GraphFormatError(f"not UTF-8 text ({e.reason} at byte {e.start})", path) from None
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if s and s[0] not in "#%":
            yield lineno, _SPLIT.split(s)


def read_pattern(path) -> Pattern:
    """Read a pattern file: one record per line, ``#`` starts a comment line::

        v <id> <label>      # a pattern vertex (bit order = line order)
        e <src> <dst>       # a directed pattern edge between declared vertices

    Fields are separated by blanks or a comma; ids and labels that are integers are read
    as integers. Raises GraphFormatError naming the file and line."""
    ids, labels, where, edges = [], [], {}, []
    for lineno, f in _lines(path):
        if f[0] not in ("v", "e") or len(f) != 3:
            raise GraphFormatError(
                f"expected 'v <id> <label>' or 'e <src> <dst>', got {' '.join(f)!r}", path, lineno
            )
        a, b = _token(f[1]), _token(f[2])
        if f[0] == "v":
            if a in where:
                raise GraphFormatError(
                    f"pattern vertex {a!r} declared twice (first at line {where[a]})", path, lineno
                )
            where[a] = lineno
            ids.append(a)
            labels.append(b)
        else:
            edges.append((lineno, a, b))
    if not ids:
        raise GraphFormatError("no pattern vertices ('v <id> <label>' lines)", path)
    if len(ids) > MAX_PATTERN_VERTICES:
        raise GraphFormatError(
            f"{len(ids)} pattern vertices; simulation supports at most {MAX_PATTERN_VERTICES}",
            path,
        )
    index = {u: i for i, u in enumerate(ids)}
    for lineno, a, b in edges:
        for x in (a, b):
            if x not in index:
                raise GraphFormatError(
                    f"edge names undeclared pattern vertex {x!r} (declare it with 'v {x} LABEL')",
                    path,
                    lineno,
                )
    src = np.array([index[a] for _, a, _ in edges], dtype=np.int64)
    dst = np.array([index[b] for _, _, b in edges], dtype=np.int64)
    return Pattern(tuple(ids), tuple(labels), src, dst)


def read_labels(path, graph: Graph) -> np.ndarray:
    """Read a vertex label file, ``<vertex> <label>`` per line (blank- or comma-separated,
    ``#`` comment lines), for ``graph``'s vertices named in the input's ids. Returns the
    labels in internal-id order: int64 when every label is an integer, else an object
    array. Raises GraphFormatError (file and line) for an unknown vertex, a vertex
    labelled twice differently, or vertices left without a label."""
    check_graph(graph)
    n = graph.n
    out = np.full(n, None, dtype=object)
    line_of = np.zeros(n, dtype=np.int64)
    for lineno, f in _lines(path):
        if len(f) != 2:
            raise GraphFormatError(
                f"expected two fields '<vertex> <label>', got {len(f)}", path, lineno
            )
        try:
            v = graph.vertex_index(f[0])
        except InvalidArgumentError:
            raise GraphFormatError(
                f"unknown vertex {f[0]!r}: not in the graph", path, lineno
            ) from None
        lab = _token(f[1])
        if line_of[v] and out[v] != lab:
            raise GraphFormatError(
                f"vertex {f[0]!r} labelled {out[v]!r} at line {line_of[v]}, now {lab!r}",
                path,
                lineno,
            )
        out[v] = lab
        line_of[v] = lineno
    missing = np.flatnonzero(line_of == 0)
    if missing.size:
        some = ", ".join(repr(x) for x in graph.user_ids()[missing[:5]].tolist())
        raise GraphFormatError(f"no label for {missing.size} of {n} vertices (e.g. {some})", path)
    if all(isinstance(x, int) for x in out.tolist()):
        return out.astype(np.int64)
    return out


# ------------------------------------------------------------------------ shared kernels
@njit(**NUMBA_FLAGS, inline="always")
def _add_bits(cnt, base, bits, delta):
    """cnt[base + u] += delta for every set bit u of ``bits`` (a non-negative mask)."""
    u = 0
    while bits != 0:
        if bits & 1:
            cnt[base + u] += delta
        bits >>= 1
        u += 1


@njit(**NUMBA_FLAGS, inline="always")
def _failing(mask, cnt, base, k, pat, pbase):
    """The bits u of ``mask`` whose pattern children (``pat[pbase + 2u]``) are not all
    among the counted children, or whose pattern parents (``pat[pbase + 2u + 1]``) are not
    all among the counted parents. ``cnt[base + u]``: out count | in count << 32."""
    have_out = 0
    have_in = 0
    for u in range(k):
        c = cnt[base + u]
        if c & _LOW:
            have_out |= 1 << u
        if c >> 32:
            have_in |= 1 << u
    bad = 0
    x = mask
    u = 0
    while x != 0:
        if x & 1:
            ch = np.int64(pat[pbase + 2 * u])
            pa = np.int64(pat[pbase + 2 * u + 1])
            if (ch & ~have_out) != 0 or (pa & ~have_in) != 0:
                bad |= 1 << u
        x >>= 1
        u += 1
    return bad


# ------------------------------------------------------------------------ dual simulation
def _dual_compute(ctx, v):
    mask = ctx.value[v, 0]
    if ctx.superstep == 0:
        if mask == 0:
            ctx.finish(v)  # no candidate: never computed, mail to it dropped
        elif ctx.params[0] != 0.0:
            ctx.send_along_edges(v, mask)  # directed: the edge weight says which half
        else:
            ctx.send_to_all(v, mask | (mask << 32))  # undirected: parent and child
        return  # candidates stay awake: superstep 1 checks them even without mail
    row = ctx.value[v]
    delta = 1 if ctx.superstep == 1 else -1  # first the masks, then removals
    for m in ctx.messages(v):
        _add_bits(row, 1, m & _LOW, delta << 32)  # from a parent: in-counts
        _add_bits(row, 1, (m >> 32) & _LOW, delta)  # from a child: out-counts
    k = (ctx.params.shape[0] - 1) // 2
    bad = _failing(mask, row, 1, k, ctx.params, 1)
    if bad != 0:
        keep = mask & ~bad
        ctx.value[v, 0] = keep
        if ctx.params[0] != 0.0:
            ctx.send_along_edges(v, bad)
        else:
            ctx.send_to_all(v, bad | (bad << 32))
        if keep == 0:
            ctx.finish(v)
            return
    ctx.vote_to_halt(v)


def _dual_edge_message(m, w):
    # weight 1: the edge's forward copy (sender is the receiver's parent); 2: backward
    return m if w < 1.5 else m << 32


@functools.cache
def _dual_program(k: int):
    """One program per pattern size (the value's length); all share one compiled kernel."""
    names = ["directed"]
    for u in range(k):
        names += [f"children{u}", f"parents{u}"]
    return vertex_program(
        _dual_compute,
        value=(np.int64, 1 + k),
        message=np.int64,
        edge_message=_dual_edge_message,
        params=tuple(names),
        name="dual_simulation",
    )


def _message_graph(graph: Graph) -> Graph:
    """Every edge of a directed graph forward (weight 1) and backward (weight 2), so that
    one broadcast reaches children and parents, each knowing which it is."""

    def build():
        src, dst, _ = graph.edges()
        m = src.shape[0]
        w = np.full(2 * m, _CHILD_WEIGHT)
        w[:m] = _PARENT_WEIGHT
        return Graph.from_edges(
            np.concatenate([src, dst]), np.concatenate([dst, src]), w, n=graph.n, directed=True
        )

    return graph.derived(("dual_simulation_messages",), build)


def _run_dual(graph, pat, init, threads, runtime, progress):
    if graph.n == 0:
        return init, None
    k = pat.k
    prog = _dual_program(k)
    params = {"directed": float(graph.directed)}
    for u in range(k):
        params[f"children{u}"] = float(pat.masks[2 * u])
        params[f"parents{u}"] = float(pat.masks[2 * u + 1])
    values = np.zeros((graph.n, 1 + k), dtype=np.int64)
    values[:, 0] = init
    g = _message_graph(graph) if graph.directed else graph
    job = run(
        prog, g, params=params, values=values, threads=threads, runtime=runtime, progress=progress
    )
    return job.values[:, 0].copy(), job


@dataclass
class DualSimulationResult(VertexResult):
    """``columns["mask"]``: per data vertex (internal-id order) the pattern vertices it
    matches, bit ``i`` for ``pattern.ids[i]``."""

    pattern: Any = None

    @property
    def matched(self) -> bool:
        """Whether every pattern vertex has a match (Q matches G by dual simulation)."""
        return bool(np.all(self.counts() > 0))

    def counts(self) -> np.ndarray:
        """Matches per pattern vertex."""
        mask = self.columns["mask"]
        return np.array([np.count_nonzero((mask >> u) & 1) for u in range(self.pattern.k)])

    def matches(self, pattern_vertex) -> np.ndarray:
        """The data vertices (input's ids) that match ``pattern_vertex`` (a pattern id)."""
        try:
            u = self.pattern.ids.index(pattern_vertex)
        except ValueError:
            raise InvalidArgumentError(f"unknown pattern vertex {pattern_vertex!r}") from None
        hit = np.flatnonzero((self.columns["mask"] >> u) & 1)
        return self.graph.user_ids()[hit]

    def match_sets(self) -> dict:
        """``{pattern id: data vertices (input's ids)}`` for every pattern vertex."""
        return {u: self.matches(u) for u in self.pattern.ids}


def dual_simulation(
    graph, labels=None, pattern=None, pattern_labels=None, *, threads=None, runtime=None,
    progress=False,
):  # fmt: skip
    """The largest dual-simulation relation of ``pattern`` in ``graph`` (definition in the
    module docstring).

    ``labels``: one label per data vertex (an array in internal-id order, a ``{vertex:
    label}`` dict in the input's ids, or a file for :func:`read_labels`). ``pattern``: a
    :class:`Pattern`, a pattern file (:func:`read_pattern`), a directed hpgraph Graph
    with ``pattern_labels`` (array or ``{id: label}``), or an edge list ``[(a, b), ...]``
    with ``pattern_labels`` (``{id: label}``, isolated vertices included). Labels match
    by equality (3 != "3"). An undirected data graph has both directions of every edge.
    """
    check_graph(graph)
    pat = _as_pattern(pattern, pattern_labels)
    init = _initial_masks(graph, labels, pat)
    masks, job = _run_dual(graph, pat, init, threads, runtime, progress)
    return _dual_result(graph, pat, masks, job)


def _dual_result(graph, pat, masks, job):
    meta = {"pattern_vertices": pat.k, "pattern_edges": int(pat.src.size)}
    meta["supersteps"] = 0 if job is None else job.supersteps
    res = DualSimulationResult(
        algorithm="dual_simulation",
        graph=graph,
        columns={"mask": masks},
        stats=None if job is None else job.stats,
        meta=meta,
        pattern=pat,
    )
    res.meta["pairs"] = int(res.counts().sum())
    res.meta["matched"] = res.matched
    return res


def verify_dual_simulation(graph, labels, pattern, result, pattern_labels=None) -> None:
    """Check that ``result`` is a dual-simulation relation: labels agree and every pair
    has its child and parent witnesses. (Maximality needs the fix-point itself; the
    tests compare with an independent one.) Raises VerificationError."""
    pat = result.pattern if pattern is None else _as_pattern(pattern, pattern_labels)
    init = _initial_masks(graph, labels, pat)
    mask = np.asarray(result["mask"], dtype=np.int64)
    stray = np.flatnonzero(mask & ~init)
    if stray.size:
        v = graph.user_ids()[stray[0]]
        raise VerificationError(f"vertex {v!r} matches a pattern vertex whose label it lacks")
    ip, ix, _ = graph.in_csr()
    v = _unsupported(graph.indptr, graph.indices, ip, ix, mask, pat.masks, pat.k)
    if v >= 0:
        raise VerificationError(
            f"vertex {graph.user_ids()[v]!r} lacks a child or parent witness for one of its "
            "pattern vertices"
        )


@njit(**NUMBA_FLAGS)
def _unsupported(indptr, indices, in_ptr, in_idx, mask, pat, k):
    """The first vertex with a pair that has no witness, or -1."""
    for v in range(mask.shape[0]):
        if mask[v] == 0:
            continue
        have_out = 0
        have_in = 0
        for e in range(indptr[v], indptr[v + 1]):
            have_out |= mask[indices[e]]
        for e in range(in_ptr[v], in_ptr[v + 1]):
            have_in |= mask[in_idx[e]]
        for u in range(k):
            if (mask[v] >> u) & 1:
                if (pat[2 * u] & ~have_out) != 0 or (pat[2 * u + 1] & ~have_in) != 0:
                    return v
    return -1


# ------------------------------------------------------------------------ strict simulation
class Match(NamedTuple):
    """One strict-simulation match, in the input's ids."""

    centre: Any
    vertices: tuple  #: the matched data vertices, ascending internal id
    pairs: tuple  #: (pattern vertex, data vertex), by data vertex then pattern vertex


@dataclass
class StrictSimulationResult:
    """Distinct matches sorted by centre. Match ``i``: ``centre[i]`` (internal id) and
    the codes ``codes[ptr[i]:ptr[i + 1]]`` = data vertex * k + pattern vertex."""

    graph: Graph
    pattern: Pattern
    centre: np.ndarray
    ptr: np.ndarray
    codes: np.ndarray
    dual: DualSimulationResult
    stats: Any = None  #: the dual-simulation job's statistics
    ball_stats: Any = None  #: the ball phase's (run_bsp) statistics
    meta: dict = field(default_factory=dict)
    algorithm: str = "strict_simulation"

    def __len__(self) -> int:
        return int(self.centre.shape[0])

    def __iter__(self):
        return iter(self.matches())

    def matches(self) -> list[Match]:
        ids = self.graph.user_ids().tolist()
        pids = self.pattern.ids
        k = self.pattern.k
        out = []
        for i in range(len(self)):
            c = self.codes[self.ptr[i] : self.ptr[i + 1]].tolist()
            pairs = tuple((pids[x % k], ids[x // k]) for x in c)
            verts = tuple(dict.fromkeys(ids[x // k] for x in c))
            out.append(Match(ids[int(self.centre[i])], verts, pairs))
        return out

    def to_rows(self) -> dict[str, np.ndarray]:
        """Flat columns ``match_id, centre, pattern_vertex, vertex`` (input's ids), one
        row per (match, pattern vertex, data vertex)."""
        k = self.pattern.k
        ids = self.graph.user_ids()
        lengths = np.diff(self.ptr)
        match_id = np.repeat(np.arange(len(self), dtype=np.int64), lengths)
        pids = np.asarray(self.pattern.ids, dtype=None if _all_int(self.pattern.ids) else object)
        return {
            "match_id": match_id,
            "centre": ids[np.repeat(self.centre, lengths)],
            "pattern_vertex": pids[self.codes % k],
            "vertex": ids[self.codes // k],
        }

    def output_columns(self) -> dict[str, np.ndarray]:
        return self.to_rows()

    @property
    def columns(self) -> dict[str, np.ndarray]:
        return self.to_rows()


def _all_int(xs) -> bool:
    return all(isinstance(x, int) for x in xs)


def strict_simulation(
    graph, labels=None, pattern=None, pattern_labels=None, *, threads=None, runtime=None,
    progress=False,
):  # fmt: skip
    """Strict-simulation matches of a connected ``pattern`` in ``graph`` (definition in
    the module docstring; arguments as for :func:`dual_simulation`). Every peer holds the
    whole graph: ``threads`` peers on the local runtime, one per rank on MPI."""
    check_graph(graph)
    pat = _as_pattern(pattern, pattern_labels)
    if pat.diameter is None:
        raise InvalidArgumentError(
            "strict simulation needs a connected pattern (its balls have the pattern's "
            "diameter as radius); this one has several components"
        )
    init = _initial_masks(graph, labels, pat)
    own = runtime is None or isinstance(runtime, str)
    rt = get_runtime(runtime, threads)
    try:
        masks, job = _run_dual(graph, pat, init, None, rt, progress)
        dual = _dual_result(graph, pat, masks, job)
        return _strict(graph, pat, dual, rt)
    finally:
        if own:
            rt.close()


def _strict(graph, pat, dual, rt):
    k = pat.k
    masks = dual["mask"]
    meta = {"radius": pat.diameter, "dual_supersteps": dual.meta["supersteps"]}
    meta["supersteps"] = dual.meta["supersteps"]
    empty = np.zeros(0, dtype=np.int64)
    if not dual.matched:  # a ball's relation is inside the global one: nothing to find
        meta.update(balls=0, ball_vertices=0, ball_edges=0, matches_found=0, matches=0)
        return StrictSimulationResult(
            graph, pat, empty, np.zeros(1, np.int64), empty, dual, dual.stats, None, meta
        )
    children = np.zeros(graph.n, dtype=np.int64)  # children in Q of each vertex's matches
    for u in range(k):
        children |= np.where((masks >> u) & 1, pat.masks[2 * u], 0)
    ip, ix, _ = graph.in_csr()
    optr, oidx = _filter_edges(graph.indptr, graph.indices, children, masks)
    iptr, iidx = _filter_edges(ip, ix, masks, children)
    uptr, uval = _up_lists(optr, oidx, iptr, iidx)
    centres = np.flatnonzero(masks).astype(np.int64)
    res = run_bsp(
        _strict_peer,
        args=(centres, pat.diameter, k, pat.masks, masks, optr, oidx, iptr, iidx, uptr, uval),
        runtime=rt,
    )
    cen = np.concatenate([r[0] for r in res.results])
    order = np.argsort(cen, kind="stable")
    ptrs = [r[1] for r in res.results]
    codes_all = np.concatenate([r[2] for r in res.results])
    offsets = np.cumsum([0] + [int(p[-1]) for p in ptrs[:-1]])
    starts = np.concatenate([p[:-1] + o for p, o in zip(ptrs, offsets, strict=True)])
    lengths = np.concatenate([np.diff(p) for p in ptrs])
    centre, ptr, codes = _select(cen, starts, lengths, codes_all, order)
    meta.update(
        balls=int(centres.size),
        ball_vertices=int(sum(r[3] for r in res.results)),
        ball_edges=int(sum(r[4] for r in res.results)),
        matches_found=int(sum(r[5] for r in res.results)),
        matches=int(centre.size),
        ball_supersteps=len(res.stats.supersteps),
    )
    return StrictSimulationResult(graph, pat, centre, ptr, codes, dual, dual.stats, res.stats, meta)


def _select(cen, starts, lengths, codes, sel):
    """Matches ``sel`` (in that order) as (centres, ptr, codes)."""
    lens = lengths[sel]
    ptr = np.zeros(sel.size + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    # position of every selected code: its match's start + its rank inside the match
    gather = np.repeat(starts[sel] - ptr[:-1], lens) + np.arange(ptr[-1], dtype=np.int64)
    return cen[sel], ptr, codes[gather]


def _strict_peer(peer, centres, radius, k, pat, masks, optr, oidx, iptr, iidx, uptr, uval):
    """One peer: the balls of every P-th centre, then one superstep that sends each match
    to the peer owning its hash, which keeps one match per distinct pair set."""
    mine = centres[peer.pid :: peer.num_peers]
    n = masks.shape[0]
    idt = oidx.dtype
    scratch = (np.full(n, -1, idt), np.empty(n, idt), np.empty(n, idt))
    cen, ptr, codes, ball_total, ball_edges = _balls(
        mine, radius, k, pat, masks, optr, oidx, iptr, iidx, uptr, uval, *scratch
    )
    found = int(cen.size)
    hashes = _hashes(ptr, codes)
    owner = (hashes % np.uint64(peer.num_peers)).astype(np.int64)
    starts, lengths = ptr[:-1], np.diff(ptr)
    for p in range(peer.num_peers):
        sel = np.flatnonzero(owner == p)
        if sel.size:
            c, pp, cc = _select(cen, starts, lengths, codes, sel)
            # one int64 buffer per destination: [count, centres, lengths, codes]
            peer.send(p, np.concatenate([[sel.size], c, np.diff(pp), cc]))
    peer.sync()
    got = sorted(peer.messages(), key=lambda sm: sm[0])
    cens, lens, codes_in = [], [], []
    for _, buf in got:
        m = int(buf[0])
        cens.append(buf[1 : 1 + m])
        lens.append(buf[1 + m : 1 + 2 * m])
        codes_in.append(buf[1 + 2 * m :])
    cen = np.concatenate(cens) if cens else np.zeros(0, np.int64)
    lens = np.concatenate(lens) if lens else np.zeros(0, np.int64)
    codes = np.concatenate(codes_in) if codes_in else np.zeros(0, np.int64)
    ptr = np.zeros(cen.size + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    hashes = _hashes(ptr, codes)
    order = np.lexsort((cen, hashes))  # equal pair sets sit together, smallest centre first
    keep = order[_distinct(order, hashes, ptr, codes)]
    c, pp, cc = _select(cen, ptr[:-1], lens, codes, keep)
    return c, pp, cc, ball_total, ball_edges, found


@njit(**NUMBA_FLAGS)
def _filter_edges(indptr, indices, row_mask, col_mask):
    """The CSR of the edges (v, w) with ``row_mask[v] & col_mask[w] != 0``."""
    n = indptr.shape[0] - 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        c = 0
        rm = row_mask[v]
        if rm != 0:
            for e in range(indptr[v], indptr[v + 1]):
                if rm & col_mask[indices[e]]:
                    c += 1
        ptr[v + 1] = ptr[v] + c
    out = np.empty(ptr[n], dtype=indices.dtype)
    for v in range(n):
        rm = row_mask[v]
        j = ptr[v]
        if rm != 0:
            for e in range(indptr[v], indptr[v + 1]):
                if rm & col_mask[indices[e]]:
                    out[j] = indices[e]
                    j += 1
    return ptr, out


@njit(**NUMBA_FLAGS)
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(**NUMBA_FLAGS)
def _up_lists(optr, oidx, iptr, iidx):
    """Each match edge once, at its endpoint of lower (degree, id) rank, as
    ``other * 2 + (0: out-edge, 1: in-edge)``: what a ball's border vertices scan to find
    the edges among them, so that a hub on the border costs its few higher-ranked
    neighbours, not its whole adjacency (the triangle-counting orientation)."""
    n = optr.shape[0] - 1
    deg = np.empty(n, dtype=np.int64)
    for v in range(n):
        deg[v] = optr[v + 1] - optr[v] + iptr[v + 1] - iptr[v]
    ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        c = 0
        for e in range(optr[v], optr[v + 1]):  # a self-loop counts once, as out-edge
            if _higher(oidx[e], v, deg) or oidx[e] == v:
                c += 1
        for e in range(iptr[v], iptr[v + 1]):
            if _higher(iidx[e], v, deg):
                c += 1
        ptr[v + 1] = ptr[v] + c
    val = np.empty(ptr[n], dtype=np.int64)
    for v in range(n):
        j = ptr[v]
        for e in range(optr[v], optr[v + 1]):
            w = oidx[e]
            if _higher(w, v, deg) or w == v:
                val[j] = np.int64(w) * 2
                j += 1
        for e in range(iptr[v], iptr[v + 1]):
            w = iidx[e]
            if _higher(w, v, deg):
                val[j] = np.int64(w) * 2 + 1
                j += 1
    return ptr, val


@njit(**NUMBA_FLAGS, inline="always")
def _higher(w, v, deg):
    return deg[w] > deg[v] or (deg[w] == deg[v] and w > v)


@njit(**NUMBA_FLAGS)
def _balls(centres, radius, k, pat, mask, optr, oidx, iptr, iidx, uptr, uval, stamp, pos, ball):
    """Strict simulation around each centre over the match graph (out-CSR optr/oidx,
    in-CSR iptr/iidx, up-lists uptr/uval). ``stamp`` (-1 filled), ``pos``, ``ball``:
    n-sized scratch. Returns (centres, ptr, codes) of the matches, and the balls' total
    vertices and edges.

    Per ball: a BFS to depth ``radius`` that records the edges it crosses, the edges among
    the border (depth = radius) from the up-lists, a local CSR of the ball; then counters,
    and the fix-point started at the border only (the global relation is stable on the
    match graph, so only border vertices can lack a witness at first); then the
    centre's component, which is the whole ball when nothing was lost (the BFS reached
    every ball vertex by match edges).
    """
    full = (1 << k) - 1
    bm = np.empty(64, dtype=np.int64)  # the ball's masks, by position in the ball
    cm = np.empty(64, dtype=np.int64)  # pattern children of those matches
    pend = np.zeros(64, dtype=np.int64)  # bits removed, not yet told to the neighbours
    cnt = np.empty(64 * k, dtype=np.int64)  # out count | in count << 32, per (vertex, u)
    es = np.empty(64, dtype=np.int64)  # the ball's edges, as positions
    ed = np.empty(64, dtype=np.int64)
    lo_ptr = np.empty(65, dtype=np.int64)  # the ball's local CSR, out and in
    lo_idx = np.empty(64, dtype=np.int64)
    li_ptr = np.empty(65, dtype=np.int64)
    li_idx = np.empty(64, dtype=np.int64)
    stack = np.empty(64, dtype=np.int64)  # work list, then component queue
    seen = np.empty(64, dtype=np.bool_)
    out_c = np.empty(16, dtype=np.int64)
    out_p = np.zeros(17, dtype=np.int64)
    out_x = np.empty(64, dtype=np.int64)
    nout = 0
    ncode = 0
    total = 0
    total_edges = 0
    for b in range(centres.shape[0]):
        c = centres[b]
        # 1. the ball and its edges
        stamp[c] = b
        pos[c] = 0
        ball[0] = c
        size = 1
        ne = 0
        head = 0
        border = 0  # the vertices at depth `radius`: [border, size)
        for level in range(radius):
            end = size
            last = level == radius - 1
            while head < end:
                v = ball[head]
                i = head
                head += 1
                es = _grow(es, ne + (optr[v + 1] - optr[v]) + (iptr[v + 1] - iptr[v]))
                ed = _grow(ed, es.shape[0])
                for e in range(optr[v], optr[v + 1]):
                    w = oidx[e]
                    if stamp[w] != b:
                        stamp[w] = b
                        pos[w] = size
                        ball[size] = w
                        size += 1
                    es[ne] = i
                    ed[ne] = pos[w]
                    ne += 1
                for e in range(iptr[v], iptr[v + 1]):
                    w = iidx[e]
                    if stamp[w] != b:
                        stamp[w] = b
                        pos[w] = size
                        ball[size] = w
                        size += 1
                    if last and pos[w] >= end:  # w is never scanned: record w -> v here
                        es[ne] = pos[w]
                        ed[ne] = i
                        ne += 1
            if size == end:  # the match graph ends inside the ball: no border
                border = size
                break
            border = end
        for i in range(border, size):  # edges among border vertices, each once
            v = ball[i]
            es = _grow(es, ne + uptr[v + 1] - uptr[v])
            ed = _grow(ed, es.shape[0])
            for e in range(uptr[v], uptr[v + 1]):
                w = uval[e] >> 1
                if stamp[w] == b and pos[w] >= border:
                    if uval[e] & 1:
                        es[ne] = pos[w]
                        ed[ne] = i
                    else:
                        es[ne] = i
                        ed[ne] = pos[w]
                    ne += 1
        total += size
        total_edges += ne
        bm = _grow(bm, size)
        cm = _grow(cm, size)
        pend = _grow(pend, size)
        seen = _grow(seen, size)
        stack = _grow(stack, size)
        cnt = _grow(cnt, size * k)
        lo_ptr = _grow(lo_ptr, size + 1)
        li_ptr = _grow(li_ptr, size + 1)
        for i in range(size):
            bm[i] = mask[ball[i]]
            pend[i] = 0
        # 2. the border's witnesses, from one pass over the edges (cm, pend as scratch);
        # a ball whose border keeps every pair is its centre's match, with no fix-point
        for i in range(border, size):
            cm[i] = 0
            pend[i] = 0
        for e in range(ne):
            if es[e] >= border:
                cm[es[e]] |= bm[ed[e]]
            if ed[e] >= border:
                pend[ed[e]] |= bm[es[e]]
        lost = False
        for i in range(border, size):
            if _unsupported_bits(bm[i], cm[i], pend[i], k, pat) != 0:
                lost = True
                break
        for i in range(border, size):
            pend[i] = 0
        if lost:  # 3. counters over a local CSR, and the fix-point from the border
            lo_idx = _grow(lo_idx, ne)
            li_idx = _grow(li_idx, ne)
            _local_csr(es, ed, ne, size, lo_ptr, lo_idx)
            _local_csr(ed, es, ne, size, li_ptr, li_idx)
            for x in range(size * k):
                cnt[x] = 0
            for e in range(ne):
                _add_bits(cnt, es[e] * k, bm[ed[e]], 1)
                _add_bits(cnt, ed[e] * k, bm[es[e]], 1 << 32)
            top = 0
            for i in range(border, size):
                top = _recheck(i, bm, pend, cnt, k, pat, stack, top)
            while top > 0:
                top -= 1
                i = stack[top]
                r = pend[i]
                pend[i] = 0
                for e in range(lo_ptr[i], lo_ptr[i + 1]):  # i was a parent of j
                    j = lo_idx[e]
                    if _drop(cnt, j * k, r, True) and bm[j] != 0:
                        top = _recheck(j, bm, pend, cnt, k, pat, stack, top)
                for e in range(li_ptr[i], li_ptr[i + 1]):  # i was a child of j
                    j = li_idx[e]
                    if _drop(cnt, j * k, r, False) and bm[j] != 0:
                        top = _recheck(j, bm, pend, cnt, k, pat, stack, top)
        if bm[0] == 0:
            continue
        # 4. the centre's component of the ball's match graph
        union = 0
        if lost:
            for i in range(size):
                x = 0
                m = bm[i]
                u = 0
                while m != 0:
                    if m & 1:
                        x |= pat[2 * u]
                    m >>= 1
                    u += 1
                cm[i] = x
                seen[i] = False
            seen[0] = True
            stack[0] = 0
            qn = 1
            head = 0
            while head < qn:
                i = stack[head]
                head += 1
                union |= bm[i]
                for e in range(lo_ptr[i], lo_ptr[i + 1]):
                    j = lo_idx[e]
                    if not seen[j] and (cm[i] & bm[j]) != 0:
                        seen[j] = True
                        stack[qn] = j
                        qn += 1
                for e in range(li_ptr[i], li_ptr[i + 1]):
                    j = li_idx[e]
                    if not seen[j] and (cm[j] & bm[i]) != 0:
                        seen[j] = True
                        stack[qn] = j
                        qn += 1
            if union != full:
                continue
            verts = np.sort(ball[stack[:qn]])
        else:
            for i in range(size):
                union |= bm[i]
            if union != full:
                continue
            verts = np.sort(ball[:size])
        # 5. emit: data vertices ascending, each with its pattern vertices ascending
        out_x = _grow(out_x, ncode + verts.shape[0] * k)
        for v in verts:
            m = bm[pos[v]]
            u = 0
            while m != 0:
                if m & 1:
                    out_x[ncode] = np.int64(v) * k + u
                    ncode += 1
                m >>= 1
                u += 1
        out_c = _grow(out_c, nout + 1)
        out_p = _grow(out_p, nout + 2)
        out_c[nout] = c
        out_p[nout + 1] = ncode
        nout += 1
    return out_c[:nout].copy(), out_p[: nout + 1].copy(), out_x[:ncode].copy(), total, total_edges


@njit(**NUMBA_FLAGS, inline="always")
def _drop(cnt, base, bits, parent):
    """Take one parent (in-count) or child (out-count) away for every bit u of ``bits``;
    whether a count reached zero (only then can a pair lose its support)."""
    hit = False
    u = 0
    while bits != 0:
        if bits & 1:
            if parent:
                c = cnt[base + u] - (1 << 32)
                hit |= (c >> 32) == 0
            else:
                c = cnt[base + u] - 1
                hit |= (c & _LOW) == 0
            cnt[base + u] = c
        bits >>= 1
        u += 1
    return hit


@njit(**NUMBA_FLAGS, inline="always")
def _unsupported_bits(mask, have_out, have_in, k, pat):
    """The bits u of ``mask`` with a pattern child outside ``have_out`` or a pattern
    parent outside ``have_in``."""
    bad = 0
    u = 0
    while mask != 0:
        if mask & 1:
            if (pat[2 * u] & ~have_out) != 0 or (pat[2 * u + 1] & ~have_in) != 0:
                bad |= 1 << u
        mask >>= 1
        u += 1
    return bad


@njit(**NUMBA_FLAGS, inline="always")
def _local_csr(src, dst, ne, size, ptr, idx):
    """CSR (ptr, idx) of the first ``ne`` edges src -> dst over positions 0..size-1."""
    for i in range(size + 1):
        ptr[i] = 0
    for e in range(ne):
        ptr[src[e] + 1] += 1
    for i in range(size):
        ptr[i + 1] += ptr[i]
    for e in range(ne):  # fill with ptr[s] as the cursor, then shift back
        s = src[e]
        idx[ptr[s]] = dst[e]
        ptr[s] += 1
    for i in range(size, 0, -1):
        ptr[i] = ptr[i - 1]
    ptr[0] = 0


@njit(**NUMBA_FLAGS, inline="always")
def _recheck(j, bm, pend, cnt, k, pat, stack, top):
    """Drop j's pairs that lost support; queue j once for telling its neighbours."""
    if bm[j] == 0:
        return top
    bad = _failing(bm[j], cnt, j * k, k, pat, 0)
    if bad != 0:
        bm[j] &= ~bad
        if pend[j] == 0:
            stack[top] = j
            top += 1
        pend[j] |= bad
    return top


@njit(**NUMBA_FLAGS, inline="always")
def _mix(z):
    # splitmix64's finaliser (all operands uint64: numba turns uint64 op int64 into float)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**NUMBA_FLAGS)
def _hashes(ptr, codes):
    m = ptr.shape[0] - 1
    out = np.empty(m, dtype=np.uint64)
    for i in range(m):
        h = _mix(np.uint64(ptr[i + 1] - ptr[i]))
        for e in range(ptr[i], ptr[i + 1]):
            h = _mix(h ^ np.uint64(codes[e]))
        out[i] = h
    return out


@njit(**NUMBA_FLAGS)
def _distinct(order, hashes, ptr, codes):
    """Positions in ``order`` of the first match of each distinct pair set (matches with
    equal hashes are adjacent in ``order``; they are compared exactly)."""
    keep = np.zeros(order.shape[0], dtype=np.bool_)
    start = 0
    while start < order.shape[0]:
        end = start + 1
        while end < order.shape[0] and hashes[order[end]] == hashes[order[start]]:
            end += 1
        for a in range(start, end):
            dup = False
            for b in range(start, a):
                if keep[b] and _same(ptr, codes, order[a], order[b]):
                    dup = True
                    break
            keep[a] = not dup
        start = end
    return np.flatnonzero(keep)


@njit(**NUMBA_FLAGS)
def _same(ptr, codes, a, b):
    la = ptr[a + 1] - ptr[a]
    if la != ptr[b + 1] - ptr[b]:
        return False
    for t in range(la):
        if codes[ptr[a] + t] != codes[ptr[b] + t]:
            return False
    return True
