"""The commitment products a plan can buy or already owns, read from the catalog.

A **reservation** product is one (reserved pricing option, accelerator, unit size): units of
``unit_chips`` chips, each costing ``unit_chips H c_a (1 - d_p)`` a month, covering hour by
hour whatever runs on that accelerator, up to ``unit_chips x usable`` chips per unit (``usable``
is 1 unless a catalog gives the legacy ``usable_fraction``), for replicas of at most
``max_replica_chips`` chips. A **savings plan** is a commitment of USD per hour that pays for
usage of the accelerators it covers at ``c_a (1 - d_{q,a})`` per chip-hour.

Owned commitments add units (or USD per hour) to their product and cost what they cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from placement.estimating.economics.rates import discounted_rate
from placement.models.catalog import Catalog


@dataclass(frozen=True)
class Reservation:
    """A reservation product: units of one size of one accelerator under one option."""

    key: str
    pricing: str
    accelerator: str
    unit_chips: int
    max_replica_chips: int | None
    max_units: int | None
    usable: float
    unit_monthly_usd: float
    rate_usd_per_chip_hour: float  # a covered chip-hour's price, every unit used
    owned_units: int = 0
    owned_monthly_usd: float = 0.0

    @property
    def unit_capacity_chips(self) -> float:
        """Chips one unit covers in any hour."""
        return self.unit_chips * self.usable


@dataclass(frozen=True)
class SavingsPlan:
    """A savings-plan product: USD per hour, spent at each covered accelerator's plan rate."""

    key: str
    pricing: str
    rates: dict[str, float]  # accelerator -> USD per chip-hour at the plan's rate
    max_usd_per_hour: float | None
    owned_usd_per_hour: float = 0.0
    owned_monthly_usd: float = 0.0


@dataclass(frozen=True)
class OwnedEntry:
    """One commitment of ``owned_commitments``, as the plan reports it."""

    product: str
    pricing: str
    accelerator: str | None
    unit_chips: int | None
    units: int | None
    usd_per_hour: float | None
    months_left: int
    monthly_usd: float


@dataclass(frozen=True)
class CommitmentBook:
    """Every product, and each accelerator's eligibility classes.

    A workload's class on accelerator ``a`` is the smallest ``max_replica_chips`` of ``a``'s
    reservation units that holds its replica (``math.inf`` when none does or none is set); a
    product of limit ``m`` covers the classes ``<= m``. Classes are sorted, ``inf`` last.
    """

    reservations: list[Reservation]
    savings_plans: list[SavingsPlan]
    owned: list[OwnedEntry]
    classes: dict[str, list[float]]

    def class_of(self, accelerator: str, replica_chips: int) -> float:
        """The eligibility class of a replica of ``replica_chips`` chips."""
        return next(c for c in self.classes[accelerator] if c >= replica_chips)

    def on(self, accelerator: str) -> list[Reservation]:
        """The reservation products of an accelerator."""
        return [r for r in self.reservations if r.accelerator == accelerator]

    def useful_units(self, product: Reservation) -> int | None:
        """The most units of ``product`` worth buying: its limit, and fewer than ``k`` where
        ``k`` of them cost and cover no more than one unit of a larger product of the same
        option (``k`` x its chips, holding any replica it holds, with no limit of its own).
        Without this the solver would search the many equal-cost mixes of sizes."""
        cap = product.max_units
        for other in self.on(product.accelerator):
            if other.pricing != product.pricing or other.unit_chips <= product.unit_chips:
                continue
            holds = other.max_replica_chips is None or (
                product.max_replica_chips is not None
                and other.max_replica_chips >= product.max_replica_chips
            )
            if other.unit_chips % product.unit_chips or not holds or other.max_units is not None:
                continue
            fewer = other.unit_chips // product.unit_chips - 1
            cap = fewer if cap is None else min(cap, fewer)
        return cap

    def plans_for(self, accelerator: str) -> list[SavingsPlan]:
        """The savings plans that cover an accelerator."""
        return [q for q in self.savings_plans if accelerator in q.rates]


def reservation_key(pricing: str, accelerator: str, unit_chips: int) -> str:
    """``reserved_1yr/h100/8``: how a reservation product is named in plans and checks."""
    return f"{pricing}/{accelerator}/{unit_chips}"


def commitment_book(catalog: Catalog) -> CommitmentBook:
    """The products of the catalog, with the commitments already owned added in."""
    hours = catalog.economics.hours_per_month.value
    reservations: dict[str, Reservation] = {}
    plans: dict[str, SavingsPlan] = {}
    classes: dict[str, list[float]] = {}
    for name, acc in catalog.accelerators.items():
        limits = {u.max_replica_chips for u in acc.units() if u.max_replica_chips is not None}
        classes[name] = [*sorted(float(x) for x in limits), math.inf]
        for pricing in catalog.commitment_options(name):
            option = catalog.pricing_options[pricing]
            discounted = discounted_rate(catalog, pricing, name)
            if option.kind == "savings_plan":
                known = plans.get(pricing)
                rates = {**(known.rates if known else {}), name: discounted}
                plans[pricing] = SavingsPlan(pricing, pricing, rates, option.max_usd_per_hour)
                continue
            usable = option.usable_fraction.value if option.usable_fraction else 1.0
            for unit in acc.units():
                key = reservation_key(pricing, name, unit.chips)
                reservations[key] = Reservation(
                    key=key,
                    pricing=pricing,
                    accelerator=name,
                    unit_chips=unit.chips,
                    max_replica_chips=unit.max_replica_chips,
                    max_units=unit.max_units,
                    usable=usable,
                    unit_monthly_usd=unit.chips * hours * discounted,
                    rate_usd_per_chip_hour=discounted / usable,
                )
    owned: list[OwnedEntry] = []
    for entry in catalog.owned_commitments:
        option = catalog.pricing_options[entry.pricing]
        if option.kind == "savings_plan":
            plan = plans[entry.pricing]
            assert entry.usd_per_hour is not None  # checked by the catalog
            cost = (
                entry.monthly_usd if entry.monthly_usd is not None else entry.usd_per_hour * hours
            )
            plans[entry.pricing] = replace(
                plan,
                owned_usd_per_hour=plan.owned_usd_per_hour + entry.usd_per_hour,
                owned_monthly_usd=plan.owned_monthly_usd + cost,
            )
            owned.append(
                OwnedEntry(
                    plan.key,
                    entry.pricing,
                    None,
                    None,
                    None,
                    entry.usd_per_hour,
                    entry.months_left,
                    cost,
                )
            )
            continue
        assert entry.accelerator is not None and entry.units is not None  # checked by the catalog
        acc = catalog.accelerators[entry.accelerator]
        chips = entry.unit_chips if entry.unit_chips is not None else acc.units()[0].chips
        key = reservation_key(entry.pricing, entry.accelerator, chips)
        product = reservations[key]
        cost = (
            entry.monthly_usd
            if entry.monthly_usd is not None
            else entry.units * product.unit_monthly_usd
        )
        reservations[key] = replace(
            product,
            owned_units=product.owned_units + entry.units,
            owned_monthly_usd=product.owned_monthly_usd + cost,
        )
        owned.append(
            OwnedEntry(
                key,
                entry.pricing,
                entry.accelerator,
                chips,
                entry.units,
                None,
                entry.months_left,
                cost,
            )
        )
    return CommitmentBook(list(reservations.values()), list(plans.values()), owned, classes)
