"""Memory figures from Linux /proc files: one reader for their ``Name:  1234 kB`` lines
(the memory available to the all-pairs matrix, a stage's peak RSS)."""

from __future__ import annotations

__all__ = ["kib_field"]


def kib_field(path: str, name: str) -> int | None:
    """Bytes in the ``name:`` line (a count of kB) of the /proc file ``path``, or None
    where the file or the line is missing (not Linux)."""
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(f"{name}:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None
