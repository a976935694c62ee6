"""``hpgraph communities``: the seed paper's application, mention data to a report folder
(:mod:`hpgraph.apps.communities`)."""

from __future__ import annotations

import sys

import click

from hpgraph.cli._common import console, count_option, fmt_count, kv_lines, threads_option
from hpgraph.config import BMLPA_SYNC_TOLERANCE, BMLPA_TOLERANCE

__all__ = ["communities"]


@click.command(short_help="Mention data -> communities, leaders, layout, pictures.")
@click.argument("mentions")
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(file_okay=False),
    help="The report folder to create (must not exist, unless --force).",
)
@click.option(
    "--b",
    "-b",
    "b",
    type=float,
    default=0.1,
    show_default=True,
    help="BMLPA's belonging threshold, in (0, 1]: a label stays at a user when its score is "
    "at least b times the best one.",
)
@click.option("--leaders", "-k", type=int, default=5, show_default=True,
              help="Leaders (top betweenness) per community.")  # fmt: skip
@click.option("--min-size", type=int, default=10, show_default=True,
              help="Smallest community that gets leaders.")  # fmt: skip
@click.option("--dim", type=click.Choice(["2", "3"]), default="2", show_default=True,
              help="Layout dimensions (3: a rotating view on the page).")  # fmt: skip
@click.option("--tolerance", type=float, default=None,
              help="BMLPA stops once fewer than this share of users change labels in a "
              "sweep (the seed's rule). [default: "
              f"{BMLPA_TOLERANCE}; {BMLPA_SYNC_TOLERANCE} with --update sync]")  # fmt: skip
@click.option("--update", type=click.Choice(["semi-sync", "sync"]), default="semi-sync",
              show_default=True,
              help="BMLPA's schedule: colour classes in turn (semi-sync) or every user "
              "from the last superstep (sync, the paper's).")  # fmt: skip
@click.option("--max-labels", type=int, default=None,
              help="Labels kept per user. [default: ceil(1/b)]")  # fmt: skip
@click.option("--page-budget", type=int, default=200_000, show_default=True,
              help="Users drawn on the interactive page besides the leaders.")  # fmt: skip
@count_option("--seed", default=0, minimum=0,
              help="Seed of a generated input, the leaders' sampling and the layout.")  # fmt: skip
@threads_option
@click.option(
    "--ranks",
    type=click.IntRange(min=1),
    help="Run on the MPI runtime with this many ranks (started with mpiexec): each rank "
    "reads a share of MENTIONS and keeps its own users through BMLPA; the later stages "
    "run on rank 0.",
)
@click.option("--runtime", "runtime_name", type=click.Choice(["local", "mpi"]),
              help="local: one process; mpi: the ranks of mpiexec (what --ranks starts). "
              "[default: mpi when started by an MPI launcher, else local]")  # fmt: skip
@click.option("--force", is_flag=True, help="Replace OUTPUT if it exists (only on success).")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="A line per stage and per superstep on stderr.")  # fmt: skip
def communities(
    mentions, output, b, leaders, min_size, dim, tolerance, update, max_labels, page_budget,
    seed, threads, ranks, runtime_name, force, progress,
):  # fmt: skip
    """Find communities in MENTIONS, their leaders, a layout and pictures; write them to
    the folder OUTPUT.

    MENTIONS is a text file (one mention per line: `source target [hashtags]`, hashtags
    comma-separated), a Parquet file (columns source, target[, hashtags]), or a generated
    data set mention:USERS:MENTIONS[:HASHTAGS] (e.g. mention:300k:400k).

    \b
    OUTPUT gets:
      cover.csv        vertex,community,belonging (one row per membership)
      communities.csv  community,size,label,kind,leader
      leaders.csv      community,rank,vertex,betweenness
      layout.parquet   vertex,x,y[,z],community (the strongest one)
      communities.png  the picture; index.html: the interactive page (open it in a browser)
      summary.json     parameters, counts, time and peak memory of every stage

    \b
    Examples:
      hpgraph generate mention -n 300k -m 400k -o mentions.parquet
      hpgraph communities mentions.parquet -o report
      hpgraph communities mention:300k:400k -o report --dim 3 --force
    """
    from hpgraph.apps.communities import run_communities

    if ranks is not None:
        from hpgraph.launcher import relaunch

        sys.exit(relaunch(ranks, sys.argv[1:]))
    if runtime_name is None:  # under mpiexec: one job on its ranks, not one per rank
        from hpgraph.launcher import launched_by_mpi

        runtime_name = "mpi" if launched_by_mpi() else "local"
    runtime = None
    if runtime_name == "mpi":
        from hpgraph.runtimes import resolve_runtime

        runtime = resolve_runtime("mpi", threads)[0]  # Slurm's -c, else one thread per rank
    report = run_communities(
        mentions, output, b=b, leaders=leaders, min_size=min_size, dim=int(dim),
        max_labels=max_labels, tolerance=tolerance, update=update, page_budget=page_budget,
        seed=seed,
        threads=threads, runtime=runtime, force=force, progress=progress,
    )  # fmt: skip
    if report.out is None:  # not rank 0
        return
    s = report.summary
    out = console()
    c = s["communities"]
    out.print(
        kv_lines(
            [
                ("users", fmt_count(s["input"]["users"])),
                (
                    "mentions",
                    f"{fmt_count(s['input']['mentions'])} "
                    f"({s['input']['tagged_mentions_share']:.0%} with hashtags)",
                ),
                (
                    "communities",
                    f"{fmt_count(c['count'])} ({fmt_count(c['named_by_hashtag'])} "
                    f"named by a hashtag, {fmt_count(c['with_leaders'])} with leaders)",
                ),
                ("overlapping", f"{fmt_count(c['overlapping_users'])} users in 2+ communities"),
                (
                    "sweeps" if c["update"] == "semi-sync" else "supersteps",
                    f"{c['iterations']} ("
                    + (f"{c['colours']} colour classes; " if c["colours"] else "")
                    + f"stopped by the {c['stopped_by']} rule)",
                ),
                (
                    "time",
                    "  ".join(f"{k} {v['seconds']:.1f} s" for k, v in s["stages"].items())
                    + f"  (total {s['total_seconds']:.1f} s)",
                ),
                ("peak memory", f"{max(v['peak_rss_mib'] for v in s['stages'].values()):,} MiB"),
            ]
        )  # fmt: skip
    )
    out.print("largest communities")
    rows = [(str(r["community"]), fmt_count(r["size"]), str(r["leader"] or "-"))
            for r in c["largest"][:8]]  # fmt: skip
    w = max([len("community")] + [len(r[0]) for r in rows])
    out.print(f"  {'community':<{w}}  {'members':>10}  leader")
    for name, size, leader in rows:
        out.print(f"  {name:<{w}}  {size:>10}  {leader}")
    out.print(f"report in {report.out}/: open {report.out}/index.html in a browser; "
              f"{report.out}/communities.png; tables cover.csv, leaders.csv, "
              "communities.csv, layout.parquet; summary.json")  # fmt: skip
