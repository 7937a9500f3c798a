"""The ``placement`` command line: thin over the Python API (parse, call one function, format).

Shared behaviour lives in a few decorators: ``output_options`` (``--format``, ``--output``,
``--quiet``), ``catalog_options`` (``--catalog`` or ``PLACEMENT_CATALOG``, ``--set``) and
``_guard``, which turns every input error into exit code 2 with a clear message (and, under
``--format json``, a JSON error document on stdout).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from placement.catalog import CatalogSource, catalog_records, catalog_to_yaml, read_catalog
from placement.comparing.reference import reference_report, write_reference_inputs
from placement.errors import PlacementInputError, Problem
from placement.horizon.timeline import MAX_HORIZON_MONTHS
from placement.pipeline import EXIT_BAD_INPUT, SolverOptions, plan
from placement.reading import INPUT_FORMATS, InputError, inventory_summary, read_inventory
from placement.reading.limits import SizeLimit
from placement.reporting import FORMATS, PlanView, plan_csv_files, render_plan, render_records
from placement.reporting.plan import sidecar_paths
from placement.reporting.reference import render_reference
from placement.reporting.status import stage_status
from placement.reporting.terminal import file_console, stdout_console
from placement.scenarios import read_scenario
from placement.solving.solver import DEFAULT_GAP, SOLVERS
from placement.storing import History
from placement.writing.files import STDOUT, check_output_path, is_regular_target, write_files

DEBUG_ENV = "PLACEMENT_DEBUG"
"""Set to show the traceback of an internal error instead of a one-line message."""
EXIT_INTERNAL_ERROR = 1
CATALOG_ENV = "PLACEMENT_CATALOG"
"""Names the team's catalog file, so that no call needs ``--catalog``."""

Renderer = Callable[[Console], str]


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


def _output_format_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format. json is also used for errors.",
    )(func)


_output_option = click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write to this file instead of stdout ('-'): atomically, keeping its permissions.",
)

_quiet_option = click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Print nothing but errors (a result still goes to --output).",
)


def output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--format``, ``--output`` and ``--quiet``, shared by every command that prints results."""
    return _output_format_option(_output_option(_quiet_option(func)))


def catalog_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--catalog FILE`` (or ``PLACEMENT_CATALOG``) and repeatable ``--set path=value``."""

    @click.option(
        "--catalog",
        "catalog_path",
        type=click.Path(dir_okay=False),
        envvar=CATALOG_ENV,
        show_envvar=True,
        help="Catalog YAML to use instead of the packaged default.",
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


def _fail(title: str, text: str, records: list[dict[str, Any]], as_json: bool) -> None:
    click.echo(f"Error: {text}", err=True)
    if as_json:
        sys.stdout.write(error_document(title, records))
        sys.stdout.flush()
    sys.exit(EXIT_BAD_INPUT)


def _guard(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every input error into a clear message and exit code 2 (never a traceback)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = kwargs.get("fmt") == "json"
        try:
            return func(*args, **kwargs)
        except (PlacementInputError, InputError) as err:
            _fail(err.title, str(err), err.records(), as_json)

    return wrapper


def _catalog(catalog_path: str | None, overrides: tuple[str, ...]) -> CatalogSource:
    """The catalog, remembering whether it came from --catalog or the environment."""
    via = "default"
    if catalog_path is not None:
        from_env = click.get_current_context().get_parameter_source("catalog_path")
        via = CATALOG_ENV if from_env == click.core.ParameterSource.ENVIRONMENT else "--catalog"
    return read_catalog(catalog_path, overrides, via=via)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="placement")
def cli() -> None:
    """Cost-optimal placement of ML workloads on Trainium2 and H100, on-demand or reserved.

    The catalog (prices, hardware, workload model) is the packaged default unless --catalog or
    the PLACEMENT_CATALOG environment variable names another.
    """


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


def _view(
    fmt: str, workloads: int, top: int | None, show_all: bool, summary: bool, timings: bool
) -> PlanView:
    if sum([top is not None, show_all, summary]) > 1:
        raise click.UsageError("use only one of --top, --all and --summary")
    if show_all:
        return PlanView(None, True, timings)
    if summary:
        return PlanView(0, False, timings)
    if top is not None:
        return PlanView(top, True, timings)
    return PlanView.default(workloads, timings, fmt)


@cli.command("plan")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@inventory_options
@catalog_options
@click.option(
    "--solver",
    type=click.Choice(SOLVERS),
    default="highs",
    show_default=True,
    help="MILP solver: HiGHS (highspy) or CBC (bundled with PuLP).",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Stop the solver after this many seconds: status 'feasible' if it has a plan by "
    "then, 'no_solution' if not.",
)
@click.option(
    "--gap",
    type=click.FloatRange(min=0, max=1),
    default=DEFAULT_GAP,
    show_default=True,
    help="Relative MIP gap at which the solver may stop.",
)
@click.option(
    "--scenario",
    "scenario_path",
    type=click.Path(dir_okay=False),
    help="Apply a what-if scenario file (YAML: catalog settings and inventory changes; "
    "--set still has the last word). See docs/scenarios.md.",
)
@horizon_option
@click.option(
    "--write-model",
    type=click.Path(dir_okay=False),
    help="Also write the MILP to this file (.lp or .mps).",
)
@click.option(
    "--save",
    is_flag=True,
    help="Save the run (inventory, catalog, scenario, plan) as a planning cycle; needs --cycle.",
)
@click.option("--cycle", metavar="LABEL", help="The planning cycle's label, e.g. 2027-Q1.")
@db_option
@click.option(
    "--top",
    type=click.IntRange(min=0),
    help="Table and Markdown: list the N costliest workloads, each with its reason.",
)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Table and Markdown: list every workload with its reason.",
)
@click.option(
    "--summary",
    is_flag=True,
    help="Table and Markdown: the summary and the purchases only, no workloads.",
)
@click.option(
    "--max-workloads",
    type=click.IntRange(min=1),
    help="Refuse inventories with more workloads than this (default: what this machine's "
    "available memory can plan, estimated before any work starts).",
)
@click.option(
    "--timings",
    is_flag=True,
    help="Table and Markdown: show the solver's run time (left out so re-runs diff clean).",
)
@output_options
@_guard
def plan_command(
    inventory: str,
    input_format: str | None,
    sheet: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    solver: str,
    time_limit: float | None,
    gap: float,
    scenario_path: str | None,
    horizon: int | None,
    write_model: str | None,
    save: bool,
    cycle: str | None,
    db: str | None,
    top: int | None,
    show_all: bool,
    summary: bool,
    max_workloads: int | None,
    timings: bool,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """The cost-optimal plan for an inventory ('-' reads stdin).

    The table lists every workload of a small inventory (up to 40) with the reason for its
    placement, and the 10 costliest of a larger one; --top, --all and --summary choose.
    CSV written to a file puts the purchases, porting and totals in files beside it
    (plan.purchases.csv, ...); on stdout they follow as '# name' sections.

    \b
    Examples:
        placement plan inputs/sample_inventory.csv
        placement plan inv.csv --format json -o plan.json
        placement plan inv.xlsx --set economics.amortization_months=24
        placement plan inv.csv --scenario h100_price_cut.yaml
        placement plan inv.csv --horizon 24
        placement plan inv.csv --save --cycle 2027-Q1
        cat inv.csv | placement plan - --input-format csv --summary

    Exit code 0: every workload planned; 2: bad input; 3: some workloads cannot be placed
    anywhere (listed with reasons; the rest is planned) or no plan exists.
    """
    # CSV to a file puts its other tables in files beside it; to a stream, in sections.
    csv_files = fmt == "csv" and output is not None and is_regular_target(output)
    sidecars = sidecar_paths(output, horizon is not None) if csv_files and output else []
    outputs = [output, write_model, *sidecars]
    for path in outputs:
        if path is not None:
            check_output_path(path)
    if save and not cycle:
        raise click.UsageError("--save needs --cycle LABEL (e.g. --cycle 2027-Q1)")
    if cycle and not save:
        raise click.UsageError("--cycle is the label of a saved run: add --save")
    scenario = read_scenario(scenario_path) if scenario_path is not None else None
    history = History(db) if save else None  # opened first: a bad --db fails before solving
    catalog = _catalog(catalog_path, overrides)
    with stage_status(quiet) as progress:
        result = plan(
            inventory,
            catalog,
            SolverOptions(solver, time_limit, gap),
            model_path=write_model,
            progress=progress,
            input_format=input_format,
            sheet=sheet,
            limit=SizeLimit(max_workloads),
            scenario=scenario,
            horizon=horizon,
        )
    if history is not None and cycle:
        scenario_text = Path(scenario_path).read_text(encoding="utf-8") if scenario_path else None
        run_id = history.save(result, cycle, scenario_text)
        if not quiet:
            click.echo(f"saved as run {run_id} (cycle {cycle}) in {history.url}", err=True)
    # Written after the status line is gone, so the two never interleave on a terminal.
    workloads = len(result.plan.assignments) + len(result.plan.unplaced)
    view = _view(fmt, workloads, top, show_all, summary, timings)
    if csv_files and output is not None:
        write_files(plan_csv_files(result.plan, output))
    else:
        emit(
            lambda console: render_plan(result.plan, fmt, view, console),
            output,
            quiet,
        )
    sys.exit(result.exit_code)


@cli.command("validate")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@inventory_options
@catalog_options
@output_options
@_guard
def validate_command(
    inventory: str,
    input_format: str | None,
    sheet: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """Check an inventory and report every problem at once (exit 2 if any; '-' reads stdin).

    \b
    Examples:
        placement validate inputs/sample_inventory.csv
        placement validate inv.csv --format json    # errors as JSON objects too
    """
    if output is not None:
        check_output_path(output)
    catalog = _catalog(catalog_path, overrides).catalog
    inv = read_inventory(
        inventory,
        list(catalog.accelerators),
        input_format=input_format,
        sheet=sheet,
        load_profiles=catalog.profile_kinds(),
    )
    records = [inventory_summary(inv, catalog.families)]
    emit(
        lambda console: render_records(records, fmt, f"{inv.source}: valid", console),
        output,
        quiet,
    )


@cli.group("catalog")
def catalog_group() -> None:
    """Show or export the catalog (prices, hardware, workload model, sources)."""


@catalog_group.command("show")
@catalog_options
@output_options
@_guard
def catalog_show(
    catalog_path: str | None,
    overrides: tuple[str, ...],
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """Every catalog figure with its range, point estimate and source.

    \b
    Example:
        placement catalog show --set accelerators.trn2.on_demand_usd_per_chip_hour=0.5
    """
    catalog = _catalog(catalog_path, overrides).catalog
    records = catalog_records(catalog)
    emit(
        lambda console: render_records(records, fmt, f"Catalog {catalog.name}", console),
        output,
        quiet,
    )


@catalog_group.command("export")
@catalog_options
@_output_option
@_quiet_option
@_guard
def catalog_export(
    catalog_path: str | None, overrides: tuple[str, ...], output: str | None, quiet: bool
) -> None:
    """The catalog as YAML, as written (comments kept) with the overrides applied; edit it and
    pass it back with --catalog.

    \b
    Example:
        placement catalog export -o my_catalog.yaml
    """
    source = _catalog(catalog_path, overrides)
    emit(lambda _: catalog_to_yaml(source), output, quiet)


@cli.command("reference")
@catalog_options
@click.option(
    "--write-inputs",
    type=click.Path(file_okay=False),
    help="Also write the inventories of every case (inputs/reference/) to this folder.",
)
@output_options
@_guard
def reference_command(
    catalog_path: str | None,
    overrides: tuple[str, ...],
    write_inputs: str | None,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """The reference document's figures beside the model's, with deviations.

    Each row is a figure of the document (training table, inference benchmark, latency, prices,
    the monthly cost table's pure rows), the model's figure for the same case from its own
    estimates, the deviation outside the printed range, and whether it is within tolerance.
    Break-evens (the training volume from which Trainium2 pays for its porting and migration)
    follow; the document does not give them.

    \b
    Examples:
        placement reference
        placement reference --set platforms.neuron.sdk_version=2.17 --format md
    """
    catalog = _catalog(catalog_path, overrides).catalog
    if write_inputs is not None:
        write_reference_inputs(write_inputs)
    report = reference_report(catalog)
    emit(
        lambda console: render_reference(report, fmt, console),
        output,
        quiet,
    )


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
    try:
        code = cli.main(argv, prog_name="placement", standalone_mode=False)
    except click.ClickException as err:
        err.show()
        if _json_requested(argv):
            problem = Problem(err.format_message(), expected="a valid command line")
            sys.stdout.write(error_document("invalid usage", [problem.record()]))
        sys.exit(err.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
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
    sys.exit(code if isinstance(code, int) else 0)


# The batch and history commands live in their own module and register on ``cli`` when imported;
# imported last, once everything they use from here exists.
from placement.cli import batch, history as history_commands  # noqa: E402, F401, I001
