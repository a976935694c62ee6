"""One exception hierarchy for hpgraph.

A library raises; only the CLI turns an exception into an exit code. Messages say
where, what was expected, what was got, and (where one helps) a hint.
"""

__all__ = [
    "HPGraphError",
    "GraphFormatError",
    "InvalidGraphError",
    "InvalidArgumentError",
    "UserProgramError",
    "VerificationError",
    "RuntimeErrorInJob",
    "agreed",
]


class HPGraphError(Exception):
    """Base class of every error hpgraph raises on purpose."""


class GraphFormatError(HPGraphError, ValueError):
    """An input file is malformed. Carries the file and (1-based) line when known."""

    def __init__(self, message, path=None, line=None):
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path if line is None else f"{self.path}:{line}"
            where += ": "
        super().__init__(where + message)


class InvalidGraphError(HPGraphError, ValueError):
    """A graph cannot be used by the requested operation (e.g. negative weights for SSSP)."""


class InvalidArgumentError(HPGraphError, ValueError):
    """An argument has a bad value (unknown vertex, bad option...)."""


class UserProgramError(HPGraphError, TypeError):
    """A user vertex/BSP program failed to compile; names the user's function."""


class VerificationError(HPGraphError, AssertionError):
    """A verifier rejected a kernel's result."""


class RuntimeErrorInJob(HPGraphError, RuntimeError):
    """A peer of a running BSP job failed; the job was stopped on every peer."""


def agreed(exc: BaseException) -> BaseException:
    """``exc``, marked as raised alike on every MPI rank (after the ranks agreed on it):
    the CLI prints it on rank 0 only, not once per rank."""
    exc.agreed = True
    return exc
