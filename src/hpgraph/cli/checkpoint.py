"""``hpgraph checkpoint list DIR``, the options that make ``hpgraph run`` checkpoint
and resume, the supervisor behind ``--max-restarts``, and ``hpgraph faults run``
(docs/checkpoints.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import click

__all__ = ["checkpoint", "faults", "checkpoint_options", "make_checkpoints", "supervise"]


@click.group(short_help="Superstep checkpoints: list them.")
def checkpoint():
    """Superstep checkpoints written by ``hpgraph run --checkpoint DIR``."""


@checkpoint.command("list")
@click.argument("folder", type=click.Path(file_okay=False))
def list_command(folder):
    """One line per complete checkpoint in FOLDER, oldest first, each starting
    ``superstep N`` (incomplete ones, without a manifest, are left out)."""
    from hpgraph.engine.checkpoint import list_checkpoints

    lines = list_checkpoints(folder)
    for line in lines:
        click.echo(line)
    if not lines:
        click.echo(f"no complete checkpoint in {folder}", err=True)


_OPTIONS = (
    click.option(
        "--checkpoint",
        "checkpoint_dir",
        type=click.Path(file_okay=False),
        help="Write superstep checkpoints to this folder (a fast tier: /dev/shm/...).",
    ),
    click.option(
        "--checkpoint-every",
        type=click.IntRange(min=1),
        help="Supersteps between checkpoints. [default: 5]",
    ),
    click.option(
        "--checkpoint-drain",
        type=click.Path(file_okay=False),
        help="Copy each checkpoint to this durable folder in the background.",
    ),
    click.option(
        "--checkpoint-keep",
        type=click.IntRange(min=1),
        help="Checkpoints kept in each folder. [default: 2]",
    ),
    click.option(
        "--resume",
        is_flag=True,
        help="Start from the newest complete checkpoint (a corrupt one: the one before).",
    ),
    click.option(
        "--max-restarts",
        type=click.IntRange(min=0),
        help="Rerun a failed job up to this many times, from its newest checkpoint.",
    ),
    click.option(
        "--inject",
        type=click.Path(dir_okay=False),
        envvar="HPGRAPH_INJECT",
        help="Fault injection: a TOML/YAML file of faults ($HPGRAPH_INJECT).",
    ),
)


def checkpoint_options(fn):
    """The checkpoint, restart and fault options of ``hpgraph run``."""
    for option in reversed(_OPTIONS):
        fn = option(fn)
    return fn


def make_checkpoints(options: dict):
    """A :class:`~hpgraph.engine.checkpoint.Checkpoints` from the options popped out of
    ``options`` (None when none is given); a usage error for options without a folder."""
    d = options.pop("checkpoint_dir")
    every, drain = options.pop("checkpoint_every"), options.pop("checkpoint_drain")
    keep, resume = options.pop("checkpoint_keep"), options.pop("resume")
    inject = options.pop("inject")
    options.pop("max_restarts")
    if d is None:
        flag = next(
            (f for f, v in (("--checkpoint-every", every), ("--checkpoint-drain", drain),
                            ("--checkpoint-keep", keep), ("--resume", resume or None))
             if v is not None), None,
        )  # fmt: skip
        if flag is not None:
            raise click.UsageError(f"{flag} needs --checkpoint DIR")
        if inject is None:
            return None
    from hpgraph.engine.checkpoint import Checkpoints

    faults = None
    if inject is not None:
        from hpgraph.runtimes.faults import Injector, load_faults

        faults = Injector(load_faults(inject))
    return Checkpoints(
        d, every=every or 5, keep=keep or 2, drain=drain, resume=resume, faults=faults
    )


def _argv_without(argv, flag):
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == flag:
            skip = True
        elif not arg.startswith(flag + "="):
            out.append(arg)
    return out


def supervise(restarts: int, argv=None) -> int:
    """Run this ``hpgraph run`` command (``argv``, default ``sys.argv[1:]``) without
    ``--max-restarts`` in a child process; while it fails, rerun it with ``--resume``
    (when it checkpoints) up to ``restarts`` times. Its exit code."""
    argv = _argv_without(sys.argv[1:] if argv is None else argv, "--max-restarts")
    resumable = any(a == "--checkpoint" or a.startswith("--checkpoint=") for a in argv)
    cmd = [sys.executable, "-m", "hpgraph.cli.main", *argv]
    attempt = 0
    while True:
        t0 = time.perf_counter()
        code = subprocess.call(cmd, env=dict(os.environ))
        if code == 0 or attempt >= restarts:
            return code
        attempt += 1
        where = "its newest checkpoint" if resumable else "the start (no --checkpoint)"
        click.echo(
            f"hpgraph: attempt {attempt} failed (exit status {code}) after "
            f"{time.perf_counter() - t0:.1f} s; restarting from {where} "
            f"(restart {attempt} of {restarts})",
            err=True,
        )
        if resumable and "--resume" not in cmd:
            cmd.append("--resume")


@click.group(short_help="Fault injection: run a campaign.")
def faults():
    """Fault injection (docs/checkpoints.md): ``hpgraph run --inject FAULTS`` acts out
    the faults of a file; ``hpgraph faults run`` runs a campaign."""


@faults.command("run")
@click.argument("fault_file", type=click.Path(dir_okay=False))
@click.option(
    "--compare",
    type=click.Path(dir_okay=False),
    help="The output file COMMAND writes: compared with the fault-free run's.",
)
@click.option(
    "--clean",
    multiple=True,
    type=click.Path(),
    help="A path removed before every run (the checkpoint folders); repeatable.",
)
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds per run.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def faults_run(fault_file, compare, clean, timeout, command):
    """Run COMMAND without faults, then once per fault of FAULT_FILE (faults sharing a
    ``run`` number together), injected through $HPGRAPH_INJECT, and print per run: the
    fault, whether it was detected and how many seconds after it acted, the restarts,
    and whether the output file (--compare) is identical to the fault-free run's.

    \b
    Example:
      hpgraph faults run faults.toml --compare pr.csv --clean /dev/shm/ck -- \\
        hpgraph run pagerank g.hpgc --ranks 2 --checkpoint /dev/shm/ck \\
        --checkpoint-every 2 --max-restarts 2 -o pr.csv
    """
    from hpgraph.runtimes.campaign import format_table, run_campaign
    from hpgraph.runtimes.faults import load_faults

    load_faults(fault_file)  # a bad file: one line, before any run
    outcomes = run_campaign(
        fault_file,
        list(command),
        compare=compare,
        clean=clean,
        timeout=timeout,
        echo=lambda text: click.echo(text, err=True),
    )
    click.echo(format_table(outcomes))
