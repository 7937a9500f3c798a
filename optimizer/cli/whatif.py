"""The ``whatif`` command: the base plan and each scenario's, side by side, with what changed."""

from __future__ import annotations

import sys

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
    seed_option,
)
from placement.uncertainty.limits import MAX_SAMPLES
from placement.writing.files import check_output_path


@click.command("whatif")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("scenarios", nargs=-1, required=True, type=click.Path(dir_okay=False))
@inventory_options
@catalog_options
@batch_options
@horizon_option
@click.option(
    "--samples",
    type=click.IntRange(min=1, max=MAX_SAMPLES),
    help="Also each plan's risk over this many futures drawn from the catalog's ranges (as "
    "'placement risk'; the same draws for every plan): how likely migrating pays, the plan "
    "held fixed (P10/P50/P90) and its regret. See docs/risk.md.",
)
@seed_option("The draws' seed, with --samples.")
@output_options
@guard
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
    samples: int | None,
    seed: int,
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
        placement whatif inv.csv inputs/scenarios/h100_price_cut.yaml --samples 50

    Exit code 0: every plan places every workload; 2: bad input; 3: some plan leaves
    workloads unplaced or has no solution.
    """
    from placement.comparing import whatif
    from placement.comparing.batch import planned_inventory
    from placement.pipeline import SolverOptions
    from placement.reporting.comparison import comparison_json_parts, render_comparison
    from placement.scenarios import read_scenarios
    from placement.writing.files import TextParts

    if output is not None:
        check_output_path(output)
    parsed = read_scenarios(scenarios)
    source = catalog_source(catalog_path, overrides)
    inv = planned_inventory(inventory, source, input_format, sheet)
    if samples:
        from placement.errors import PlacementInputError
        from placement.uncertainty.limits import sampled_work_problem

        too_much = sampled_work_problem(
            samples, len(inv.workloads), plans=len(parsed) + 1, months=horizon
        )
        if too_much:  # before any plan is made
            raise PlacementInputError([too_much], title="invalid option")
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
    if samples:
        from placement.uncertainty.compared import with_risk

        with progress_bar(quiet, "plans sampled") as advance:
            result = with_risk(
                result,
                inv,
                source,
                samples,
                seed,
                SolverOptions(solver, time_limit, gap),
                workers,
                scheduler,
                horizon,
                advance,
            )
    emit(
        lambda console: (
            TextParts(comparison_json_parts(result))
            if fmt == "json"
            else render_comparison(result, fmt, console)
        ),
        output,
        quiet,
    )
    sys.exit(batch_exit_code([o.plan for o in result.outcomes]))
