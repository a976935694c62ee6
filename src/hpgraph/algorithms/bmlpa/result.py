"""BMLPA's result: the cover as flat arrays (CSR by vertex) with per-vertex columns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.result import VertexResult

__all__ = ["BMLPAResult"]


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
