"""Graph input and output.

Reading: :func:`load_graph` (any format, with a binary cache), or one reader per format:
:func:`read_edgelist` (text edge lists, ``.gz`` too), :func:`read_matrix_market`
(``.mtx``), :func:`read_parquet`, :func:`load_binary` (``.hpgc``, memory-mapped).
Writing: :func:`save_binary`, :func:`write_edgelist`, :func:`write_parquet_edges` and
:func:`write_result` for algorithm results. Mention data (users mentioning users, with
hashtags): :func:`read_mentions`, :func:`write_mentions`. Every reader raises
:class:`~hpgraph.errors.GraphFormatError` naming the file (and line, for text formats);
every writer is atomic.
"""

from hpgraph.io.binary import load_binary, read_binary_header, save_binary
from hpgraph.io.edgelist import read_edgelist, write_edgelist
from hpgraph.io.load import FORMATS, cache_paths, detect_format, load_graph
from hpgraph.io.mentions import Mentions, mention_format, read_mentions, write_mentions
from hpgraph.io.mtx import read_matrix_market
from hpgraph.io.parquet import read_parquet, write_parquet_edges
from hpgraph.io.results import write_result

__all__ = [
    "FORMATS",
    "Mentions",
    "cache_paths",
    "detect_format",
    "load_binary",
    "load_graph",
    "mention_format",
    "read_binary_header",
    "read_edgelist",
    "read_matrix_market",
    "read_mentions",
    "read_parquet",
    "save_binary",
    "write_edgelist",
    "write_mentions",
    "write_parquet_edges",
    "write_result",
]
