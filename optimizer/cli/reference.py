"""The reference command: the reference document's figures beside the model's."""

from __future__ import annotations

from dataclasses import replace

import click

from placement.cli.shared import (
    catalog_options,
    catalog_source,
    emit,
    guard,
    output_options,
)


@click.command("reference")
@click.argument("words", nargs=-1, metavar="[WORD]...")
@click.option(
    "--section",
    metavar="NAME",
    help="Only this section's figures (training table, inference, latency, prices, ...).",
)
@click.option("--failing", is_flag=True, help="Only the figures outside their tolerance.")
@catalog_options
@click.option(
    "--write-inputs",
    type=click.Path(file_okay=False),
    help="Also write the inventories of every case (inputs/reference/) to this folder.",
)
@output_options
@guard
def reference_command(
    words: tuple[str, ...],
    section: str | None,
    failing: bool,
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
    follow; the document does not give them. WORDs keep only the figures whose section, case
    or quantity contains every one of them (case ignored).

    \b
    Examples:
        placement reference
        placement reference 70b --failing
        placement reference --section latency
        placement reference --set platforms.neuron.sdk_version=2.17 --format md
    """
    from placement.comparing.reference import reference_report, write_reference_inputs
    from placement.errors import PlacementInputError
    from placement.reporting.reference import render_reference

    catalog = catalog_source(catalog_path, overrides).catalog
    if write_inputs is not None:
        write_reference_inputs(write_inputs)
    report = reference_report(catalog)
    sections = list(dict.fromkeys(c.section for c in report.checks))
    if section is not None and section not in sections:
        raise PlacementInputError(
            [f"--section {section!r}: expected one of {', '.join(sections)}"],
            title="invalid option",
        )
    matched = [
        c
        for c in report.checks
        if (section is None or c.section == section)
        and all(w.lower() in f"{c.section} {c.case} {c.quantity}".lower() for w in words)
    ]
    if not matched:
        raise PlacementInputError(
            [f"no reference figure matches {' '.join(words)!r}; sections: {', '.join(sections)}"],
            title="nothing to show",
        )
    # --failing with nothing failing is good news: the report says so (an empty table).
    report = replace(report, checks=[c for c in matched if not failing or not c.ok])
    emit(
        lambda console: render_reference(report, fmt, console),
        output,
        quiet,
    )
