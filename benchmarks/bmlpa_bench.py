"""BMLPA benchmark: (a) the seed paper's workload, a mention-like graph (default 8M
vertices, 10M edges) for b in {0.05, 0.10, 0.20, 0.40}, timed against NetworKit's
parallel label propagation (PLP, non-overlapping) on the same graph in the same run,
from graph in memory to cover; initial labels from rough cores (the paper) or from the
hashtags of generated mention data (the seed, ``--initial hashtags``); stop by the seed's
update-rate rule (default) or the paper's counts rule (``--stop counts``);
(b) NMI against planted communities on seeded LFR graphs for mu = 0.1 .. 0.5, for both
stop rules.

    .venv/bin/python benchmarks/bmlpa_bench.py                      # full size
    .venv/bin/python benchmarks/bmlpa_bench.py --n 1000000 --m 1250000 --initial hashtags

Peak RSS is the process's (``resource.getrusage``), so it is the largest of the runs so
far; each b is run in a fresh child process to give its own figure.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import resource
import time

import numpy as np


def _nk_graph(g):
    """A NetworKit graph of ``g``'s undirected view (each edge once)."""
    import networkit as nk

    src, dst, _ = g.symmetrized().edges()
    keep = src < dst
    a = np.ascontiguousarray(src[keep], dtype=np.uint64)
    b = np.ascontiguousarray(dst[keep], dtype=np.uint64)
    return nk.GraphFromCoo((np.ones(a.size), (a, b)), n=g.n, weighted=False)


def _rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _input(args):
    """(graph, initial labels, planted topics or None) of the benchmark's mention graph."""
    from hpgraph.generators.mention import mention_data, mention_graph

    if args.initial == "hashtags":
        mentions, planted = mention_data(args.n, args.m, seed=args.seed)
        return mentions.graph, mentions.initial_labels(), planted
    return mention_graph(args.n, args.m, seed=args.seed), "rough-cores", None


def _topic_nmi(cover, planted):
    """Overlapping NMI (LFK) of a cover, or a partition, against the planted topics, on the
    users of the Zipf core (where topics shape who mentions whom)."""
    from hpgraph.algorithms.community_quality import overlapping_nmi

    n = planted.core.shape[0]
    pv = np.repeat(np.arange(n), np.diff(planted.user_ptr))
    keep = planted.core[pv]
    if isinstance(cover, np.ndarray):  # a partition
        v = np.flatnonzero(planted.core)
        return overlapping_nmi((v, cover[v]), (pv[keep], planted.user_topics[keep]), n)
    v = np.repeat(np.arange(n), np.diff(cover.ptr))
    core = planted.core[v]
    return overlapping_nmi(
        (v[core], cover.community_of[core]), (pv[keep], planted.user_topics[keep]), n
    )


def _one_b(args, b, queue):
    from hpgraph.algorithms.bmlpa import bmlpa
    from hpgraph.generators.mention import mention_graph

    g, initial, planted = _input(args)
    base = _rss_mib()
    cap = args.max_labels or math.ceil(1 / b)  # labels kept per vertex
    bmlpa(mention_graph(2000, 2500, seed=1), b=b, max_labels=cap)  # warm-up
    stop = {"stop": args.stop, "tolerance": args.tolerance, "update": args.update}
    t0 = time.perf_counter()
    r = bmlpa(
        g, b=b, initial=initial, max_labels=cap,
        max_iterations=args.max_iterations, threads=args.threads, **stop,
    )  # fmt: skip
    total = time.perf_counter() - t0
    steps = r.stats.supersteps
    queue.put(
        {
            "b": b,
            "max_labels": cap,
            "total_s": total,
            "init_s": r.meta["init_s"],
            "post_s": r.meta["postprocess_s"],
            "iterations": r.meta["iterations"],
            "converged": r.meta["converged"],
            "stopped_by": r.meta["stopped_by"],
            "update_rate": r.meta["update_rate"],
            "steps_s": float(np.sum([s.total_s for s in steps])),
            "first_step_s": float(steps[0].total_s),
            "step_mean_s": float(np.mean([s.total_s for s in steps])),
            "step_max_s": float(np.max([s.total_s for s in steps])),
            "bytes_per_step": float(np.mean([s.bytes_local + s.bytes_remote for s in steps])),
            "communities": r.num_communities,
            "overlapping": r.meta["overlapping_vertices"],
            "topic_nmi": None if planted is None else _topic_nmi(r, planted),
            "update": args.update,
            "colours": r.meta["colours"],
            "entries": int(r.ptr[-1]),
            "graph_rss_mib": base,
            "peak_rss_mib": _rss_mib(),
        }
    )


def mention_part(args):
    import networkit as nk

    t0 = time.perf_counter()
    g, _, planted = _input(args)
    gen_s = time.perf_counter() - t0
    s = g.symmetrized()
    deg = s.out_degree()
    print(f"mention graph n={g.n:,} m={g.num_edges:,} generated in {gen_s:.1f} s; "
          f"max degree {deg.max():,}, degree-1 share {(deg == 1).mean():.2f}")  # fmt: skip
    # competitor: NetworKit PLP on the same undirected graph, same thread count
    nk.setNumberOfThreads(args.threads)
    G = _nk_graph(g)
    t0 = time.perf_counter()
    plp = nk.community.PLP(G)
    plp.run()
    plp_s = time.perf_counter() - t0
    part = np.asarray(plp.getPartition().getVector(), dtype=np.int64)
    nmi = "" if planted is None else f", NMI vs planted topics {_topic_nmi(part, planted):.3f}"
    print(f"competitor NetworKit PLP: {plp_s:.2f} s, {np.unique(part).size:,} "
          f"communities, {plp.numberOfIterations()} iterations{nmi}")  # fmt: skip
    del G, s, g
    rows = []
    ctx = mp.get_context("fork")
    for b in args.b:
        q = ctx.Queue()
        p = ctx.Process(target=_one_b, args=(args, b, q))
        p.start()
        row = q.get()
        p.join()
        row["vs_plp"] = row["total_s"] / plp_s
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(
        f"\ninitial labels: {args.initial}; update: {args.update}; stop: {args.stop}"
        f"{'' if args.stop == 'counts' else f' (tolerance {args.tolerance or _default_tol(args)})'}"
    )
    print(
        "| b | max_labels | total s | x PLP | sweeps or supersteps (stopped by) | init s "
        "| superstep s mean (max) | post s | MB sent/sweep | peak RSS MiB | communities "
        "| overlapping vertices | NMI vs topics |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    if args.plot_rates:
        _plot_rates(rows, args.tolerance or _default_tol(args), args, args.plot_rates)
    for r in rows:
        per = max(r["colours"] or 1, 1)
        nmi = "" if r["topic_nmi"] is None else f"{r['topic_nmi']:.3f}"
        print(f"| {r['b']:.2f} | {r['max_labels']} | {r['total_s']:.1f} | {r['vs_plp']:.1f} | "
              f"{r['iterations']} ({r['stopped_by']}) | {r['init_s']:.1f} | "
              f"{r['step_mean_s']:.3f} ({r['step_max_s']:.2f}) | "
              f"{r['post_s']:.1f} | {per * r['bytes_per_step'] / 1e6:.0f} | "
              f"{r['peak_rss_mib']:.0f} | {r['communities']:,} | "
              f"{r['overlapping']:,} | {nmi} |")  # fmt: skip


def _plot_rates(rows, tolerance, args, path):
    """The stop rule at work: each b's update rate (the share of vertices whose labels
    changed) per sweep, log scale, with the tolerance it stops below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for r in rows:
        rate = r["update_rate"]
        ax.plot(range(1, len(rate) + 1), rate, marker="o", ms=3,
                label=f"b = {r['b']:g}: {len(rate)} sweeps, {r['total_s']:.0f} s")  # fmt: skip
    if args.stop == "rate":
        ax.axhline(tolerance, color="grey", ls="--", lw=1, label=f"tolerance {tolerance:g}")
    ax.set_yscale("log")
    ax.set_xlabel("sweep" if args.update == "semi-sync" else "superstep")
    ax.set_ylabel("update rate (share of vertices relabelled)")
    ax.set_title(f"BMLPA on the mention graph ({args.n:,} users, {args.m:,} mentions, "
                 f"{args.threads} threads)", fontsize=10)  # fmt: skip
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")


def _default_tol(args):
    from hpgraph.config import BMLPA_SYNC_TOLERANCE, BMLPA_TOLERANCE

    return BMLPA_TOLERANCE if args.update == "semi-sync" else BMLPA_SYNC_TOLERANCE


def lfr_part(args):
    import networkit as nk

    from hpgraph.algorithms.bmlpa import bmlpa
    from hpgraph.algorithms.community_quality import overlapping_nmi
    from hpgraph.generators.mention import lfr_graph

    print(f"\nLFR n={args.lfr_n:,}, average degree 20, max degree 50, communities 20..100, "
          f"seed {args.seed}; BMLPA b={args.lfr_b}")  # fmt: skip
    print("| mu | update | stop | sweeps or supersteps | NMI LFK | NMI max "
          "| communities (planted) | s | PLP NMI LFK |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for mu in args.mu:
        g, planted = lfr_graph(args.lfr_n, mu, seed=args.seed)
        plp = nk.community.PLP(_nk_graph(g))
        plp.run()
        plp_nmi = overlapping_nmi(np.asarray(plp.getPartition().getVector(), np.int64), planted)
        for update, stop in (("semi-sync", "rate"), ("sync", "rate"), ("sync", "counts")):
            t0 = time.perf_counter()
            r = bmlpa(g, b=args.lfr_b, threads=args.threads, stop=stop, update=update,
                      tolerance=args.tolerance if stop == "rate" else None)  # fmt: skip
            t = time.perf_counter() - t0
            print(f"| {mu:.1f} | {update} | {stop} | {r.meta['iterations']} | "
                  f"{overlapping_nmi(r, planted):.3f} | "
                  f"{overlapping_nmi(r, planted, variant='max'):.3f} | {r.num_communities} "
                  f"({np.unique(planted).size}) | {t:.2f} | {plp_nmi:.3f} |",
                  flush=True)  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8_000_000)
    ap.add_argument("--m", type=int, default=10_000_000)
    ap.add_argument("--b", type=float, nargs="+", default=[0.05, 0.10, 0.20, 0.40])
    # the paper's stop rule needs a few hundred supersteps on the mention graph
    ap.add_argument("--max-iterations", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--max-labels", type=int, default=None, help="labels kept per vertex (default ceil(1/b))"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lfr-n", type=int, default=10_000)
    ap.add_argument("--lfr-b", type=float, default=0.3)
    ap.add_argument("--mu", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.4, 0.5])
    ap.add_argument("--initial", choices=["rough-cores", "hashtags"], default="rough-cores")
    ap.add_argument("--stop", choices=["rate", "counts"], default="rate")
    ap.add_argument("--update", choices=["semi-sync", "sync"], default="semi-sync")
    ap.add_argument("--tolerance", type=float, default=None)
    ap.add_argument("--skip-mention", action="store_true")
    ap.add_argument("--skip-lfr", action="store_true")
    ap.add_argument(
        "--plot-rates", metavar="PNG", help="draw each b's update rate per sweep in PNG"
    )
    args = ap.parse_args()
    if not args.skip_mention:
        mention_part(args)
    if not args.skip_lfr:
        lfr_part(args)


if __name__ == "__main__":
    main()
