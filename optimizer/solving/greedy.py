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

import math
from dataclasses import dataclass

import numpy as np
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
    cap = catalog.economics.porting_capacity_weeks_per_cycle
    if cap is None:
        return _weigh_one_offs(per_accelerator, catalog, months)
    cheapest = per_accelerator.loc[per_accelerator.groupby("workload")["cost"].idxmin()]
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
    return _weigh_one_offs(allowed, catalog, months)


@dataclass(frozen=True)
class _Choice:
    """A workload's best option on one accelerator (a row of ``per_accelerator``)."""

    workload: int
    accelerator: str
    cost: float
    needs_port: bool
    needs_migration: bool
    family: object
    platform: object

    def uses(self, needs: str, key: tuple[str, ...]) -> bool:
        """Whether this choice needs the port (``key``: family, platform) or the migration
        programme (``key``: platform) being weighed."""
        return self.key(needs) == key

    def key(self, needs: str) -> tuple[str, ...] | None:
        """The port or programme this choice needs, if any (None where its name is missing,
        which grouping leaves out)."""
        parts = (self.family, self.platform) if needs == "needs_port" else (self.platform,)
        if not getattr(self, needs) or any(pd.isna(part) for part in parts):
            return None
        return tuple(str(part) for part in parts)


def _cheapest(choices: list[_Choice]) -> dict[int, _Choice]:
    """Each workload's cheapest choice, the first of equals in frame order (``idxmin``)."""
    best: dict[int, _Choice] = {}
    for choice in choices:
        if math.isnan(choice.cost):
            continue
        held = best.get(choice.workload)
        if held is None or choice.cost < held.cost:
            best[choice.workload] = choice
    return dict(sorted(best.items()))


def _weigh_one_offs(options: pd.DataFrame, catalog: Catalog, months: float) -> dict[int, str]:
    """Drop the ports, then the migration programmes, that do not save their amortized one-off
    (see the module); the workloads that used them take their best option without them.

    Plain records rather than a frame per port weighed: a few thousand rows, where pandas'
    per-call cost (a dozen group-bys a port) was most of the greedy plan's time."""
    columns = ["workload", "accelerator", "cost", "needs_port", "needs_migration"]
    allowed = [
        _Choice(int(w), str(a), float(c), bool(p), bool(m), f, s)
        for w, a, c, p, m, f, s in zip(
            *(options[column].tolist() for column in [*columns, "family", "platform"]),
            strict=True,
        )
    ]
    chosen = _cheapest(allowed)
    for needs in ("needs_port", "needs_migration"):
        groups: dict[tuple[str, ...], list[_Choice]] = {}
        for choice in chosen.values():
            key = choice.key(needs)
            if key is not None:
                groups.setdefault(key, []).append(choice)
        for key, group in sorted(groups.items()):
            platform = key[-1]
            one_off = porting_one_off_usd(catalog, platform)
            if needs == "needs_migration":
                ported = len({str(c.family) for c in group if c.needs_port})
                one_off = migration_one_off_usd(catalog, platform) + one_off * ported
            members = {c.workload for c in group}
            best_without = _cheapest(
                [c for c in allowed if c.workload in members and not c.uses(needs, key)]
            )
            if len(best_without) < len(members):
                continue  # some workload has nowhere else to run: the one-off is needed
            # Summed as pandas sums a Series (pairwise, in workload order): the same figure.
            saving = float(
                np.sum([best_without[c.workload].cost - c.cost for c in group], dtype=float)
            )
            if saving <= one_off / months:
                allowed = [c for c in allowed if not c.uses(needs, key)]
        chosen = _cheapest(allowed)
    return {w: c.accelerator for w, c in chosen.items()}
