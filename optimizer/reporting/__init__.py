"""Reporting: results as terminal tables (rich), JSON, CSV and Markdown, from plan data only.

``terminal`` chooses the console (width, colour, frames), ``records`` renders flat records
(validate, catalog show, reference), ``plan`` renders the plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.reporting.formats import FORMATS
    from placement.reporting.plan import (
        CSV_TABLES,
        PlanView,
        plan_csv_files,
        plan_rows,
        render_plan,
        summary_lines,
    )
    from placement.reporting.records import markdown_table, render_records

__all__ = [
    "CSV_TABLES",
    "FORMATS",
    "PlanView",
    "markdown_table",
    "plan_csv_files",
    "plan_rows",
    "render_plan",
    "render_records",
    "summary_lines",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CSV_TABLES": "placement.reporting.plan",
        "FORMATS": "placement.reporting.formats",
        "PlanView": "placement.reporting.plan",
        "markdown_table": "placement.reporting.records",
        "plan_csv_files": "placement.reporting.plan",
        "plan_rows": "placement.reporting.plan",
        "render_plan": "placement.reporting.plan",
        "render_records": "placement.reporting.records",
        "summary_lines": "placement.reporting.plan",
    },
)
