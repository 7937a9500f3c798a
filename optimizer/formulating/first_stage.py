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
    sunk = 0.0
    months = catalog.economics.amortization_months.value
    for key, var in model.units.items():
        var.lowBound = var.upBound = stage.units.get(key, 0)
    for q in model.book.reservations:
        if q.key not in model.units:
            sunk += stage.units.get(q.key, 0) * q.unit_monthly_usd
    hours = catalog.economics.hours_per_month.value
    for key, var in model.plan_usd.items():
        var.lowBound = var.upBound = stage.plan_usd.get(key, 0.0)
    for plan in model.book.savings_plans:
        if plan.key not in model.plan_usd:
            sunk += stage.plan_usd.get(plan.key, 0.0) * hours
    for pair, var in model.port.items():
        var.lowBound = var.upBound = int(pair in stage.ported)
    for _family, platform in stage.ported - model.port.keys():
        sunk += porting_one_off_usd(catalog, platform) / months
    for platform, var in model.adopt.items():
        var.lowBound = var.upBound = int(platform in stage.adopted)
    for platform in stage.adopted - model.adopt.keys():
        sunk += migration_one_off_usd(catalog, platform) / months
    return sunk
