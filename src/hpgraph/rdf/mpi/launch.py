"""Starting SPARQL on MPI: re-running a command under ``mpiexec``, whether this process
is an MPI rank, and mpi4py's ``MPI`` module. As ``hpgraph run --ranks`` does, but
without importing :mod:`hpgraph.runtimes`, whose package starts numba (2.5-5 s per
process) for a query that needs none."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from hpgraph.errors import InvalidArgumentError

__all__ = ["LAUNCHER_VARIABLES", "launched_by_mpi", "mpi_module", "relaunch"]

#: set in every rank by an MPI launcher (the names of
#: :data:`hpgraph.runtimes.slurm.PMI_VARIABLES`)
LAUNCHER_VARIABLES = ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE")


def launched_by_mpi(environ=None) -> bool:
    """Whether an MPI launcher (mpiexec, srun with PMI) started this process."""
    environ = os.environ if environ is None else environ
    return any(environ.get(v) for v in LAUNCHER_VARIABLES)


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


def relaunch(ranks: int, argv) -> int:
    """Run ``hpgraph *argv`` (without its ``--ranks N``) under ``mpiexec -n ranks`` with
    the MPI runtime (the mpiexec beside this interpreter, as the mpich wheel installs it,
    else the one on PATH); its exit code."""
    beside = Path(sys.executable).parent / "mpiexec"
    mpiexec = str(beside) if beside.exists() else shutil.which("mpiexec")
    if mpiexec is None:
        raise InvalidArgumentError(
            "no mpiexec: install the mpi extra (in a clone: .venv/bin/pip install -e '.[mpi]';"
            " else pip install 'hpgraph[mpi]')"
        )
    args, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--ranks":
            skip = True
        elif not arg.startswith("--ranks="):
            args.append(arg)
    cmd = [mpiexec, "-n", str(ranks), sys.executable, "-m", "hpgraph.cli.main", *args]
    return subprocess.call([*cmd, "--runtime", "mpi"], env=dict(os.environ))
