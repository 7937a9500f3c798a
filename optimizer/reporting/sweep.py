"""A sweep as table, JSON, CSV or Markdown, and as a chart (SVG or PNG, by matplotlib)."""

from __future__ import annotations

import io
import json
import math

from rich.console import Console, RenderableType
from rich.text import Text

from placement.comparing.sweep import SweepResult
from placement.models.numbers import usd
from placement.reporting.formats import CHART_FORMATS
from placement.reporting.records import csv_text, markdown_table, text_cell
from placement.reporting.terminal import file_console, new_table, render_text


def _cells(result: SweepResult) -> tuple[list[str], list[list[str]]]:
    frame = result.frame()
    columns = [p.path for p in result.parameters]
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


def bracket_digits(low: float, high: float) -> int:
    """Decimals that tell a bracket's ends apart, and no more: a break-even located to within
    0.012 reads 3.248, one located to within 38 (or between two whole numbers) reads 1,171."""
    width = abs(high - low)
    if width <= 0:
        return 6
    if width >= 1:  # whole numbers tell apart brackets of one or more
        return 0
    return 1 - math.floor(math.log10(width))


def _break_even_lines(result: SweepResult) -> list[str]:
    name = result.parameters[0].path
    money = "_usd" in name
    lines = []
    for b in result.break_evens:
        digits = bracket_digits(b.low, b.high)

        def shown(value: float, digits: int = digits) -> str:
            return ("$" if money else "") + f"{value:,.{digits}f}"

        at = f" (at {result.parameters[1].path} = {b.other:g})" if b.other is not None else ""
        lines.append(
            f"{name} = {shown(b.value)} (between {shown(b.low)} and {shown(b.high)}){at}: "
            f"{b.changes}"
        )
    return lines or ["the plan's decisions do not change over the range"]


def sweep_table(result: SweepResult, console: Console | None = None) -> str:
    console = console or file_console()
    headers, rows = _cells(result)
    table = new_table(console, "Sweep")
    for h in headers:
        table.add_column(h)
    for row in rows:
        table.add_row(*row)
    parts: list[RenderableType] = [table, Text(""), Text("Break-evens", style="bold")]
    parts += [Text(f"  {line}") for line in _break_even_lines(result)]
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
        headers, rows = _cells(result)
        return (
            "# Sweep\n\n"
            + markdown_table(headers, rows)
            + "\n## Break-evens\n\n"
            + "".join(f"- {line}\n" for line in _break_even_lines(result))
        )
    return sweep_table(result, console)


def sweep_chart(result: SweepResult, suffix: str) -> bytes:
    """The monthly cost (and savings against all-H100 on demand) along the first parameter;
    break-evens as vertical lines, the optimum marked. One line per second-parameter value."""
    import matplotlib

    matplotlib.use("Agg")  # no display: render to a file
    from matplotlib import pyplot as plt
    from matplotlib.ticker import FuncFormatter

    from placement.reporting.charts import usd_short

    frame = result.frame()
    first = result.parameters[0].path
    second = result.parameters[1].path if len(result.parameters) == 2 else None
    figure, ax = plt.subplots(figsize=(8, 4.5))
    groups = frame.groupby(second, sort=True) if second else [(None, frame)]
    for value, rows in groups:
        label = "monthly cost" if value is None else f"{second} = {value:g}"
        ax.plot(rows[first], rows["objective_monthly_usd"], marker="o", label=label)
    best = result.optimum
    if best is not None and best.plan.objective_monthly_usd is not None:
        # The lowest cost of the points swept, not an optimum of the parameter: a price swept
        # is cheapest at its lowest value.
        ax.scatter(
            [best.values[0]],
            [best.plan.objective_monthly_usd],
            s=60,
            marker="o",
            facecolors="none",
            edgecolors="black",
            zorder=5,
            label="lowest monthly cost swept",
        )
    money = "_usd" in first
    for b in result.break_evens:
        ax.axvline(b.value, linestyle="--", color="grey", linewidth=1)
        digits = bracket_digits(b.low, b.high)
        ax.annotate(
            f"{'$' if money else ''}{b.value:,.{digits}f}",
            (b.value, 1),
            xycoords=("data", "axes fraction"),
            xytext=(2, -2),
            textcoords="offset points",
            rotation=90,
            va="top",
            fontsize="x-small",
            color="dimgrey",
        )
    if result.break_evens:
        ax.plot([], [], linestyle="--", color="grey", label="break-even (where the plan changes)")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: usd_short(v)))
    ax.set_xlabel(first)
    ax.set_ylabel("monthly cost")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    figure.tight_layout()
    out = io.BytesIO()
    # A fixed date keeps the SVG the same from run to run.
    figure.savefig(
        out, format=CHART_FORMATS[suffix], metadata={"Date": None} if suffix == ".svg" else None
    )
    plt.close(figure)
    return out.getvalue()
