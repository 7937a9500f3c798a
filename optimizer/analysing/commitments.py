"""The plan's commitment sections, from a solution: what was bought and owned, how much of it
is used and where it pays, and the chips per time slice.

Owned commitments are used first, slice by slice: in every time slice the owned part of a
product covers up to its capacity in that slice (shared between owned entries by size) and what
is bought covers the rest of that slice's use. A purchase is therefore used exactly where the
owned capacity runs out, never credited with hours in which nothing needs it.

Each commitment's **break-even utilisation** is the utilisation at which it costs what the
chip-hours it covers would cost on demand: ``r_q / c_a`` (its rate per covered chip-hour over the
on-demand rate; for a savings plan, weighted by what it covers). Above it, it saves
``net_saving_monthly_usd`` = its covered chip-hours at on-demand rates minus its monthly cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from placement.analysing.extract import Solution
from placement.estimating.economics.commitments import OwnedEntry
from placement.estimating.economics.rates import covered_rate, on_demand_rates
from placement.models.catalog import Catalog
from placement.models.plan import Commitment, ReservedPurchase, SliceUse


def _share(part: float, whole: float) -> float:
    return part / whole if whole > 0 else 0.0


def _accelerator_hours(solution: Solution) -> dict[str, float]:
    chosen = solution.chosen
    return {str(k): float(v) for k, v in chosen.groupby("accelerator")["chip_hours"].sum().items()}


@dataclass(frozen=True)
class _Use:
    """What one commitment covers a month: chip-hours, at its rates, and at on-demand rates."""

    chip_hours: float
    usd: float
    on_demand_usd: float

    def scaled(self, share: float) -> _Use:
        return _Use(self.chip_hours * share, self.usd * share, self.on_demand_usd * share)


@dataclass(frozen=True)
class _Split:
    """A product's size, owned part and bought part (chip-hours for reservations, USD a month
    for savings plans), and what each part covers, owned first in every slice."""

    owned_size: float
    bought_size: float
    owned: _Use
    bought: _Use


def _slice_use(p: Any, solution: Solution) -> list[tuple[float, dict[str, float]]]:
    """Per time slice: its hours in the month and the chips the product covers there, by
    accelerator."""
    by_slice: dict[str, tuple[float, dict[str, float]]] = {}
    for s in solution.slices.itertuples():
        chips = float(s.covered_by.get(p.product, 0.0))
        if chips <= 0 or s.accelerator not in p.accelerators:
            continue
        on = by_slice.setdefault(str(s.slice), (float(s.hours), {}))[1]
        on[str(s.accelerator)] = on.get(str(s.accelerator), 0.0) + chips
    return list(by_slice.values())


def _split(p: Any, solution: Solution, catalog: Catalog, hours: float) -> _Split:
    """Owned commitments are used first in every slice, up to their capacity there; what is
    bought carries the rest of that slice."""
    pricing = str(p.pricing)
    rate = {a: covered_rate(catalog, pricing, a) for a in p.accelerators}
    on_demand = on_demand_rates(catalog)
    if p.kind == "reserved":
        unit_hours = p.capacity_chip_hours / (p.units_bought + p.units_owned)
        owned_size = p.units_owned * unit_hours
        bought_size = p.units_bought * unit_hours
        owned_per_slice = owned_size / hours  # chips the owned units cover in any hour
    else:
        owned_size = p.usd_per_hour_owned * hours
        bought_size = p.usd_per_hour_bought * hours
        owned_per_slice = float(p.usd_per_hour_owned)  # USD per hour
    used = {"owned": [0.0, 0.0, 0.0], "bought": [0.0, 0.0, 0.0]}  # chip-hours, USD, on demand
    for slice_hours, chips in _slice_use(p, solution):
        if p.kind == "reserved":
            total = sum(chips.values())
            owned_share = min(1.0, _share(owned_per_slice, total))
        else:
            spend = sum(c * rate[a] for a, c in chips.items())
            owned_share = min(1.0, _share(owned_per_slice, spend))
        for part, share in (("owned", owned_share), ("bought", 1.0 - owned_share)):
            for a, c in chips.items():
                chip_hours = c * share * slice_hours
                used[part][0] += chip_hours
                used[part][1] += chip_hours * rate[a]
                used[part][2] += chip_hours * on_demand[a]
    return _Split(owned_size, bought_size, _Use(*used["owned"]), _Use(*used["bought"]))


def _break_even(p: Any, catalog: Catalog, used_usd: float, on_demand_usd: float) -> float:
    """The utilisation at which a commitment costs what its chip-hours would on demand: its
    rate over the on-demand rate, for the mix it covers (its accelerators alike if unused)."""
    if used_usd > 0 and on_demand_usd > 0:
        return used_usd / on_demand_usd
    on_demand = on_demand_rates(catalog)
    ratios = [covered_rate(catalog, str(p.pricing), a) / on_demand[a] for a in p.accelerators]
    return sum(ratios) / len(ratios)


def commitments(solution: Solution, catalog: Catalog) -> list[Commitment]:
    """One entry per owned commitment and per product bought in this plan."""
    hours = catalog.economics.hours_per_month.value
    on_acc = _accelerator_hours(solution)
    owned_by_product: dict[str, list[OwnedEntry]] = {}
    for entry in solution.owned:
        owned_by_product.setdefault(entry.product, []).append(entry)
    out: list[Commitment] = []
    for p in solution.products.itertuples():
        covers = sum(on_acc.get(a, 0.0) for a in p.accelerators)
        reservation = p.kind == "reserved"
        split = _split(p, solution, catalog, hours)
        # Chip-hours of one unit, to size each owned entry (reservations only).
        unit_hours = (
            p.capacity_chip_hours / (p.units_bought + p.units_owned) if reservation else 0.0
        )
        for entry in owned_by_product.get(p.product, []):
            size = (
                (entry.units or 0) * unit_hours
                if reservation
                else (entry.usd_per_hour or 0) * hours
            )
            share = _share(size, split.owned_size)
            out.append(
                _commitment(
                    p,
                    catalog,
                    True,
                    entry.units,
                    entry.usd_per_hour,
                    entry.months_left,
                    entry.monthly_usd,
                    size if reservation else None,
                    split.owned.scaled(share),
                    covers,
                )
            )
        if (reservation and p.units_bought) or (not reservation and p.usd_per_hour_bought > 1e-9):
            out.append(
                _commitment(
                    p,
                    catalog,
                    False,
                    int(p.units_bought) if reservation else None,
                    None if reservation else float(p.usd_per_hour_bought),
                    None,
                    float(p.bought_monthly_usd),
                    split.bought_size if reservation else None,
                    split.bought,
                    covers,
                )
            )
    return out


def _commitment(
    p: pd.Series,
    catalog: Catalog,
    owned: bool,
    units: int | None,
    usd_per_hour: float | None,
    months_left: int | None,
    monthly_usd: float,
    capacity: float | None,
    use: _Use,
    covers: float,
) -> Commitment:
    option = catalog.pricing_options[str(p.pricing)]
    return Commitment(
        pricing=str(p.pricing),
        kind=p.kind,
        owned=owned,
        accelerator=None if pd.isna(p.accelerator) else str(p.accelerator),
        unit_chips=None if p.unit_chips is None or math.isnan(p.unit_chips) else int(p.unit_chips),
        units=units,
        usd_per_hour=None if usd_per_hour is None else round(usd_per_hour, 4),
        term_months=None if owned else option.term_months,
        months_left=months_left,
        monthly_cost_usd=round(monthly_usd, 2),
        capacity_chip_hours=None if capacity is None else round(capacity, 3),
        used_chip_hours=round(use.chip_hours, 3),
        used_usd=round(use.usd, 2),
        utilization=round(min(1.0, _share(use.usd, monthly_usd)), 4) if monthly_usd else 1.0,
        coverage=round(_share(use.chip_hours, covers), 4),
        break_even_utilization=round(_break_even(p, catalog, use.usd, use.on_demand_usd), 4),
        net_saving_monthly_usd=round(use.on_demand_usd - monthly_usd, 2),
    )


def reserved_purchases(solution: Solution, catalog: Catalog) -> list[ReservedPurchase]:
    """The brief's ``reserved_purchases``: reservation units bought, one entry per product."""
    hours = catalog.economics.hours_per_month.value
    out = []
    for c in solution.products.itertuples():
        if c.kind != "reserved" or not c.units_bought:
            continue
        split = _split(c, solution, catalog, hours)
        capacity, used = split.bought_size, split.bought.chip_hours
        out.append(
            ReservedPurchase(
                accelerator=str(c.accelerator),
                pricing=str(c.pricing),
                units=int(c.units_bought),
                chips_per_unit=int(c.unit_chips),
                chips=int(c.units_bought) * int(c.unit_chips),
                monthly_cost_usd=round(float(c.bought_monthly_usd), 2),
                capacity_chip_hours=round(capacity, 3),
                used_chip_hours=round(used, 3),
                utilization=round(_share(used, capacity), 4),
                break_even_utilization=round(
                    _break_even(c, catalog, split.bought.usd, split.bought.on_demand_usd), 4
                ),
            )
        )
    return out


def slice_uses(solution: Solution) -> list[SliceUse]:
    """Chips per (accelerator, slice), as the plan reports them."""
    return [
        SliceUse(
            accelerator=str(r.accelerator),
            slice=str(r.slice),
            hours=round(float(r.hours), 4),
            serving_chips=round(float(r.serving_chips), 4),
            work_chips=round(float(r.work_chips), 4),
            flexible_chips=round(float(r.flexible_chips), 4),
            committed_chips=round(float(r.committed_chips), 4),
            steady_committed_chips=round(float(r.steady_committed_chips), 4),
            on_demand_chips=round(float(r.on_demand_chips), 4),
            covered_by={k: round(v, 4) for k, v in sorted(r.covered_by.items())},
            limit_chips=None if pd.isna(r.limit_chips) else int(r.limit_chips),
        )
        for r in solution.slices.itertuples()
    ]
