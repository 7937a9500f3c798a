"""One sentence per assignment saying why that option won, from the estimates and the solution."""

from __future__ import annotations

import pandas as pd

from optimizer.extract import Solution


def _usd(value: float) -> str:
    return f"${value:,.0f}"


def _label(row: pd.Series) -> str:
    return f"{row['accelerator']} {row['pricing']}"


def why_for(
    chosen: pd.Series, feasible: pd.DataFrame, solution: Solution, infeasible: pd.DataFrame
) -> str:
    """Why ``chosen`` won over the other feasible options of the same workload.

    Compute costs are compared at each option's hourly rate; when a cheaper option lost, the
    sentence names the fixed cost or capacity effect that made it lose.
    """
    parts: list[str] = []
    others = feasible[feasible.index != chosen.name].sort_values("monthly_cost_usd")
    cheaper = others[others["monthly_cost_usd"] < chosen["monthly_cost_usd"] - 1e-6]
    cost = _usd(chosen["monthly_cost_usd"])
    if cheaper.empty:
        if others.empty:
            parts.append(f"only feasible option ({cost}/month)")
        else:
            nxt = others.iloc[0]
            parts.append(
                f"cheapest feasible option at {cost}/month (next: {_label(nxt)} "
                f"{_usd(nxt['monthly_cost_usd'])})"
            )
    else:
        best = cheaper.iloc[0]
        parts.append(
            f"{_label(best)} would be {_usd(best['monthly_cost_usd'])}/month vs {cost}, but "
            + _why_not(best, chosen, solution)
        )
    if chosen["needs_port"]:
        sharing = solution.chosen[
            solution.chosen["family"].eq(chosen["family"])
            & solution.chosen["platform"].eq(chosen["platform"])
            & solution.chosen["needs_port"]
        ]
        parts.append(
            f"uses the {chosen['family']} port to {chosen['platform']} "
            f"(shared by {len(sharing)} workload{'s' if len(sharing) != 1 else ''})"
        )
    if chosen["pricing_kind"] == "reserved":
        parts.append("runs on the reserved pool")
    if not infeasible.empty:
        blocked = "; ".join(
            f"{acc}: {reason}"
            for acc, reason in infeasible.groupby("accelerator")["reason"].first().items()
        )
        parts.append(f"excluded: {blocked}")
    return "; ".join(parts)


def _why_not(best: pd.Series, chosen: pd.Series, solution: Solution) -> str:
    ported = set(zip(solution.ported["family"], solution.ported["platform"], strict=True))
    if best["needs_migration"] and best["platform"] not in solution.adopted:
        return f"the {best['platform']} migration programme does not pay for itself"
    if best["needs_port"] and (best["family"], best["platform"]) not in ported:
        return f"porting {best['family']} to {best['platform']} does not pay for itself"
    if best["pricing_kind"] == "reserved" and chosen["pricing_kind"] != "reserved":
        return "a reserved unit for it would sit partly idle"
    if best["pricing_kind"] != "reserved" and chosen["pricing_kind"] == "reserved":
        return "reserved capacity bought for other work has room for it"
    return "the pools and fixed costs of the whole plan make this cheaper overall"
