"""The ``placement`` command group and its entry point: every command registered, usage errors
and internal errors turned into clear messages and exit codes.

The command line is thin over the Python API (parse, call one function, format): each command
group lives in its own module beside this one (``plan``, ``catalog``, ``reference``,
``whatif``, ``sweep``, ``history``), and the options and helpers they share in ``shared``.
"""

from __future__ import annotations

import os
import signal
import sys

import click

from placement.cli.catalog import catalog_group
from placement.cli.explain import explain_command
from placement.cli.history import diff_command, history_command, show_command
from placement.cli.plan import plan_command, validate_command
from placement.cli.reference import reference_command
from placement.cli.report import report_command
from placement.cli.risk import risk_command
from placement.cli.shared import (
    DEBUG_ENV,
    error_document,
)
from placement.cli.sweep import sweep_command
from placement.cli.whatif import whatif_command
from placement.errors import Problem

EXIT_INTERNAL_ERROR = 1
EXIT_SIGNAL_BASE = 128
"""A command stopped by signal N exits 128 + N (130 for Ctrl-C, 143 for SIGTERM), as a shell
reports it."""

_SIGNALS_RECEIVED: list[int] = []


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="placement")
def cli() -> None:
    """Cost-optimal placement of ML workloads on Trainium2 and H100, on-demand or reserved.

    The catalog (prices, hardware, workload model) is the packaged default unless --catalog or
    the PLACEMENT_CATALOG environment variable names another.
    """


def _json_requested(args: list[str]) -> bool:
    """Whether the command line asks for ``--format json`` (read before click parses it)."""
    for i, arg in enumerate(args):
        if arg == "--format=json" or (arg == "--format" and args[i + 1 : i + 2] == ["json"]):
            return True
    return False


def main(args: list[str] | None = None) -> None:
    """Console-script entry point.

    Usage errors (an unknown option, a bad value) exit 2 as click reports them; under
    ``--format json`` they are also a JSON error document on stdout. A closed pipe (``| head``)
    ends the command quietly.
    """
    argv = list(sys.argv[1:] if args is None else args)
    # SIGTERM ends a command as Ctrl-C does: a file being written is removed, not left
    # half-written, and worker processes are stopped rather than left solving.
    previous = {s: signal.signal(s, _interrupted) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = cli.main(argv, prog_name="placement", standalone_mode=False)
    except click.ClickException as err:
        err.show()
        if _json_requested(argv):
            problem = Problem(err.format_message(), expected="a valid command line")
            sys.stdout.write(error_document("invalid usage", [problem.record()]))
        sys.exit(err.exit_code)
    except click.Abort:
        received = _SIGNALS_RECEIVED[-1] if _SIGNALS_RECEIVED else signal.SIGINT
        click.echo(f"Interrupted ({signal.Signals(received).name}): stopped; no partial output "
                   "was left.", err=True)  # fmt: skip
        _exit_past_running_solves(EXIT_SIGNAL_BASE + received)
        sys.exit(EXIT_SIGNAL_BASE + received)
    except BrokenPipeError:
        # Python would complain when flushing stdout at exit; point it at /dev/null instead.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except Exception as err:  # a bug: say so plainly; the traceback is there on request
        if os.environ.get(DEBUG_ENV):
            raise
        click.echo(
            f"Error: an internal error stopped placement ({type(err).__name__}: {err}). "
            f"This is a bug; run again with {DEBUG_ENV}=1 to see where, and report it.",
            err=True,
        )
        sys.exit(EXIT_INTERNAL_ERROR)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    sys.exit(code if isinstance(code, int) else 0)


def _exit_past_running_solves(code: int) -> None:
    """Exit at once where an interrupt left a HiGHS solve running in its thread
    (``placement.solving.solver.run_highs``) or a piece of a solve in the background
    (``placement.solving.background``): the interpreter's shutdown would otherwise tear down
    under it. Everything to clean up has been cleaned up by then."""
    solver = sys.modules.get("placement.solving.solver")
    background = sys.modules.get("placement.solving.background")
    if (solver is not None and solver.SOLVES_LEFT_RUNNING) or (
        background is not None and background.RUNNING
    ):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _interrupted(signum: int, frame: object) -> None:
    _SIGNALS_RECEIVED.append(signum)
    raise KeyboardInterrupt


# The batch and history commands live in their own module and register on ``cli`` when imported;
# imported last, once everything they use from here exists.


for command in (
    plan_command,
    validate_command,
    catalog_group,
    reference_command,
    whatif_command,
    sweep_command,
    risk_command,
    explain_command,
    report_command,
    history_command,
    show_command,
    diff_command,
):
    cli.add_command(command)
