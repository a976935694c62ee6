"""What every competitor adapter shares: the kernel it hands the harness
(:class:`Prepared`), the graph's derived forms built once for all of them
(:class:`GraphForms`), and the adapter base class (:class:`Competitor`).

An adapter converts an hpgraph graph to its library's format (:meth:`Competitor.load`,
untimed) and, per kernel, returns a :class:`Prepared`: ``run(root)`` is the timed call,
``result(raw)`` turns its output into the common form (untimed). Common forms: BFS depth
(int64, -1 unreachable), WCC component labels (any labelling), PageRank ranks (float64),
SSSP distances (float64, inf unreachable), CDLP labels, LCC and betweenness (float64,
hpgraph's scaling). CDLP, LCC and betweenness read the simple graph
(:meth:`GraphForms.simple`), as hpgraph's kernels do, and run on undirected graphs only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hpgraph.bench._convert import dedup_csr

__all__ = [
    "Prepared",
    "GraphForms",
    "Competitor",
    "pagerank_scalars",
    "components_result",
    "undirected_only",
    "cdlp_iterations",
]


@dataclass
class Prepared:
    """A competitor's kernel ready to time."""

    run: Callable[[Any], Any]
    result: Callable[[Any], np.ndarray]
    #: short description shown in the report ("to convergence", "Bellman-Ford", ...)
    note: str = ""
    #: same definition as hpgraph's kernel: results must match (else informative only)
    exact: bool = True


class GraphForms:
    """Derived forms of one benchmark graph shared by the competitors (built once,
    untimed)."""

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

    def simple(self):
        """(indptr, indices) of the simple graph: parallel edges once, self-loops dropped
        (the view hpgraph's LCC, CDLP and betweenness read)."""

        def make():
            ip, ix, _ = self.counts()
            src = np.repeat(np.arange(self.n, dtype=ix.dtype), np.diff(ip))
            keep = src != ix
            indptr = np.zeros(self.n + 1, dtype=np.int64)
            np.cumsum(np.bincount(src[keep], minlength=self.n), out=indptr[1:])
            return indptr, ix[keep]

        return self.get("simple", make)

    def out_degree(self):
        return self.get("deg", lambda: self.graph.out_degree().astype(np.float64))

    def clear(self):
        self._cache.clear()


def pagerank_scalars(forms, damping):
    """(damping / out-degree, 0 for sinks; the sinks' mask) of a PageRank iteration."""
    deg = forms.out_degree()
    inv = np.divide(damping, deg, out=np.zeros_like(deg), where=deg > 0)
    dangling = deg == 0
    return inv, dangling


def undirected_only(forms, kernel):
    """Raise unless the graph is undirected: a competitor's ``kernel`` (CDLP, LCC,
    betweenness) runs only where its definition is hpgraph's."""
    if forms.directed:
        raise ValueError(f"{kernel} competitors run on undirected graphs only")


def cdlp_iterations() -> int:
    """CDLP's iterations: hpgraph's default (its registry entry)."""
    from hpgraph.algorithms.registry import ALGORITHMS

    return int(ALGORITHMS["cdlp"].param("iterations").default)


def components_result(raw):
    """Component labels as int64 (the common form of WCC)."""
    return np.asarray(raw, dtype=np.int64)


class Competitor:
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
        """Give the library ``threads`` threads where it has a setting; say what it uses."""
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
