"""``hpgraph bench``: hpgraph's kernels against competing PyPI libraries (its
competitors), on the same graphs, in the same process.

Usage::

    python -m hpgraph.bench --kernels pagerank,bfs --kronecker 16 \\
        --uniform 100000:1600000 --trials 3 --threads 2 --out bench.md

or from Python::

    from hpgraph.bench import run_bench
    report = run_bench(["bfs", "wcc"], ["kronecker:16", "uniform:1M:16M"], trials=3,
                       threads=2, roots=8, verify=True, out="bench.md")

What it runs. For every graph (Graph500 Kronecker ``kronecker:SCALE[:EDGE_FACTOR]``,
uniform random ``uniform:N:M``, or ``file:PATH``; generated with a fixed seed, weighted when
SSSP is asked for) and every kernel asked for (default the core ones, pagerank, bfs, wcc,
sssp; also cdlp, lcc, betweenness when named): hpgraph's kernel
(``hpgraph.algorithms.ALGORITHMS[kernel]``, imported lazily), then each importable
competitor that has the kernel: SciPy (csgraph; PageRank as a SpMV loop; LCC by sparse
products), python-graphblas (SuiteSparse:GraphBLAS; PageRank vxm loop, BFS vxm level
loop, WCC min-label propagation, SSSP frontier Bellman-Ford, LCC masked mxm), NetworKit,
igraph, scikit-network, and NetworkX when ``|E| < 200,000``. A competitor that does not
import is skipped with a note. With ``gap=DIR`` (``--gap DIR``) the GAP Benchmark Suite's
programs built in DIR run too, on the same graph written in GAP's serialized form
(:mod:`hpgraph.bench.gap`), and the report gives hpgraph time / GAP time per kernel.

Rules (GAP's, plus LDBC Graphalytics' definitions and Graph500's roots and TEPS):

- the harness times, kernels don't: ``time.perf_counter`` around one call;
- conversions to a competitor's format happen before, and result normalisation after, the
  timed region (conversion time and RSS growth are reported apart);
- one untimed warm-up call per (system, kernel, graph) (numba compilation, caches), then
  ``trials`` timed calls (per root for BFS/SSSP); the table gives the median and the
  minimum over all timed calls, and the spread between trials: each root's median trial
  over its fastest, summed over roots (a root's trials repeat the same work, while roots
  differ in it, so the choice of roots is not counted as noise);
- BFS/SSSP roots: ``roots`` distinct vertices with an edge that is not a self-loop,
  drawn with the seed; the same roots for every system;
- PageRank: Graphalytics definition, damping 0.85, 20 iterations, dangling rank spread
  uniformly;
- threads: hpgraph's ``threads=``; GraphBLAS ``gb.ss.config['nthreads']`` and NetworKit
  ``setNumberOfThreads`` get the same number; SciPy, igraph, scikit-network, NetworkX are
  single-threaded;
- verification: hpgraph's result of the first trial per root is checked by
  ``hpgraph.algorithms.verify`` (untimed); every competitor's result is compared with the
  reference (hpgraph's verified result, or SciPy's when hpgraph's kernels are missing):
  BFS depths and WCC partitions exactly, PageRank and SSSP to relative 1e-4. Competitors
  whose definition differs (igraph/NetworkX PageRank to convergence, scikit-network's
  dangling rule) are compared "for information" only.

Report columns: kernel, graph, |V|, |E| (as the user counts them: an undirected edge once),
system, threads, median and min seconds, spread, ``vs hpgraph`` = system time / hpgraph time
(> 1: hpgraph is faster), EVPS = (|V| + |E|) / median time, TEPS (BFS, SSSP) = Graph500's
"edges in the traversed component" / time, harmonic mean over roots, peak RSS (the
process's high-water mark after the row), the cross-check, and a note (the competitor's
algorithm). Per graph: generation time, hpgraph's bytes per stored edge
(``graph.memory_bytes() / graph.num_stored_edges``), peak RSS before and after, each
competitor's conversion time and RSS growth.

Conversion caveats: see :mod:`hpgraph.bench.competitors` (parallel edges become
multiplicities for SciPy/GraphBLAS/scikit-network and the smallest parallel weight for
SSSP; NetworKit's PageRank runs on a directed copy so that sinks are handled; NetworkX
gets a simple graph).

OpenMP on a busy machine: GraphBLAS, NetworKit and igraph (PRPACK) use OpenMP, whose
threads spin while they wait; when other processes occupy the cores a spinning thread
waits for a descheduled one, and a millisecond kernel can take most of a second (seen
here: igraph PageRank on 1k vertices, 0.64 s instead of 3 ms). ``python -m hpgraph.bench
--threads T`` sets ``OMP_NUM_THREADS=T`` (unless set) so that igraph uses the same thread
count; on a shared machine also set ``OMP_WAIT_POLICY=passive``, and compare the ``min``
column. The report records both variables.

The generated graphs keep Graph500's self-loops and parallel edges; every system gets the
same multigraph, so results are comparable.
"""

from hpgraph.bench.harness import KERNELS, BenchReport, make_graph, parse_graph_spec, run_bench

__all__ = ["KERNELS", "BenchReport", "run_bench", "parse_graph_spec", "make_graph"]
