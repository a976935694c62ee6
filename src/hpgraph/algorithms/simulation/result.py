"""The results of dual and strict simulation.

Given the final candidate masks, :class:`DualSimulationResult` answers which data vertices
match each pattern vertex; given the distinct strict-simulation matches,
:class:`StrictSimulationResult` lists them as :class:`Match` tuples or flat rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from hpgraph.algorithms.simulation.pattern import Pattern
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.result import VertexResult

__all__ = ["Match", "DualSimulationResult", "StrictSimulationResult"]


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
