"""What the samples say: spreads, regret, the chances that migrating pays, where each workload
lands, and which figures drive the optimum."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from placement.models.risk import Driver, FigureDrawn, Regret, SampleCosts, Spread
from placement.uncertainty.evaluate import SampleOutcome
from placement.uncertainty.sampling import Figure

CENT_USD = 0.01
"""Costs closer than this (and than the solver's gap) are equal: neither plan beats the other."""


def spread(values: Sequence[float | None]) -> Spread:
    """Mean and P10/P50/P90 of the values that are defined (linear interpolation)."""
    known = np.array([v for v in values if v is not None], dtype=float)
    if not len(known):
        return Spread(mean=None, p10=None, p50=None, p90=None, samples=0)
    p10, p50, p90 = np.percentile(known, [10, 50, 90])
    return Spread(
        mean=_cents(known.mean()),
        p10=_cents(p10),
        p50=_cents(p50),
        p90=_cents(p90),
        samples=len(known),
    )


def regret_of(outcome: SampleOutcome) -> float | None:
    """The base plan held fixed minus the sample's optimum (never negative: the optimum takes
    the held plan's cost where that is lower, ``evaluate``)."""
    if outcome.base_plan_usd is None or outcome.optimal_usd is None:
        return None
    return max(0.0, outcome.base_plan_usd - outcome.optimal_usd)


def regret(outcomes: Sequence[SampleOutcome]) -> Regret:
    known = np.array([r for o in outcomes if (r := regret_of(o)) is not None], dtype=float)
    if not len(known):
        return Regret(mean=None, p90=None, max=None, samples=0)
    return Regret(
        mean=_cents(known.mean()),
        p90=_cents(np.percentile(known, 90)),
        max=_cents(known.max()),
        samples=len(known),
    )


def beats(
    costs: Sequence[float | None], references: Sequence[float | None], gap: float
) -> float | None:
    """Share of the samples (where both are defined) in which a cost is below its reference by
    more than the solver's relative gap (and a cent): a difference the solves cannot tell from
    zero is not a win."""
    pairs = [
        (c, r) for c, r in zip(costs, references, strict=True) if c is not None and r is not None
    ]
    if not pairs:
        return None
    wins = sum(c < r - max(CENT_USD, gap * abs(r)) for c, r in pairs)
    return wins / len(pairs)


def trainium_share(placements: pd.DataFrame, accelerators: set[str]) -> dict[str, float]:
    """Per workload id, the share of samples whose optimum runs it on one of ``accelerators``."""
    if placements.empty:
        return {str(c): 0.0 for c in placements.columns}
    on = placements.isin(accelerators)
    return {str(c): float(on[c].mean()) for c in placements.columns}


def drivers(
    figures: Sequence[Figure], values: np.ndarray, costs: Sequence[float | None]
) -> list[Driver]:
    """Each figure's pull on the optimum over the samples where it is defined, largest first:
    the least-squares slope of the optimum on the figure times the figure's range, and
    Spearman's rank correlation."""
    rows = [i for i, c in enumerate(costs) if c is not None]
    if len(rows) < 3:
        return []
    y = np.array([costs[i] for i in rows], dtype=float)
    found = []
    for column, figure in enumerate(figures):
        x = values[rows, column]
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            slope, rho = 0.0, 0.0
        else:
            slope = float(np.cov(x, y, bias=True)[0, 1] / np.var(x))
            # Spearman's rho: Pearson's correlation of the ranks (ties share their mean rank).
            rho = float(pd.Series(x).rank().corr(pd.Series(y).rank()))
        found.append(
            Driver(
                path=figure.path,
                effect_usd=_cents(slope * (figure.high - figure.low)),
                rank_correlation=0.0 if math.isnan(rho) else round(rho, 4),
                low=figure.low,
                point=figure.point,
                high=figure.high,
            )
        )
    return sorted(found, key=lambda d: (-abs(d.effect_usd), d.path))


def figures_drawn(figures: Sequence[Figure]) -> list[FigureDrawn]:
    return [
        FigureDrawn(
            path=f.path,
            low=f.low,
            point=f.point,
            high=f.high,
            distribution=f.distribution,
            linked=f.group,
            against=f.against,
        )
        for f in figures
    ]


def sample_costs(outcome: SampleOutcome) -> SampleCosts:
    return SampleCosts(
        sample=outcome.index,
        optimal_usd=cents(outcome.optimal_usd),
        base_plan_usd=cents(outcome.base_plan_usd),
        all_h100_usd=cents(outcome.all_h100_usd),
        staying_usd=cents(outcome.staying_usd),
        regret_usd=cents(regret_of(outcome)),
        error=outcome.error,
        roadmap_usd=cents(outcome.roadmap_usd),
    )


def _cents(value: float) -> float:
    return round(float(value), 2)


def cents(value: float | None) -> float | None:
    """A monthly cost rounded to the cent, as results state them (None stays None)."""
    return None if value is None else _cents(value)
