"""The benchmark's graphs: specs named on the command line, the graphs they make, and
the BFS/SSSP roots drawn from them (Graph500's rule)."""

from __future__ import annotations

import os
import time

import numpy as np

from hpgraph.bench._convert import loops_per_vertex
from hpgraph.errors import InvalidArgumentError

__all__ = ["parse_graph_spec", "make_graph", "choose_roots"]


def _count_arg(text: str) -> int:
    """``"16000000"``, ``"16M"``, ``"1_000"``, ``"2^20"`` -> int."""
    t = text.strip().replace("_", "")
    mult = {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9}
    try:
        if "^" in t:
            base, exp = t.split("^")
            return int(base) ** int(exp)
        if t and t[-1] in mult:
            return int(float(t[:-1]) * mult[t[-1]])
        return int(t)
    except ValueError:
        raise InvalidArgumentError(f"not a count: {text!r} (examples: 1000000, 1M, 2^20)") from None


def parse_graph_spec(spec: str) -> dict:
    """A graph named on the command line, as a dict for :func:`make_graph`.

    ``kronecker:S[:EF]`` (also ``kron:S``), ``uniform:N:M`` (also ``urand:N:M``; counts
    take k/M/G suffixes or ``2^k``), or ``file:PATH`` / an existing path (read with
    :func:`hpgraph.io.load_graph`).
    """
    try:
        return _parse_spec(spec)
    except InvalidArgumentError as e:
        if str(e).startswith("not a count"):
            raise InvalidArgumentError(f"graph {spec!r}: {e}") from None
        raise


def _parse_spec(spec: str) -> dict:
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    parts = rest.split(":") if rest else []
    if kind in ("kronecker", "kron") and len(parts) in (1, 2):
        out = {"kind": "kronecker", "scale": _count_arg(parts[0]), "edge_factor": 16}
        if len(parts) == 2:
            out["edge_factor"] = _count_arg(parts[1])
        return out
    if kind in ("uniform", "urand") and len(parts) == 2:
        return {"kind": "uniform", "n": _count_arg(parts[0]), "m": _count_arg(parts[1])}
    if kind == "file" and rest:
        return {"kind": "file", "path": rest}
    if os.path.exists(spec):
        return {"kind": "file", "path": spec}
    raise InvalidArgumentError(
        f"unknown graph {spec!r}: expected kronecker:SCALE[:EDGE_FACTOR], uniform:N:M, or file:PATH"
    )


def make_graph(spec, *, weighted: bool, seed: int = 0, threads=None):
    """(graph, seconds to make it) for a spec string/dict, a Graph, or (name, Graph)."""
    from hpgraph.generators import kronecker, uniform_random
    from hpgraph.graph import Graph

    t0 = time.perf_counter()
    if isinstance(spec, Graph):
        return spec, 0.0
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], Graph):
        g = spec[1]
        named = Graph(g.indptr, g.indices, g.weights, directed=g.directed, ids=g.ids, name=spec[0])
        return named, 0.0
    if isinstance(spec, str):
        spec = parse_graph_spec(spec)
    kind = spec["kind"]
    if kind == "kronecker":
        g = kronecker(
            spec["scale"], spec["edge_factor"], seed=seed, weighted=weighted, threads=threads
        )
    elif kind == "uniform":
        g = uniform_random(spec["n"], spec["m"], seed=seed, weighted=weighted, threads=threads)
    elif kind == "file":
        from hpgraph.io import load_graph

        g = load_graph(spec["path"])
        if not g.name:
            g.name = os.path.basename(spec["path"])
    else:
        raise InvalidArgumentError(f"unknown graph kind {kind!r}")
    return g, time.perf_counter() - t0


def choose_roots(graph, count: int, seed: int) -> np.ndarray:
    """``count`` distinct roots with at least one (out-)edge that is not a self-loop
    (Graph500), drawn with ``seed``; fewer if the graph has fewer such vertices. Drawn
    from the candidates in the order of their integer ids, so that a renumbered graph
    (:meth:`~hpgraph.graph.csr.Graph.renumbered`) gets the same vertices."""
    deg = graph.out_degree() - loops_per_vertex(graph.indptr, graph.indices)
    cand = np.flatnonzero(deg > 0)
    if cand.size == 0:
        cand = np.arange(graph.n)
    ids = None if graph.ids is None else np.asarray(graph.ids)
    if ids is not None and ids.dtype.kind in "iu":
        cand = cand[np.argsort(ids[cand], kind="stable")]
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(cand, size=min(count, cand.size), replace=False))
