"""The reference command: the reference document's figures beside the model's."""

from __future__ import annotations

import click

from placement.cli.shared import (
    catalog_options,
    catalog_source,
    emit,
    guard,
    output_options,
)


@click.command("reference")
@catalog_options
@click.option(
    "--write-inputs",
    type=click.Path(file_okay=False),
    help="Also write the inventories of every case (inputs/reference/) to this folder.",
)
@output_options
@guard
def reference_command(
    catalog_path: str | None,
    overrides: tuple[str, ...],
    write_inputs: str | None,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """The reference document's figures beside the model's, with deviations.

    Each row is a figure of the document (training table, inference benchmark, latency, prices,
    the monthly cost table's pure rows), the model's figure for the same case from its own
    estimates, the deviation outside the printed range, and whether it is within tolerance.
    Break-evens (the training volume from which Trainium2 pays for its porting and migration)
    follow; the document does not give them.

    \b
    Examples:
        placement reference
        placement reference --set platforms.neuron.sdk_version=2.17 --format md
    """
    from placement.comparing.reference import reference_report, write_reference_inputs
    from placement.reporting.reference import render_reference

    catalog = catalog_source(catalog_path, overrides).catalog
    if write_inputs is not None:
        write_reference_inputs(write_inputs)
    report = reference_report(catalog)
    emit(
        lambda console: render_reference(report, fmt, console),
        output,
        quiet,
    )
