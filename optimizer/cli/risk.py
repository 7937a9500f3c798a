"""The ``risk`` command: the point plan against the catalog's ranges, by Monte Carlo."""

from __future__ import annotations

import sys

import click

from placement.cli.shared import (
    batch_options,
    catalog_options,
    catalog_source,
    emit,
    guard,
    inventory_options,
    opened_history,
    output_options,
    progress_bar,
    save_options,
    save_run,
    scenario_at,
    scenario_option,
    seed_option,
)
from placement.errors import EXIT_OK, EXIT_UNPLACED
from placement.horizon.limits import MAX_HORIZON_MONTHS
from placement.uncertainty.limits import DEFAULT_SAMPLES, MAX_SAMPLES
from placement.writing.files import check_output_path


@click.command("risk")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--samples",
    type=click.IntRange(min=1, max=MAX_SAMPLES),
    default=DEFAULT_SAMPLES,
    show_default=True,
    help="Futures to draw from the catalog's ranges.",
)
@seed_option("The draws' seed: the same seed gives the same figures, whoever runs the samples.")
@scenario_option(
    "Apply a what-if scenario file first (its catalog settings and inventory changes; "
    "--set still has the last word): the futures are drawn around the scenario's figures."
)
@click.option(
    "--horizon",
    type=click.IntRange(min=1, max=MAX_HORIZON_MONTHS),
    metavar="MONTHS",
    help="Also plan the roadmap over this many months (as 'plan --horizon') and price it, "
    "held fixed, in every future, month by month: JSON adds 'horizon' (the fan chart of its "
    "monthly cost). See docs/risk.md.",
)
@inventory_options
@catalog_options
@batch_options
@save_options
@output_options
@guard
def risk_command(
    inventory: str,
    samples: int,
    seed: int,
    scenario_path: str | None,
    horizon: int | None,
    input_format: str | None,
    sheet: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    solver: str,
    time_limit: float | None,
    gap: float,
    workers: int | None,
    scheduler: str | None,
    save: bool,
    cycle: str | None,
    db: str | None,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """How sure the plan is: the catalog's ranges sampled, every sample planned.

    Plans the inventory at the catalog's points, then in --samples futures drawn from every
    range (each by its distribution; linked figures together, docs/risk.md). Shows the spread
    of each future's optimum and of the point plan held fixed (its commitments, ports and
    migration kept, placement chosen again), its regret, how likely migrating pays, which
    figures move the cost most and how often each workload lands on Trainium2. Samples run in
    parallel (--workers, or a Dask cluster with --scheduler); the results are the same either
    way for a seed. With --horizon it also plans the roadmap and prices it, held fixed, in
    every future, month by month: the fan chart of its monthly cost (JSON 'horizon'). --save
    keeps the point plan and its risk as a planning cycle (history, show and report read it).

    \b
    Examples:
        placement risk inputs/sample_inventory.csv --samples 200 --seed 7
        placement risk inv.csv --samples 1000 --format json -o risk.json
        placement risk inv.csv --set accelerators.h100.on_demand_usd_per_chip_hour.low=3
        placement risk inv.csv --scenario inputs/scenarios/h100_price_cut.yaml
        placement risk inv.csv --samples 50 --horizon 12 --format json -o fan.json
        placement risk inv.csv --samples 200 --save --cycle 2027-Q1

    Exit code 0: the point plan places every workload; 2: bad input; 3: it leaves workloads
    unplaced or has no solution.
    """
    from placement.comparing.batch import planned_inventory
    from placement.reporting.risk import render_risk
    from placement.solving.solver import SolverOptions
    from placement.uncertainty.risk import risk_with_point_plan

    if output is not None:
        check_output_path(output)
    source = catalog_source(catalog_path, overrides)
    inv = planned_inventory(inventory, source, input_format, sheet)
    scenario = scenario_at(scenario_path)
    history = opened_history(save, cycle, db)
    with progress_bar(quiet, "sampling") as advance:
        result, point = risk_with_point_plan(
            inv,
            source,
            samples=samples,
            seed=seed,
            solver=SolverOptions(solver, time_limit, gap),
            workers=workers,
            scheduler=scheduler,
            progress=advance,
            scenario=scenario,
            horizon=horizon,
        )
    emit(lambda console: render_risk(result, fmt, console), output, quiet)
    save_run(history, point, cycle, scenario, quiet, risk=result)
    sys.exit(EXIT_OK if result.point_plan_complete else EXIT_UNPLACED)
