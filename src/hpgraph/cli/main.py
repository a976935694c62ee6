"""``hpgraph``: the command group, and the one place where exceptions become exit codes.

Exit codes: 0 success; 1 a verification failure or a kernel error (anything unexpected
counts as one); 2 bad input or usage (:class:`~hpgraph.errors.HPGraphError` other than a
verification or job failure, a missing or unreadable file, a click usage error). Errors are
one line on stderr, ``hpgraph: error: ...``; ``--debug`` (or ``HPGRAPH_DEBUG=1``) adds the
traceback.
"""

from __future__ import annotations

import os
import sys
import traceback

import click

from hpgraph._version import __version__
from hpgraph.cli import bench as _bench
from hpgraph.cli import checkpoint as _checkpoint
from hpgraph.cli import communities as _communities
from hpgraph.cli import graphs as _graphs
from hpgraph.cli import rdf as _rdf
from hpgraph.cli import run as _run
from hpgraph.cli._common import CommandFailed, State

__all__ = ["cli", "main", "exit_code_for"]

#: OSErrors that mean "bad input" (exit 2); any other OSError (a full disk...) is 1.
_INPUT_OS_ERRORS = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)
#: click >= 8.2 raises this for a bare ``hpgraph``; 8.1 prints the help and exits 0.
_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


def exit_code_for(exc: BaseException) -> int:
    """The exit code of a command that raised ``exc``."""
    from hpgraph.errors import (
        HPGraphError,
        RuntimeErrorInJob,
        UserProgramError,
        VerificationError,
    )

    if isinstance(exc, click.ClickException):
        return exc.exit_code
    if isinstance(exc, (VerificationError, RuntimeErrorInJob, UserProgramError)):
        return 1
    if isinstance(exc, (HPGraphError, *_INPUT_OS_ERRORS)):
        return 2
    if isinstance(exc, (KeyboardInterrupt, click.Abort)):
        return 130
    return 1


def _message(exc: BaseException) -> str:
    """One line saying what went wrong."""
    from hpgraph.errors import HPGraphError

    if isinstance(exc, click.UsageError):
        text = exc.format_message()
        if exc.ctx is not None:
            text += f" (see '{exc.ctx.command_path} --help')"
    elif isinstance(exc, click.ClickException):
        text = exc.format_message()
    elif isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or exc}"
    elif isinstance(exc, (KeyboardInterrupt, click.Abort)):
        text = "interrupted"
    elif isinstance(exc, MemoryError):
        text = "out of memory"
    elif isinstance(exc, (HPGraphError, CommandFailed, OSError)):
        text = str(exc)
    else:
        text = (
            f"internal error: {type(exc).__name__}: {exc} (for the traceback: hpgraph "
            "--debug COMMAND ..., or HPGRAPH_DEBUG=1)"
        )
    return " | ".join(line.strip() for line in str(text).splitlines() if line.strip())


def printing_rank(exc: BaseException) -> bool:
    """Whether this process prints ``exc``: always, except an error raised alike on every
    MPI rank (:func:`hpgraph.errors.agreed`) on a rank other than 0."""
    if not getattr(exc, "agreed", False):
        return True
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None or not mpi.Is_initialized() or mpi.Is_finalized():
        return True
    return mpi.COMM_WORLD.Get_rank() == 0


class _Group(click.Group):
    """A group whose ``main`` maps exceptions to exit codes (also under CliRunner) and
    lists its commands in the order they were added."""

    def list_commands(self, ctx):
        return list(self.commands)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        state = extra.setdefault("obj", State())
        debug_env = os.environ.get("HPGRAPH_DEBUG", "") not in ("", "0")
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _NO_ARGS as exc:
            exc.show()  # the help, on stderr
            code = 2
        except (Exception, KeyboardInterrupt) as exc:
            if debug_env or getattr(state, "debug", False):
                traceback.print_exc()
            if (not isinstance(exc, CommandFailed) or str(exc)) and printing_rank(exc):
                click.echo(f"hpgraph: error: {_message(exc)}", err=True)
            code = exit_code_for(exc)
        else:
            code = rv if isinstance(rv, int) else 0
        if not standalone_mode:
            return code
        sys.exit(code)


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(
    __version__, "-V", "--version", prog_name="hpgraph", message="%(prog)s %(version)s"
)
@click.option("--debug", is_flag=True, help="Show the traceback of an error.")
@click.pass_context
def cli(ctx, debug):
    """hpgraph: BSP / vertex-centric graph analytics with compiled (numba) vertex programs.

    \b
    Quick start:
      hpgraph communities mention:300k:400k -o report
                                            the seed's application: communities, leaders,
                                            layout and pictures of mention data
      hpgraph demo                          generate, run and verify every kernel
      hpgraph generate kronecker --scale 16 -o kron16.hpgc
      hpgraph info kron16.hpgc
      hpgraph run pagerank kron16.hpgc --stats -o ranks.parquet
      hpgraph run bfs edges.txt --source alice --verify -o depths.csv
      hpgraph bench kronecker:16 --kernels bfs,pagerank --trials 3

    INPUT is a graph file (.el .txt .edges .edgelist .csv .tsv .snap .mtx, optionally
    .gz; .parquet; .hpgc) or a generated graph: kronecker:SCALE[:EDGE_FACTOR], uniform:N:M.
    Exit codes: 0 ok, 1 verification failure or kernel error, 2 bad input or usage.
    """
    ctx.ensure_object(State).debug = debug


for _command in (
    _communities.communities,
    _graphs.generate,
    _graphs.info,
    _run.run,
    _graphs.convert,
    _bench.bench,
    _bench.cbench,
    _bench.demo,
    _rdf.rdf,
    _rdf.sparql,
    _checkpoint.checkpoint,
    _checkpoint.faults,
):
    cli.add_command(_command)


def main(argv=None) -> None:
    """Console entry point (``hpgraph``)."""
    cli.main(args=argv, prog_name="hpgraph")


if __name__ == "__main__":
    main()
