"""The ``explain`` command: one workload in full, and what would move it."""

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
    output_options,
    progress_bar,
    scenario_at,
    scenario_option,
)
from placement.errors import EXIT_OK, EXIT_UNPLACED
from placement.writing.files import check_output_path


@click.command("explain")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("workload_id", metavar="ID")
@scenario_option("Apply a what-if scenario file first (catalog settings and inventory changes).")
@click.option(
    "--flip-points/--no-flip-points",
    default=True,
    show_default=True,
    help="Find how far each deciding figure must move to move the workload (re-solves the "
    "plan some tens of times; --no-flip-points: one re-solve per other accelerator).",
)
@inventory_options
@catalog_options
@batch_options
@output_options
@guard
def explain_command(
    inventory: str,
    workload_id: str,
    scenario_path: str | None,
    flip_points: bool,
    input_format: str | None,
    sheet: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    solver: str,
    time_limit: float | None,
    gap: float,
    workers: int | None,
    scheduler: str | None,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """Why the plan runs workload ID where it does, and what would move it.

    Plans the inventory, then shows every option of the workload (accelerator, pricing,
    shape, chips, TTFT loaded and unloaded, utilisation, monthly cost, or why it is not
    feasible) with the chosen one marked; the runner-up and what the whole plan costs with
    the workload pinned there; the reasons in sentences; and the flip points: how far each
    deciding figure (the accelerators' rates, the workload's volume and TTFT objective, the
    porting weeks and migration cost it depends on) must move for the plan to place it
    elsewhere, each found by re-solving the whole plan. See docs/explain.md.

    \b
    Examples:
        placement explain inputs/sample_inventory.csv llama-405b-pretrain
        placement explain inv.csv chat-8b --format json -o chat-8b.json
        placement explain inv.csv chat-8b --no-flip-points

    Exit code 0: the workload is placed; 2: bad input or an unknown ID; 3: the workload is
    not placed, or the plan has no solution.
    """
    from placement.comparing.batch import planned_inventory
    from placement.comparing.flip_points import explain_workload
    from placement.reporting.explain import render_explanation
    from placement.solving.solver import SolverOptions

    if output is not None:
        check_output_path(output)
    source = catalog_source(catalog_path, overrides)
    inv = planned_inventory(inventory, source, input_format, sheet)
    scenario = scenario_at(scenario_path)
    with progress_bar(quiet, "re-solving") as advance:
        explanation = explain_workload(
            inv,
            workload_id,
            source,
            SolverOptions(solver, time_limit, gap),
            workers=workers,
            scheduler=scheduler,
            scenario=scenario,
            progress=advance,
            flip_points=flip_points,
        )
    emit(lambda console: render_explanation(explanation, fmt, console), output, quiet)
    sys.exit(EXIT_OK if explanation.chosen is not None else EXIT_UNPLACED)
