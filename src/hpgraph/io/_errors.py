"""OS errors of reading an input file, worded once for every reader."""

from __future__ import annotations

from contextlib import contextmanager

from hpgraph.errors import GraphFormatError

__all__ = ["file_errors"]


@contextmanager
def file_errors(path, kind: str = "a graph file"):
    """Turn a missing file, a folder or an OS error while reading ``path`` into a
    one-line :class:`~hpgraph.errors.GraphFormatError` (``kind`` names what a folder is
    not)."""
    try:
        yield
    except FileNotFoundError:
        raise GraphFormatError("no such file", path) from None
    except IsADirectoryError:
        raise GraphFormatError(f"is a directory, not {kind}", path) from None
    except OSError as e:
        raise GraphFormatError(f"cannot read the file: {e.strerror or e}", path) from None
