"""A risk result as table, JSON, CSV or Markdown.

The table and Markdown open with one sentence (how likely migrating pays, and what the point
plan risks), then the spreads, the chances, the drivers and where workloads land. JSON is the
whole result; CSV one row per sample (the costs a chart of the distribution needs), then the
drivers and the Trainium2 shares as ``# drivers`` and ``# trainium_share`` sections, and with
``--horizon`` the held roadmap's months as ``# roadmap_months``.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
from rich.console import Console, RenderableType
from rich.text import Text

from placement.models.numbers import figure_text, usd
from placement.models.risk import MonthSpread, RiskHorizon, RiskResult, Spread
from placement.reporting.records import csv_text, markdown_table
from placement.reporting.terminal import file_console, new_table, render_text

DRIVERS_SHOWN = 10
"""Figures listed in the table and Markdown (JSON and CSV list them all)."""

SHARES_SHOWN = 15
"""Workloads listed by their Trainium2 share in the table and Markdown."""

FAN_ROWS = 12
"""Months of a held roadmap's fan listed in the table and Markdown (evenly spaced, the first
and last always; JSON and CSV list every month)."""


def _chance(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def headline(result: RiskResult) -> str:
    """The result in one sentence."""
    good = result.samples - result.failed_samples
    parts = [f"In {good:,} sampled futures (seed {result.seed})"]
    parts.append(f"migrating pays in {_chance(result.probability_beats_all_h100)} of them")
    held = result.base_plan_cost_usd
    parts.append(
        f"the point plan held fixed costs {usd(held.p50)} a month at the median "
        f"(P10 {usd(held.p10)}, P90 {usd(held.p90)})"
    )
    parts.append(
        f"and gives up {usd(result.regret_usd.mean)} a month on average to each future's "
        f"best plan (P90 {usd(result.regret_usd.p90)})"
    )
    sentence = ", ".join(parts[:2]) + "; " + " ".join(parts[2:]) + "."
    if result.failed_samples:
        n = result.failed_samples
        sentence += (
            " 1 sample failed and is not counted."
            if n == 1
            else f" {n:,} samples failed and are not counted."
        )
    return sentence


def _spread_rows(result: RiskResult) -> list[list[str]]:
    rows: list[tuple[str, Spread]] = [
        ("each future's optimum", result.optimal_cost_usd),
        ("the point plan held fixed", result.base_plan_cost_usd),
        ("best without migrating", result.all_h100_cost_usd),
        ("staying where the team is", result.staying_cost_usd),
    ]
    return [
        [label, usd(s.mean), usd(s.p10), usd(s.p50), usd(s.p90), f"{s.samples:,}"]
        for label, s in rows
    ]


SPREAD_HEADERS = ["monthly cost", "mean", "P10", "P50", "P90", "samples"]


def _chance_rows(result: RiskResult) -> list[list[str]]:
    regret = result.regret_usd
    rows = [
        ["point plan (figures at their points)", usd(result.point_plan_cost_usd)],
        [
            "migrating pays (optimum beats best without migrating)",
            _chance(result.probability_beats_all_h100),
        ],
        ["optimum beats staying", _chance(result.probability_beats_staying)],
        [
            "point plan held fixed beats best without migrating",
            _chance(result.probability_base_plan_beats_all_h100),
        ],
        [
            "point plan held fixed beats staying",
            _chance(result.probability_base_plan_beats_staying),
        ],
        [
            "regret of the point plan: mean / P90 / max",
            f"{usd(regret.mean)} / {usd(regret.p90)} / {usd(regret.max)}",
        ],
    ]
    if result.base_plan_infeasible_samples:
        rows.append(
            ["samples where the held plan cannot run", f"{result.base_plan_infeasible_samples:,}"]
        )
    return rows


def _driver_rows(result: RiskResult) -> list[list[str]]:
    return [
        [
            d.path,
            f"{figure_text(d.low)}-{figure_text(d.high)}",
            usd(d.effect_usd),
            f"{d.rank_correlation:+.2f}",
        ]
        for d in result.drivers[:DRIVERS_SHOWN]
    ]


DRIVER_HEADERS = ["figure", "low-high", "effect", "rank corr."]
DRIVERS_TITLE = "What moves the optimum most (effect: from the figure's low to its high)"


def _share_rows(result: RiskResult) -> list[list[str]]:
    shares = sorted(result.trainium_share.items(), key=lambda kv: (-kv[1], kv[0]))
    return [[w, f"{100 * s:.0f}%"] for w, s in shares if s > 0][:SHARES_SHOWN]


def horizon_sentence(horizon: RiskHorizon) -> str:
    """The held roadmap's spread in one sentence."""
    total = horizon.total_usd
    if horizon.planned_total_usd is None:
        return f"No roadmap over {horizon.horizon_months} months ({horizon.roadmap_status})."
    sentence = (
        f"Over {horizon.horizon_months} months the roadmap, held fixed, costs "
        f"{usd(total.p50)} at the median (P10 {usd(total.p10)}, P90 {usd(total.p90)}; "
        f"{usd(horizon.planned_total_usd)} as planned)."
    )
    broken = horizon.broken_samples
    if broken:
        futures = "1 future" if broken == 1 else f"{broken:,} futures"
        sentence += (
            f" In {futures} some workload can no longer run where the roadmap has it (not counted)."
        )
    return sentence


def fan_months(months: int, rows: int = FAN_ROWS) -> list[int]:
    """Up to ``rows`` months from 1 to ``months``, evenly spaced, the first and last among
    them."""
    if months <= rows:
        return list(range(1, months + 1))
    step = (months - 1) / (rows - 1)
    return sorted({1 + round(i * step) for i in range(rows)})


def fan_row(month: MonthSpread) -> list[str]:
    """One month of the fan as its table shows it (``FAN_HEADERS``)."""
    return [str(month.month), usd(month.planned_usd), usd(month.p10), usd(month.p50),
            usd(month.p90)]  # fmt: skip


def _fan_rows(horizon: RiskHorizon) -> list[list[str]]:
    shown = set(fan_months(len(horizon.months)))
    return [fan_row(m) for m in horizon.months if m.month in shown]


FAN_HEADERS = ["month", "planned", "P10", "P50", "P90"]
FAN_TITLE = "The roadmap held fixed: monthly cost over the samples"


def risk_table(result: RiskResult, console: Console | None = None) -> str:
    console = console or file_console()
    parts: list[RenderableType] = [Text(headline(result), style="bold")]
    spreads = new_table(console, "Monthly cost over the samples")
    for i, header in enumerate(SPREAD_HEADERS):
        spreads.add_column(header, justify="left" if i == 0 else "right")
    for row in _spread_rows(result):
        spreads.add_row(*row)
    chances = new_table(console, "The point plan under uncertainty", framed=False)
    chances.add_column("")
    chances.add_column("", justify="right")
    for row in _chance_rows(result):
        chances.add_row(*row)
    parts += [spreads, chances]
    if result.drivers:
        drivers = new_table(console, DRIVERS_TITLE)
        # The dotted path is what --set takes: give it half the width before folding it.
        drivers.add_column(DRIVER_HEADERS[0], min_width=min(44, console.width // 2 - 4))
        for header in DRIVER_HEADERS[1:]:
            drivers.add_column(header, justify="right")
        for row in _driver_rows(result):
            drivers.add_row(*row)
        parts.append(drivers)
    shares = _share_rows(result)
    if shares:
        accelerators = ", ".join(result.trainium_accelerators)
        table = new_table(console, f"Share of futures on {accelerators}")
        table.add_column("workload")
        table.add_column("share", justify="right")
        for row in shares:
            table.add_row(*row)
        parts.append(table)
    if result.horizon is not None:
        parts.append(Text(horizon_sentence(result.horizon), style="bold"))
        if result.horizon.months:
            fan = new_table(console, FAN_TITLE)
            for i, header in enumerate(FAN_HEADERS):
                fan.add_column(header, justify="left" if i == 0 else "right")
            for row in _fan_rows(result.horizon):
                fan.add_row(*row)
            parts.append(fan)
    for failure in result.failures[:5]:
        parts.append(Text(f"sample {failure.sample} failed: {failure.error}"))
    return render_text(console, parts)


def risk_markdown(result: RiskResult) -> str:
    out = ["# Risk\n\n", headline(result), "\n\n"]
    out.append(markdown_table(SPREAD_HEADERS, _spread_rows(result)))
    out.append("\n" + markdown_table(["", ""], _chance_rows(result)))
    if result.drivers:
        out.append(f"\n## {DRIVERS_TITLE}\n\n")
        out.append(markdown_table(DRIVER_HEADERS, _driver_rows(result)))
    shares = _share_rows(result)
    if shares:
        out.append(f"\n## Share of futures on {', '.join(result.trainium_accelerators)}\n\n")
        out.append(markdown_table(["workload", "share"], shares))
    if result.horizon is not None:
        out.append(f"\n## {FAN_TITLE}\n\n{horizon_sentence(result.horizon)}\n\n")
        if result.horizon.months:
            out.append(markdown_table(FAN_HEADERS, _fan_rows(result.horizon)))
    if result.failures:
        out.append("\n## Failed samples\n\n")
        out.append("".join(f"- sample {f.sample}: {f.error}\n" for f in result.failures))
    return "".join(out)


def risk_csv(result: RiskResult) -> str:
    # A sample's roadmap column only where a roadmap was held (--horizon).
    leave = None if result.horizon is not None else {"roadmap_usd"}
    samples = pd.DataFrame([s.model_dump(exclude=leave) for s in result.sample_costs])
    drivers = pd.DataFrame([d.model_dump() for d in result.drivers])
    shares = pd.DataFrame(
        [{"workload_id": w, "share": s} for w, s in result.trainium_share.items()]
    )
    return (
        csv_text(samples)
        + "\n# drivers\n"
        + csv_text(drivers)
        + "\n# trainium_share\n"
        + csv_text(shares)
        + _fan_csv(result)
    )


def _fan_csv(result: RiskResult) -> str:
    """With --horizon, every month of the held roadmap's fan as a ``# roadmap_months`` section."""
    if result.horizon is None:
        return ""
    months = pd.DataFrame([m.model_dump() for m in result.horizon.months])
    return "\n# roadmap_months\n" + csv_text(months)


def risk_record(result: RiskResult) -> dict[str, Any]:
    return result.model_dump(mode="json")


def render_risk(result: RiskResult, fmt: str, console: Console | None = None) -> str:
    """The risk result in one of the shared formats."""
    if fmt == "json":
        return json.dumps(risk_record(result), indent=2) + "\n"
    if fmt == "csv":
        return risk_csv(result)
    if fmt == "md":
        return risk_markdown(result)
    return risk_table(result, console)
