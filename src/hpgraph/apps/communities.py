"""The seed paper's application, end to end: mention data -> communities -> leaders ->
layout -> pictures.

Given mention data (who mentioned whom, with the tweets' hashtags: :mod:`hpgraph.io.mentions`
or a generator spec ``mention:N:M[:HASHTAGS]``), writes a report folder:

1. **communities**: BMLPA (:mod:`hpgraph.algorithms.bmlpa`) on the users' undirected simple
   view, the hashtags of the mentions a user sent seeding its initial labels (the seed's
   rule, weighted by use), stopped by the seed's update-rate rule; ``max_labels`` defaults
   to ``ceil(1 / b)`` (exact BMLPA is quadratic on stars, see the BMLPA docs);
2. **leaders**: betweenness inside every community of at least ``min_size`` members,
   its top ``leaders`` users (:mod:`hpgraph.algorithms.leaders`);
3. **layout**: the multilevel layout by communities, leaders at their community's
   centre (:mod:`hpgraph.algorithms.community_layout`);
4. **pictures**: ``communities.png`` (rasterised) and ``index.html`` (one self-contained
   interactive page) (:mod:`hpgraph.viz`);
5. the tables: ``cover.csv`` (``vertex,community,belonging``: one row per membership,
   belongings written with six decimals that sum to exactly 1 per vertex),
   ``leaders.csv`` (``community,rank,vertex,betweenness``), ``communities.csv``
   (``community,size,label,kind,leader``), ``layout.parquet`` (``vertex,x,y[,z],community``)
   and ``summary.json`` (parameters, counts, and the time and peak memory of each stage).

A community is named by its label: ``#hashtag`` for a hashtag, else the id of the user
whose own label it was; a label split into several connected pieces names them
``#ai``, ``#ai/2``, ``#ai/3``... in community order.

Everything is written into a temporary folder beside ``out`` and renamed at the end, so a
failure leaves no folder behind and ``force`` replaces an existing one only on success.
With an MPI runtime every rank reads a share of the data and keeps only its own users
(:mod:`hpgraph.runtimes.mpi.mentions`: their rows, ids and hashtags), BMLPA runs on the
partitioned ranks, and the user graph is then gathered on rank 0, which runs the later
stages (threads on its node) and writes the report.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hpgraph._procfs import kib_field
from hpgraph.errors import HPGraphError, InvalidArgumentError
from hpgraph.progress import Progress

__all__ = [
    "run_communities",
    "CommunitiesReport",
    "load_mentions",
    "community_names",
    "belonging_text",
]


@dataclass
class CommunitiesReport:
    """What :func:`run_communities` did: the folder, the summary written as
    ``summary.json``, and the stage results (``mentions``, ``cover``, ``leaders``,
    ``layout``) for callers that go on in Python (``None`` on ranks other than 0)."""

    out: Path | None
    summary: dict
    results: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------ memory
def _reset_peak() -> bool:
    """Reset the process's peak RSS (Linux: ``/proc/self/clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_bytes() -> int:
    """Peak RSS since the last reset (Linux ``VmHWM``), else since the start."""
    found = kib_field("/proc/self/status", "VmHWM")
    if found is not None:
        return found
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Stages:
    """Times each stage and its peak memory; one progress reporter per stage."""

    def __init__(self, progress: bool, stream=None):
        self.clock = time.perf_counter()
        self.progress = progress
        self.stream = stream
        self.rows: dict[str, dict] = {}

    def reporter(self, name) -> Progress | None:
        if not self.progress:
            return None
        return Progress(name, stream=self.stream, clock=self.clock)

    @contextmanager
    def stage(self, name):
        _reset_peak()
        t0 = time.perf_counter()
        p = self.reporter(name)
        info: dict = {}
        try:
            yield p, info
        finally:
            if p is not None:
                p.close()
        seconds = time.perf_counter() - t0
        what = info.pop("_line", "")
        self.rows[name] = {"seconds": round(seconds, 3), "peak_rss_mib": _peak_bytes() >> 20}
        self.rows[name].update(info)
        if p is not None:
            p.line(f"done in {seconds:.1f} s{'; ' + what if what else ''}")


# ------------------------------------------------------------------------------ input
def _parse_count(text: str, what: str) -> int:
    from hpgraph.bench import parse_graph_spec

    try:
        return parse_graph_spec(f"uniform:{text}:0")["n"]
    except HPGraphError:
        raise InvalidArgumentError(
            f"{what}: expected a count such as 300k or 8M, got {text!r}"
        ) from None


def _generated(source) -> bool:
    """Whether ``source`` names generated data (``mention:N:M[:HASHTAGS]``), not a file."""
    text = str(source)
    return text.startswith("mention:") and not Path(text).exists()


def load_mentions(source, *, seed=0, progress=None):
    """Mentions from a file, or generated from ``mention:N:M[:HASHTAGS]``."""
    text = str(source)
    if _generated(source):
        parts = text.split(":")[1:]
        if len(parts) not in (2, 3):
            raise InvalidArgumentError(
                f"a generated input is mention:USERS:MENTIONS[:HASHTAGS], got {text!r}"
            )
        from hpgraph.generators.mention import mention_data

        n = _parse_count(parts[0], "users")
        m = _parse_count(parts[1], "mentions")
        kw = {"hashtags": _parse_count(parts[2], "hashtags")} if len(parts) == 3 else {}
        return mention_data(n, m, seed=seed, **kw)[0]
    from hpgraph.io.mentions import read_mentions

    return read_mentions(source, progress=progress)


# ------------------------------------------------------------------------------ naming
def community_names(cover) -> np.ndarray:
    """One unique name per community of a BMLPA cover: ``#tag`` for a hashtag label, the
    user's id for a user's own label; later pieces of a split label get ``/2``, ``/3``."""
    k = cover.num_communities
    pairs = zip(cover.label.tolist(), cover.named.tolist(), strict=True)
    base = np.array([f"#{lab}" if named else str(lab) for lab, named in pairs], dtype=object)
    if k == 0:
        return base
    order = np.lexsort((np.arange(k), base.astype(str)))
    sorted_names = base[order]
    first = np.ones(k, dtype=bool)
    first[1:] = sorted_names[1:] != sorted_names[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(k), 0))
    piece = np.empty(k, dtype=np.int64)
    piece[order] = np.arange(k) - start + 1
    out = base.copy()
    again = np.flatnonzero(piece > 1)
    for c in again.tolist():
        out[c] = f"{base[c]}/{piece[c]}"
    return out


def belonging_text(ptr, coef, places=6):
    """Belongings as decimal strings with ``places`` decimals that sum to exactly 1 per
    vertex (the largest belonging of a vertex takes the rounding remainder), trailing
    zeros dropped: ``0.5``, ``0.333333``, ``1`` (:mod:`hpgraph.io.decimals`); and each
    entry's vertex."""
    from hpgraph.io.decimals import share_text

    owner = np.repeat(np.arange(ptr.shape[0] - 1), np.diff(ptr))
    return share_text(ptr, coef, places), owner


# ------------------------------------------------------------------------------ writing
def _write_tables(tmp: Path, mentions, cover, names, lead, layout_res, dim):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from hpgraph.io.results import write_csv_table

    ids = mentions.graph.user_ids()
    id_arr = pa.array(ids.tolist() if ids.dtype == object else ids)
    text, owner = belonging_text(cover.ptr, cover.coefficient)
    name_dict = pa.array(names.tolist(), type=pa.string())
    cover_tab = pa.table(
        {
            "vertex": id_arr.take(pa.array(owner)),
            "community": name_dict.take(pa.array(cover.community_of)),
            "belonging": text,
        }
    )
    write_csv_table(cover_tab, tmp / "cover.csv")
    k = cover.num_communities
    first_leader = np.full(k, -1, dtype=np.int64)
    if lead is not None and lead.community.size:
        top = lead.rank == 1
        first_leader[lead.community[top]] = lead.vertex[top]
    has = first_leader >= 0
    leader_ids = pa.array(
        [str(x) for x in ids[np.where(has, first_leader, 0)].tolist()], type=pa.string()
    )
    leader_col = pa.compute.if_else(pa.array(has), leader_ids, pa.scalar(""))
    comm_tab = pa.table(
        {
            "community": name_dict,
            "size": pa.array(cover.sizes.astype(np.int64)),
            "label": pa.array([str(x) for x in cover.label.tolist()], type=pa.string()),
            "kind": pa.array(np.where(cover.named, "hashtag", "user").tolist()),
            "leader": leader_col,
        }
    )
    write_csv_table(comm_tab, tmp / "communities.csv")
    if lead is not None:
        lead_tab = pa.table(
            {
                "community": name_dict.take(pa.array(lead.community)),
                "rank": pa.array(lead.rank.astype(np.int64)),
                "vertex": id_arr.take(pa.array(lead.vertex)),
                "betweenness": pa.array(lead.betweenness.astype(np.float64)),
            }
        )
    else:
        lead_tab = pa.table(
            {
                "community": pa.array([], pa.string()),
                "rank": pa.array([], pa.int64()),
                "vertex": id_arr[:0],
                "betweenness": pa.array([], pa.float64()),
            }
        )
    write_csv_table(lead_tab, tmp / "leaders.csv")
    cols = {"vertex": id_arr}
    for a in "xyz"[:dim]:
        cols[a] = pa.array(layout_res[a])
    cols["community"] = pa.DictionaryArray.from_arrays(
        pa.array(cover.columns["community"].astype(np.int32)), name_dict
    )
    pq.write_table(pa.table(cols), tmp / "layout.parquet")


# ------------------------------------------------------------------------------ checks
def _check(b, leaders, min_size, dim, max_labels, threads):
    if isinstance(b, bool) or not isinstance(b, int | float) or not 0.0 < float(b) <= 1.0:
        raise InvalidArgumentError(f"b (belonging threshold) must be in (0, 1], got {b!r}")
    for name, v, lo in (("leaders", leaders, 1), ("min_size", min_size, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InvalidArgumentError(f"{name} must be an integer >= {lo}, got {v!r}")
    if dim not in (2, 3):
        raise InvalidArgumentError(f"dim must be 2 or 3, got {dim!r}")
    if max_labels is not None and (
        isinstance(max_labels, bool) or not isinstance(max_labels, int) or max_labels < 1
    ):
        raise InvalidArgumentError(f"max_labels must be an integer >= 1, got {max_labels!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):  # fmt: skip
        raise InvalidArgumentError(f"threads must be a positive integer, got {threads!r}")


def _prepare_out(out: Path, force: bool) -> Path:
    """The temporary folder beside ``out`` (checked before any work is done)."""
    if out.exists() and not force:
        raise InvalidArgumentError(f"{out} exists; choose another folder or pass --force")
    if out.exists() and not out.is_dir():
        raise InvalidArgumentError(f"{out} exists and is not a folder")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidArgumentError(f"cannot write {out}: no folder {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidArgumentError(f"cannot write {out}: folder {parent} is not writable")
    tmp = parent / f".{out.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    return tmp


def _commit(tmp: Path, out: Path) -> None:
    """Move the finished report into place (replacing an old one only now)."""
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        out.rename(old)
    tmp.rename(out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _read_part(source, runtime, seed):
    """This rank's :class:`~hpgraph.runtimes.mpi.mentions.MentionPart` of the mentions: a
    file read in parallel (each rank a share); generated data or :class:`Mentions` given
    whole are made or held by every rank, then cut."""
    from hpgraph.io.mentions import Mentions
    from hpgraph.runtimes.mpi.mentions import mentions_part, read_mentions_part

    if isinstance(source, Mentions) or _generated(source):
        whole = source if isinstance(source, Mentions) else load_mentions(source, seed=seed)
        return mentions_part(whole, runtime.comm)
    return read_mentions_part(source, runtime.comm)


def _ranks_held(comm, part) -> dict:
    """Every rank's own users and peak RSS (MiB) in the stage so far, for the summary:
    what partitioning bought (a rank's peak over the run is the largest of its stages'
    peaks: each stage resets the peak, so ``ru_maxrss`` from outside sees the last
    stage's only)."""
    rows = comm.gather((part.hi - part.lo, _peak_bytes() >> 20), root=0)
    if rows is None:
        return {}
    return {"rank_users": [r[0] for r in rows], "rank_peak_rss_mib": [r[1] for r in rows]}


# ------------------------------------------------------------------------------ the job
def run_communities(
    mentions,
    out=None,
    *,
    b: float = 0.1,
    leaders: int = 5,
    min_size: int = 10,
    dim: int = 2,
    max_labels: int | None = None,
    tolerance: float | None = None,
    update: str = "semi-sync",
    max_iterations: int = 1000,
    page_budget: int = 200_000,
    seed: int = 0,
    threads: int | None = None,
    runtime=None,
    force: bool = False,
    progress: bool = True,
    stream=None,
) -> CommunitiesReport:
    """Run the whole application (see the module docstring) on ``mentions`` (a path, a
    ``mention:N:M[:HASHTAGS]`` spec or a :class:`~hpgraph.io.mentions.Mentions`) and write
    the report folder ``out`` (``None``: run, write nothing). ``b``: BMLPA's belonging
    threshold; ``leaders``: leaders per community; ``min_size``: smallest community given
    leaders; ``dim``: 2 or 3; ``max_labels``: BMLPA's label cap (default ``ceil(1/b)``);
    ``tolerance``: the update-rate stop rule's (default
    :data:`hpgraph.config.BMLPA_TOLERANCE`); ``update``: BMLPA's ``"semi-sync"`` sweeps
    or the paper's ``"sync"`` supersteps; ``page_budget``: users drawn on the page
    besides leaders; ``threads``: per process; ``runtime``: ``None``/``"local"`` or an MPI
    runtime (BMLPA runs on every rank, the rest on rank 0); ``progress``: a line per stage
    and per superstep on ``stream`` (default stderr)."""
    from hpgraph.algorithms.bmlpa import bmlpa
    from hpgraph.algorithms.community_layout import community_layout
    from hpgraph.algorithms.leaders import community_leaders
    from hpgraph.io.mentions import Mentions
    from hpgraph.runtimes.mpi.mentions import gather_graph

    _check(b, leaders, min_size, dim, max_labels, threads)
    b = float(b)
    cap = max_labels if max_labels is not None else math.ceil(1.0 / b)
    mpi = not (runtime is None or runtime == "local")
    root = not mpi or runtime.is_root
    out = Path(out) if out is not None else None
    tmp = _prepare_out(out, force) if (out is not None and root) else None
    stages = _Stages(progress and root, stream)
    try:
        with stages.stage("read") as (p, info):
            if mpi:  # every rank keeps its own users
                m = _read_part(mentions, runtime, seed)
                g, labels = m.graph, m.labels
                tagged_users = runtime.comm.allreduce(int(np.count_nonzero(np.diff(labels.ptr))))
            else:
                m = (
                    mentions
                    if isinstance(mentions, Mentions)
                    else load_mentions(mentions, seed=seed)
                )
                g = m.graph
                labels = m.initial_labels()
                tagged_users = int(np.count_nonzero(np.diff(labels.ptr)))
            info["_line"] = (
                f"{g.n:,} users, {m.num_mentions:,} mentions, {m.num_hashtags:,} hashtags "
                f"({m.tagged_share():.0%} of mentions tagged, {tagged_users:,} users with one)"
            )
            if mpi:
                info.update(_ranks_held(runtime.comm, g))
                own = info.get("rank_users")  # rank 0's, which reports
                if own:
                    info["_line"] += f"; {len(own)} ranks holding {min(own):,}-{max(own):,} each"
        with stages.stage("communities") as (p, info):
            cover = bmlpa(
                g, b=b, initial=labels, max_labels=cap, tolerance=tolerance, update=update,
                max_iterations=max_iterations, threads=threads, runtime=runtime,
                progress=p if p is not None else False,
            )  # fmt: skip
            del labels
            info["_line"] = (
                f"{cover.num_communities:,} communities after {cover.meta['iterations']} "
                f"{'sweeps' if update == 'semi-sync' else 'supersteps'} "
                f"(stopped by {cover.meta['stopped_by']})"
            )
            if mpi:
                info.update(_ranks_held(runtime.comm, g))
        if mpi:
            del g
            with stages.stage("gather") as (p, info):
                m = gather_graph(m)  # the later stages run on rank 0, on the whole graph
                if m is not None:
                    info["_line"] = f"the user graph on rank 0 ({m.graph.memory_bytes() >> 20} MiB)"
            if not root:
                return CommunitiesReport(None, {}, {})
            g = m.graph
        names = community_names(cover)
        with stages.stage("leaders") as (p, info):
            lead = community_leaders(
                g, cover, leaders=leaders, min_size=min_size, seed=seed, threads=threads,
                progress=p if p is not None else False,
            )  # fmt: skip
            info["_line"] = (
                f"{int(np.count_nonzero(lead.rank == 1)):,} communities of >= {min_size} "
                f"members, {lead.community.size:,} leaders"
            )
        with stages.stage("layout") as (p, info):
            pos = community_layout(g, cover, leaders=lead, dim=dim, seed=seed, threads=threads)
            info["_line"] = f"{g.n:,} positions in {dim}-D"
        summary = _summary(m, cover, lead, pos, names, stages, locals_=dict(
            b=b, leaders=leaders, min_size=min_size, dim=dim, max_labels=cap,
            tolerance=cover.meta["tolerance"], update=update, seed=seed, threads=threads,
            runtime=getattr(runtime, "name", runtime) or "local",
        ))  # fmt: skip
        if out is not None:
            _pictures_and_tables(
                tmp, stages, m, cover, names, lead, pos, dim, page_budget, seed, min_size
            )
            summary["stages"] = stages.rows
            summary["total_seconds"] = round(time.perf_counter() - stages.clock, 3)
            (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
            _commit(tmp, out)
            tmp = None
        else:
            summary["stages"] = stages.rows
        return CommunitiesReport(
            out, summary, {"mentions": m, "cover": cover, "leaders": lead, "layout": pos}
        )
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _page_view(cover, names, lead, min_size):
    """The communities the page lists: those of at least ``min_size`` members (the ones
    with leaders), renumbered 0..K-1; a user's other memberships are left out and a
    strongest community below the size is -1 (at 8M users there are millions of tiny
    communities: stars, chains, lone users). Returns (strongest, memberships, names,
    sizes, leaders)."""
    keep = cover.sizes >= min_size
    new_id = np.cumsum(keep) - 1
    strongest = cover.columns["community"]
    strongest = np.where(keep[strongest], new_id[strongest], -1)
    entry = keep[cover.community_of]
    n = cover.ptr.shape[0] - 1
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(cover.ptr))
    counts = np.bincount(owner[entry], minlength=n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    memberships = (ptr, new_id[cover.community_of[entry]], cover.coefficient[entry])
    leaders = (new_id[lead.community], lead.rank, lead.vertex, lead.betweenness)
    return strongest, memberships, names[keep].tolist(), cover.sizes[keep], leaders


def _pictures_and_tables(tmp, stages, m, cover, names, lead, pos, dim, page_budget, seed,
                         min_size):  # fmt: skip
    from hpgraph.viz import render_png, write_page

    coords = np.column_stack([pos[a] for a in "xyz"[:dim]])
    strongest, memberships, page_names, sizes, lead_arrays = _page_view(
        cover, names, lead, min_size
    )
    with stages.stage("pictures") as (p, info):
        png = render_png(
            tmp / "communities.png", coords, strongest, names=page_names, sizes=sizes,
            leaders=lead_arrays, title=f"{m.graph.n:,} users, {cover.num_communities:,} "
            "communities",
        )  # fmt: skip
        page = write_page(
            tmp / "index.html", coords, strongest, user_ids=m.graph.user_ids(),
            memberships=memberships, names=page_names, sizes=sizes, leaders=lead_arrays,
            budget=page_budget, seed=seed, title="hpgraph communities",
        )  # fmt: skip
        info["legend"] = png["legend"]  # the biggest communities, members as in the tables
        info["page_bytes"] = int(page["bytes"])
        info["page_users"] = int(page["kept"])
        info["_line"] = (
            f"communities.png {png['width']}x{png['height']}, index.html "
            f"{page['bytes'] / 2**20:.1f} MiB ({page['kept']:,} users drawn)"
        )
    with stages.stage("write") as (p, info):
        _write_tables(tmp, m, cover, names, lead, pos, dim)


def _summary(m, cover, lead, pos, names, stages, locals_):
    meta = cover.meta
    big = np.argsort(-cover.sizes, kind="stable")[:20]
    first = {}
    ids = m.graph.user_ids()
    for c, r, v in zip(lead.community.tolist(), lead.rank.tolist(), lead.vertex.tolist(),
                       strict=True):  # fmt: skip
        if r == 1:
            first[c] = v
    return {
        "parameters": locals_,
        "input": {
            "source": m.path,
            "users": m.graph.n,
            "mentions": m.num_mentions,
            "hashtags": m.num_hashtags,
            "tagged_mentions_share": round(m.tagged_share(), 6),
        },
        "communities": {
            "count": cover.num_communities,
            "named_by_hashtag": int(np.count_nonzero(cover.named)),
            "with_leaders": int(np.count_nonzero(lead.rank == 1)),
            "overlapping_users": int(meta["overlapping_vertices"]),
            "update": meta["update"],
            "iterations": meta["iterations"],
            "colours": meta["colours"],
            "stopped_by": meta["stopped_by"],
            "update_rate": [round(x, 6) for x in meta["update_rate"]],
            "largest": [
                {
                    "community": str(names[c]),
                    "size": int(cover.sizes[c]),
                    "leader": None if c not in first else _py(ids[first[c]]),
                }
                for c in big.tolist()
            ],
        },
        "leaders": {k: _py(v) for k, v in lead.meta.items() if _jsonable(v)},
        "layout": {k: _py(v) for k, v in pos.meta.items() if _jsonable(v)},
    }


def _py(x):
    return x.item() if isinstance(x, np.generic) else x


def _jsonable(v) -> bool:
    try:
        json.dumps(_py(v))
        return True
    except TypeError:
        return False
