"""Run under ``mpiexec -n P``: the peer-level BSP API with one peer per rank. A token
travels around the ring for 5 supersteps; with ``fail`` as argument, peer 1 raises in
superstep 2 and the job must end (non-zero exit) with the reason, not hang. With ``node``,
payloads also go through node leaders: every peer sends (q mod 3) arrays to each peer q
per superstep, and what each receives (senders, order, contents) must equal the direct
exchange's and the hand-computed expectation."""

from __future__ import annotations

import sys

import numpy as np

from hpgraph.engine import run_bsp
from hpgraph.runtimes.mpi import MPIRuntime


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


def fan_out(peer, rounds):
    seen = []
    for step in range(rounds):
        for q in range(peer.num_peers):
            for j in range(q % 3):
                peer.send(q, np.array([peer.pid, step, j]))
        peer.sync()
        seen.append([(src, m.tolist()) for src, m in peer.messages()])
    return seen


if "node" in sys.argv[1:]:
    rt = MPIRuntime(aggregation="node")
    res = run_bsp(fan_out, args=(3,), runtime=rt)
    direct = run_bsp(fan_out, args=(3,), runtime=MPIRuntime(aggregation="direct"))
    assert res.results == direct.results
    for pid, seen in enumerate(res.results):
        for step, got in enumerate(seen):
            want = [(s, [s, step, j]) for s in range(len(res.results)) for j in range(pid % 3)]
            assert got == want, (pid, step, got)
    rt.close()
res = run_bsp(ring, args=(5, "fail" in sys.argv[1:]), runtime="mpi")
n = len(res.results)
assert res.results == [(p - 5) % n for p in range(n)], res.results
assert len(res.stats.supersteps) == 5
assert res.stats.supersteps[0].messages == n
assert res.stats.supersteps[0].bytes_local + res.stats.supersteps[0].bytes_remote == 8 * n
print("BSP OK", flush=True)
