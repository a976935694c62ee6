"""Run under ``mpiexec -n P`` (P >= 2) with a path to write to: with ``rows="own"`` each
rank runs PageRank, BFS and WCC on a memory-mapped ``.hpgc`` graph touching only its own
rows of the edge arrays. What a rank touched is read from the kernel (``Rss`` of the
mapping in /proc/self/smaps: pages this process faulted in, whatever the page cache
holds); results must equal the local runtime's, computed afterwards."""

from __future__ import annotations

import os
import sys

import numpy as np

import hpgraph as hp
from hpgraph.generators import kronecker
from hpgraph.io import load_binary, save_binary
from hpgraph.runtimes.mpi import MPIRuntime

rt = MPIRuntime(rows="own")
path = os.path.abspath(sys.argv[1])
if rt.is_root:
    save_binary(kronecker(17, seed=3), path)  # 16 MiB of edges
rt.comm.Barrier()


def mapped_rss_kib(p):
    """Resident KiB of this process's mappings of file ``p``."""
    total, inside = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and len(head) >= 5:  # a mapping's first line
                inside = head[-1] == p
            elif inside and head[0] == "Rss:":
                total += int(head[1])
    return total


g = load_binary(path)  # mmap: nothing touched yet but the header
s = int(np.argmax(g.out_degree()))  # reads indptr only
got = {
    "pagerank": hp.pagerank(g, runtime=rt)["rank"],
    "bfs": hp.bfs(g, s, runtime=rt)["depth"],
    "wcc": hp.wcc(g, runtime=rt)["component"],
}
rss = mapped_rss_kib(path) * 1024
lo, hi = (int(x) for x in rt.partition(g).offsets[rt.rank : rt.rank + 2])
own = int(g.indptr[hi] - g.indptr[lo]) * g.indices.itemsize
size = os.path.getsize(path)
# own rows + indptr + header; the kernel maps whole folios (up to 2 MiB where the page
# cache holds huge ones) around the pages faulted in: allow two at each end
limit = own + g.indptr.nbytes + 4 * 1024 * 1024
assert rss <= limit and rss < 0.8 * size, (rt.rank, rss, own, size)
print(f"rank {rt.rank}: touched {rss >> 10} KiB of {size >> 10} KiB (own rows {own >> 10} KiB)")

np.testing.assert_allclose(got["pagerank"], hp.pagerank(g, threads=1)["rank"], rtol=1e-9)
np.testing.assert_array_equal(got["bfs"], hp.bfs(g, s, threads=1)["depth"])
np.testing.assert_array_equal(got["wcc"], hp.wcc(g, threads=1)["component"])
print(f"rank {rt.rank}: OWN ROWS OK", flush=True)
