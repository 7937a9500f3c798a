"""A start proven good enough without a search: the bound of a relaxation against its cost.

The greedy placement, priced in whole chips (``solving.start``), is a plan; the LP relaxation of
the model with short work pooled by group (``FormulationSettings.aggregate_short_work``) is a
relaxation of every plan's model, so its optimum ``L`` is at most the optimum's cost. Where the
start costs ``U`` with

.. math:: \\frac{U - L}{U} \\le \\text{gap},

the start is within the gap of the optimum, as a MILP solve stopped at that gap would prove, and
is the plan. At fleet scale the relaxation's LP is a small fraction of the MILP's time (at 10,000
workloads 0.3 s against 2-5 s; per-job short-work rows make the MILP's LP large), and the start
is the plan that HiGHS would otherwise take that time to prove (docs/performance.md). Where the
bound is not close enough, the MILP is solved as before, from the same start.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from placement.estimating import Estimates
from placement.formulating.build import build_model
from placement.formulating.model import FormulationSettings, PlacementModel
from placement.models.catalog import Catalog
from placement.solving.solver import (
    SolveResult,
    SolverOptions,
    SolveStatus,
    relative_gap,
    solve_model,
)


@dataclass(frozen=True)
class Bound:
    """The relaxation's optimum (None where it has none) and the time it took, s."""

    usd: float | None
    time_s: float


def relaxation_bound(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    settings: FormulationSettings | None = None,
) -> Bound:
    """The LP relaxation's optimum of the model with short work pooled: a lower bound on the
    cost of every plan the model under ``settings`` allows."""
    return pooled_relaxation(estimates, catalog, solver, settings)[1]


def pooled_relaxation(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    settings: FormulationSettings | None = None,
) -> tuple[PlacementModel, Bound]:
    """``relaxation_bound``, with the model it solved (its variables holding the relaxation's
    values), for a caller that solves it again under other bounds (``placement.uncertainty.
    held_rounding``: the base plan held fixed, on the same sample)."""
    started = time.perf_counter()
    pooled = replace(settings or FormulationSettings(), aggregate_short_work=True)
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog, pooled)
    result = solve_model(model, solver.solver, solver.time_limit_s, solver.gap, relax=True)
    usd = result.objective if result.status == SolveStatus.OPTIMAL else None
    return model, Bound(usd, time.perf_counter() - started)


def proven_within_gap(start: SolveResult, bound: Bound, gap: float) -> SolveResult | None:
    """``start`` (a plan's solve) as the plan's result where the bound proves it within ``gap``
    of the optimum; None where it does not."""
    if start.objective is None or bound.usd is None or not start.has_solution:
        return None
    proven = relative_gap(start.objective, bound.usd)
    if proven > gap:
        return None
    return replace(
        start,
        status=SolveStatus.OPTIMAL,
        time_s=start.time_s + bound.time_s,
        gap=proven,
        termination=f"{start.termination}; the greedy start is the plan: within "
        f"{proven:.4%} of the bound of the LP relaxation with short work pooled "
        f"(${bound.usd:,.2f} a month), no search needed",
    )


def proving_cost(bound: float, gap: float) -> float:
    """The cost at which a plan is proven within ``gap`` by a lower bound ``bound`` on every
    plan's cost: ``U - L <= gap |U|``."""
    return bound / (1.0 - gap) if bound >= 0 else bound / (1.0 + gap)


def proven_by(cost: float, bound: float, gap: float) -> bool:
    """Whether a plan costing ``cost`` is proven within ``gap`` of the optimum by ``bound``."""
    return cost - bound <= gap * abs(cost)
