"""The sweep command: the optimum along one or two parameters, its break-evens and a chart."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from placement.cli.shared import (
    batch_exit_code,
    batch_options,
    catalog_options,
    catalog_source,
    emit,
    guard,
    horizon_option,
    inventory_options,
    output_options,
    progress_bar,
)
from placement.reporting.formats import CHART_FORMATS
from placement.writing.files import check_output_path, write_files


@click.command("sweep")
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
@guard
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
    to 1/256 of the grid step (at most 16 solves for each step whose decisions differ; past
    that, as far as it got). A second --param/--range makes a grid, bisected along the first.

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
    from placement.comparing.batch import planned_inventory
    from placement.comparing.sweep import Parameter, sweep
    from placement.pipeline import SolverOptions
    from placement.reporting.sweep import render_sweep, sweep_chart

    if len(params) != len(ranges) or len(params) > 2:
        raise click.UsageError("give one or two --param, each with its --range")
    for path in (output, chart):
        if path is not None:
            check_output_path(path)
    suffix = Path(chart).suffix.lower() if chart else None
    if chart and suffix not in CHART_FORMATS:
        raise click.UsageError(f"--chart {chart}: expected a file ending in .svg or .png")
    parameters = [Parameter.parse_range(p, r) for p, r in zip(params, ranges, strict=True)]
    source = catalog_source(catalog_path, overrides)
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
    sys.exit(batch_exit_code([p.plan for p in result.points]))
