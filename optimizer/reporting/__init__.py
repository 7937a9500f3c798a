"""Reporting: results as terminal tables (rich), JSON, CSV and Markdown, from plan data only.

``terminal`` chooses the console (width, colour, frames), ``records`` renders flat records
(validate, catalog show, reference), ``plan`` renders the plan.
"""

from placement.reporting.plan import (
    CSV_TABLES,
    PlanView,
    plan_csv_files,
    plan_rows,
    render_plan,
    summary_lines,
)
from placement.reporting.records import FORMATS, markdown_table, render_records

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
