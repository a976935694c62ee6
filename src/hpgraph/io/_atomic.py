"""All-or-nothing file output: write a temporary file beside the target, then rename."""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_output"]


@contextlib.contextmanager
def atomic_output(path):
    """Yield a temporary path in ``path``'s folder; on a clean exit it replaces ``path``
    (``os.replace``, atomic on POSIX), on an exception it is removed and ``path`` is left
    as it was."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600 files; give the usual mode
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@functools.cache
def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
