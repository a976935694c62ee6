"""Slurm job steps, as hpgraph's runtimes see them: the CPUs Slurm gave each task, and
whether the tasks ``srun`` started can find each other as MPI ranks.

``srun -n P`` starts P copies of a command. MPI makes them one job only through a
process-management interface (PMI-2 with ``srun --mpi=pmi2``, PMIx with ``--mpi=pmix``;
``mpiexec`` inside an allocation sets up its own). Without one, each copy initialises MPI
alone as rank 0 of 1, and P identical jobs run side by side, each writing the output:
:func:`check_mpi_launch` stops that before MPI starts. Nothing here imports MPI.
"""

from __future__ import annotations

import os

from hpgraph.errors import InvalidArgumentError
from hpgraph.launcher import PMI_VARIABLES, launched_by_mpi

__all__ = ["step_tasks", "cpus_per_task", "check_mpi_launch", "PMI_VARIABLES"]


def _whole(environ, name: str) -> int | None:
    value = environ.get(name, "")
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise InvalidArgumentError(f"${name} must be a whole number >= 1, got {value!r}")
    return int(value)


def step_tasks(environ=None) -> int:
    """Tasks of the Slurm job step this process runs in (``srun -n``); 0 outside a step
    (a batch script itself is not one)."""
    environ = os.environ if environ is None else environ
    return _whole(environ, "SLURM_STEP_NUM_TASKS") or 0


def cpus_per_task(environ=None) -> int | None:
    """CPUs per task of the Slurm job (``sbatch -c`` / ``srun -c``), or None when Slurm
    did not set them."""
    environ = os.environ if environ is None else environ
    return _whole(environ, "SLURM_CPUS_PER_TASK")


def check_mpi_launch(environ=None) -> None:
    """Raise when ``srun`` started several tasks without a process-management interface
    (each would run as a one-rank MPI job of its own)."""
    environ = os.environ if environ is None else environ
    tasks = step_tasks(environ)
    if tasks > 1 and not launched_by_mpi(environ):
        raise InvalidArgumentError(
            f"this Slurm job step has {tasks} tasks but no process-management interface "
            f"(none of ${', $'.join(PMI_VARIABLES)} is set), so each task would run MPI "
            "alone as rank 0 of 1: launch with 'srun --mpi=pmi2' (or --mpi=pmix where "
            "Slurm has it), or run mpiexec inside the allocation"
        )
