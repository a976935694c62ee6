"""CSV files of result rows that are dataclasses (CBench's and ping-pong's results): one
column per field, in field order."""

from __future__ import annotations

import csv
from dataclasses import asdict, fields

__all__ = ["write_rows"]


def write_rows(path, cls, rows) -> str:
    """Write ``rows`` (instances of the dataclass ``cls``) to ``path``; returns ``path``."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[x.name for x in fields(cls)])
        w.writeheader()
        for r in rows:
            w.writerow(asdict(r))
    return path
