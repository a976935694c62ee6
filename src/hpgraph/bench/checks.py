"""How the benchmark compares results: each system's result in normal form, checked
against the reference system's (exactly for depths and partitions, to Graphalytics'
relative tolerance for reals and distances), and one line that sums up the checks of a
row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hpgraph.algorithms.registry import ALGORITHMS
from hpgraph.bench._convert import canonical_components
from hpgraph.config import FLOAT_RTOL

__all__ = ["values_of", "normal_form", "compare", "summarise"]


@dataclass(frozen=True)
class _Values:
    """How results of one :attr:`BenchSpec.values` kind are compared: ``normal`` puts an
    array in normal form; ``noun`` names what differs when compared exactly (None:
    relative ``FLOAT_RTOL``); ``reached`` marks the vertices a traversal reached (for
    TEPS and :meth:`count`)."""

    normal: Any
    noun: str | None
    reached: Any = None

    def count(self, arr) -> int | None:
        """The number a system that returns no result array (GAP) is checked by: vertices
        reached, or components; None for real values."""
        if self.reached is not None:
            return int(np.count_nonzero(self.reached(arr)))
        if self.noun == "labels":
            return int(np.unique(arr).size)
        return None


_VALUES = {
    "depth": _Values(lambda a: a.astype(np.int32), "depths", lambda a: a >= 0),
    "partition": _Values(canonical_components, "labels"),
    "real": _Values(lambda a: a.astype(np.float64), None),
    "distance": _Values(lambda a: a.astype(np.float64), None, np.isfinite),
}


def values_of(kernel) -> _Values:
    """How ``kernel``'s results compare (its registry entry's ``bench.values``)."""
    return _VALUES[ALGORITHMS[kernel].bench.values]


def normal_form(kernel, arr):
    return values_of(kernel).normal(np.asarray(arr))


def compare(kernel, got, ref) -> tuple[bool, str]:
    """(agrees, short description) of a result against the reference."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return False, f"shape {got.shape} != {ref.shape}"
    kind = values_of(kernel)
    if kind.noun is not None:
        bad = int(np.count_nonzero(kind.normal(got) != ref))
        return bad == 0, "equal" if bad == 0 else f"{bad} {kind.noun} differ"
    fin = np.isfinite(ref)
    if not np.array_equal(fin, np.isfinite(got)):
        return False, "reachability differs"
    r, x = ref[fin], got[fin]
    scale = np.maximum(np.abs(r), 1e-300)
    rel = float(np.max(np.abs(x - r) / scale)) if r.size else 0.0
    return rel <= FLOAT_RTOL, f"max rel {rel:.1e}"


def summarise(checks: list[str]) -> str:
    """One line for a row's checks (one per root): the first failure, else the first."""
    if not checks:
        return "-"
    uniq = list(dict.fromkeys(checks))
    if len(uniq) == 1:
        return uniq[0]
    bad = [c for c in uniq if "differ" in c or "!=" in c or "FAIL" in c]
    return (bad or uniq)[0] + f" (+{len(uniq) - 1} more)"
