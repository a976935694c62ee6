"""Moving the vertex engine's (receiver, value) pairs to the receivers' ranks.

``aggregation="direct"``: one ``Alltoallv`` over all ranks. ``aggregation="node"`` (the
seed's node agents): ranks of a node hand their pairs to the leader (``Gatherv`` on the
node's shared-memory communicator), the leader combines again per receiver, leaders
exchange one bundle per destination node (``Alltoallv`` among leaders) and scatter it to
their ranks (``Scatterv``).
"""

from __future__ import annotations

import time

import numpy as np

from hpgraph.runtimes.mpi.buffers import alltoallv, displs, moved, rows_like

__all__ = ["exchange_pairs"]


def exchange_pairs(rt, rank_offsets, ids, vals, counts, combine):
    """Move (receiver, value) pairs, grouped by receiving rank (``counts`` per rank), to
    the receivers' ranks (``rank_offsets``: the ranks' vertex ranges) on the MPI runtime
    ``rt``; returns the pairs received, the seconds waited for other ranks, and (values,
    bytes) moved between processes (direct) or nodes (node aggregation). ``combine``
    (node aggregation only) merges runs of equal receivers, returning the runs' count."""
    if rt.topology is None:
        (got_ids, got_vals), waited = alltoallv(rt.comm, rt.rowtypes, (ids, vals), counts)
        sent = int(counts.sum() - counts[rt.rank])
        return got_ids, got_vals, waited, moved(sent, ids, vals)
    return _through_leaders(rt, rank_offsets, ids, vals, counts, combine)


def _through_leaders(rt, rank_offsets, ids, vals, counts, combine):
    """Node aggregation: gather to the leader, combine, one bundle per node among
    leaders, scatter to the node's ranks."""
    topo = rt.topology
    node, lead = topo.node, topo.is_leader
    t0 = time.perf_counter()
    # 1. hand the pairs to the leader (sizes first: also the node's sync point)
    k = int(counts.sum())
    sizes = node.gather(k, root=0)
    waited = time.perf_counter() - t0
    gathered = [None, None]
    if lead:
        sizes = np.array(sizes, dtype=np.int64)
        gathered = [rows_like(a, int(sizes.sum())) for a in (ids, vals)]
    for a, out in zip((ids, vals), gathered, strict=True):
        t = rt.rowtypes(a)
        node.Gatherv([a, k, t], [out, (sizes, displs(sizes)), t] if lead else None, root=0)
    traffic = (0, 0)
    if lead:
        all_ids, all_vals = gathered
        # 2. combine again per receiver: sort by receiver, then merge runs
        order = np.argsort(all_ids, kind="stable")
        all_ids, all_vals = all_ids[order], all_vals[order]
        if combine is not None:
            m = combine(all_ids, all_vals)
            all_ids, all_vals = all_ids[:m], all_vals[:m]
        # 3. one bundle per destination node (ranks of a node in ascending order)
        rank_bounds = np.searchsorted(all_ids, rank_offsets)
        nodes = topo.node_of_rank
        order_ranks = np.argsort(nodes, kind="stable")
        pieces = [slice(rank_bounds[r], rank_bounds[r + 1]) for r in order_ranks]
        if not np.all(order_ranks == np.arange(rt.size)):
            all_ids = np.concatenate([all_ids[s] for s in pieces])
            all_vals = np.concatenate([all_vals[s] for s in pieces])
        node_counts = np.bincount(
            nodes, weights=np.diff(rank_bounds), minlength=topo.num_nodes
        ).astype(np.int64)
        me = topo.leaders.Get_rank()
        traffic = moved(int(node_counts.sum() - node_counts[me]), ids, vals)
        (in_ids, in_vals), w = alltoallv(
            topo.leaders, rt.rowtypes, (all_ids, all_vals), node_counts
        )
        waited += w
        # 4. split what arrived by receiving rank (sorted: grouped by rank)
        order = np.argsort(in_ids, kind="stable")
        in_ids, in_vals = in_ids[order], in_vals[order]
        b = np.searchsorted(in_ids, rank_offsets)
        out_counts = np.array([b[r + 1] - b[r] for r in topo.members], dtype=np.int64)
    else:
        in_ids = in_vals = out_counts = None
    mine = int(node.scatter(out_counts, root=0))
    got = []
    for a, arrived in ((ids, in_ids), (vals, in_vals)):
        out = rows_like(a, mine)
        t = rt.rowtypes(a)
        send = [arrived, (out_counts, displs(out_counts)), t] if lead else None
        node.Scatterv(send, [out, mine, t], root=0)
        got.append(out)
    return got[0], got[1], waited, traffic
