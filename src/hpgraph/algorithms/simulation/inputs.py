"""The arguments of dual and strict simulation, as arrays.

Given the user's pattern (a Pattern, a file, a Graph or an edge list, with its labels)
:func:`_as_pattern` returns a :class:`Pattern`; given the data labels (an array, a dict
or a file) :func:`_initial_masks` returns each data vertex's label-compatible pattern
vertices as an int64 bit mask.
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike

import numpy as np

from hpgraph.algorithms.simulation.files import read_labels, read_pattern
from hpgraph.algorithms.simulation.pattern import Pattern, _norm_label
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.csr import Graph

__all__: list[str] = []


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
