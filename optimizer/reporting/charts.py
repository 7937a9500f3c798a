"""The report's charts, drawn by matplotlib from plan and result data alone.

Each function returns a ``matplotlib.figure.Figure`` (no pyplot state, no backend chosen: in a
notebook it displays as any figure does; ``svg_text`` turns it into the inline SVG the HTML
report embeds), or None where the plan has nothing to draw. Money axes read in dollars
(``$250k``, ``$1.2M``), never with an offset.

::

    from placement import plan
    from placement.reporting import charts

    made = plan("inputs/sample_inventory.csv").plan
    charts.cost_chart(made)          # the plan against its baselines
    charts.chip_hours_chart(made)    # where the chip-hours go, by accelerator and pricing
    charts.week_chart(made)          # commitment cover over the hours of a week
    charts.roadmap_chart(made)       # month by month (plan --horizon)
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from placement.models.numbers import bracket_digits, usd
from placement.models.plan import Plan
from placement.models.risk import RiskResult
from placement.models.sweep import SweepSummary

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

COLOURS = {
    "on_demand": "#d62728",
    "committed": "#1f77b4",
    "plan": "#2ca02c",
    "baseline": "#7f7f7f",
    "porting": "#9467bd",
    "migration": "#8c564b",
    "switching": "#e377c2",
}
"""One colour per meaning, the same in every chart."""

PRICING_COLOURS = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#98df8a", "#c5b0d5")
"""Commitment options in the order a plan lists them (on demand is always red)."""


def usd_short(value: float) -> str:
    """An axis's dollars: $950, $12k, $1.2M."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    if value >= 1e6:
        return f"{sign}${value / 1e6:.3g}M"
    if value >= 1e3:
        return f"{sign}${value / 1e3:.3g}k"
    return f"{sign}${value:.0f}"


def _figure(width: float = 8.0, height: float = 4.0) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _dollar_axis(axis: object) -> None:
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _: usd_short(v)))  # type: ignore[attr-defined]


def cost_chart(plan: Plan) -> Figure | None:
    """The plan's monthly cost beside its baselines, one bar each, labelled in dollars."""
    b = plan.baselines
    bars = [
        ("this plan", plan.objective_monthly_usd, COLOURS["plan"]),
        ("cheapest option each (greedy)", b.greedy_usd, COLOURS["baseline"]),
        ("best without migrating", b.all_h100_optimal_usd, COLOURS["baseline"]),
        ("all H100 on demand", b.all_h100_on_demand_usd, COLOURS["on_demand"]),
    ]
    shown = [(label, value, colour) for label, value, colour in bars if value is not None]
    if not shown or plan.objective_monthly_usd is None:
        return None
    figure = _figure(8, 0.55 * len(shown) + 1.0)
    ax = figure.subplots()
    labels = [label for label, _, _ in shown][::-1]
    values = [float(value or 0.0) for _, value, _ in shown][::-1]
    rects = ax.barh(labels, values, color=[c for _, _, c in shown][::-1])
    ax.bar_label(rects, labels=[usd(v) for v in values], padding=3, fontsize="small")
    _dollar_axis(ax.xaxis)
    ax.set_xlim(0, max(values) * 1.22)
    ax.set_xlabel("monthly cost")
    ax.grid(True, axis="x", alpha=0.3)
    return figure


def chip_hours_chart(plan: Plan) -> Figure | None:
    """Chip-hours a month per accelerator, stacked by how they are paid for."""
    totals: dict[str, dict[str, float]] = {}
    for a in plan.assignments:
        by_pricing = a.coverage or {a.pricing: a.chip_hours}
        for pricing, hours in by_pricing.items():
            row = totals.setdefault(a.accelerator, {})
            row[pricing] = row.get(pricing, 0.0) + hours
    if not totals:
        return None
    pricings = sorted({p for row in totals.values() for p in row}, key=lambda p: p != "on_demand")
    accelerators = sorted(totals)
    figure = _figure(8, 0.6 * len(accelerators) + 1.4)
    ax = figure.subplots()
    left = [0.0] * len(accelerators)
    commitments = iter(PRICING_COLOURS)
    for pricing in pricings:
        widths = [totals[acc].get(pricing, 0.0) for acc in accelerators]
        colour = COLOURS["on_demand"] if pricing == "on_demand" else next(commitments, "#bcbd22")
        ax.barh(accelerators, widths, left=left, label=pricing, color=colour)
        left = [x + w for x, w in zip(left, widths, strict=True)]
    for y, total in enumerate(left):
        ax.text(total, y, f" {total:,.0f}", va="center", fontsize="small")
    ax.set_xlim(0, max(left) * 1.18)
    ax.set_xlabel("chip-hours a month")
    ax.legend(fontsize="small", loc="lower right")
    ax.grid(True, axis="x", alpha=0.3)
    return figure


def week_chart(plan: Plan) -> Figure | None:
    """Per accelerator, the chips in use in each time slice of a week: committed (covered)
    below, on demand above; the slices as the plan lists them (weekdays, then weekends)."""
    by_accelerator: dict[str, list[tuple[str, float, float]]] = {}
    for s in plan.slices:
        by_accelerator.setdefault(s.accelerator, []).append(
            (s.slice, s.committed_chips, s.on_demand_chips)
        )
    shown = {a: rows for a, rows in by_accelerator.items() if any(c + d for _, c, d in rows)}
    if not shown:
        return None
    figure = _figure(8, 2.2 * len(shown) + 0.6)
    axes: list[Axes] = list(figure.subplots(len(shown), 1, squeeze=False)[:, 0])
    for ax, (accelerator, rows) in zip(axes, sorted(shown.items()), strict=True):
        xs = range(len(rows))
        committed = [c for _, c, _ in rows]
        on_demand = [d for _, _, d in rows]
        ax.bar(xs, committed, width=1.0, color=COLOURS["committed"], label="committed")
        ax.bar(xs, on_demand, width=1.0, bottom=committed, color=COLOURS["on_demand"],
               label="on demand")  # fmt: skip
        ax.set_ylabel(f"{accelerator} chips")
        step = max(1, len(rows) // 8)
        ax.set_xticks(list(xs)[::step], [name for name, _, _ in rows][::step], fontsize="x-small")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="x-small", loc="upper right")
    return figure


def roadmap_chart(plan: Plan) -> Figure | None:
    """The roadmap month by month: each month's cost stacked by component, staying's cost as
    a line, and the months where ports, migrations and moves land marked above the bars."""
    roadmap = plan.roadmap
    if roadmap is None or not roadmap.months:
        return None
    months = roadmap.months
    xs = [m.month for m in months]
    parts = [
        ("on demand", [m.on_demand_usd for m in months], COLOURS["on_demand"]),
        ("commitments", [m.commitments_usd for m in months], COLOURS["committed"]),
        ("porting", [m.porting_usd for m in months], COLOURS["porting"]),
        ("migration", [m.migration_usd for m in months], COLOURS["migration"]),
        ("switching", [m.switching_usd for m in months], COLOURS["switching"]),
    ]
    figure = _figure(8, 4.2)
    ax = figure.subplots()
    bottom = [0.0] * len(xs)
    for label, values, colour in parts:
        if any(values):
            ax.bar(xs, values, bottom=bottom, color=colour, label=label)
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    stay = [m.stay_cost_usd for m in months]
    if any(v is not None for v in stay):
        ax.plot(xs, [float("nan") if v is None else v for v in stay], color="black",
                linestyle="--", label="staying where the team is")  # fmt: skip
    top = max(bottom) if bottom else 0.0
    for m, height in zip(months, bottom, strict=True):
        events = [*m.ports_ready, *m.migrations_ready]
        if m.moves:
            events.append(f"{len(m.moves)} moved")
        if events:
            ax.annotate(
                "\n".join(events[:3]) + ("\n..." if len(events) > 3 else ""),
                (m.month, height),
                xytext=(0, 4),
                textcoords="offset points",
                ha="center",
                fontsize="xx-small",
            )
    _dollar_axis(ax.yaxis)
    ax.set_ylim(0, top * 1.3 if top > 0 else 1)
    ax.set_xlabel("month")
    ax.set_ylabel("cost that month")
    ax.legend(fontsize="x-small", loc="upper right")
    ax.grid(True, axis="y", alpha=0.3)
    return figure


def risk_chart(result: RiskResult) -> Figure | None:
    """The distribution of the monthly cost over the samples: each future's optimum and the
    point plan held fixed, with their P10, P50 and P90."""
    optimal = [s.optimal_usd for s in result.sample_costs if s.optimal_usd is not None]
    held = [s.base_plan_usd for s in result.sample_costs if s.base_plan_usd is not None]
    if not optimal:
        return None
    figure = _figure(8, 3.6)
    ax = figure.subplots()
    bins = min(30, max(5, len(optimal) // 3))
    ax.hist(optimal, bins=bins, alpha=0.6, color=COLOURS["plan"], label="each future's optimum")
    if held:
        ax.hist(held, bins=bins, alpha=0.5, color=COLOURS["committed"],
                label="the point plan held fixed")  # fmt: skip
    spread = result.base_plan_cost_usd
    for name, value in (("P10", spread.p10), ("P50", spread.p50), ("P90", spread.p90)):
        if value is not None:
            ax.axvline(value, color="black", linestyle=":", linewidth=1)
            ax.annotate(name, (value, 1), xycoords=("data", "axes fraction"), ha="center",
                        va="bottom", fontsize="x-small")  # fmt: skip
    _dollar_axis(ax.xaxis)
    ax.set_xlabel("monthly cost")
    ax.set_ylabel("samples")
    ax.legend(fontsize="x-small")
    return figure


def fan_chart(result: RiskResult) -> Figure | None:
    """The roadmap held fixed over the sampled futures (``risk --horizon``): each month's P10
    to P90 shaded, its median as a line, and the month as planned dashed."""
    horizon = result.horizon
    if horizon is None or not horizon.months:
        return None
    months = [m for m in horizon.months if m.p10 is not None and m.p90 is not None]
    if not months:
        return None
    xs = [m.month for m in months]
    figure = _figure(8, 3.8)
    ax = figure.subplots()
    ax.fill_between(xs, [m.p10 or 0.0 for m in months], [m.p90 or 0.0 for m in months],
                    step="mid", alpha=0.35, color=COLOURS["plan"], label="P10 to P90")  # fmt: skip
    ax.step(xs, [m.p50 or 0.0 for m in months], where="mid", color=COLOURS["plan"],
            label="median")  # fmt: skip
    ax.step(xs, [m.planned_usd for m in horizon.months if m.p10 is not None], where="mid",
            color="black", linestyle="--", linewidth=1, label="as planned")  # fmt: skip
    _dollar_axis(ax.yaxis)
    top = max([m.p90 or 0.0 for m in months] + [m.planned_usd for m in horizon.months])
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax.set_xlabel("month")
    ax.set_ylabel("cost that month")
    ax.legend(fontsize="x-small", loc="lower right")
    ax.grid(True, axis="y", alpha=0.3)
    return figure


def tornado_chart(result: RiskResult, shown: int = 10) -> Figure | None:
    """The figures that move the optimum most: each one's effect from its low to its high."""
    drivers = result.drivers[:shown]
    if not drivers:
        return None
    figure = _figure(8, 0.4 * len(drivers) + 1.2)
    ax = figure.subplots()
    labels = [d.path for d in drivers][::-1]
    effects = [d.effect_usd for d in drivers][::-1]
    colours = [COLOURS["on_demand"] if e > 0 else COLOURS["committed"] for e in effects]
    ax.barh(labels, effects, color=colours)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.tick_params(axis="y", labelsize="x-small")
    _dollar_axis(ax.xaxis)
    ax.set_xlabel("the optimum's change a month, figure low to high")
    return figure


def labelled_bars(labels: Sequence[str], values: Sequence[float | None], x_label: str) -> Figure:
    """One bar per label, in dollars (what-if scenarios side by side)."""
    figure = _figure(8, 0.5 * len(labels) + 1.0)
    ax = figure.subplots()
    known = [float(v) if v is not None else 0.0 for v in values]
    rects = ax.barh(list(labels)[::-1], known[::-1], color=COLOURS["plan"])
    ax.bar_label(rects, labels=[usd(v) for v in list(values)[::-1]], padding=3,
                 fontsize="small")  # fmt: skip
    _dollar_axis(ax.xaxis)
    ax.set_xlim(0, (max(known) if known else 1) * 1.22 or 1)
    ax.set_xlabel(x_label)
    return figure


def sweep_chart(summary: SweepSummary) -> Figure:
    """The monthly cost along the first parameter (one line per second-parameter value), each
    break-even a dashed vertical line labelled with its value, the lowest cost swept ringed."""
    figure = _figure(8, 4.5)
    ax = figure.subplots()
    frame = summary.frame()
    first, second = summary.first, summary.second
    groups = frame.groupby(second, sort=True) if second else [(None, frame)]
    for value, rows in groups:
        label = "monthly cost" if value is None else f"{second} = {value:g}"
        ax.plot(rows[first], rows["objective_monthly_usd"], marker="o", label=label)
    best = frame[frame["optimum"]] if "optimum" in frame else frame.iloc[:0]
    if not best.empty:
        # The lowest cost of the points swept, not an optimum of the parameter: a price swept
        # is cheapest at its lowest value.
        ax.scatter(best[first], best["objective_monthly_usd"], s=60, marker="o",
                   facecolors="none", edgecolors="black", zorder=5,
                   label="lowest monthly cost swept")  # fmt: skip
    money = "_usd" in first
    for b in summary.break_evens:
        ax.axvline(b.value, linestyle="--", color="grey", linewidth=1)
        digits = bracket_digits(b.low, b.high)
        ax.annotate(f"{'$' if money else ''}{b.value:,.{digits}f}", (b.value, 1),
                    xycoords=("data", "axes fraction"), xytext=(2, -2),
                    textcoords="offset points", rotation=90, va="top", fontsize="x-small",
                    color="dimgrey")  # fmt: skip
    if summary.break_evens:
        ax.plot([], [], linestyle="--", color="grey", label="break-even (where the plan changes)")
    _dollar_axis(ax.yaxis)
    ax.set_xlabel(first)
    ax.set_ylabel("monthly cost")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return figure


_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.S)


def svg_text(figure: Figure, name: str) -> str:
    """The figure as an ``<svg>`` element to inline in HTML: text drawn as paths (no font to
    load), no metadata, ids salted with ``name`` so that two charts never share one."""
    import matplotlib

    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": name}):
        figure.savefig(out, format="svg", metadata={"Date": None})
    text = _METADATA.sub("", out.getvalue())
    return _PROLOGUE.sub("", text, count=1)
