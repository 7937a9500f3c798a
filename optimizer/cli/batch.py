"""The commands that run many plans: ``whatif`` and ``sweep`` (and the options they share:
workers, a Dask scheduler, a progress bar). Registered on the ``placement`` group by
``placement.cli.main``."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from placement.cli.main import (
    _catalog,
    _guard,
    catalog_options,
    cli,
    emit,
    horizon_option,
    inventory_options,
    output_options,
)
from placement.comparing import whatif
from placement.comparing.batch import planned_inventory
from placement.comparing.sweep import Parameter, sweep
from placement.models.plan import Plan
from placement.pipeline import EXIT_OK, EXIT_UNPLACED, SolverOptions
from placement.reporting.comparison import render_comparison
from placement.reporting.sweep import CHART_FORMATS, render_sweep, sweep_chart
from placement.reporting.terminal import stderr_console
from placement.scenarios import read_scenario
from placement.solving.solver import DEFAULT_GAP, SOLVERS
from placement.writing.files import check_output_path, write_files


def batch_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--solver``, ``--time-limit``, ``--gap``, ``--workers`` and ``--scheduler``."""
    for option in reversed(
        [
            click.option(
                "--solver", type=click.Choice(SOLVERS), default="highs", show_default=True
            ),
            click.option(
                "--time-limit",
                type=click.FloatRange(min=0, min_open=True),
                help="Seconds per solve (results may then depend on the machine's speed).",
            ),
            click.option(
                "--gap",
                type=click.FloatRange(min=0, max=1),
                default=DEFAULT_GAP,
                show_default=True,
                help="Relative MIP gap at which each solve may stop.",
            ),
            click.option(
                "--workers",
                type=click.IntRange(min=1),
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


def _exit_code(plans: list[Plan]) -> int:
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
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


@cli.command("whatif")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(dir_okay=False))
@inventory_options
@catalog_options
@batch_options
@horizon_option
@output_options
@_guard
def whatif_command(
    inventory: str,
    scenarios: tuple[str, ...],
    input_format: str | None,
    sheet: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    solver: str,
    time_limit: float | None,
    gap: float,
    workers: int | None,
    scheduler: str | None,
    horizon: int | None,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """The base plan and each scenario's, side by side, and what each changes.

    Shows, per plan: monthly cost and its parts, chip-hours by accelerator, commitments
    bought, coverage and utilization, families ported, migration, savings against the
    baselines; then, per scenario, the workloads that moved, from where to where, and why.
    The plans are solved in parallel (--workers, or a Dask cluster with --scheduler); the
    results are the same either way. Scenario files: docs/scenarios.md.

    \b
    Examples:
        placement whatif inputs/sample_inventory.csv inputs/scenarios/*.yaml
        placement whatif inv.csv cut.yaml --format json -o whatif.json
        placement whatif inv.csv a.yaml b.yaml --scheduler tcp://10.0.0.5:8786

    Exit code 0: every plan places every workload; 2: bad input; 3: some plan leaves
    workloads unplaced or has no solution.
    """
    if output is not None:
        check_output_path(output)
    parsed = [read_scenario(path) for path in scenarios]
    source = _catalog(catalog_path, overrides)
    inv = planned_inventory(inventory, source, input_format, sheet)
    with progress_bar(quiet, "planning") as advance:
        result = whatif(
            inv,
            parsed,
            source,
            SolverOptions(solver, time_limit, gap),
            workers=workers,
            scheduler=scheduler,
            progress=advance,
            horizon=horizon,
        )
    emit(lambda console: render_comparison(result, fmt, console), output, quiet)
    sys.exit(_exit_code([o.plan for o in result.outcomes]))


@cli.command("sweep")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--param",
    "params",
    multiple=True,
    required=True,
    metavar="PATH",
    help="A catalog path (as --set takes it), inventory.COLUMN (every workload) or "
    "inventory[ID].COLUMN (one); give two for a grid.",
)
@click.option(
    "--range",
    "ranges",
    multiple=True,
    required=True,
    metavar="START:STOP:STEPS",
    help="The values of the --param in the same position: STEPS points, ends included.",
)
@click.option(
    "--chart",
    type=click.Path(dir_okay=False),
    help="Also draw the cost along the sweep, break-evens and optimum marked (.svg or .png).",
)
@inventory_options
@catalog_options
@batch_options
@horizon_option
@output_options
@_guard
def sweep_command(
    inventory: str,
    params: tuple[str, ...],
    ranges: tuple[str, ...],
    chart: str | None,
    input_format: str | None,
    sheet: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    solver: str,
    time_limit: float | None,
    gap: float,
    workers: int | None,
    scheduler: str | None,
    horizon: int | None,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """The optimum along a parameter, and every break-even where the plan changes.

    The plan is solved at every grid point (in parallel); where the placements, ports or
    migration differ between two neighbouring points, the break-even is found by bisection,
    to 1/256 of the grid step. A second --param/--range makes a grid, bisected along the first.

    \b
    Examples:
        placement sweep inv.csv --param inventory.h100_gpu_hours \\
            --range 1000:40000:14
        placement sweep inv.csv --chart h100.svg \\
            --param accelerators.h100.on_demand_usd_per_chip_hour --range 2:6:9
        placement sweep inv.csv \\
            --param economics.amortization_months --range 6:36:6 \\
            --param platforms.neuron.migration_one_off_usd --range 0:500000:6
    """
    if len(params) != len(ranges) or len(params) > 2:
        raise click.UsageError("give one or two --param, each with its --range")
    for path in (output, chart):
        if path is not None:
            check_output_path(path)
    suffix = Path(chart).suffix.lower() if chart else None
    if chart and suffix not in CHART_FORMATS:
        raise click.UsageError(f"--chart {chart}: expected a file ending in .svg or .png")
    parameters = [Parameter.parse_range(p, r) for p, r in zip(params, ranges, strict=True)]
    source = _catalog(catalog_path, overrides)
    inv = planned_inventory(inventory, source, input_format, sheet)
    with progress_bar(quiet, "sweeping") as advance:
        result = sweep(
            inv,
            parameters,
            source,
            SolverOptions(solver, time_limit, gap),
            workers=workers,
            scheduler=scheduler,
            progress=advance,
            horizon=horizon,
        )
    if chart and suffix:
        write_files({chart: sweep_chart(result, suffix)})
    emit(lambda console: render_sweep(result, fmt, console), output, quiet)
    sys.exit(_exit_code([p.plan for p in result.points]))
