"""``risk --horizon``: the point roadmap held fixed in every sample, month by month.

The point roadmap (``plan --horizon``) decides where each workload runs each month, what is
ported and migrated when, and what is bought for which term. A sample cannot change those
decisions (they are made before its figures are known); it changes what they cost, month by
month (``placement.horizon.held``). Over the samples, each month's spread is the fan chart of
the roadmap's monthly cost, and the spread of their sum the horizon's.

Where every figure has a range of zero width, every sample's months are the point's: the months
priced alone at the catalog's points (``point_usd``), each within the solver's gap of what the
roadmap reports (``planned_usd``; the roadmap prices its months together, within the gap of
the horizon's total).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from placement.models.catalog import Catalog
from placement.models.plan import Roadmap
from placement.models.risk import MonthSpread, RiskHorizon
from placement.pipeline import PlanResult
from placement.solving.solver import SolverOptions
from placement.uncertainty.evaluate import SampleOutcome, held_roadmap
from placement.uncertainty.sampling import Figure
from placement.uncertainty.summary import cents, drivers, spread


def point_roadmap_months(
    planned: PlanResult, catalog: Catalog, solver: SolverOptions
) -> tuple[Roadmap | None, tuple[float, ...] | None]:
    """The point roadmap, and its months priced alone at the catalog's points (None: no
    roadmap, or one these prices cannot hold)."""
    roadmap = planned.plan.roadmap
    if roadmap is None:
        return None, None
    return roadmap, held_roadmap(roadmap, planned.estimates, catalog, solver)


def horizon_summary(
    horizon: int,
    planned: PlanResult,
    point_months: tuple[float, ...] | None,
    figures: Sequence[Figure],
    values: np.ndarray,
    outcomes: Sequence[SampleOutcome],
) -> RiskHorizon:
    """The spreads of the held roadmap over ``horizon`` months, over the samples that priced
    it (see the module)."""
    roadmap = planned.plan.roadmap
    months = roadmap.horizon_months if roadmap is not None else horizon
    good = [o for o in outcomes if o.error is None]
    priced = [o.roadmap_months for o in good if o.roadmap_months is not None]
    by_month = np.array(priced, dtype=float).reshape(len(priced), months)
    totals = {o.index: o.roadmap_usd for o in good if o.roadmap_usd is not None}
    fan = []
    if roadmap is not None and point_months is not None:
        for m, (planned_month, point) in enumerate(zip(roadmap.months, point_months, strict=True)):
            month = spread(by_month[:, m].tolist())
            fan.append(
                MonthSpread(
                    month=m + 1,
                    planned_usd=planned_month.cost_usd,
                    point_usd=round(point, 2),
                    mean=month.mean,
                    p10=month.p10,
                    p50=month.p50,
                    p90=month.p90,
                )
            )
    return RiskHorizon(
        horizon_months=months,
        roadmap_status=planned.plan.status,
        planned_total_usd=None if roadmap is None else roadmap.total_usd,
        point_total_usd=None if point_months is None else cents(sum(point_months)),
        total_usd=spread(list(totals.values())),
        broken_samples=sum(o.roadmap_broken for o in good),
        months=fan,
        drivers=drivers(figures, values, [totals.get(i) for i in range(len(values))])
        if figures
        else [],
    )
