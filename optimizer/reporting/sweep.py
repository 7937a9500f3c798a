"""A sweep as table, JSON, CSV or Markdown, and as a chart (SVG or PNG, by matplotlib)."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType
from rich.text import Text

from placement.models.numbers import bracket_digits, usd
from placement.models.sweep import SweepSummary
from placement.reporting.formats import CHART_FORMATS
from placement.reporting.records import csv_text, markdown_table, text_cell
from placement.reporting.terminal import file_console, new_table, render_text

if TYPE_CHECKING:
    from placement.comparing.sweep import SweepResult


def sweep_cells(summary: SweepSummary) -> tuple[list[str], list[list[str]]]:
    frame = summary.frame()
    columns = [p.path for p in summary.parameters]
    shares = [c for c in frame.columns if c.startswith("share_")]
    headers = [
        *columns,
        "monthly cost",
        *[c.removeprefix("share_") for c in shares],
        "ported",
        "migration",
        "",
    ]
    rows = []
    for r in frame.to_dict("records"):
        rows.append(
            [
                *(f"{r[c]:g}" for c in columns),
                usd(r["objective_monthly_usd"]),
                *(f"{100 * r[c]:.0f}%" for c in shares),
                str(r["families_ported"]),
                text_cell(r["migrations"]) or "no",
                "optimum" if r["optimum"] else "",
            ]
        )
    return headers, rows


def break_even_lines(summary: SweepSummary) -> list[str]:
    """Each break-even in a sentence, to the digits its bracket tells apart."""
    name = summary.first
    money = "_usd" in name
    lines = []
    for b in summary.break_evens:
        digits = bracket_digits(b.low, b.high)

        def shown(value: float, digits: int = digits) -> str:
            return ("$" if money else "") + f"{value:,.{digits}f}"

        at = f" (at {summary.second} = {b.other:g})" if b.other is not None else ""
        lines.append(
            f"{name} = {shown(b.value)} (between {shown(b.low)} and {shown(b.high)}){at}: "
            f"{b.changes}"
        )
    return lines or ["the plan's decisions do not change over the range"]


def sweep_table(result: SweepResult, console: Console | None = None) -> str:
    console = console or file_console()
    summary = result.summary()
    headers, rows = sweep_cells(summary)
    table = new_table(console, "Sweep")
    for h in headers:
        table.add_column(h)
    for row in rows:
        table.add_row(*row)
    parts: list[RenderableType] = [table, Text(""), Text("Break-evens", style="bold")]
    parts += [Text(f"  {line}") for line in break_even_lines(summary)]
    return render_text(console, parts)


def render_sweep(result: SweepResult, fmt: str, console: Console | None = None) -> str:
    if fmt == "json":
        return json.dumps(result.record(), indent=2, default=str) + "\n"
    if fmt == "csv":
        lines = "".join(
            f'{b.low},{b.high},{b.value},{"" if b.other is None else b.other},"{b.changes}"\n'
            for b in result.break_evens
        )
        return csv_text(result.frame()) + "\n# break_evens\nlow,high,value,other,changes\n" + lines
    if fmt == "md":
        return "# Sweep\n\n" + sweep_markdown(result.summary())
    return sweep_table(result, console)


def sweep_markdown(summary: SweepSummary, heading: str = "##") -> str:
    """The grid as a Markdown table, then the break-evens as a list under ``heading``."""
    headers, rows = sweep_cells(summary)
    return (
        markdown_table(headers, rows)
        + f"\n{heading} Break-evens\n\n"
        + "".join(f"- {line}\n" for line in break_even_lines(summary))
    )


def sweep_chart(result: SweepResult, suffix: str) -> bytes:
    """The sweep's chart (``charts.sweep_chart``) as SVG or PNG bytes."""
    from placement.reporting.charts import sweep_chart as draw

    figure = draw(result.summary())
    out = io.BytesIO()
    # A fixed date keeps the SVG the same from run to run.
    figure.savefig(
        out, format=CHART_FORMATS[suffix], metadata={"Date": None} if suffix == ".svg" else None
    )
    return out.getvalue()
