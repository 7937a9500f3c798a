"""The greedy baseline's placement: each workload on its cheapest accelerator, within the
porting cap and the pins (the pool model then prices it like any plan).

A workload's cost on an accelerator is its cheapest option there as if fully on it (on demand,
or all its chip-hours at a commitment's rate), plus its amortized switching cost where it runs
elsewhere today. With a porting cap, ports are kept in order of
the saving they bring (the sum, over the workloads that would use them, of the cost of their
best option without a new port minus the cost with it) while their weeks fit; workloads whose
port is not kept take their cheapest option without one.

Then the shared one-offs are weighed the way a team would: a port is kept only where what it
saves its family's workloads a month (against their best option without it) exceeds its
amortized one-off, and a platform's migration programme only where what its workloads save
against their best option off the platform exceeds the programme's amortized one-off (and the
ports it needs); otherwise those workloads take their best option without it. A startup whose
one workload would save $500 a month on Trainium2 is not handed a $125k programme.
"""

from __future__ import annotations

import pandas as pd

from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
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
            needs_migration=("needs_migration", "first"),
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
        return _weigh_one_offs(per_accelerator, cheapest, catalog, months)
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
    return _weigh_one_offs(allowed, best, catalog, months)


def _weigh_one_offs(
    options: pd.DataFrame, chosen: pd.DataFrame, catalog: Catalog, months: float
) -> dict[int, str]:
    """Drop the ports, then the migration programmes, that do not save their amortized one-off
    (see the module); the workloads that used them take their best option without them."""
    allowed = options
    for needs, keys in (("needs_port", ["family", "platform"]), ("needs_migration", ["platform"])):
        for key, group in chosen[chosen[needs]].groupby(keys, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            platform = str(key[-1])
            one_off = porting_one_off_usd(catalog, platform)
            if needs == "needs_migration":
                ported = group.loc[group["needs_port"], "family"].astype(str).nunique()
                one_off = migration_one_off_usd(catalog, platform) + one_off * ported
            using = allowed[needs] & _matches(allowed, keys, key)
            fallback = allowed[~using & allowed["workload"].isin(group["workload"])]
            best_without = fallback.groupby("workload")["cost"].min()
            if best_without.index.size < group["workload"].nunique():
                continue  # some workload has nowhere else to run: the one-off is needed
            saving = float((best_without - group.set_index("workload")["cost"]).sum())
            if saving <= one_off / months:
                allowed = allowed[~using]
        chosen = allowed.loc[allowed.groupby("workload")["cost"].idxmin()]
    return dict(zip(chosen["workload"], chosen["accelerator"], strict=True))


def _matches(frame: pd.DataFrame, columns: list[str], values: tuple[object, ...]) -> pd.Series:
    match = pd.Series(True, index=frame.index)
    for column, value in zip(columns, values, strict=True):
        match &= frame[column].astype(str).eq(str(value))
    return match
