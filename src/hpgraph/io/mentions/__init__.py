"""Mention data: who mentioned whom, with the tweet's hashtags (the seed paper's input).

Given a text or Parquet file of mentions (user i mentioned user j in a tweet carrying
hashtags h1, h2...), returns :class:`Mentions`: the directed user graph (one edge per
mention, parallel edges kept), the mentions' endpoints in input order, and each
mention's hashtags as a CSR over a sorted hashtag dictionary.
:meth:`Mentions.initial_labels` turns them into BMLPA's initial labels by the seed
paper's rule ("if the edge-generating tweet included a hashtag, that hashtag was added
to the initial label list for user i"), weighted by how often the user used each one.

Text (``.tsv``, ``.txt``, any other name; ``.gz`` is gunzipped): one mention per line,
``source target [hashtags]``. Users are separated by blanks (spaces or tabs); everything
after the target is the hashtag list, split on commas and blanks (``#ai,#ml``,
``ai ml``, ``#ai, ml`` are the same two tags). Blank lines, and lines whose first
non-blank character is ``#`` or ``%``, are skipped, so a user id never starts with
``#`` or ``%``, and a target that does is an error (a hashtag in the target column).
User ids hold no blank or comma; a line that starts with a tab, or two tabs between
source and target, is an empty user (an error). Hashtags: leading ``#`` characters
dropped, lowercased (Twitter hashtags are case-insensitive), repeated tags within one
mention counted once; a lone ``#`` is an error.

Parquet: columns ``source``, ``target`` (integers or strings, dictionary encoding
allowed, no nulls or empty strings) and optionally ``hashtags``: a string column
(``"ai,ml"``, split like the text format) or a list of strings; null means none.

Users become dense internal ids as in every reader (:mod:`hpgraph.io._ids`): integer ids
when every id is an integer, else strings, sorted. Hashtag ids index ``tag_names``,
sorted by code point; each mention's tag ids are ascending and distinct. So a text file
and the Parquet file :func:`write_mentions` makes from it read back equal.

Reading text is one compiled pass over the bytes (users rewritten for pyarrow's
multi-threaded CSV conversion, hashtag bytes cut into a string array), then hashing:
no Python loop per line. Peak memory about three times the (uncompressed) text plus the
result. Every error is a :class:`~hpgraph.errors.GraphFormatError` naming the file (and
the line, or the Parquet row).

The package: :mod:`.data` (:class:`Mentions` and its initial labels), :mod:`.text` and
:mod:`.parquet` (the two readers), :mod:`.tags` (the hashtag CSR) and :mod:`.write`
(:func:`write_mentions`); this module holds :func:`read_mentions`, which picks a reader.
"""

from __future__ import annotations

from pathlib import Path

from hpgraph.errors import GraphFormatError
from hpgraph.graph.csr import Graph
from hpgraph.io._ids import dense_ids
from hpgraph.io._text import graph_name
from hpgraph.io.mentions.data import Mentions
from hpgraph.io.mentions.parquet import _read_parquet
from hpgraph.io.mentions.tags import _finish_tags
from hpgraph.io.mentions.text import _read_text
from hpgraph.io.mentions.write import mention_format, write_mentions

__all__ = ["Mentions", "read_mentions", "write_mentions", "mention_format"]


def read_mentions(path, *, progress=None) -> Mentions:
    """Read a mention file (see the module docstring): Parquet when the name ends in
    ``.parquet``/``.pq`` or the bytes start with Parquet's magic, else text.
    ``progress``: an optional callable given a short stage name ("reading", "users",
    "hashtags", "graph") as each stage starts."""
    say = progress or (lambda stage: None)
    name = graph_name(path)
    p = Path(path)
    if p.is_dir():
        raise GraphFormatError("is a directory, not a mention file", path)
    say("reading")
    if _is_parquet(p):
        src, dst, ptr, vals, dictionary, where = _read_parquet(path)
    else:
        src, dst, ptr, vals, dictionary, where = _read_text(path)
    say("hashtags")
    ptr, tags, names = _finish_tags(ptr, vals, dictionary, path, where)
    say("users")
    s, d, ids, n = dense_ids(src, dst)
    del src, dst
    say("graph")
    graph = Graph.from_edges(s, d, n=n, directed=True, ids=ids, name=name)
    return Mentions(graph, s, d, ptr, tags, names, str(path))


def _is_parquet(p: Path) -> bool:
    """Whether a mention file is read as Parquet: by its name, or by its first bytes."""
    return p.suffix.lower() in (".parquet", ".pq") or _has_parquet_magic(p)


def _has_parquet_magic(p: Path) -> bool:
    if p.name.endswith(".gz"):
        return False
    try:
        with open(p, "rb") as f:
            return f.read(4) == b"PAR1"
    except OSError:
        return False  # the text reader words the error
