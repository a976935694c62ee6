"""Mention data read in parallel on the MPI runtime, each rank keeping only its own users.

Given a mention file (the text and Parquet formats of :mod:`hpgraph.io.mentions`),
:func:`read_mentions_part` has every rank of ``comm`` read one share of it and returns
on each rank a :class:`MentionPart`:

- ``graph``: the user graph as a :class:`~hpgraph.graph.part.PartGraph` (directed, one
  edge per mention, the rank's own users' rows and ids only), the rows that
  ``read_mentions(path).graph`` has for those users, bit for bit;
- ``labels``: BMLPA's initial labels of the own users by the seed's rule
  (:meth:`hpgraph.io.mentions.Mentions.initial_labels`: every hashtag of the mentions a
  user sent, weighted by how many carried it), rows of the own users only, the same
  rows as the whole graph's;
- the counts the report gives (mentions, tagged mentions, hashtags).

Steps:

1. **Shares.** Text: rank r parses bytes ``[r * size / P, (r + 1) * size / P)`` moved
   to line starts (:mod:`hpgraph.io.shares`) with the one-process reader's compiled
   scanner; an ``Exscan`` of the shares' line counts numbers errors by the file's lines.
   Users are integers only if every share's are (else every share converts its users'
   text again as strings, as the one-process reader would). Parquet: a contiguous run of
   the file's row groups per rank (fewer groups than ranks leave ranks with none). A
   gzipped file cannot be cut: every rank reads it whole.
2. **Hashtags.** Each share normalises its own tags (trim, drop ``#``, lowercase); the
   ranks' distinct tags are gathered (``allgather``) and sorted, so every rank holds
   every hashtag name (20,000 at the seed's scale: a dictionary, not per-user data) and
   maps its tags to their global numbers.
3. **Users and rows.** The edge-list ingest's renumbering and row build
   (:mod:`hpgraph.runtimes.mpi.assemble`: users numbered in sorted order by a sample sort
   or a presence bitmap; each mention sent to its source's owner in rounds of
   ``Alltoallv``), stopped before the gather, so no rank holds the whole graph.
4. **Labels.** Each rank sends one (user, tag) pair per tag of every mention it read to
   the source user's owner (one ``Alltoallv``); the owner counts them per user.

Errors are agreed as in :mod:`hpgraph.runtimes.mpi.ingest`: every rank exits with the
first problem in file order (file and line), none waits in a collective.

Bytes per rank (``s`` mentions read, ``t`` tags on them, ``o`` own users, ``h``
hashtags): the share's text and its scanner's buffers while parsing (about 3 times the
share's bytes); the share's users as arrow columns, then 2 x 8 B per mention read while
renumbering; 16 B per tag pair until the pairs are sent; the part's own rows (8 B per
own user + 4 per own mention) and own ids; the labels, 8 B per own user + 12 B per own
(user, tag); every hashtag's name (h x its length + about 60 B of Python string).

:func:`mentions_part` cuts whole mention data that every rank holds (a generated input)
the same way; :func:`gather_graph` builds the whole user graph on one rank from the
parts (the communities application's later stages).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from hpgraph.errors import GraphFormatError
from hpgraph.graph.csr import Graph, index_dtype
from hpgraph.graph.part import PartGraph
from hpgraph.io._ids import is_int_type
from hpgraph.io._text import graph_name
from hpgraph.io.shares import read_share
from hpgraph.runtimes.mpi.assemble import renumber
from hpgraph.runtimes.mpi.buffers import RowTypes, alltoallv
from hpgraph.runtimes.mpi.comm import load_mpi
from hpgraph.runtimes.mpi.ingest import _agree, _problem, _row_groups, _rows_graph

__all__ = ["MentionPart", "read_mentions_part", "mentions_part", "gather_graph"]


@dataclass(eq=False, repr=False)
class MentionPart:
    """One rank's part of mention data (see the module docstring): ``graph`` (a
    :class:`~hpgraph.graph.part.PartGraph`, or on the rank :func:`gather_graph` gives it
    to, the whole :class:`~hpgraph.graph.csr.Graph`), the own users' initial ``labels``
    (:class:`~hpgraph.algorithms.bmlpa.VertexLabels` over the own rows, ``names`` every
    hashtag), and the whole data's counts."""

    graph: object
    labels: object
    num_mentions: int
    tagged_mentions: int
    path: str | None = None

    @property
    def num_users(self) -> int:
        return self.graph.n

    @property
    def num_hashtags(self) -> int:
        return len(self.labels.names)

    def tagged_share(self) -> float:
        """Share of the mentions that carry at least one hashtag."""
        return self.tagged_mentions / self.num_mentions if self.num_mentions else 0.0

    def __repr__(self):
        return (
            f"<MentionPart {self.graph!r}: {self.num_mentions:,} mentions, "
            f"{self.num_hashtags:,} hashtags>"
        )


def read_mentions_part(path, comm=None) -> MentionPart:
    """Read a mention file with the ranks of ``comm`` (default: every rank), each
    keeping its own users (see the module docstring). Collective: every rank gets its
    part, or every rank the same one-line error."""
    from hpgraph.io.mentions import _is_parquet, read_mentions

    MPI = load_mpi()
    comm = MPI.COMM_WORLD if comm is None else comm
    name = graph_name(path)
    parquet = _is_parquet(Path(path))
    if comm.Get_size() == 1 or (not parquet and str(path).endswith(".gz")):
        try:
            m, problem = read_mentions(path), None
        except GraphFormatError as e:
            m, problem = None, _problem(e)
        _agree(comm, path, problem)
        return mentions_part(m, comm)
    src, dst, ints, ptr, tags, names = (_parquet_share if parquet else _text_share)(comm, path)
    mentions = comm.allreduce(len(src))
    if mentions == 0:
        why = "the table has no rows" if parquet else "the file has only comments or blank lines"
        raise GraphFormatError(f"no mentions ({why})", path)
    tagged = comm.allreduce(int(np.count_nonzero(np.diff(ptr))))
    s, d, ids, n = renumber(comm, MPI, [[src], [dst]], ints)
    del src, dst
    pair_users = np.repeat(s, np.diff(ptr))  # one (user, tag) pair per tag of a mention
    edges = [s, d, None]
    del s, d
    part = _rows_graph(comm, MPI, edges, n, True, ids, name, True)
    labels = _own_labels(comm, MPI, part, pair_users, tags, names)
    return MentionPart(part, labels, mentions, tagged, str(path))


def mentions_part(m, comm) -> MentionPart:
    """This rank's part of the :class:`~hpgraph.io.mentions.Mentions` ``m`` that every
    rank of ``comm`` holds whole (the same cut :func:`read_mentions_part` makes)."""
    from hpgraph.algorithms.bmlpa import VertexLabels

    part = PartGraph.from_graph(m.graph, comm.Get_size(), comm.Get_rank(), comm)
    whole = m.initial_labels()
    a, e = whole.ptr[part.lo], whole.ptr[part.hi]
    labels = VertexLabels(
        whole.ptr[part.lo : part.hi + 1] - a,
        whole.labels[a:e].copy(),
        whole.names,
        whole.weights[a:e].copy(),
    )
    tagged = int(np.count_nonzero(np.diff(m.tag_ptr)))
    return MentionPart(part, labels, m.num_mentions, tagged, m.path)


def gather_graph(mp: MentionPart, root: int = 0) -> MentionPart | None:
    """``mp`` with the whole user graph (a :class:`~hpgraph.graph.csr.Graph`, the one
    ``read_mentions(path).graph`` is, with every user's id) in place of the part, on
    rank ``root``; None on the other ranks. Collective (``gather`` of every rank's own
    rows and ids: root holds the whole graph, 8 B per user + 4 per mention, and every
    id, once)."""
    part = mp.graph
    comm = part.comm
    own = part.own_ids.values if part.own_ids is not None else None
    rows = comm.gather((np.diff(part.own_indptr), np.asarray(part.own_indices), own), root=root)
    if comm.Get_rank() != root:
        return None
    degrees = np.concatenate([r[0] for r in rows])
    indptr = np.zeros(part.n + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    indices = np.concatenate([r[1] for r in rows]).astype(index_dtype(part.n), copy=False)
    if own is None:
        ids = None if part.ids is None else np.asarray(part.ids)
    elif isinstance(own, pa.Array):
        joined = pa.concat_arrays([r[2] for r in rows])
        ids = np.asarray(joined.to_numpy(zero_copy_only=False), dtype=object)
    else:
        ids = np.concatenate([r[2] for r in rows])
    del rows
    graph = Graph(indptr, indices, None, directed=True, ids=ids, name=part.name)
    return replace(mp, graph=graph)


# ------------------------------------------------------------------------------ shares
def _text_share(comm, path):
    """This rank's share of a text file: ``(src, dst, ints, ptr, tags, names)`` (users as
    arrow columns, integers on every rank or strings on every rank (``ints``), tags
    global numbers of ``names``, every hashtag)."""
    from hpgraph.io.mentions.text import _parse_text, _text_line_of, _user_columns

    rank, size = comm.Get_rank(), comm.Get_size()
    buf, problem = np.empty(0, np.uint8), None
    try:
        buf, _ = read_share(path, rank, size)
    except GraphFormatError as e:
        problem = _problem(e)
    _agree(comm, path, problem)
    first_line = (comm.exscan(int(np.count_nonzero(buf == 10))) or 0) + 1
    found = None
    try:
        found = _parse_text(buf, path, first_line=first_line, share=True)
    except GraphFormatError as e:
        problem = _problem(e)
    del buf
    _agree(comm, path, problem)
    src, dst, ptr, vals, dictionary, _, users = found
    ints = _all_ints(comm, src, dst)
    if not ints and is_int_type(src.type) and len(src):  # another share's users are strings
        src, dst = _user_columns(users, path, str_ids=True)
    del users
    row0 = comm.exscan(len(src)) or 0

    def where(row):
        return f"mention {row0 + row + 1}", _text_line_of(path, row0 + row)

    return (src, dst, ints) + _global_tags(comm, path, ptr, vals, dictionary, where)


def _parquet_share(comm, path):
    """This rank's row groups of a Parquet file, as :func:`_text_share` gives a share."""
    from hpgraph.io.mentions.parquet import _read_parquet

    rank, size = comm.Get_rank(), comm.Get_size()
    found, problem = None, None
    try:
        try:
            units = _row_groups([path])
        except FileNotFoundError:
            raise GraphFormatError("no such file", path) from None
        except (pa.ArrowInvalid, OSError) as e:
            raise GraphFormatError(f"not a readable Parquet file ({e})", path) from None
        mine = units[rank * len(units) // size : (rank + 1) * len(units) // size]
        first_row = mine[0][2] if mine else 0
        found = _read_parquet(path, [u[1] for u in mine], first_row)
    except GraphFormatError as e:
        problem = _problem(e)
    _agree(comm, path, problem)
    src, dst, ptr, vals, dictionary, where = found
    ints = _all_ints(comm, src, dst)
    if not ints and is_int_type(src.type):
        src, dst = src.cast(pa.string()), dst.cast(pa.string())
    return (src, dst, ints) + _global_tags(comm, path, ptr, vals, dictionary, where)


def _all_ints(comm, src, dst) -> bool:
    """Whether every rank's users are integers (ranks without mentions do not count)."""
    mine = None if len(src) == 0 else bool(is_int_type(src.type) and is_int_type(dst.type))
    kinds = {k for k in comm.allgather(mine) if k is not None}
    return False not in kinds


def _global_tags(comm, path, ptr, vals, dictionary, where):
    """``(ptr, tags, names)``: a share's raw tags normalised (errors agreed), numbered in
    the sorted list ``names`` of every rank's distinct tags."""
    from hpgraph.io.mentions.tags import _finish_tags

    found, problem = None, None
    try:
        found = _finish_tags(ptr, vals, dictionary, path, where)
    except GraphFormatError as e:
        problem = _problem(e)
    _agree(comm, path, problem)
    ptr, tags, mine = found
    names = sorted(set().union(*comm.allgather(mine)))
    number = {t: i for i, t in enumerate(names)}
    lut = np.array([number[t] for t in mine], dtype=np.int32)
    return ptr, lut[tags], names


# ------------------------------------------------------------------------------ labels
def _own_labels(comm, MPI, part, users, tags, names):
    """The own users' initial labels from this rank's (user, tag) pairs (every tag of
    every mention it read): each pair to the user's owner, counted there."""
    from hpgraph.algorithms.bmlpa import VertexLabels
    from hpgraph.io.mentions.data import _user_tag_counts

    cuts = part.rank_offsets
    owner = np.searchsorted(cuts, users, side="right") - 1
    order = np.argsort(owner, kind="stable")
    counts = np.bincount(owner, minlength=comm.Get_size()).astype(np.int64)
    types = RowTypes(MPI)
    try:
        (got_u, got_t), _ = alltoallv(
            comm, types, [users[order].astype(np.int64), tags[order].astype(np.int32)], counts
        )
    finally:
        types.free()
    own = part.hi - part.lo
    one = np.arange(got_t.shape[0] + 1, dtype=np.int64)  # each pair: one mention, one tag
    ptr, labels, weights = _user_tag_counts(own, got_u - part.lo, one, got_t)
    return VertexLabels(ptr, labels, names, weights)
