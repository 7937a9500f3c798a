"""Holding a plan's first-stage decisions: what it commits to, ports and migrates is decided
once and cannot change within a month; where work runs and what is paid on demand can.

Used to price a plan under figures other than those it was made with (``placement risk``: the
base plan held fixed in each sample) and, in stochastic programming's terms, to evaluate a
first stage against a scenario's recourse.
"""

from __future__ import annotations

from dataclasses import dataclass

from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.formulating.model import PlacementModel
from placement.models.catalog import Catalog


@dataclass(frozen=True)
class FirstStage:
    """Reservation units bought per product key, savings-plan USD per hour bought per product
    key, the (family, platform) pairs ported and the platforms whose migration is adopted."""

    units: dict[str, int]
    plan_usd: dict[str, float]
    ported: frozenset[tuple[str, str]]
    adopted: frozenset[str]

    @classmethod
    def nothing(cls) -> FirstStage:
        """Nothing bought, ported or migrated (the stage of a plan that has no solution)."""
        return cls({}, {}, frozenset(), frozenset())


@dataclass(frozen=True)
class FirstStagePrices:
    """What one unit of each first-stage decision a model has no variable for costs a month
    (as ``set_objective`` prices those it has): a reservation unit ``P_q`` and a savings plan's
    USD per hour (``H`` hours) by product key, a family's port ``w_s E / M`` and a migration
    ``G_s / M`` by platform."""

    units: dict[str, float]
    plan_usd: dict[str, float]
    port: dict[str, float]
    adopt: dict[str, float]


def unmodelled_prices(model: PlacementModel, catalog: Catalog) -> FirstStagePrices:
    """The monthly prices of the first-stage decisions ``model`` holds no variable for (the
    ports and migrations by platform: the caller knows which pairs it lacks)."""
    months = catalog.economics.amortization_months.value
    hours = catalog.economics.hours_per_month.value
    return FirstStagePrices(
        units={
            q.key: q.unit_monthly_usd for q in model.book.reservations if q.key not in model.units
        },
        plan_usd={p.key: hours for p in model.book.savings_plans if p.key not in model.plan_usd},
        port={s: porting_one_off_usd(catalog, s) / months for s in catalog.platforms},
        adopt={s: migration_one_off_usd(catalog, s) / months for s in catalog.platforms},
    )


class FirstStageInfeasible(Exception):
    """The held decisions leave some workload nowhere to run (its only place needs a port or a
    migration the first stage did not make)."""


def hold_first_stage(model: PlacementModel, stage: FirstStage, catalog: Catalog) -> float:
    """Fix the model's first-stage variables to ``stage`` and return the monthly cost of the
    decisions the model has no variable for (sunk: paid whatever the placement).

    .. math:: z_q = \\bar z_q,\\quad Z_q = \\bar Z_q,\\quad
        \\mathit{port}_{f,s} = [\\,(f,s) \\in \\bar P\\,],\\quad
        \\mathit{adopt}_s = [\\,s \\in \\bar S\\,]

    A port or migration the model has no variable for (no option of this model needs it) is
    still paid: ``w_s E / M`` or ``G_s / M`` at this catalog's figures; so are units of a
    product the model does not hold a variable for (its accelerator has no option here).
    Raises :class:`FirstStageInfeasible` where a workload's only place needs a port or a
    migration the stage did not make (the model forces it: its lower bound is 1).
    """
    forced = [
        f"{family} ported to {platform}"
        for (family, platform), var in model.port.items()
        if (var.lowBound or 0) > 0.5 and (family, platform) not in stage.ported
    ] + [
        f"the {platform} migration"
        for platform, var in model.adopt.items()
        if (var.lowBound or 0) > 0.5 and platform not in stage.adopted
    ]
    if forced:
        raise FirstStageInfeasible("some workload can run only with " + ", ".join(forced))
    for key, var in model.units.items():
        var.lowBound = var.upBound = stage.units.get(key, 0)
    for key, var in model.plan_usd.items():
        var.lowBound = var.upBound = stage.plan_usd.get(key, 0.0)
    for pair, var in model.port.items():
        var.lowBound = var.upBound = int(pair in stage.ported)
    for platform, var in model.adopt.items():
        var.lowBound = var.upBound = int(platform in stage.adopted)
    prices = unmodelled_prices(model, catalog)
    sunk = sum(stage.units.get(key, 0) * usd for key, usd in prices.units.items())
    sunk += sum(stage.plan_usd.get(key, 0.0) * usd for key, usd in prices.plan_usd.items())
    sunk += sum(prices.port[s] for f, s in stage.ported if (f, s) not in model.port)
    sunk += sum(prices.adopt[s] for s in stage.adopted if s not in model.adopt)
    return sunk
