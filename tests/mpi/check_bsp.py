"""Run under ``mpiexec -n P``: the peer-level BSP API with one peer per rank. A token
travels around the ring for 5 supersteps; with ``fail`` as argument, peer 1 raises in
superstep 2 and the job must end (non-zero exit) with the reason, not hang."""

from __future__ import annotations

import sys

import numpy as np

from hpgraph.engine import run_bsp


def ring(peer, rounds, fail):
    token = np.array([peer.pid], dtype=np.int64)
    for step in range(rounds):
        if fail and peer.pid == 1 and step == 2:
            raise ValueError("peer one gives up")
        peer.send((peer.pid + 1) % peer.num_peers, token)
        peer.sync()
        ((src, token),) = peer.messages()
        assert src == (peer.pid - 1) % peer.num_peers
    return int(token[0])


res = run_bsp(ring, args=(5, "fail" in sys.argv[1:]), runtime="mpi")
n = len(res.results)
assert res.results == [(p - 5) % n for p in range(n)], res.results
assert len(res.stats.supersteps) == 5
assert res.stats.supersteps[0].messages == n
assert res.stats.supersteps[0].bytes_local + res.stats.supersteps[0].bytes_remote == 8 * n
print("BSP OK", flush=True)
