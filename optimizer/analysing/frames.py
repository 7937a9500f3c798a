"""A plan as pandas DataFrames, for notebooks: one flat frame per part of the plan.

Nested fields become columns: an assignment's ``coverage`` (chip-hours by pricing) as
``coverage_<pricing>``, its inventory's extra columns (team, owner...) under their own names,
its instances as ``instances``; lists in roadmap months stay lists. Every frame has its
columns even when the plan has no rows for it.

::

    result = plan("inputs/sample_inventory.csv")
    frames = result.frames()
    frames["assignments"].groupby("accelerator")["monthly_cost_usd"].sum()
    frames["showback"].groupby("team")["showback_monthly_usd"].sum()
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
from pydantic import BaseModel

from placement.models.numbers import usd
from placement.models.plan import (
    Assignment,
    Commitment,
    OptionEvaluation,
    Plan,
    RecommendedMove,
    RoadmapMonth,
    SliceUse,
)

FRAMES = ("assignments", "options", "commitments", "moves", "slices", "roadmap", "showback")
"""The frames ``plan_frames`` returns, by name."""


def _records(rows: list[BaseModel], model: type[BaseModel]) -> pd.DataFrame:
    return pd.DataFrame([r.model_dump() for r in rows], columns=list(model.model_fields))


def assignments_frame(plan: Plan) -> pd.DataFrame:
    """One row per placed workload; ``options`` left out (see ``options_frame``)."""
    columns = [c for c in Assignment.model_fields if c not in ("options", "extra", "coverage")]
    rows = []
    for a in plan.assignments:
        row: dict[str, Any] = {c: getattr(a, c) for c in columns}
        row.update({f"coverage_{p}": hours for p, hours in a.coverage.items()})
        row.update({k: v for k, v in a.extra.items() if k not in row})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=columns) if not rows else pd.DataFrame(rows)
    coverage = sorted(c for c in frame.columns if c.startswith("coverage_"))
    frame[coverage] = frame[coverage].fillna(0.0)
    return frame


def options_frame(plan: Plan) -> pd.DataFrame:
    """One row per (workload, option), with ``chosen`` marking the plan's."""
    rows = [
        {
            "workload_id": a.workload_id,
            "chosen": o.accelerator == a.accelerator and o.pricing == a.pricing,
            **o.model_dump(),
        }
        for a in plan.assignments
        for o in a.options
    ]
    return pd.DataFrame(rows, columns=["workload_id", "chosen", *OptionEvaluation.model_fields])


def showback_frame(plan: Plan) -> pd.DataFrame:
    """What each workload is charged back (``showback_monthly_usd``) beside the inventory's
    extra columns, so that ``groupby("team")`` sums a team's bill."""
    extras = sorted({k for a in plan.assignments for k in a.extra})
    rows = [
        {
            "workload_id": a.workload_id,
            **{k: a.extra.get(k) for k in extras},
            "accelerator": a.accelerator,
            "monthly_cost_usd": a.monthly_cost_usd,
            "showback_monthly_usd": a.showback_monthly_usd,
        }
        for a in plan.assignments
    ]
    columns = ["workload_id", *extras, "accelerator", "monthly_cost_usd", "showback_monthly_usd"]
    return pd.DataFrame(rows, columns=columns)


def plan_frames(plan: Plan) -> dict[str, pd.DataFrame]:
    """Every frame of :data:`FRAMES`."""
    months = plan.roadmap.months if plan.roadmap is not None else []
    return {
        "assignments": assignments_frame(plan),
        "options": options_frame(plan),
        "commitments": _records(list(plan.commitments), Commitment),
        "moves": _records(list(plan.moves), RecommendedMove),
        "slices": _records(list(plan.slices), SliceUse),
        "roadmap": _records(list(months), RoadmapMonth),
        "showback": showback_frame(plan),
    }


def summary_html(plan: Plan, top: int = 10) -> str:
    """A plan in a notebook: its status and money, then its ``top`` costliest workloads."""
    costs = plan.cost_breakdown
    rows = [
        ("status", plan.status),
        ("monthly cost", usd(plan.objective_monthly_usd)),
        ("on demand / commitments", f"{usd(costs.on_demand_usd)} / {usd(costs.reserved_usd)}"),
        (
            "porting / migration (amortized)",
            f"{usd(costs.porting_amortized_usd)} / {usd(costs.migration_amortized_usd)}",
        ),
        ("all H100 on demand", usd(plan.baselines.all_h100_on_demand_usd)),
        ("placed / unplaced", f"{len(plan.assignments):,} / {len(plan.unplaced):,}"),
        ("ported", ", ".join(f"{p.family} to {p.platform}" for p in plan.ported_families)),
    ]
    head = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    costliest = sorted(plan.assignments, key=lambda a: -a.monthly_cost_usd)[:top]
    table = pd.DataFrame(
        [
            {
                "workload": a.workload_id,
                "accelerator": a.accelerator,
                "pricing": a.pricing,
                "chips": a.chips,
                "monthly": usd(a.monthly_cost_usd),
            }
            for a in costliest
        ]
    )
    more = len(plan.assignments) - len(costliest)
    tail = f"<p>and {more:,} more: <code>.frames()['assignments']</code></p>" if more > 0 else ""
    return (
        f"<table>{head}</table><p>The {len(costliest)} costliest workloads:</p>"
        f"{table.to_html(index=False, escape=True)}{tail}"
    )
