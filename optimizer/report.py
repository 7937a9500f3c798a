"""Render plans and catalogs as table (rich), JSON, CSV or Markdown. Reads plan data only."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from placement.models.plan import Plan

FORMATS = ("table", "json", "csv", "md")


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.0f}"


def plan_rows(plan: Plan) -> pd.DataFrame:
    """One row per workload (placed or not), extra inventory columns carried through."""
    rows: list[dict[str, Any]] = []
    for a in plan.assignments:
        rows.append(
            {
                "workload_id": a.workload_id,
                "placed": True,
                "accelerator": a.accelerator,
                "pricing": a.pricing,
                "chips": a.chips,
                "chip_hours": a.chip_hours,
                "monthly_cost_usd": a.monthly_cost_usd,
                "why": a.why,
                **a.extra,
            }
        )
    for u in plan.unplaced:
        rows.append(
            {
                "workload_id": u.workload_id,
                "placed": False,
                "why": "unplaced: " + " | ".join(u.reasons),
            }
        )
    columns = [
        "workload_id",
        "placed",
        "accelerator",
        "pricing",
        "chips",
        "chip_hours",
        "monthly_cost_usd",
        "why",
    ]
    frame = pd.DataFrame(rows)
    extras = [c for c in frame.columns if c not in columns]
    return frame.reindex(columns=columns + extras)


def summary_lines(plan: Plan) -> list[tuple[str, str]]:
    """The headline figures: status, total, breakdown, baselines and savings."""
    b = plan.baselines
    cb = plan.cost_breakdown
    lines = [
        ("status", plan.status + (f" ({plan.message})" if plan.message else "")),
        ("monthly cost", _usd(plan.objective_monthly_usd)),
        ("  on-demand", _usd(cb.on_demand_usd)),
        ("  reserved", _usd(cb.reserved_usd)),
        ("  porting (amortized)", _usd(cb.porting_amortized_usd)),
        ("  migration (amortized)", _usd(cb.migration_amortized_usd)),
        (
            "all H100 on-demand",
            f"{_usd(b.all_h100_on_demand_usd)} (saves {_usd(b.savings_vs_all_h100_on_demand_usd)})",
        ),
        (
            "best without migrating",
            f"{_usd(b.all_h100_optimal_usd)} (saves {_usd(b.savings_vs_all_h100_optimal_usd)})",
        ),
        (
            "greedy cheapest options",
            f"{_usd(b.greedy_usd)} (saves {_usd(b.savings_vs_greedy_usd)})",
        ),
        (
            "solver",
            f"{plan.solver.name}, {plan.solver.time_s:.2f} s, gap "
            + ("n/a" if plan.solver.gap is None else f"{plan.solver.gap:.2%}"),
        ),
    ]
    return lines


def render_plan(plan: Plan, fmt: str, width: int | None = None) -> str:
    """The plan in one of ``FORMATS``."""
    if fmt == "json":
        return plan.model_dump_json(indent=2) + "\n"
    if fmt == "csv":
        return plan_rows(plan).to_csv(index=False)
    if fmt == "md":
        return _plan_markdown(plan)
    return _plan_table(plan, width)


def _plan_table(plan: Plan, width: int | None) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width or 160, force_terminal=False, color_system=None)
    summary = Table(title="Placement plan", show_header=False, box=None)
    for key, value in summary_lines(plan):
        summary.add_row(key, value)
    console.print(summary)
    table = Table(title="Assignments")
    for col in ("workload", "accelerator", "pricing", "chips", "chip-hours", "$/month", "why"):
        table.add_column(
            col, justify="right" if col in {"chips", "chip-hours", "$/month"} else "left"
        )
    for a in plan.assignments:
        table.add_row(
            a.workload_id,
            a.accelerator,
            a.pricing,
            str(a.chips),
            f"{a.chip_hours:,.0f}",
            f"{a.monthly_cost_usd:,.0f}",
            a.why,
        )
    console.print(table)
    if plan.reserved_purchases:
        res = Table(title="Reserved purchases")
        for col in ("accelerator", "pricing", "units", "chips", "$/month", "utilization"):
            res.add_column(col)
        for r in plan.reserved_purchases:
            res.add_row(
                r.accelerator,
                r.pricing,
                str(r.units),
                str(r.chips),
                f"{r.monthly_cost_usd:,.0f}",
                f"{r.utilization:.1%}",
            )
        console.print(res)
    if plan.ported_families or plan.migrations:
        fixed = Table(title="Porting and migration")
        for col in ("item", "one-off $", "$/month amortized", "workloads"):
            fixed.add_column(col)
        for p in plan.ported_families:
            fixed.add_row(
                f"port {p.family} to {p.platform} ({p.porting_weeks:g} weeks)",
                f"{p.one_off_usd:,.0f}",
                f"{p.amortized_monthly_usd:,.0f}",
                str(len(p.workloads)),
            )
        for m in plan.migrations:
            fixed.add_row(
                f"migrate to {m.platform} ({m.lead_weeks:g} weeks lead)",
                f"{m.one_off_usd:,.0f}",
                f"{m.amortized_monthly_usd:,.0f}",
                "",
            )
        console.print(fixed)
    if plan.unplaced:
        un = Table(title="Unplaced workloads")
        un.add_column("workload")
        un.add_column("reasons")
        for u in plan.unplaced:
            un.add_row(u.workload_id, "\n".join(u.reasons))
        console.print(un)
    return buffer.getvalue()


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table; pipes in cells are escaped."""

    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def _plan_markdown(plan: Plan) -> str:
    parts = ["# Placement plan\n", markdown_table(["", ""], summary_lines(plan))]
    parts.append("\n## Assignments\n")
    parts.append(
        markdown_table(
            ["workload", "accelerator", "pricing", "chips", "chip-hours", "$/month", "why"],
            [
                (
                    a.workload_id,
                    a.accelerator,
                    a.pricing,
                    a.chips,
                    f"{a.chip_hours:,.0f}",
                    f"{a.monthly_cost_usd:,.0f}",
                    a.why,
                )
                for a in plan.assignments
            ],
        )
    )
    if plan.reserved_purchases:
        parts.append("\n## Reserved purchases\n")
        parts.append(
            markdown_table(
                ["accelerator", "pricing", "units", "chips", "$/month", "utilization"],
                [
                    (
                        r.accelerator,
                        r.pricing,
                        r.units,
                        r.chips,
                        f"{r.monthly_cost_usd:,.0f}",
                        f"{r.utilization:.1%}",
                    )
                    for r in plan.reserved_purchases
                ],
            )
        )
    if plan.ported_families or plan.migrations:
        parts.append("\n## Porting and migration\n")
        parts.append(
            markdown_table(
                ["item", "one-off $", "$/month amortized"],
                [
                    (
                        f"port {p.family} to {p.platform}",
                        f"{p.one_off_usd:,.0f}",
                        f"{p.amortized_monthly_usd:,.0f}",
                    )
                    for p in plan.ported_families
                ]
                + [
                    (
                        f"migrate to {m.platform}",
                        f"{m.one_off_usd:,.0f}",
                        f"{m.amortized_monthly_usd:,.0f}",
                    )
                    for m in plan.migrations
                ],
            )
        )
    if plan.unplaced:
        parts.append("\n## Unplaced\n")
        parts.append(
            markdown_table(
                ["workload", "reasons"],
                [(u.workload_id, "; ".join(u.reasons)) for u in plan.unplaced],
            )
        )
    return "".join(parts)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def render_records(records: list[dict[str, Any]], fmt: str, title: str) -> str:
    """Generic rendering of a list of flat records (validate, catalog show)."""
    if fmt == "json":
        return json.dumps(records, indent=2, default=str) + "\n"
    # object dtype: values keep their type (no 2 -> 2.0) and a missing value stays None, which
    # the table and Markdown show as an empty cell (not "nan").
    frame = pd.DataFrame(records, dtype=object)
    if fmt == "csv":
        return frame.to_csv(index=False)
    rows = [["" if _missing(v) else v for v in row] for row in frame.itertuples(index=False)]
    if fmt == "md":
        return f"# {title}\n\n" + markdown_table(list(frame.columns), rows)
    buffer = io.StringIO()
    console = Console(file=buffer, width=160, force_terminal=False, color_system=None)
    table = Table(title=title)
    for col in frame.columns:
        table.add_column(str(col), overflow="fold")  # long dotted paths wrap, never cut
    for row in rows:
        table.add_row(*(str(v) for v in row))
    console.print(table)
    return buffer.getvalue()
