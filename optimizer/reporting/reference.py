"""The reference comparison as a report: every check and the break-evens, as tables, JSON, CSV or
Markdown."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from rich.console import Console

from placement.comparing.reference import ReferenceReport
from placement.reporting.records import render_records

BREAK_EVEN_NOTE = (
    "Each break-even is the volume at which one family alone pays for its port and the whole "
    "migration programme, every hour reserved on both sides. A sweep of a row in an inventory "
    "finds where that inventory's plan changes, often at a lower volume, where other workloads "
    "already pay for the programme (docs/assumptions.md)."
)


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
                {
                    "all_within_tolerance": report.all_ok,
                    "checks": checks,
                    "break_even": evens,
                    "break_even_note": BREAK_EVEN_NOTE,
                },
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
        + (BREAK_EVEN_NOTE + "\n\n" if fmt == "md" else _wrapped(BREAK_EVEN_NOTE, console))
        + summary
        + "\n"
    )


def _wrapped(text: str, console: Console | None) -> str:
    """A paragraph folded to the console's width (80 without one), for the table format."""
    return textwrap.fill(text, width=console.width if console else 80) + "\n"
