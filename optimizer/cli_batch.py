"""The commands that run many plans: ``whatif`` (and the options they share: workers, a Dask
scheduler, a progress bar). Registered on the ``placement`` group by ``placement.cli``."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from placement.cli import (
    _catalog,
    _guard,
    catalog_options,
    cli,
    emit,
    inventory_options,
    output_options,
)
from placement.comparing import whatif
from placement.output import check_output_path
from placement.pipeline import EXIT_OK, EXIT_UNPLACED, SolverOptions
from placement.reading import read_inventory
from placement.reporting.comparison import render_comparison
from placement.reporting.terminal import stderr_console
from placement.scenarios import read_scenario
from placement.solve import DEFAULT_GAP, SOLVERS


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
    inv = read_inventory(
        inventory,
        list(source.catalog.accelerators),
        input_format=input_format,
        sheet=sheet,
        load_profiles=source.catalog.profile_kinds(),
    )
    with progress_bar(quiet, "planning") as advance:
        result = whatif(
            inv,
            parsed,
            source,
            SolverOptions(solver, time_limit, gap),
            workers=workers,
            scheduler=scheduler,
            progress=advance,
        )
    emit(lambda console: render_comparison(result, fmt, console), output, quiet)
    complete = all(
        not o.plan.unplaced and o.plan.status not in ("infeasible", "no_solution")
        for o in result.outcomes
    )
    sys.exit(EXIT_OK if complete else EXIT_UNPLACED)
