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
@click.argument("words", nargs=-1, metavar="[WORD]...")
@click.option(
    "--section",
    metavar="NAME",
    help="Only this top-level section (accelerators, platforms, economics, ...).",
)
@catalog_options
@output_options
@guard
def catalog_show(
    words: tuple[str, ...],
    section: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """Every catalog figure with its range, point estimate and source; WORDs keep only the
    figures whose dotted path contains every one of them (case ignored).

    \b
    Examples:
        placement catalog show trn2 usd            # Trainium2's prices
        placement catalog show --section platforms
        placement catalog show --set accelerators.trn2.on_demand_usd_per_chip_hour=0.5
    """
    from placement.catalog import catalog_records
    from placement.errors import PlacementInputError
    from placement.reporting import render_records

    catalog = catalog_source(catalog_path, overrides).catalog
    records = catalog_records(catalog)
    sections = list(dict.fromkeys(str(r["path"]).split(".")[0] for r in records))
    if section is not None and section not in sections:
        raise PlacementInputError(
            [f"--section {section!r}: expected one of {', '.join(sections)}"],
            title="invalid option",
        )
    records = [
        r
        for r in records
        if (section is None or str(r["path"]).split(".")[0] == section)
        and all(w.lower() in str(r["path"]).lower() for w in words)
    ]
    if not records:
        raise PlacementInputError(
            [
                f"no catalog figure's path contains {' and '.join(map(repr, words))}"
                + (f" in section {section!r}" if section else "")
                + f"; sections: {', '.join(sections)}"
            ],
            title="nothing to show",
        )
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
