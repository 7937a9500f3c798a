"""Near-optimal alternatives (modelling to generate alternatives, as PyPSA's ``optimize_mga``).

A planner often prefers a plan a little dearer that commits to much less, ports fewer families
or does not migrate at all. For each measure ``m`` below, with the plan's cost ``C*`` and the
slack ``s`` asked, two solves of the plan's own model find the alternative:

.. math:: m^* = \\min\\ m(x) \\quad \\text{s.t. the plan's constraints},\\quad
    \\mathrm{cost}(x) \\le (1 + s)\\, C^*

.. math:: \\min\\ \\mathrm{cost}(x) \\quad \\text{s.t. the same},\\quad m(x) \\le m^*

(lexicographic: the least of the measure, then the cheapest plan with it; the second solve
counts cover in whole chips as every plan's does). Measures:

- ``fewest_ported_families``: :math:`\\sum_{f,s} \\mathit{port}_{f,s}`;
- ``least_trainium``: chip-hours on accelerators of platforms that need porting (Trainium2 in
  the default catalog), :math:`\\sum_{(j,a): a \\in A_{port}} h_{j,a} x_{j,a}`;
- ``least_committed``: USD a month of commitments bought,
  :math:`\\sum_q P_q z_q + \\sum_q H Z_q`;
- ``no_migration``: platform migrations started, :math:`\\sum_s \\mathit{adopt}_s`.

An alternative is kept only if its cost, as assembled, is within the slack of the plan's; the
plan itself is the reference (it is proven within the solver's gap of the optimum).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import pulp

from placement.analysing.assembly import assemble_plan
from placement.analysing.extract import extract_solution
from placement.formulating.build import build_model
from placement.formulating.model import PlacementModel
from placement.models.catalog import Catalog
from placement.models.plan import Alternative, AlternativeObjective, Plan
from placement.pipeline import PlanResult
from placement.solving.solver import SolverOptions, solve_model
from placement.solving.whole_chips import solve_plan_model

CENT_USD = 0.01
"""An alternative may exceed the cost cap by no more than this (rounding to cents)."""

MEASURE_TOLERANCE = 1e-6
"""The second solve keeps the measure within this relative margin of the first's optimum
(the solver's feasibility tolerance; an integer measure is unaffected)."""

Measure = Callable[[PlacementModel, Catalog], pulp.LpAffineExpression]


def _ports(model: PlacementModel, catalog: Catalog) -> pulp.LpAffineExpression:
    return pulp.LpAffineExpression([(var, 1.0) for var in model.port.values()])


def _trainium(model: PlacementModel, catalog: Catalog) -> pulp.LpAffineExpression:
    porting = set(catalog.porting_accelerators())
    opts = model.options
    return model.placed(
        (int(oid), float(hours))
        for oid, acc, hours in zip(opts.index, opts["accelerator"], opts["chip_hours"], strict=True)
        if acc in porting
    )


def _committed(model: PlacementModel, catalog: Catalog) -> pulp.LpAffineExpression:
    # The objective's commitments term (``set_objective``): what is bought, plus what is owned
    # as a constant, which the lexicographic solves leave out of the measure.
    return model.costs["reserved_usd"]


def _migrations(model: PlacementModel, catalog: Catalog) -> pulp.LpAffineExpression:
    return pulp.LpAffineExpression([(var, 1.0) for var in model.adopt.values()])


@dataclass(frozen=True)
class _Objective:
    name: AlternativeObjective
    description: str
    unit: str
    measure: Measure


OBJECTIVES = (
    _Objective("fewest_ported_families", "fewest families ported", "families", _ports),
    _Objective(
        "least_trainium",
        "least work needing a port (Trainium2)",
        "chip-hours/month",
        _trainium,
    ),
    _Objective("least_committed", "least committed", "$/month bought", _committed),
    _Objective("no_migration", "no migration (or the fewest)", "migrations", _migrations),
)


def plan_measure(plan: Plan, objective: AlternativeObjective, catalog: Catalog) -> float:
    """The plan's own value of a measure, read from the plan."""
    if objective == "fewest_ported_families":
        return float(len(plan.ported_families))
    if objective == "no_migration":
        return float(len(plan.migrations))
    if objective == "least_committed":
        return round(sum(c.monthly_cost_usd for c in plan.commitments if not c.owned), 2)
    porting = set(catalog.porting_accelerators())
    return round(sum(a.chip_hours for a in plan.assignments if a.accelerator in porting), 2)


def near_optimal_alternatives(
    result: PlanResult, slack: float, solver: SolverOptions | None = None
) -> list[Alternative]:
    """One alternative per measure that has one within ``slack`` (0.01: 1%) of the plan's cost
    (see the module's docstring); none where the plan has no cost."""
    solver = solver or SolverOptions()
    optimum = result.plan.objective_monthly_usd
    if optimum is None or result.solution is None:
        return []
    found = []
    for objective in OBJECTIVES:
        alternative = _alternative(result, objective, optimum, slack, solver)
        if alternative is not None:
            found.append(alternative)
    return found


def _alternative(
    result: PlanResult,
    objective: _Objective,
    optimum: float,
    slack: float,
    solver: SolverOptions,
) -> Alternative | None:
    estimates, catalog = result.estimates, result.catalog
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog)
    problem = model.problem
    cost = problem.objective
    assert cost is not None  # set_objective always sets one
    cap = optimum * (1 + slack)
    problem.addConstraint(cost <= cap, "alternative_cost_cap")
    measure = objective.measure(model, catalog)
    if len(measure):
        problem.setObjective(measure)
        first = solve_model(model, solver.solver, solver.time_limit_s, solver.gap)
        if not first.has_solution or first.objective is None:
            return None
        best = first.objective - measure.constant
        bound = best + MEASURE_TOLERANCE * max(1.0, abs(best))
        problem.addConstraint(measure <= bound + measure.constant, "alternative_measure_cap")
        problem.setObjective(cost)
    second = solve_plan_model(model, catalog, solver)
    if not second.has_solution:
        return None
    solution = extract_solution(model, catalog)
    plan = assemble_plan(
        estimates, catalog, result.inventory.extra_columns, second, solution, result.plan.baselines
    )
    total = plan.objective_monthly_usd
    if total is None or total > cap + CENT_USD:
        return None
    return Alternative(
        objective=objective.name,
        description=objective.description,
        monthly_cost_usd=total,
        within=round(total / optimum - 1, 6) if optimum else 0.0,
        extra_cost_usd=round(total - optimum, 2),
        measure=plan_measure(plan, objective.name, catalog),
        measure_unit=objective.unit,
        plan_measure=plan_measure(result.plan, objective.name, catalog),
        status=plan.status,
        assignments=plan.assignments,
        unplaced=plan.unplaced,
        reserved_purchases=plan.reserved_purchases,
        ported_families=plan.ported_families,
        migrations=plan.migrations,
        commitments=plan.commitments,
        cost_breakdown=plan.cost_breakdown,
        finops=plan.finops,
        slices=plan.slices,
    )


def with_alternatives(
    result: PlanResult, slack: float, solver: SolverOptions | None = None
) -> PlanResult:
    """The plan result with its ``alternatives`` found (``near_optimal_alternatives``)."""
    found = near_optimal_alternatives(result, slack, solver)
    return replace(result, plan=result.plan.model_copy(update={"alternatives": found}))
