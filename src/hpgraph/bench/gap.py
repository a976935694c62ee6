"""The GAP Benchmark Suite (github sbeamer/gapbs, C++/OpenMP) timed on the benchmark's own
graphs: ``hpgraph bench --gap DIR``, DIR holding GAP's built programs.

Same graph. The harness writes hpgraph's CSR as GAP's serialized graph (``.sg``; ``.wsg``
with weights) and GAP reads it as it is. GAP's edge-list reader (``.el``/``.wel``, and its
``converter``) would drop self-loops and merge parallel edges, which Graph500's Kronecker
graphs keep and every other system gets; the serialized form keeps the vertex ids, the
edges (both directions of an undirected edge, as hpgraph stores them) and their order.
GAP's weights are int32, so with ``--gap`` the benchmark's uniform [0, 1) weights are
rounded to multiples of 2^-20 (:data:`WEIGHT_SCALE`; a positive weight to at least one
unit) for every system and GAP gets them times 2^20: the same weights in another unit,
distances exactly proportional (GAP's infinity, 2^30, is 1024 in hpgraph's unit).
delta-stepping's bucket width is hpgraph's default
(:func:`~hpgraph.algorithms.delta_stepping.default_delta`) in the same unit.

Which GAP program runs a kernel, with which arguments, is the kernel's registry entry's
:class:`~hpgraph.algorithms.registry.BenchSpec` ``gap``. Each program runs with
``OMP_NUM_THREADS`` = hpgraph's threads, ``-n`` trials + 1 (the first is the untimed
warm-up every system gets) and ``-a``, once per root for a kernel with a source (``-r``).
Its times are GAP's own "Trial Time" lines, which exclude reading the graph. The number
its analysis prints (vertices reached, components) is compared with hpgraph's result.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from typing import Any

import numpy as np

from hpgraph.algorithms.registry import ALGORITHMS
from hpgraph.errors import InvalidArgumentError

__all__ = [
    "WEIGHT_SCALE",
    "GapSuite",
    "gap_kernels",
    "quantize_weights",
    "write_serialized",
    "trial_times",
    "analysis_count",
]

#: GAP's weights are int32: the benchmark's weights in units of 2^-20.
WEIGHT_SCALE = 2**20

_TRIAL = re.compile(r"^Trial Time:\s+([0-9.eE+-]+)\s*$", re.MULTILINE)
_SIZE = re.compile(r"^Graph has (\d+) nodes and (\d+) ", re.MULTILINE)


def gap_kernels(kernels) -> list[str]:
    """The kernels of ``kernels`` that GAP has (a ``gap`` in their ``BenchSpec``)."""
    return [k for k in kernels if ALGORITHMS[k].bench.gap is not None]


def quantize_weights(weights: np.ndarray) -> np.ndarray:
    """``weights`` rounded to multiples of 1 / :data:`WEIGHT_SCALE` (exact in float64);
    a positive weight becomes at least one unit, so rounding makes no zero-weight edges
    (Kronecker scale 20 would get about 32 of them, where equal distances could make
    parents point at each other)."""
    w = np.asarray(weights, dtype=np.float64)
    units = np.rint(w * WEIGHT_SCALE)
    units[(units == 0) & (w > 0)] = 1.0
    return units / WEIGHT_SCALE


def write_serialized(graph, path, weighted: bool = False) -> str:
    """Write ``graph`` (hpgraph's CSR) as GAP's serialized graph: ``.sg``, or ``.wsg``
    with its weights times :data:`WEIGHT_SCALE` as int32 when ``weighted``. Layout (GAP's
    ``WriterBase::WriteSerializedGraph``): bool directed, int64 stored edges, int64
    vertices, int64 offsets[n + 1], the neighbours (int32, or int32 (vertex, weight)
    pairs); a directed graph then holds its in-edges the same way."""
    ip = np.asarray(graph.indptr, dtype=np.int64)
    if graph.num_stored_edges >= 2**31 or graph.n >= 2**31:
        raise InvalidArgumentError("GAP's serialized graphs take 32-bit vertex ids")
    parts = [(ip, np.asarray(graph.indices), graph.weights)]
    if graph.directed:
        in_ip, in_ix, in_w = graph.in_csr()
        parts.append((np.asarray(in_ip, dtype=np.int64), np.asarray(in_ix), in_w))
    with open(path, "wb") as f:
        f.write(np.array([graph.directed], dtype=np.bool_).tobytes())
        f.write(np.array([graph.num_stored_edges, graph.n], dtype=np.int64).tobytes())
        for indptr, indices, weights in parts:
            f.write(indptr.tobytes())
            if weighted:
                pairs = np.empty((indices.shape[0], 2), dtype=np.int32)
                pairs[:, 0] = indices
                pairs[:, 1] = np.rint(np.asarray(weights) * WEIGHT_SCALE)
                f.write(pairs.tobytes())
            else:
                f.write(indices.astype(np.int32, copy=False).tobytes())
    return str(path)


def trial_times(output: str) -> list[float]:
    """The seconds of GAP's "Trial Time:" lines, in order."""
    return [float(x) for x in _TRIAL.findall(output)]


def analysis_count(output: str, pattern: str | None) -> int | None:
    """The number ``pattern`` (a ``GapRun.count``) captures in GAP's analysis output."""
    if pattern is None:
        return None
    m = re.search(pattern, output)
    return int(m.group(1)) if m else None


class GapSuite:
    """A directory of GAP's built programs, and the graph files written for them."""

    def __init__(self, directory):
        self.dir = os.path.abspath(os.fspath(directory))
        if not os.path.isdir(self.dir):
            raise InvalidArgumentError(f"--gap {directory}: not a directory")
        self._tmp: str | None = None
        #: {graph file: (vertices, edges) GAP must say it read}
        self._size: dict[str, tuple[int, int]] = {}

    def program(self, binary: str) -> str | None:
        path = os.path.join(self.dir, binary)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None

    def missing(self, kernels) -> dict[str, str]:
        """{kernel: why GAP cannot run it} for the kernels whose program is not built."""
        out = {}
        for k in kernels:
            binary = ALGORITHMS[k].bench.gap.binary
            if self.program(binary) is None:
                out[k] = f"no executable {binary} in {self.dir} (run make there)"
        return out

    def graph_file(self, graph, weighted: bool) -> str:
        """The serialized form of ``graph`` in a temporary directory (removed by
        :meth:`clear`)."""
        if self._tmp is None:
            self._tmp = tempfile.mkdtemp(prefix="hpgraph-gap-")
        path = os.path.join(self._tmp, "graph.wsg" if weighted else "graph.sg")
        if not os.path.exists(path):
            write_serialized(graph, path, weighted)
            # GAP counts an undirected graph's edges as half its stored ones
            m = graph.num_stored_edges
            self._size[path] = (graph.n, m if graph.directed else m // 2)
        return path

    def clear(self) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
            self._size.clear()

    def run(self, kernel, path, trials, threads, params, root=None) -> tuple[list[float], Any]:
        """(timed trials' seconds, the count of GAP's analysis) of one run of ``kernel``'s
        program on the graph file ``path``: ``trials`` + 1 trials, the first dropped."""
        gap = ALGORITHMS[kernel].bench.gap
        args = [a.format(**params) for a in gap.args]
        cmd = [self.program(gap.binary), "-f", path, "-n", str(trials + 1), "-a", *args]
        if root is not None:
            cmd += ["-r", str(int(root))]
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        times = trial_times(proc.stdout)
        if proc.returncode != 0 or len(times) != trials + 1:
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            raise RuntimeError(
                f"{' '.join(cmd)} exited {proc.returncode} with {len(times)} trial times: "
                + " / ".join(tail)
            )
        size = _SIZE.search(proc.stdout)
        read = tuple(map(int, size.groups())) if size else None
        if path in self._size and read != self._size[path]:
            raise RuntimeError(f"GAP read {read} (vertices, edges), not {self._size[path]}")
        return times[1:], analysis_count(proc.stdout, gap.count)
