"""Numba flags, engine thresholds and tolerances, in one place (STUMPY's config.py)."""

import os

__all__ = [
    "NUMBA_FLAGS",
    "NUMBA_FLAGS_NOCACHE",
    "PUSH_PULL_THRESHOLD",
    "PUSH_PULL_THRESHOLD_FULL_SCAN",
    "PULL_WINDOW_BYTES",
    "PULL_PREFETCH",
    "PULL_MIN_SEGMENT_ROW",
    "HUB_ORDER_MIN_VERTICES",
    "DEFAULT_THREADS",
    "CACHE_DIR",
    "PR_TOLERANCE",
    "FLOAT_RTOL",
    "BMLPA_TOLERANCE",
    "BMLPA_SYNC_TOLERANCE",
]

#: Flags for every compiled kernel. nogil: the local runtime runs kernels on several
#: Python threads at once; cache: a fresh process pays the cache load, not a compile.
NUMBA_FLAGS = {"nogil": True, "cache": True, "fastmath": False, "error_model": "numpy"}
NUMBA_FLAGS_NOCACHE = {k: v for k, v in NUMBA_FLAGS.items() if k != "cache"}


#: A superstep's messages are delivered pull-style (dense) when the senders' out-edges
#: exceed this fraction of all edges, push-style (sparse) otherwise. With the "any"
#: combiner pull stops at the first sender and skips finished receivers, so it pays early
#: (Ligra and Beamer's BFS use |E|/20); otherwise pull reads every in-edge, so it pays
#: only once a good share of the edges carry a message (HPGRAPH_PULL_SHARE overrides the
#: share, for experiments).
PUSH_PULL_THRESHOLD = 1.0 / 20.0
PUSH_PULL_THRESHOLD_FULL_SCAN = float(os.environ.get("HPGRAPH_PULL_SHARE", "0.25"))

#: A phase of a superstep whose work is at most this many vertices and edges (the
#: compute of that many candidates, the push of that many sender edges) runs every part
#: on the calling thread, one after another: waking another thread costs 60-100 us on
#: the 2-core test machine (the OS wake-up and the GIL's), more than such a phase, and a
#: traversal has many (BFS on Kronecker 20: 5 of 7 supersteps). 0 turns it off.
SMALL_PHASE_WORK = 1 << 14

#: A dense superstep may pull its senders' broadcasts in segments of at most this many
#: bytes each, so that the random reads of one segment's pass stay in cache
#: (engine/segments.py); HPGRAPH_PULL_WINDOW sets it (bytes; 0 or less: no segments, the
#: default). Off since the prefetch below: on the 2-core test machine one pass with it
#: took 0.7-0.9x the time of 2 segments of 4 MiB (float64 PageRank on Kronecker 20 and
#: uniform 1M/16M), and segments with it were slower than either.
PULL_WINDOW_BYTES = int(os.environ.get("HPGRAPH_PULL_WINDOW", "0"))
#: ... and in no more segments than keep this many entries of the mean in-row in each
#: (a segment's pass also reads every own vertex's row bounds and inbox).
PULL_MIN_SEGMENT_ROW = 2.0
#: A dense pass asks the CPU for the broadcast this many in-edges ahead of the one it
#: reads (engine/superstep.py ``_combine_row``; a software prefetch, since the reads'
#: addresses come from the in-row and the hardware cannot guess them); 0: none.
#: HPGRAPH_PULL_PREFETCH overrides it (compiled in: a new value compiles new kernels).
PULL_PREFETCH = max(int(os.environ.get("HPGRAPH_PULL_PREFETCH", "64")), 0)

#: Kernels that may run on the hub-grouped view (graph/hub_order.py; PageRank's
#: ``order="auto"``) do so on skewed graphs of more vertices than this: below it the
#: 8 B values of every vertex (1 MiB) stay in the L2 cache whatever the order.
HUB_ORDER_MIN_VERTICES = 1 << 17

#: Worker threads (= partitions) of the local runtime when none are asked for:
#: $HPGRAPH_THREADS, else in a Slurm job the CPUs it gave each task (sbatch/srun -c),
#: else all cores.
DEFAULT_THREADS = int(
    os.environ.get("HPGRAPH_THREADS") or os.environ.get("SLURM_CPUS_PER_TASK") or "0"
) or (os.cpu_count() or 1)

#: Where generated kernel modules and cached binary graphs go when no other place is given.
CACHE_DIR = os.environ.get(
    "HPGRAPH_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "hpgraph")
)

#: Graphalytics tolerance for PageRank/LCC/SSSP comparisons.
FLOAT_RTOL = 1e-4
PR_TOLERANCE = 0.0

#: BMLPA's default stop rule (the seed's): stop once fewer than this share of the vertices
#: changed their labels in a sweep of the semi-synchronous update (the default), or in a
#: superstep of the synchronous one (``BMLPA_SYNC_TOLERANCE``, against two supersteps
#: back); see docs/algorithms/bmlpa.md for the measurements behind the values.
BMLPA_TOLERANCE = 0.06
BMLPA_SYNC_TOLERANCE = 0.01


def seconds_from_env(name: str, default: float) -> float:
    """``$name`` in seconds (>= 0; 0 means off), or ``default`` when it is not set; a
    value that is not a number of seconds is a one-line error naming the variable."""
    from hpgraph.errors import InvalidArgumentError

    text = os.environ.get(name, "")
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise InvalidArgumentError(f"{name} must be seconds >= 0, got {text!r}")
    return value
