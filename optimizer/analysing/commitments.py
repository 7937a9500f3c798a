"""The plan's commitment sections, from a solution: what was bought and owned, and the chips
per time slice.

Owned commitments are used first: of a product's use, the owned part takes up to its capacity
(shared between owned entries by size) and what is bought takes the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from placement.analysing.extract import Solution
from placement.estimating.economics.commitments import OwnedEntry
from placement.models.catalog import Catalog
from placement.models.plan import Commitment, ReservedPurchase, SliceUse


def _share(part: float, whole: float) -> float:
    return part / whole if whole > 0 else 0.0


def _accelerator_hours(solution: Solution) -> dict[str, float]:
    chosen = solution.chosen
    return {str(k): float(v) for k, v in chosen.groupby("accelerator")["chip_hours"].sum().items()}


@dataclass(frozen=True)
class _Split:
    """A product's size and use, owned part first: sizes in chip-hours (reservations) or USD a
    month (savings plans), use in chip-hours."""

    owned_size: float
    bought_size: float
    used_owned: float
    used_bought: float


def _split(p: Any, hours: float) -> _Split:
    """Owned commitments are used first, up to their size; what is bought carries the rest."""
    if p.kind == "reserved":
        unit_hours = p.capacity_chip_hours / (p.units_bought + p.units_owned)
        owned_size = p.units_owned * unit_hours
        bought_size = p.units_bought * unit_hours
        used_owned = min(p.used_chip_hours, owned_size)
    else:
        owned_size = p.usd_per_hour_owned * hours
        bought_size = p.usd_per_hour_bought * hours
        used_owned = p.used_chip_hours * min(1.0, _share(owned_size, p.used_usd))
    return _Split(owned_size, bought_size, used_owned, p.used_chip_hours - used_owned)


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
        split = _split(p, hours)
        # Chip-hours of one unit, to size each owned entry (reservations only).
        unit_hours = (
            p.capacity_chip_hours / (p.units_bought + p.units_owned) if reservation else 0.0
        )
        usd_per_chip_hour = _share(p.used_usd, p.used_chip_hours)
        for entry in owned_by_product.get(p.product, []):
            size = (
                (entry.units or 0) * unit_hours
                if reservation
                else (entry.usd_per_hour or 0) * hours
            )
            used = split.used_owned * _share(size, split.owned_size)
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
                    used,
                    used * usd_per_chip_hour,
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
                    split.used_bought,
                    split.used_bought * usd_per_chip_hour,
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
    used: float,
    used_usd: float,
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
        used_chip_hours=round(used, 3),
        used_usd=round(used_usd, 2),
        utilization=round(min(1.0, _share(used_usd, monthly_usd)), 4) if monthly_usd else 1.0,
        coverage=round(_share(used, covers), 4),
    )


def reserved_purchases(solution: Solution, catalog: Catalog) -> list[ReservedPurchase]:
    """The brief's ``reserved_purchases``: reservation units bought, one entry per product."""
    hours = catalog.economics.hours_per_month.value
    out = []
    for c in solution.products.itertuples():
        if c.kind != "reserved" or not c.units_bought:
            continue
        split = _split(c, hours)
        capacity, used = split.bought_size, split.used_bought
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
            on_demand_chips=round(float(r.on_demand_chips), 4),
            covered_by={k: round(v, 4) for k, v in sorted(r.covered_by.items())},
            limit_chips=None if pd.isna(r.limit_chips) else int(r.limit_chips),
        )
        for r in solution.slices.itertuples()
    ]
