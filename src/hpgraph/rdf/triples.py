"""Given id rows (subject, predicate, object[, graph]), returns them sorted for the query
executor: one RDF graph's triples as :class:`Triples` (sorted by (p, s, o) and (p, o, s),
with the row range of each predicate), and a whole dataset's rows grouped by graph.

A store holds every graph's rows back to back in one PSO and one POS array, the default
graph first and then the named graphs by id, so each graph is a slice of both (its graph
id is a fourth column stored run-length encoded: one (graph, start, end) row per graph).
:meth:`Triples.quads` puts several graphs' rows into one sorted (m, 4) view with the graph
id as a fourth column, so that ``GRAPH ?g { BGP }`` is one BGP evaluation over all graphs.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["DEFAULT_GRAPH", "Triples", "NamedGraphs", "sort_quads"]

#: The graph id of the default graph (term ids are >= 0; a named graph's id is its name's).
DEFAULT_GRAPH = -1


class Triples:
    """One RDF graph: ``pso`` / ``pos``, (m, 3) int64 rows s, p, o sorted by (p, s, o) and
    (p, o, s); ``pred_range`` and ``nodes`` are built on first use (a store may hold many
    graphs, most never queried). Built by :meth:`quads`, the rows have a fourth column,
    the graph id, last in both sort orders."""

    def __init__(self, pso, pos):
        self.pso = pso
        self.pos = pos
        self._pred_range = None
        self._nodes = None
        self.memo: dict = {}  # the query executor's patterns over this graph (sparql.bgp)

    def __len__(self) -> int:
        return int(len(self.pso))

    @property
    def pred_range(self) -> dict[int, tuple[int, int]]:
        """Predicate id -> its (start, end) rows in ``pso`` and ``pos``."""
        if self._pred_range is None and len(self.pso) == 0:
            self._pred_range = {}
        if self._pred_range is None:
            preds, starts = np.unique(self.pso[:, 1], return_index=True)
            ends = np.append(starts[1:], len(self.pso))
            self._pred_range = {
                int(p): (int(a), int(b)) for p, a, b in zip(preds, starts, ends, strict=True)
            }
        return self._pred_range

    @property
    def nodes(self) -> np.ndarray:
        """The sorted ids of every subject and object: the nodes a zero-length property
        path reaches from themselves."""
        if self._nodes is None:
            self._nodes = np.unique(np.concatenate([self.pso[:, 0], self.pso[:, 2]]))
        return self._nodes

    def predicate_count(self, pid: int) -> int:
        a, b = self.pred_range.get(pid, (0, 0))
        return b - a

    @classmethod
    def quads(cls, graphs: dict) -> Triples:
        """The rows of ``graphs`` (graph id -> Triples) with their graph id as a fourth
        column, sorted by (p, s, o, g) and (p, o, s, g)."""
        parts = [g.pso for g in graphs.values()]
        rows = np.empty((sum(len(p) for p in parts), 4), np.int64)
        if parts:
            rows[:, :3] = np.concatenate(parts)
            rows[:, 3] = np.repeat(list(graphs), [len(p) for p in parts])
        return cls.sorted_quads(rows)

    @classmethod
    def sorted_quads(cls, rows) -> Triples:
        """(m, 4) rows s, p, o, g as a Triples sorted by (p, s, o, g) and (p, o, s, g)."""
        s, p, o, g = rows.T
        return cls(rows[np.lexsort((g, o, s, p))], rows[np.lexsort((g, s, o, p))])

    @classmethod
    def merge(cls, graphs) -> Triples:
        """The RDF merge of ``graphs`` (a set: a triple in several graphs once)."""
        rows = [g.pso for g in graphs]
        pso, pos, _ = sort_quads(np.concatenate(rows) if rows else np.empty((0, 3), np.int64))
        return cls(pso, pos)


class NamedGraphs(Mapping):
    """Graph id -> :class:`Triples` of a store's named graphs, from the (graph id, start,
    end) rows of the store's arrays (ids ascending); a graph's view is made on first use,
    so a store of a million small graphs holds no million objects until asked."""

    def __init__(self, ranges, pso, pos):
        self.ranges = ranges
        self._arrays = (pso, pos)
        self._views: dict[int, Triples] = {}

    def __len__(self) -> int:
        return len(self.ranges)

    def __iter__(self):
        return iter(self.ranges[:, 0].tolist())

    def __getitem__(self, gid) -> Triples:
        view = self._views.get(gid)
        if view is None:
            i = int(np.searchsorted(self.ranges[:, 0], gid))
            if i == len(self.ranges) or self.ranges[i, 0] != gid:
                raise KeyError(gid)
            a, b = int(self.ranges[i, 1]), int(self.ranges[i, 2])
            view = self._views[gid] = Triples(self._arrays[0][a:b], self._arrays[1][a:b])
        return view

    def quads(self) -> Triples:
        """Every graph's rows with the graph id as a fourth column (:meth:`Triples.quads`),
        read straight from the store's arrays."""
        pso = self._arrays[0]
        rows = np.empty((int((self.ranges[:, 2] - self.ranges[:, 1]).sum()), 4), np.int64)
        if len(self.ranges):
            rows[:, :3] = pso[self.ranges[0, 1] : self.ranges[-1, 2]]
            rows[:, 3] = np.repeat(self.ranges[:, 0], self.ranges[:, 2] - self.ranges[:, 1])
        return Triples.sorted_quads(rows)


def sort_quads(spo, graph=None):
    """PSO and POS orders of the distinct rows of ``spo`` ((m, 3) ids) in graph ``graph``
    (one id per row; None: all in the default graph), grouped by graph (default first,
    then by id), and the (k, 3) int64 array of (graph id, start, end) per graph.

    The load's peak (one graph): ``spo``, PSO, POS and one row order, 80 bytes per row."""
    m = len(spo)
    if m == 0:
        return np.empty((0, 3), np.int64), np.empty((0, 3), np.int64), np.empty((0, 3), np.int64)
    if graph is None:
        gids, grank = np.array([DEFAULT_GRAPH], np.int64), None
    else:
        gids, grank = np.unique(graph, return_inverse=True)
        grank = grank.reshape(-1)
    order = _order(spo, (1, 0, 2), grank, len(gids))
    pso = spo[order]
    grank = None if grank is None else grank[order]
    order = None
    if m > 1:
        keep = np.ones(m, bool)
        keep[1:] = np.any(pso[1:] != pso[:-1], axis=1)
        if grank is not None:
            keep[1:] |= grank[1:] != grank[:-1]
            grank = grank[keep]
        pso = pso[keep]
    pos = pso[_order(pso, (1, 2, 0), grank, len(gids))]
    if grank is None:
        ranges = np.array([[DEFAULT_GRAPH, 0, len(pso)]], np.int64)
    else:
        present, starts = np.unique(grank, return_index=True)
        ranges = np.empty((len(present), 3), np.int64)
        ranges[:, 0] = gids[present]
        ranges[:, 1] = starts
        ranges[:, 2] = np.append(starts[1:], len(pso))
    return np.ascontiguousarray(pso), np.ascontiguousarray(pos), ranges


def _order(spo, columns, group, ngroups):
    """The row order sorting by ``group`` (None: one group) then ``columns`` (predicate
    first): one stable argsort of a folded int64 key built in place, groups and predicates
    ranked (they are few), when it fits; else a lexsort."""
    n = int(spo.max()) + 1
    col = spo[:, 1]
    preds = np.unique(col)
    _, b, c = columns
    if n * n * len(preds) * ngroups >= 1 << 62:
        keys = (spo[:, c], spo[:, b], col)
        return np.lexsort(keys if group is None else (*keys, group))
    key = np.searchsorted(preds, col)
    if group is not None:
        key += group * len(preds)
    key *= n
    key += spo[:, b]
    key *= n
    key += spo[:, c]
    return np.argsort(key, kind="stable")
