"""mpi4py's ``MPI`` module for SPARQL on MPI, or the one-line error saying how to install
it. Launching (``--ranks``, whether this process is a rank) is :mod:`hpgraph.launcher`'s,
shared with ``hpgraph run``; neither imports :mod:`hpgraph.runtimes`, whose package
starts numba (2.5-5 s per process) for a query that needs none."""

from __future__ import annotations

from hpgraph.errors import InvalidArgumentError

__all__ = ["mpi_module"]


def mpi_module():
    """mpi4py's ``MPI`` (importing it starts MPI), or the one-line error saying how to
    install it."""
    try:
        from mpi4py import MPI
    except ImportError:  # pragma: no cover - depends on the install
        raise InvalidArgumentError(
            "SPARQL on MPI needs mpi4py and an MPI library: pip install 'hpgraph[mpi]'"
        ) from None
    return MPI
