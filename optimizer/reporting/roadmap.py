"""A roadmap (``plan --horizon N``) as a table section, Markdown and a CSV table: its headline
figures and one row per month."""

from __future__ import annotations

from typing import Any

import pandas as pd

from placement.models.plan import Roadmap


def _usd(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def roadmap_summary(roadmap: Roadmap) -> list[tuple[str, str]]:
    """The roadmap's headline figures, as label and value."""
    payback = (
        "none: the roadmap changes nothing (every workload stays where it runs)"
        if roadmap.changes_nothing
        else "never within the horizon"
        if roadmap.payback_month is None
        else (f"month {roadmap.payback_month}")
    )
    steady = (
        "not within the horizon"
        if roadmap.steady_state_month is None
        else (f"month {roadmap.steady_state_month}")
    )
    return [
        ("horizon", f"{roadmap.horizon_months} months"),
        ("total over the horizon", "$" + _usd(roadmap.total_usd)),
        ("  commitments paid after it", "$" + _usd(roadmap.after_horizon_usd)),
        ("    of which charged (workloads end)", "$" + _usd(roadmap.after_horizon_charged_usd)),
        ("staying where the team is", "$" + _usd(roadmap.stay_total_usd)),
        ("payback", payback),
        ("first-year net", "$" + _usd(roadmap.first_year_net_usd)),
        ("every workload on its target", steady),
    ]


MONTH_HEADERS = ("month", "what happens", "cost $", "stay $", "saving $", "running $")


def _events(month: Any) -> str:
    """What starts, ends or becomes ready in a month, in words."""
    parts = []
    if month.migrations_in_progress:
        parts.append("migrating " + ", ".join(month.migrations_in_progress))
    if month.migrations_ready:
        parts.append(", ".join(month.migrations_ready) + " ready")
    if month.ports_in_progress:
        parts.append("porting " + ", ".join(month.ports_in_progress))
    if month.ports_ready:
        parts.append("ported " + ", ".join(month.ports_ready))
    if month.moves:
        parts.append(f"{len(month.moves)} moved")
    if month.commitments_bought:
        parts.append("buy " + ", ".join(month.commitments_bought))
    if month.commitments_expiring:
        parts.append("ends " + ", ".join(month.commitments_expiring))
    return "; ".join(parts)


def month_rows(roadmap: Roadmap) -> list[tuple[str, ...]]:
    """One row of text cells per month (:data:`MONTH_HEADERS`)."""
    return [
        (
            str(m.month),
            _events(m),
            _usd(m.cost_usd),
            _usd(m.stay_cost_usd),
            _usd(m.saving_usd),
            _usd(m.cumulative_saving_usd),
        )
        for m in roadmap.months
    ]


def roadmap_frame(roadmap: Roadmap) -> pd.DataFrame:
    """The months as a CSV table: every figure of each month, one column per accelerator's
    workload count, lists ``;``-joined."""
    accelerators = sorted({a for m in roadmap.months for a in m.workloads_by_accelerator})
    rows = []
    for m in roadmap.months:
        record = m.model_dump()
        counts = record.pop("workloads_by_accelerator")
        record.update({f"workloads_{a}": counts.get(a, 0) for a in accelerators})
        rows.append(record)
    return pd.DataFrame(rows)
