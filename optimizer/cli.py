"""The ``placement`` command line: thin over the Python API (parse, call one function, format)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import click

from placement.catalog import catalog_records, catalog_to_yaml, load_catalog
from placement.errors import PlacementInputError
from placement.inventory import InputError, read_inventory
from placement.models.catalog import Catalog
from placement.output import STDOUT, check_output_path, write_output
from placement.pipeline import EXIT_BAD_INPUT, SolverOptions, plan
from placement.reference import reference_report, render_reference, write_reference_inputs
from placement.report import FORMATS, render_plan, render_records
from placement.solve import DEFAULT_GAP, SOLVERS


def emit(text: str, output: str | None) -> None:
    """The command's result: on stdout, or written to ``--output`` by the safe-file rules."""
    write_output(output or STDOUT, text)


_output_option = click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write to this file instead of stdout ('-'): atomically, keeping its permissions.",
)


def output_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--format`` and ``--output``, shared by every command that prints results."""

    @click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format.",
    )
    @_output_option
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


def catalog_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--catalog FILE`` and repeatable ``--set dotted.path=value``."""

    @click.option(
        "--catalog",
        "catalog_path",
        type=click.Path(dir_okay=False),
        help="Catalog YAML to use instead of the packaged default.",
    )
    @click.option(
        "--set",
        "overrides",
        multiple=True,
        metavar="PATH=VALUE",
        help="Override one catalog value, e.g. accelerators.h100.on_demand_usd_per_chip_hour=3.2.",
    )
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


def _fail(message: str) -> None:
    click.echo(f"Error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def _guard(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every input error into a clear message and exit code 2 (never a traceback)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (PlacementInputError, InputError) as err:
            _fail(str(err))

    return wrapper


def _catalog(catalog_path: str | None, overrides: tuple[str, ...]) -> Catalog:
    return load_catalog(catalog_path, overrides)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="placement")
def cli() -> None:
    """Cost-optimal placement of ML workloads on Trainium2 and H100, on-demand or reserved."""


@cli.command("plan")
@click.argument("inventory", type=click.Path(dir_okay=False))
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
    help="Stop the solver after this many seconds (status 'feasible' if not proven).",
)
@click.option(
    "--gap",
    type=click.FloatRange(min=0, max=1),
    default=DEFAULT_GAP,
    show_default=True,
    help="Relative MIP gap at which the solver may stop.",
)
@click.option(
    "--write-model",
    type=click.Path(dir_okay=False),
    help="Also write the MILP to this file (.lp or .mps).",
)
@output_options
@_guard
def plan_command(
    inventory: str,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    solver: str,
    time_limit: float | None,
    gap: float,
    write_model: str | None,
    fmt: str,
    output: str | None,
) -> None:
    """The cost-optimal plan for an inventory.

    \b
    Example:
        placement plan inputs/sample_inventory.csv
        placement plan inv.csv --set economics.amortization_months=24 --format json -o plan.json

    Exit code 0: every workload planned; 2: bad input; 3: some workloads cannot be placed
    anywhere (listed with reasons; the rest is planned) or no plan exists.
    """
    for path in (output, write_model):
        if path is not None:
            check_output_path(path)
    catalog = _catalog(catalog_path, overrides)
    result = plan(
        inventory, catalog, SolverOptions(solver, time_limit, gap), model_path=write_model
    )
    emit(render_plan(result.plan, fmt), output)
    sys.exit(result.exit_code)


@cli.command("validate")
@click.argument("inventory", type=click.Path(dir_okay=False))
@catalog_options
@output_options
@_guard
def validate_command(
    inventory: str,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    fmt: str,
    output: str | None,
) -> None:
    """Check an inventory and report every problem at once (exit 2 if any).

    \b
    Example:
        placement validate inputs/sample_inventory.csv
    """
    catalog = _catalog(catalog_path, overrides)
    inv = read_inventory(inventory, accelerator_names=list(catalog.accelerators))
    frame = inv.workloads
    records = [
        {
            "workloads": len(frame),
            "training": int(frame["kind"].eq("training").sum()),
            "inference": int(frame["kind"].eq("inference").sum()),
            "families": ", ".join(sorted(frame["model_family"].unique())),
            "unknown_families": ", ".join(
                sorted(set(frame["model_family"]) - set(catalog.families))
            ),
            "extra_columns": ", ".join(inv.extra_columns),
            "status": "valid",
        }
    ]
    emit(render_records(records, fmt, f"{inventory}: valid"), output)


@cli.group("catalog")
def catalog_group() -> None:
    """Show or export the catalog (prices, hardware, workload model, sources)."""


@catalog_group.command("show")
@catalog_options
@output_options
@_guard
def catalog_show(
    catalog_path: str | None, overrides: tuple[str, ...], fmt: str, output: str | None
) -> None:
    """Every catalog figure with its range, point estimate and source.

    \b
    Example:
        placement catalog show --set accelerators.trn2.on_demand_usd_per_chip_hour=0.5
    """
    catalog = _catalog(catalog_path, overrides)
    emit(render_records(catalog_records(catalog), fmt, f"Catalog {catalog.name}"), output)


@catalog_group.command("export")
@catalog_options
@_output_option
@_guard
def catalog_export(
    catalog_path: str | None, overrides: tuple[str, ...], output: str | None
) -> None:
    """The catalog as YAML (overrides applied); edit it and pass it back with --catalog.

    \b
    Example:
        placement catalog export -o my_catalog.yaml
    """
    emit(catalog_to_yaml(_catalog(catalog_path, overrides)), output)


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
) -> None:
    """The reference document's figures beside the model's, with deviations.

    Each row is a figure of the document (training table, inference benchmark, latency, prices,
    the monthly cost table's pure rows), the model's figure for the same case from its own
    estimates, the deviation outside the printed range, and whether it is within tolerance.
    Break-evens (the training volume from which Trainium2 pays for its porting and migration)
    follow; the document does not give them.

    \b
    Example:
        placement reference
        placement reference --set platforms.neuron.sdk_version=2.17 --format md
    """
    catalog = _catalog(catalog_path, overrides)
    if write_inputs is not None:
        write_reference_inputs(write_inputs)
    emit(render_reference(reference_report(catalog), fmt), output)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="placement")
