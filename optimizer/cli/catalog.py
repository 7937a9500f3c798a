"""The catalog commands: every figure with its source (show), the YAML as written
(export)."""

from __future__ import annotations

import click

from placement.cli.shared import (
    catalog_options,
    catalog_source,
    emit,
    guard,
    output_option,
    output_options,
    quiet_option,
)


@click.group("catalog")
def catalog_group() -> None:
    """Show or export the catalog (prices, hardware, workload model, sources)."""


@catalog_group.command("show")
@catalog_options
@output_options
@guard
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
    from placement.catalog import catalog_records
    from placement.reporting import render_records

    catalog = catalog_source(catalog_path, overrides).catalog
    records = catalog_records(catalog)
    emit(
        lambda console: render_records(records, fmt, f"Catalog {catalog.name}", console),
        output,
        quiet,
    )


@catalog_group.command("export")
@catalog_options
@output_option
@quiet_option
@guard
def catalog_export(
    catalog_path: str | None, overrides: tuple[str, ...], output: str | None, quiet: bool
) -> None:
    """The catalog as YAML, as written (comments kept) with the overrides applied; edit it and
    pass it back with --catalog.

    \b
    Example:
        placement catalog export -o my_catalog.yaml
    """
    from placement.catalog import catalog_to_yaml

    source = catalog_source(catalog_path, overrides)
    emit(lambda _: catalog_to_yaml(source), output, quiet)
