"""The reference comparison as a report: every check and the break-evens, as tables, JSON, CSV or
Markdown."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from placement.comparing.reference import ReferenceReport
from placement.reporting.records import render_records


def break_even_records(report: ReferenceReport) -> list[dict[str, Any]]:
    return [
        {
            "case": b.name,
            "break_even_h100_gpu_hours_per_month": None
            if b.h100_gpu_hours is None
            else round(b.h100_gpu_hours),
            "incumbent_usd_per_h100_hour": round(b.incumbent_usd_per_h100_hour, 4),
            "new_platform_usd_per_h100_hour": round(b.new_usd_per_h100_hour, 4),
            "porting_and_migration_monthly_usd": round(b.fixed_monthly_usd, 2),
        }
        for b in report.break_evens
    ]


def render_reference(report: ReferenceReport, fmt: str, console: Console | None = None) -> str:
    """The report in one of the shared output formats (tables drawn on ``console``)."""
    checks = [c.record() for c in report.checks]
    evens = break_even_records(report)
    if fmt == "json":
        return (
            json.dumps(
                {"all_within_tolerance": report.all_ok, "checks": checks, "break_even": evens},
                indent=2,
            )
            + "\n"
        )
    if fmt == "csv":
        return render_records(checks, "csv", "")
    flagged = sum(1 for c in report.checks if not c.ok)
    summary = f"{len(checks) - flagged} of {len(checks)} figures within tolerance" + (
        f"; {flagged} flagged NO" if flagged else ""
    )
    return (
        render_records(checks, fmt, "Reference document vs model", console)
        + ("\n" if fmt == "md" else "")
        + render_records(
            evens, fmt, "Break-even training volume (porting and migration included)", console
        )
        + ("\n" if fmt == "md" else "")
        + summary
        + "\n"
    )
