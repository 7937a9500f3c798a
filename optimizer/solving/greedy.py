"""The greedy baseline's placement: each workload on its cheapest accelerator, within the
porting cap and the pins (the pool model then prices it like any plan).

A workload's cost on an accelerator is its cheapest option there as if fully on it (on demand,
or all its chip-hours at a commitment's rate), plus its amortized switching cost where it runs
elsewhere today. With a porting cap, ports are kept in order of
the saving they bring (the sum, over the workloads that would use them, of the cost of their
best option without a new port minus the cost with it) while their weeks fit; workloads whose
port is not kept take their cheapest option without one.
"""

from __future__ import annotations

import pandas as pd

from placement.models.catalog import Catalog


def greedy_placement(options: pd.DataFrame, catalog: Catalog) -> dict[int, str]:
    """Workload position -> accelerator, for every placeable workload."""
    feasible = options[options["feasible"]]
    if feasible.empty:
        return {}
    per_accelerator = (
        feasible.groupby(["workload", "accelerator"], sort=True)
        .agg(
            compute=("monthly_cost_usd", "min"),
            switching=("switching_usd", "first"),
            needs_port=("needs_port", "first"),
            family=("family", "first"),
            platform=("platform", "first"),
        )
        .reset_index()
    )
    months = catalog.economics.amortization_months.value
    per_accelerator["cost"] = per_accelerator["compute"] + per_accelerator["switching"] / months
    cheapest = per_accelerator.loc[per_accelerator.groupby("workload")["cost"].idxmin()]
    cap = catalog.economics.porting_capacity_weeks_per_cycle
    if cap is None:
        return dict(zip(cheapest["workload"], cheapest["accelerator"], strict=True))
    without_port = per_accelerator[~per_accelerator["needs_port"]]
    fallback = without_port.groupby("workload")["cost"].min()
    porting = cheapest[cheapest["needs_port"]]
    saving = (
        porting.assign(saving=porting["workload"].map(fallback) - porting["cost"])
        .groupby(["family", "platform"])["saving"]
        .sum(min_count=1)
        .fillna(float("inf"))  # no option without the port: the port is needed
        .sort_values(ascending=False)
    )
    kept: set[tuple[str, str]] = set()
    weeks = 0.0
    for family, platform in saving.index:
        cost = catalog.platforms[str(platform)].porting_weeks_per_family.value
        if weeks + cost <= cap + 1e-9:
            kept.add((str(family), str(platform)))
            weeks += cost
    allowed = per_accelerator[
        ~per_accelerator["needs_port"]
        | pd.Series(
            [
                (str(f), str(p)) in kept
                for f, p in zip(per_accelerator["family"], per_accelerator["platform"], strict=True)
            ],
            index=per_accelerator.index,
        )
    ]
    best = allowed.loc[allowed.groupby("workload")["cost"].idxmin()]
    return dict(zip(best["workload"], best["accelerator"], strict=True))
