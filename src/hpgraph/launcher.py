"""Starting hpgraph on MPI ranks: the ``mpiexec`` to launch with, whether an MPI
launcher started this process, and re-running a command under ``mpiexec``.

Light on purpose (no numpy, numba or mpi4py): a front end that needs no compiled kernel
(``hpgraph sparql --ranks``) launches without starting numba, and the CLI's ``--ranks``,
the MPI runtime and the Slurm checks share one definition of each.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from hpgraph.errors import InvalidArgumentError

__all__ = ["PMI_VARIABLES", "launched_by_mpi", "mpiexec_path", "relaunch"]

#: set in every rank by a process-management interface: PMI-1/PMI-2 (srun --mpi=pmi2,
#: MPICH's mpiexec), PMIx (srun --mpi=pmix), Open MPI's own launcher
PMI_VARIABLES = ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE")


def launched_by_mpi(environ=None) -> bool:
    """Whether an MPI launcher (mpiexec, srun with PMI) started this process."""
    environ = os.environ if environ is None else environ
    return any(environ.get(v) for v in PMI_VARIABLES)


def mpiexec_path() -> str:
    """The ``mpiexec`` beside this interpreter (the mpich wheel installs it there), else
    the one on PATH."""
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        raise InvalidArgumentError(
            "no mpiexec: install the mpi extra (in a clone: .venv/bin/pip install -e '.[mpi]';"
            " else pip install 'hpgraph[mpi]')"
        )
    return found


def relaunch(ranks: int, argv) -> int:
    """Run ``hpgraph *argv`` without its ``--ranks N`` / ``--ranks=N`` under ``mpiexec -n
    ranks`` on the MPI runtime (``--runtime mpi``); its exit code."""
    args, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--ranks":
            skip = True
        elif not arg.startswith("--ranks="):
            args.append(arg)
    cmd = [mpiexec_path(), "-n", str(ranks), sys.executable, "-m", "hpgraph.cli.main", *args]
    return subprocess.call([*cmd, "--runtime", "mpi"], env=dict(os.environ))
