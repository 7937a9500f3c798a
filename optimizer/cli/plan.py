"""The plan and validate commands: the cost-optimal plan of an inventory, and every problem
of one at once."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from placement.cli.shared import (
    CVAR,
    SLACK,
    FiniteFloatRange,
    catalog_options,
    catalog_source,
    emit,
    guard,
    horizon_option,
    inventory_options,
    opened_history,
    output_options,
    save_options,
    save_run,
    scenario_at,
    scenario_option,
    seed_option,
)
from placement.solving.choices import DEFAULT_GAP, SOLVERS
from placement.uncertainty.limits import DEFAULT_ROBUST_SAMPLES, MAX_ROBUST_SAMPLES
from placement.writing.files import TextParts, check_output_path, is_regular_target, write_files

if TYPE_CHECKING:
    from placement.reporting import PlanView

# The stages a command runs are imported in its body, when it runs: ``--help`` and a usage
# error then start in a tenth of the time (docs/performance.md).


def _view(
    fmt: str, workloads: int, top: int | None, show_all: bool, summary: bool, timings: bool
) -> PlanView:
    from placement.reporting import PlanView

    if sum([top is not None, show_all, summary]) > 1:
        raise click.UsageError("use only one of --top, --all and --summary")
    if show_all:
        return PlanView(None, True, timings)
    if summary:
        return PlanView(0, False, timings)
    if top is not None:
        return PlanView(top, True, timings)
    return PlanView.default(workloads, timings, fmt)


@click.command("plan")
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
    type=FiniteFloatRange(min=0, min_open=True),
    default=None,
    help="Stop the solver after this many seconds: status 'feasible' if it has a plan by "
    "then, 'no_solution' if not. Default: none, but budgets for a --horizon (docs/roadmap.md).",
)
@click.option(
    "--gap",
    type=FiniteFloatRange(min=0, max=1),
    default=DEFAULT_GAP,
    show_default=True,
    help="Relative MIP gap at which the solver may stop.",
)
@scenario_option(
    "Apply a what-if scenario file (YAML: catalog settings and inventory changes; "
    "--set still has the last word). See docs/scenarios.md."
)
@horizon_option
@click.option(
    "--alternatives",
    type=SLACK,
    metavar="SLACK",
    help="Also find near-optimal plans within SLACK of the cost (1% or 0.01) that port the "
    "fewest families, use the least Trainium2, commit the least or do not migrate; JSON adds "
    "'alternatives'. See docs/risk.md.",
)
@click.option(
    "--robust",
    is_flag=True,
    help="Choose the commitments, ports and migration for sampled futures of the catalog's "
    "ranges at once (a two-stage stochastic program); JSON adds 'robust'. See docs/risk.md.",
)
@click.option(
    "--samples",
    type=click.IntRange(min=2, max=MAX_ROBUST_SAMPLES),
    help=f"--robust: the futures it plans for (default {DEFAULT_ROBUST_SAMPLES}); as many "
    "fresh ones check it.",
)
@seed_option("--robust: the draws' seed (the same futures as placement risk's).")
@click.option(
    "--cvar",
    type=CVAR,
    metavar="ALPHA:WEIGHT",
    help="--robust: weigh the mean cost of the costliest 1-ALPHA of the futures by WEIGHT "
    "(0 to 1) against the expected cost, e.g. 0.9:0.5.",
)
@click.option(
    "--write-model",
    type=click.Path(dir_okay=False),
    help="Also write the MILP to this file (.lp or .mps).",
)
@save_options
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
@guard
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
    alternatives: float | None,
    robust: bool,
    samples: int | None,
    seed: int,
    cvar: tuple[float, float] | None,
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
    from placement.pipeline import SolverOptions, plan
    from placement.reading.limits import SizeLimit
    from placement.reporting import plan_csv_files, render_plan
    from placement.reporting.plan import plan_json_parts, sidecar_paths
    from placement.reporting.status import stage_status

    # CSV to a file puts its other tables in files beside it; to a stream, in sections.
    csv_files = fmt == "csv" and output is not None and is_regular_target(output)
    sidecars = sidecar_paths(output, horizon is not None) if csv_files and output else []
    outputs = [output, write_model, *sidecars]
    for path in outputs:
        if path is not None:
            check_output_path(path)
    if alternatives is not None and horizon is not None:
        raise click.UsageError(
            "--alternatives varies the steady-state plan; it does not combine with --horizon"
        )
    if robust and (horizon is not None or alternatives is not None):
        raise click.UsageError(
            "--robust plans the steady state alone: not with --horizon or --alternatives"
        )
    if not robust and (samples is not None or cvar is not None):
        raise click.UsageError("--samples and --cvar go with --robust")
    scenario = scenario_at(scenario_path)
    history = opened_history(save, cycle, db)
    catalog = catalog_source(catalog_path, overrides)
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
        if robust:
            from placement.uncertainty.robust import robust_plan

            progress(f"planning for {samples or DEFAULT_ROBUST_SAMPLES} sampled futures at once")
            result = robust_plan(
                result,
                samples=samples or DEFAULT_ROBUST_SAMPLES,
                seed=seed,
                cvar=cvar,
                solver=SolverOptions(solver, time_limit, gap),
            )
        if alternatives is not None:
            from placement.uncertainty.alternatives import with_alternatives

            progress(f"finding near-optimal alternatives within {alternatives:.2%}")
            result = with_alternatives(result, alternatives, SolverOptions(solver, time_limit, gap))
    # Written after the status line is gone, so the two never interleave on a terminal.
    workloads = len(result.plan.assignments) + len(result.plan.unplaced)
    view = _view(fmt, workloads, top, show_all, summary, timings)
    if csv_files and output is not None:
        write_files(plan_csv_files(result.plan, output))
    else:
        emit(
            lambda console: (
                TextParts(plan_json_parts(result.plan))
                if fmt == "json"
                else render_plan(result.plan, fmt, view, console)
            ),
            output,
            quiet,
        )
    # Saved once the output is written: a database that refuses the run loses no plan.
    save_run(history, result, cycle, scenario, quiet)
    sys.exit(result.exit_code)


@click.command("validate")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@inventory_options
@catalog_options
@output_options
@guard
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
    from placement.reading import inventory_summary, read_inventory
    from placement.reporting import render_records

    if output is not None:
        check_output_path(output)
    catalog = catalog_source(catalog_path, overrides).catalog
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
