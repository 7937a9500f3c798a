"""Options and helpers every command shares: --format/--output/--quiet, the catalog,
inventory, history-database, horizon and batch options, the guard that turns every input error
into exit code 2 with a clear message (and, under --format json, a JSON error document on
stdout), and writing a result to stdout or a file."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import signal
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from placement.errors import (
    EXIT_BAD_INPUT,
    EXIT_CLUSTER_FAILED,
    EXIT_OK,
    EXIT_UNPLACED,
    ClusterError,
    PlacementInputError,
)
from placement.horizon.limits import MAX_HORIZON_MONTHS
from placement.reading.sources import INPUT_FORMATS
from placement.reporting.formats import FORMATS
from placement.reporting.terminal import file_console, stderr_console, stdout_console
from placement.solving.choices import DEFAULT_GAP, MAX_WORKERS, SOLVERS
from placement.writing.files import STDOUT, Content, write_files

if TYPE_CHECKING:
    from placement.catalog import CatalogSource
    from placement.models.plan import Plan
    from placement.models.risk import RiskResult
    from placement.pipeline import PlanResult
    from placement.scenarios import Scenario
    from placement.storing import History

DEBUG_ENV = "PLACEMENT_DEBUG"
"""Set to show the traceback of an internal error instead of a one-line message."""


CATALOG_ENV = "PLACEMENT_CATALOG"
"""Names the team's catalog file, so that no call needs ``--catalog``."""


Renderer = Callable[[Console], Content]


class FiniteFloatRange(click.FloatRange):
    """click's ``FloatRange``, finite: it lets ``nan`` through (NaN compares false with both
    limits: ``--gap nan`` was solved at the default gap and reported 'optimal') and an
    infinity past a limit it does not set (``--time-limit inf``). Every number option of the
    command line is one of these."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(
                f"{value!r} is not a finite number: expected a finite number in the range "
                f"{self._describe_range()}",
                param,
                ctx,
            )
        return number


def _to_stdout(output: str | None) -> bool:
    return output is None or output == STDOUT


def emit(render: Renderer, output: str | None, quiet: bool) -> None:
    """Render the result and write it to stdout or ``--output`` (by the safe-file rules).

    ``render`` receives the console a table is drawn on: the terminal's when the result goes
    to stdout, a plain one for a file. ``--quiet`` drops a result meant for stdout.
    """
    if _to_stdout(output) and quiet:
        return
    console = stdout_console() if _to_stdout(output) else file_console()
    write_files({output or STDOUT: render(console)})


def output_format_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format. json is also used for errors.",
    )(func)


output_option = click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write to this file instead of stdout ('-'): atomically, keeping its permissions.",
)


quiet_option = click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Print nothing but errors (a result still goes to --output).",
)


def output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--format``, ``--output`` and ``--quiet``, shared by every command that prints results."""
    return output_format_option(output_option(quiet_option(func)))


def catalog_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--catalog FILE`` (or ``PLACEMENT_CATALOG``) and repeatable ``--set path=value``."""

    @click.option(
        "--catalog",
        "catalog_path",
        type=click.Path(dir_okay=False),
        envvar=CATALOG_ENV,
        show_envvar=True,
        help="Catalog YAML file, or a packaged catalog's name (aws-2026: public AWS figures), "
        "to use instead of the packaged default (default-2026, the reference document's).",
    )
    @click.option(
        "--set",
        "overrides",
        multiple=True,
        metavar="PATH=VALUE",
        help="Override one catalog value (repeatable), e.g. economics.amortization_months=24.",
    )
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


db_option = click.option(
    "--db",
    metavar="URL",
    envvar="PLACEMENT_DB",
    show_envvar=True,
    help="The history database: an SQLite file path or any SQLAlchemy URL (default: "
    "~/.local/share/placement/history.sqlite).",
)
"""``--db``: where planning cycles are saved (plan --save, history, show, diff)."""


def save_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--save``, ``--cycle LABEL`` and ``--db``: save the run as a planning cycle."""
    f = db_option(f)
    f = click.option("--cycle", metavar="LABEL", help="The planning cycle's label, e.g. 2027-Q1.")(
        f
    )
    return click.option(
        "--save",
        is_flag=True,
        help="Save the run (inventory, catalog, scenario, plan) as a planning cycle; "
        "needs --cycle.",
    )(f)


def opened_history(save: bool, cycle: str | None, db: str | None) -> History | None:
    """The history database a run is saved to (None without --save), opened and checked
    writable before any solve, so that a bad --db fails before the work."""
    from placement.models.labels import label_problem

    if save and not cycle:
        raise click.UsageError("--save needs --cycle LABEL (e.g. --cycle 2027-Q1)")
    if cycle and not save:
        raise click.UsageError("--cycle is the label of a saved run: add --save")
    if cycle and (wrong := label_problem(cycle)):
        raise click.BadParameter(f"expected {wrong}", param_hint="--cycle")
    if not save:
        return None
    from placement.storing import History  # the database's libraries take 0.3 s to load

    history = History(db)
    history.check_writable()
    return history


def save_run(
    history: History | None,
    result: PlanResult,
    cycle: str | None,
    scenario: Scenario | None,
    quiet: bool,
    risk: RiskResult | None = None,
) -> None:
    """Save the run (after its output is written: a database that refuses it loses nothing),
    whole or not at all, and say where."""
    if history is None or not cycle:
        return
    with interrupts_held() as held:  # a run is saved whole or not at all, and said so
        run_id = history.save(result, cycle, scenario.text if scenario is not None else None, risk)
    if not quiet or held:
        click.echo(f"saved as run {run_id} (cycle {cycle}) in {history.shown_url}", err=True)
    deliver_held(held)


horizon_option = click.option(
    "--horizon",
    type=click.IntRange(min=1, max=MAX_HORIZON_MONTHS),
    metavar="MONTHS",
    help="Plan month by month over this many months, from where workloads run today "
    "(current_accelerator) to the plan: the ramp, ports and commitments in time. The "
    "total is then the horizon's monthly average; JSON adds 'roadmap'. See docs/roadmap.md.",
)
"""``--horizon``: a roadmap over months instead of the steady-state month."""


def error_document(title: str, problems: list[dict[str, Any]]) -> str:
    """The JSON printed on stdout for a failed command under ``--format json``."""
    document = {"status": "error", "error": title, "problems": problems}
    return json.dumps(document, indent=2) + "\n"


def _fail(
    title: str,
    text: str,
    records: list[dict[str, Any]],
    as_json: bool,
    code: int = EXIT_BAD_INPUT,
) -> None:
    click.echo(f"Error: {text}", err=True)
    if as_json:
        sys.stdout.write(error_document(title, records))
        sys.stdout.flush()
    sys.exit(code)


def guard(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every input error into a clear message and exit code 2 (never a traceback)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from placement.reading import InputError  # with pandas: only once a command runs

        as_json = kwargs.get("fmt") == "json"
        try:
            return func(*args, **kwargs)
        except (PlacementInputError, InputError) as err:
            _fail(err.title, str(err), err.records(), as_json)
        except ClusterError as err:
            _fail(err.title, str(err), err.records(), as_json, EXIT_CLUSTER_FAILED)

    return wrapper


def catalog_source(catalog_path: str | None, overrides: tuple[str, ...]) -> CatalogSource:
    """The catalog, remembering whether it came from --catalog or the environment."""
    from placement.catalog import read_catalog

    via = "default"
    if catalog_path is not None:
        from_env = click.get_current_context().get_parameter_source("catalog_path")
        via = CATALOG_ENV if from_env == click.core.ParameterSource.ENVIRONMENT else "--catalog"
    return read_catalog(catalog_path, overrides, via=via)


def inventory_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--input-format`` and ``--sheet``: how to read the inventory file."""
    func = click.option(
        "--sheet",
        metavar="NAME",
        help="The workbook sheet to read (.xlsx); by default the active visible sheet.",
    )(func)
    return click.option(
        "--input-format",
        type=click.Choice(INPUT_FORMATS),
        help="The inventory's format when its name does not say (required for '-', stdin).",
    )(func)


def batch_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--solver``, ``--time-limit``, ``--gap``, ``--workers`` and ``--scheduler``."""
    for option in reversed(
        [
            click.option(
                "--solver", type=click.Choice(SOLVERS), default="highs", show_default=True
            ),
            click.option(
                "--time-limit",
                type=FiniteFloatRange(min=0, min_open=True),
                help="Seconds per solve (results may then depend on the machine's speed). "
                "Default: none, but budgets for a --horizon (docs/roadmap.md).",
            ),
            click.option(
                "--gap",
                type=FiniteFloatRange(min=0, max=1),
                default=DEFAULT_GAP,
                show_default=True,
                help="Relative MIP gap at which each solve may stop.",
            ),
            click.option(
                "--workers",
                type=click.IntRange(min=1, max=MAX_WORKERS),
                help="Local processes solving at once (default: every core).",
            ),
            click.option(
                "--scheduler",
                metavar="ADDRESS",
                help="Run the solves on this Dask scheduler (tcp://host:8786) instead; needs "
                "the dask extra.",
            ),
        ]
    ):
        func = option(func)
    return func


def scenario_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--scenario FILE`` (into ``scenario_path``): a what-if scenario file applied first."""
    return click.option(
        "--scenario", "scenario_path", type=click.Path(dir_okay=False), help=help_text
    )


def scenario_at(path: str | None) -> Scenario | None:
    """The scenario file at ``path``, read and checked (None: no scenario)."""
    if path is None:
        return None
    from placement.scenarios import read_scenario

    return read_scenario(path)


def seed_option(help_text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--seed``: where the catalog's figures are drawn from (risk, plan --robust)."""
    return click.option(
        "--seed", type=click.IntRange(min=0), default=0, show_default=True, help=help_text
    )


class SlackType(click.ParamType):
    """A share of the plan's cost: ``1%`` or ``0.01`` (from 0 to 100%)."""

    name = "slack"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            return value
        text = str(value).strip()
        percent = text.endswith("%")
        try:
            number = float(text[:-1] if percent else text)
        except ValueError:
            number = float("nan")
        share = number / 100 if percent else number
        if not 0 <= share <= 1:  # also refuses NaN
            self.fail(
                f"{value!r}: expected a share of the cost from 0 to 1, or 0% to 100%", param, ctx
            )
        return share


SLACK = SlackType()
"""``--alternatives``' slack."""


class CvarType(click.ParamType):
    """``ALPHA:WEIGHT``: the tail level (0 < alpha < 1) and its weight (0 to 1)."""

    name = "cvar"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        alpha_text, sep, weight_text = str(value).partition(":")
        try:
            alpha, weight = float(alpha_text), float(weight_text)
        except ValueError:
            alpha = weight = float("nan")
        if not sep or not 0 < alpha < 1 or not 0 <= weight <= 1:  # also refuses NaN
            self.fail(
                f"{value!r}: expected ALPHA:WEIGHT, ALPHA between 0 and 1 (the tail is the "
                "costliest 1-ALPHA of the futures) and WEIGHT from 0 to 1, e.g. 0.9:0.5",
                param,
                ctx,
            )
        return (alpha, weight)


CVAR = CvarType()
"""``--cvar``' level and weight."""


def batch_exit_code(plans: list[Plan]) -> int:
    """0 when every plan places every workload, 3 when one does not (or has no plan)."""
    complete = all(not p.unplaced and p.status not in ("infeasible", "no_solution") for p in plans)
    return EXIT_OK if complete else EXIT_UNPLACED


@contextlib.contextmanager
def progress_bar(quiet: bool, label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on a terminal's stderr (none when piped or quiet)."""
    console = stderr_console()
    if quiet or not console.is_terminal:
        yield None
        return
    with Progress(
        f"[progress.description]{label}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


@contextlib.contextmanager
def interrupts_held() -> Iterator[list[int]]:
    """Hold SIGINT and SIGTERM while the block runs (a database commit: stopped half-way the
    user could not tell whether it landed), then deliver the first one held, once the caller
    has said what finished (``deliver_held``). Yields the signals held so far."""
    held: list[int] = []
    previous = {
        number: signal.signal(number, lambda signum, _: held.append(signum))
        for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield held
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def deliver_held(held: list[int]) -> None:
    """Raise the first signal ``interrupts_held`` held, now that the work it guarded is done."""
    if held:
        signal.raise_signal(held[0])
