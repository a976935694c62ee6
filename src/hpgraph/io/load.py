"""``load_graph``: one entry point for every input format, with a binary cache.

Formats by extension (a trailing ``.gz`` is allowed for the text formats):
``.txt .el .edges .edgelist .csv .tsv .snap`` edge list, ``.mtx`` Matrix Market,
``.parquet .pq`` Parquet, ``.hpgc`` binary cached form; ``format=`` overrides.

A folder is a Parquet dataset (``format="parquet"``, or a folder name ending in
``.parquet``): its files are read in path order, never cached.

Cache: a parsed text or Parquet input is saved as ``<input>.hpgc`` beside it (or, when
its folder is not writable, as ``<CACHE_DIR>/graphs/<name>-<hash of the absolute
path>.hpgc``; with ``cache_dir`` given, there instead). The cache is used while the
input's size and mtime_ns and the load options match what its header records; else the
input is parsed again and the cache rewritten. Failing to write a cache is not an error.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from hpgraph import config
from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.io.binary import load_binary, read_binary_header, save_binary, source_info
from hpgraph.io.edgelist import read_edgelist
from hpgraph.io.mtx import read_matrix_market
from hpgraph.io.parquet import read_parquet

__all__ = ["load_graph", "detect_format", "cache_paths", "cached_graph", "write_cache", "FORMATS"]

log = logging.getLogger(__name__)

FORMATS = ("edgelist", "mtx", "parquet", "hpgc")
_EXTENSIONS = {
    **dict.fromkeys((".txt", ".el", ".edges", ".edgelist", ".csv", ".tsv", ".snap"), "edgelist"),
    ".mtx": "mtx",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".hpgc": "hpgc",
}


def detect_format(path) -> str:
    """The format named by ``path``'s extension (see the module docstring)."""
    name = Path(path).name.lower()
    gz = name.endswith(".gz")
    fmt = _EXTENSIONS.get(Path(name[:-3] if gz else name).suffix)
    if fmt is None or (gz and fmt in ("parquet", "hpgc")):
        raise GraphFormatError(
            f"cannot tell the format from the extension; expected one of "
            f"{', '.join(sorted(_EXTENSIONS))} (text ones optionally .gz), or pass "
            f"format= one of {', '.join(FORMATS)}",
            path,
        )
    return fmt


def load_graph(
    path,
    *,
    format: str | None = None,
    directed: bool | None = None,
    weighted: bool | None = None,
    cache: bool = True,
    cache_dir=None,
    allow_empty: bool = False,
) -> Graph:
    """Load a graph from any supported file (see the module docstring).

    ``directed``: ``None`` means the format's own answer (undirected for edge lists and
    Parquet, the header's symmetry for Matrix Market, the stored graph for ``.hpgc``).
    ``weighted``: ``None`` uses weights when the input has them, ``True`` requires them,
    ``False`` drops them. ``cache``: reuse/write the binary cached form.
    """
    fmt = format or detect_format(path)
    if fmt not in FORMATS:
        raise InvalidArgumentError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    if fmt == "hpgc":
        return _adapt(load_binary(path), path, directed, weighted)
    if not cache or os.path.isdir(path):  # a Parquet dataset folder: no cache
        return _parse(fmt, path, directed, weighted, allow_empty)
    try:
        src = source_info(path)
    except FileNotFoundError:
        raise GraphFormatError("no such file", path) from None
    except OSError as e:
        raise GraphFormatError(f"cannot read the file: {e.strerror or e}", path) from None
    options = dict(format=fmt, directed=directed, weighted=weighted, allow_empty=allow_empty)
    graph = cached_graph(path, src, options, cache_dir)
    if graph is not None:
        return graph
    graph = _parse(fmt, path, directed, weighted, allow_empty)
    write_cache(graph, path, src, options, cache_dir)
    return graph


def cached_graph(path, src: dict, options: dict, cache_dir=None) -> Graph | None:
    """The graph of ``path``'s fresh cache (its header records ``src``, the input's
    :func:`~hpgraph.io.binary.source_info`, and the load ``options``), or None."""
    for c in cache_paths(path, cache_dir):
        if _is_fresh(c, src, options):
            log.debug("loading %s from its cache %s", path, c)
            return load_binary(c)
    return None


def write_cache(graph: Graph, path, src: dict, options: dict, cache_dir=None) -> None:
    """Save ``graph`` as ``path``'s cache, in the first writable place; failing to write
    one is not an error."""
    for c in cache_paths(path, cache_dir):
        try:
            c.parent.mkdir(parents=True, exist_ok=True)
            save_binary(graph, c, source=src, options=options)
            return
        except OSError as e:  # a read-only folder: try the next place
            log.debug("cannot write the cache %s: %s", c, e)


def cache_paths(path, cache_dir=None) -> list[Path]:
    """Where :func:`load_graph` looks for (and writes, first writable wins) the cache of
    ``path``: ``cache_dir``'s entry when given, else beside the input and then in
    ``config.CACHE_DIR/graphs``."""
    p = Path(path)
    digest = hashlib.sha256(os.path.abspath(p).encode()).hexdigest()[:16]
    central = f"{p.name}-{digest}.hpgc"
    if cache_dir is not None:
        return [Path(cache_dir) / central]
    out = []
    if os.access(p.parent, os.W_OK):
        out.append(p.with_name(p.name + ".hpgc"))
    out.append(Path(config.CACHE_DIR) / "graphs" / central)
    return out


def _is_fresh(cache: Path, src: dict, options: dict) -> bool:
    try:
        header = read_binary_header(cache)
    except GraphFormatError:
        return False
    return header.get("source") == src and header.get("options") == options


def _parse(fmt, path, directed, weighted, allow_empty) -> Graph:
    kw = {"weighted": weighted, "allow_empty": allow_empty}
    if fmt == "mtx":
        return read_matrix_market(path, directed=directed, **kw)
    read = read_edgelist if fmt == "edgelist" else read_parquet
    return read(path, directed=bool(directed), **kw)


def _adapt(graph: Graph, path, directed, weighted) -> Graph:
    """Apply load options to a stored graph."""
    if weighted and not graph.weighted:
        raise GraphFormatError("weighted=True but the stored graph has no weights", path)
    g = graph
    if weighted is False and g.weighted:
        g = Graph(g.indptr, g.indices, None, directed=g.directed, ids=g.ids, name=g.name)
    if directed is False and g.directed:
        g = g.symmetrized()
    elif directed and not g.directed:  # both directions of every edge, as directed edges
        g = Graph(g.indptr, g.indices, g.weights, directed=True, ids=g.ids, name=g.name)
    return g
