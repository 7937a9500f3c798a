"""The moves a plan recommends: workloads leaving the accelerator they run on today.

Each move's saving compares like with like: the workload's compute a month at on-demand rates
where it runs today and where the plan puts it (the ``monthly_cost_usd`` of the two on-demand
options); its payback is the switching one-off over that saving. Commitments change what the
plan pays in the end, which the plan's totals show; the per-move figure says whether the move
pays for itself at list prices. A move that does not (it costs more on demand where it goes)
says why the plan makes it anyway: the commitments held there cover it, at the price the plan
pays for it.
"""

from __future__ import annotations

import pandas as pd

from placement.models.catalog import Catalog
from placement.models.plan import RecommendedMove


def recommended_moves(
    options: pd.DataFrame, chosen: pd.DataFrame, workloads: pd.DataFrame, catalog: Catalog
) -> list[RecommendedMove]:
    """One move per placed workload whose accelerator differs from its current one."""
    if "current_accelerator" not in workloads or workloads["current_accelerator"].isna().all():
        return []
    on_demand = {a: catalog.on_demand_option(a) for a in catalog.accelerators}
    today = options[options["pricing"].eq(options["accelerator"].map(on_demand))]
    today = today.set_index(["workload", "accelerator"])
    moves = []
    for row in chosen.itertuples():
        current = workloads.at[row.workload, "current_accelerator"]
        if current is None or pd.isna(current) or current == row.accelerator:
            continue
        there = today.loc[(row.workload, current)]
        one_off = float(row.switching_usd)
        saving = None
        reason = ""
        if bool(there["feasible"]):
            saving = round(float(there["monthly_cost_usd"]) - float(row.monthly_cost_usd), 2)
            if saving <= 0:
                reason = _dearer_at_list_prices(
                    str(row.accelerator),
                    -saving,
                    float(row.committed_chip_hours) / float(row.chip_hours),
                    float(row.compute_usd),
                )
        else:
            reason = f"cannot stay on {current}: {there['reason']}"
        moves.append(
            RecommendedMove(
                workload_id=str(row.workload_id),
                from_accelerator=str(current),
                to_accelerator=str(row.accelerator),
                switching_one_off_usd=round(one_off, 2),
                monthly_saving_usd=saving,
                payback_months=round(one_off / saving, 2) if saving and saving > 0 else None,
                reason=reason,
            )
        )
    return moves


def _dearer_at_list_prices(
    to: str, extra_usd: float, committed_share: float, compute_usd: float
) -> str:
    """Why a move that costs more on demand is in the plan: what covers it where it goes."""
    head = f"at on-demand prices it costs ${extra_usd:,.2f} a month more on {to}"
    if committed_share > 0:
        return (
            f"{head}; the plan moves it because commitments held on {to} cover "
            f"{committed_share:.0%} of its chip-hours: it costs ${compute_usd:,.2f} a month "
            "there in the plan"
        )
    return f"{head}; the plan's total is lower with it there (commitments are shared)"
